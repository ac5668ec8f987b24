/**
 * The audit forwarder (functions/audit-forwarder.ts, lib/audit/forward.ts) with the real
 * EventBridge SDK client against a stand-in that speaks EventBridge's JSON protocol on 127.0.0.1
 * (there is no EventBridge to run locally): a CloudWatch Logs subscription's payload in, PutEvents
 * requests of at most 10 entries out; the entries EventBridge refuses sent again, and what never
 * gets through logged and counted without an event's content.
 */
import { gzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import type { Context } from 'aws-lambda';
import { createHandler } from '../../../functions/audit-forwarder';
import { EventBridgeBus } from '../../../lib/adapters/eventbridge/event-bus';
import {
  AUDIT_FORWARDER_LOG_EVENTS,
  PUT_EVENTS_BATCH_SIZE,
  RETRY_PAUSE_MS,
  forwardSubscription,
  type ForwarderDeps,
} from '../../../lib/audit/forward';
import { eventIdOf } from '../../../lib/audit/mapping';
import { LOG_EVENTS } from '../../../lib/platform/log-events';
import type { Log } from '../../../lib/platform/ports';
import { listen, readBody, type Listening } from '../../../local/http-server';
import { auditEventProblems } from '../../support/audit-schemas';

interface PutEntry {
  readonly Source: string;
  readonly DetailType: string;
  readonly Detail: string;
  readonly EventBusName: string;
  readonly Time: number;
}
interface PutRequest {
  readonly target: string | undefined;
  readonly Entries: PutEntry[];
}

const BUS = 'identity-test';
const SOURCE = 'identity.test';
const requests: PutRequest[] = [];
/** How the stand-in answers an entry: undefined takes it, a string is its error code. */
let refuse: (entry: PutEntry, attempt: number) => string | undefined = () => undefined;
/** When set, every request fails as a whole with this error type (HTTP 500). */
let failAll: string | undefined;
let eventBridge: Listening;

beforeAll(async () => {
  eventBridge = await listen(
    createServer((request, response) => {
      void readBody(request, 1_000_000).then((body) => {
        const put = {
          target: request.headers['x-amz-target'] as string | undefined,
          ...(JSON.parse(String(body)) as { Entries: PutEntry[] }),
        };
        requests.push(put);
        if (failAll !== undefined) {
          response
            .writeHead(500, { 'Content-Type': 'application/x-amz-json-1.1' })
            .end(JSON.stringify({ __type: failAll, message: 'stand-in' }));
          return;
        }
        const attempt = requests.filter((earlier) =>
          earlier.Entries.some((entry) => put.Entries.some((mine) => mine.Detail === entry.Detail)),
        ).length;
        const results = put.Entries.map((entry) => {
          const error = refuse(entry, attempt);
          return error === undefined ? { EventId: `event-${requests.length}` } : { ErrorCode: error, ErrorMessage: 'stand-in' };
        });
        response
          .writeHead(200, { 'Content-Type': 'application/x-amz-json-1.1' })
          .end(JSON.stringify({ FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results }));
      });
    }),
  );
});

afterAll(() => eventBridge.stop());

beforeEach(() => {
  requests.length = 0;
  refuse = () => undefined;
  failAll = undefined;
});

interface Logged {
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

function deps(endpoint = eventBridge.url): { deps: ForwarderDeps; logged: Logged[]; pauses: number[] } {
  const logged: Logged[] = [];
  const record =
    (level: string) =>
    (message: string, ...extra: Array<Record<string, unknown>>) =>
      void logged.push({ level, message, fields: Object.assign({}, ...extra) as Record<string, unknown> });
  const log: Log = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  const pauses: number[] = [];
  const bus = EventBridgeBus.create(BUS, {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return {
    deps: {
      bus,
      source: SOURCE,
      log,
      sleep: (ms) => {
        pauses.push(ms);
        return Promise.resolve();
      },
    },
    logged,
    pauses,
  };
}

const USER = 'AbCdEfGhIj_-';
const TIME = '2026-11-26T10:00:00.000Z';

/** A subscription's Lambda event: `count` lines of `code sent` (one event each), as CloudWatch Logs sends it (gzip, base64). */
function subscription(count: number, extra: Array<Record<string, unknown>> = [], messageType = 'DATA_MESSAGE') {
  const lines = [
    ...Array.from({ length: count }, (_, index) => ({
      message: LOG_EVENTS.codeSent,
      timestamp: TIME,
      environment: 'local',
      client: `client-${index}`,
      channel: 'email',
      user: USER,
    })),
    ...extra,
  ];
  const data = {
    messageType,
    owner: '210987654321',
    logGroup: '/aws/lambda/Identity-test-OtpSend',
    logStream: '2026/11/26/[$LATEST]abc',
    subscriptionFilters: ['Identity-test-AuditEvents'],
    logEvents: lines.map((line, index) => ({ id: `line-${index}`, timestamp: Date.parse(TIME), message: JSON.stringify(line) })),
  };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(data))).toString('base64') } };
}

