/**
 * lib/platform/tracing.ts at run time: in a bundle that traces, on Lambda, every AWS call of a
 * `traced` client becomes an X-Ray subsegment of the invocation's segment, sent to the X-Ray
 * daemon's address, and it records no personal data; anywhere else the client is left as it was.
 *
 * As on Lambda: `LAMBDA_TASK_ROOT` (the X-Ray SDK's Lambda mode), `AWS_EXECUTION_ENV` (Powertools
 * traces only there), `_X_AMZN_TRACE_ID` (the invocation's trace header, which Lambda sets) and
 * `AWS_XRAY_DAEMON_ADDRESS`, here a UDP socket of the test's own on the loopback address. The
 * SDK's HTTP requests are answered in-process by the clients' request handler: nothing leaves the
 * machine. `IDENTITY_TRACING` is what the bundler turns into a constant (infra/bundling.ts).
 */
import { createSocket, type Socket } from 'node:dgram';
import { Readable } from 'node:stream';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type * as Tracing from '../../../lib/platform/tracing';

const TRACE_ROOT = '1-67891233-abcdef012345678912345678';
const PARENT = '53995c3f42cd8ad8';
const CREDENTIALS = { accessKeyId: 'AKIDTRACINGTEST', secretAccessKey: 'not-a-secret' };
const PHONE = '+447700900123';
const MESSAGE = 'Your code is 204816';

/** Answers every request with `status` and `body`, in-process, and counts them. */
function answering(status: number, body: string, headers: Record<string, string> = {}) {
  const handler = {
    requests: 0,
    handle: () => {
      handler.requests += 1;
      return Promise.resolve({
        response: {
          statusCode: status,
          reason: '',
          headers: { 'content-type': 'application/x-amz-json-1.0', ...headers },
          body: Readable.from([Buffer.from(body)]),
        },
      });
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
  return handler;
}

let daemon: Socket;
const documents: Array<Record<string, unknown>> = [];
const packets: string[] = [];
const saved = { ...process.env };

beforeAll(async () => {
  daemon = createSocket('udp4');
  daemon.on('message', (message) => {
    const text = message.toString('utf8');
    packets.push(text);
    // The daemon protocol: a JSON header line, then the (sub)segment document.
    documents.push(JSON.parse(text.slice(text.indexOf('\n') + 1)) as Record<string, unknown>);
  });
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
});

afterAll(() => {
  daemon.close();
});

afterEach(() => {
  process.env = { ...saved };
  documents.length = 0;
  packets.length = 0;
});

/** tracing.ts loaded afresh with `env` (it and the X-Ray SDK read theirs when they load). */
function loadTracing(env: Record<string, string>): typeof Tracing {
  Object.assign(process.env, env);
  let module: typeof Tracing | undefined;
  jest.isolateModules(() => {
    module = jest.requireActual<typeof Tracing>('../../../lib/platform/tracing');
  });
  if (module === undefined) throw new Error('tracing.ts did not load');
  return module;
}

function onLambda(): Record<string, string> {
  return {
    IDENTITY_TRACING: 'active',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    LAMBDA_TASK_ROOT: '/var/task',
    _X_AMZN_TRACE_ID: `Root=${TRACE_ROOT};Parent=${PARENT};Sampled=1`,
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
  };
}

async function received(count: number): Promise<void> {
  for (let waited = 0; documents.length < count && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
}

const middlewareNames = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().join(' ');

it('records a DynamoDB call as a subsegment of the invocation’s segment: service, operation, table, status', async () => {
  const { traced } = loadTracing(onLambda());
  const client = traced(
    new DynamoDBClient({ region: 'eu-west-1', credentials: CREDENTIALS, requestHandler: answering(200, '{"Item":{"pk":{"S":"x"}}}') }),
  );
  await client.send(new GetItemCommand({ TableName: 'identity-test', Key: { pk: { S: 'hmac-of-a-user' } } }));
  await received(1);
  expect(documents).toEqual([
    expect.objectContaining({
      type: 'subsegment',
      name: 'DynamoDB',
      namespace: 'aws',
      trace_id: TRACE_ROOT,
      parent_id: PARENT,
      aws: expect.objectContaining({ operation: 'GetItem', table_name: 'identity-test', region: 'eu-west-1' }),
      http: { response: { status: 200 } },
    }),
  ]);
  // The item's key is not in it (the allow-list records the table only).
  expect(packets.join('\n')).not.toContain('hmac-of-a-user');
});

it('marks a call the service refused: a throttled write is recorded with its throttle flag', async () => {
  const { traced } = loadTracing(onLambda());
  const client = traced(
    new DynamoDBClient({
      region: 'eu-west-1',
      credentials: CREDENTIALS,
      maxAttempts: 1,
      requestHandler: answering(400, '{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate exceeded"}'),
    }),
  );
  await expect(client.send(new PutItemCommand({ TableName: 'identity-test', Item: { pk: { S: 'k' } } }))).rejects.toThrow('Rate exceeded');
  await received(1);
  expect(documents).toEqual([expect.objectContaining({ name: 'DynamoDB', throttle: true, error: true })]);
});

it('records an SMS without its recipient or its text (personal data and a code never go to X-Ray)', async () => {
  const { traced } = loadTracing(onLambda());
  const response =
    '<PublishResponse><PublishResult><MessageId>m-1</MessageId></PublishResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></PublishResponse>';
  const client = traced(
    new SNSClient({
      region: 'eu-west-1',
      credentials: CREDENTIALS,
      requestHandler: answering(200, response, { 'content-type': 'text/xml' }),
    }),
  );
  await client.send(new PublishCommand({ PhoneNumber: PHONE, Message: MESSAGE }));
  await received(1);
  expect(documents).toEqual([
    expect.objectContaining({ name: 'SNS', namespace: 'aws', aws: expect.objectContaining({ operation: 'Publish' }) }),
  ]);
  expect(packets.join('\n')).not.toContain(PHONE);
  expect(packets.join('\n')).not.toContain('204816');
});

it.each([
  ['outside Lambda, even in a bundle that traces (npm start, the tests)', () => withoutLambda(onLambda())],
  ['when the bundle does not trace, even on Lambda', () => ({ ...onLambda(), IDENTITY_TRACING: 'off' })],
])('leaves a client untouched %s', async (_, environment) => {
  const { traced } = loadTracing(environment());
  const client = new DynamoDBClient({ region: 'eu-west-1', credentials: CREDENTIALS, requestHandler: answering(200, '{}') });
  const before = middlewareNames(client);
  expect(traced(client)).toBe(client);
  expect(middlewareNames(client)).toBe(before);
  await client.send(new GetItemCommand({ TableName: 'identity-test', Key: { pk: { S: 'k' } } }));
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(documents).toEqual([]);
});

function withoutLambda(environment: Record<string, string>): Record<string, string> {
  const { AWS_EXECUTION_ENV: _notOnLambda, ...elsewhere } = environment;
  return elsewhere;
}

it('adds the X-Ray middleware when it traces (the subsegments above come from it)', () => {
  const { traced } = loadTracing(onLambda());
  const client = traced(new DynamoDBClient({ region: 'eu-west-1', credentials: CREDENTIALS }));
  expect(middlewareNames(client)).toContain('XRaySDKInstrumentation');
});