it('publishes a subscription’s events in PutEvents requests of at most 10, each to the bus with its source, type, detail and time', async () => {
  const { deps: forwarder, logged } = deps();

  const report = await forwardSubscription(forwarder, subscription(23));

  expect(report).toEqual({ published: 23, failed: 0, invalid: 0 });
  expect(requests.map((put) => put.Entries.length)).toEqual([PUT_EVENTS_BATCH_SIZE, PUT_EVENTS_BATCH_SIZE, 3]);
  expect(requests.every((put) => put.target === 'AWSEvents.PutEvents')).toBe(true);
  const entries = requests.flatMap((put) => put.Entries);
  expect(entries[4]).toEqual({
    EventBusName: BUS,
    Source: SOURCE,
    DetailType: 'code.sent',
    Time: Date.parse(TIME) / 1000,
    Detail: expect.any(String),
  });
  expect(JSON.parse(entries[4]!.Detail)).toEqual({
    version: 1,
    id: eventIdOf('line-4', { type: 'code.sent', version: 1 }),
    time: TIME,
    environment: 'local',
    client: 'client-4',
    channel: 'email',
    user: USER,
  });
  expect(entries.flatMap((entry) => auditEventProblems(entry.DetailType, 1, JSON.parse(entry.Detail)))).toEqual([]);
  expect(logged).toEqual([]);
});

it('sends the entries EventBridge refused again, alone, after a pause: nothing is lost, nothing published twice', async () => {
  const { deps: forwarder, logged, pauses } = deps();
  refuse = (entry, attempt) => (attempt === 1 && /client-(3|7)"/.test(entry.Detail) ? 'ThrottlingException' : undefined);

  const report = await forwardSubscription(forwarder, subscription(12));

  expect(report).toEqual({ published: 12, failed: 0, invalid: 0 });
  expect(requests.map((put) => put.Entries.length)).toEqual([10, 2, 2]);
  expect(requests[2]!.Entries.map((entry) => (JSON.parse(entry.Detail) as { client: string }).client)).toEqual(['client-3', 'client-7']);
  expect(pauses).toEqual([RETRY_PAUSE_MS]);
  expect(logged).toEqual([]);
});

it('logs and counts what is still refused after 3 attempts, by error code only, and reports it (the invocation succeeds: no whole-batch retry)', async () => {
  const { deps: forwarder, logged, pauses } = deps();
  refuse = (entry) => (entry.Detail.includes('"client-0"') ? 'InternalFailure' : undefined);

  const report = await forwardSubscription(forwarder, subscription(3));

  expect(report).toEqual({ published: 2, failed: 1, invalid: 0 });
  expect(requests.map((put) => put.Entries.length)).toEqual([3, 1, 1]);
  expect(pauses).toEqual([RETRY_PAUSE_MS, 2 * RETRY_PAUSE_MS]);
  expect(logged).toEqual([
    { level: 'error', message: AUDIT_FORWARDER_LOG_EVENTS.notPublished, fields: { count: 1, errors: { InternalFailure: 1 } } },
  ]);
});

it('counts a request that fails as a whole (after the SDK’s own retries) as each of its entries failed, by the error’s name', async () => {
  const { deps: forwarder, logged } = deps();
  failAll = 'InternalException';

  const report = await forwardSubscription(forwarder, subscription(2));

  expect(report).toEqual({ published: 0, failed: 2, invalid: 0 });
  // 3 attempts of ours, each one request retried by the SDK (3 attempts).
  expect(requests).toHaveLength(9);
  expect(logged).toEqual([
    { level: 'error', message: AUDIT_FORWARDER_LOG_EVENTS.notPublished, fields: { count: 2, errors: { InternalException: 2 } } },
  ]);
}, 30_000);

it('an unreachable EventBridge is every entry failed, logged, not an error of the invocation', async () => {
  const closed = await listen(createServer());
  await closed.stop();
  const { deps: forwarder, logged } = deps(closed.url);

  const report = await forwardSubscription(forwarder, subscription(1));

  expect(report).toEqual({ published: 0, failed: 1, invalid: 0 });
  expect(logged).toEqual([
    { level: 'error', message: AUDIT_FORWARDER_LOG_EVENTS.notPublished, fields: { count: 1, errors: expect.any(Object) } },
  ]);
}, 30_000);

it('drops a line that fits no schema, logging its type only; publishes the rest; ignores lines of no event and CloudWatch’s control message', async () => {
  const { deps: forwarder, logged } = deps();
  const leaking = {
    message: LOG_EVENTS.codeSent,
    timestamp: TIME,
    environment: 'local',
    client: 'local-web',
    channel: 'email',
    user: 'alice@example.com',
  };

  const report = await forwardSubscription(
    forwarder,
    subscription(1, [leaking, { message: LOG_EVENTS.userInfoServed, client: 'local-web' }]),
  );
  const control = await forwardSubscription(forwarder, subscription(3, [], 'CONTROL_MESSAGE'));

  expect(report).toEqual({ published: 1, failed: 0, invalid: 1 });
  expect(control).toEqual({ published: 0, failed: 0, invalid: 0 });
  expect(requests.map((put) => put.Entries.length)).toEqual([1]);
  expect(logged).toEqual([
    { level: 'warn', message: AUDIT_FORWARDER_LOG_EVENTS.invalid, fields: { count: 1, types: { 'code.sent v1': 1 } } },
  ]);
  expect(JSON.stringify(logged)).not.toContain('alice');
});

it('the Lambda handler forwards a subscription’s lines with its container’s bus', async () => {
  const { deps: forwarder } = deps();
  const handler = createHandler(() => forwarder);

  const report = await handler(subscription(2), { functionName: 'audit-forwarder', awsRequestId: 'request-1' } as Context);

  expect(report).toEqual({ published: 2, failed: 0, invalid: 0 });
  expect(requests).toHaveLength(1);
});
