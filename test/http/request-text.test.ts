/**
 * The text rules every endpoint keeps, as a client sees them: a string that is not well-formed
 * Unicode (a lone surrogate) and a JSON member name given twice are refused with 400
 * invalid_request before any work: no DynamoDB request, nothing delivered.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { apiEvent, lambdaContext } from '../support/api-event';
import { createHandler as createSendHandler } from '../../functions/otp-send';
import { createHandler as createWellKnownHandler } from '../../functions/well-known';
import {
  LOCAL_API_KEY,
  REDIRECT_URI,
  startTestService,
  uniqueEmail,
  uniquePhone,
  type TestResponse,
  type TestService,
} from '../support/harness';

const SEND = '/idp/v1/otp/send';
const TOKEN = '/idp/v1/account/token';
const INTROSPECT = '/idp/v1/account/introspect';
const NOT_WELL_FORMED = { error: 'invalid_request', error_description: 'The request contains text that is not well-formed Unicode.' };
const REPEATED = { error: 'invalid_request', error_description: 'A JSON member name is repeated (RFC 7493 section 2.3 allows each once).' };

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

function emailSend(userId: string, extra: Record<string, unknown> = {}) {
  return { auth_type: 'email', client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: userId, ...extra };
}

/** Runs `act` and returns its response with the DynamoDB requests it caused. */
async function observed(act: () => Promise<TestResponse>): Promise<{ response: TestResponse; operations: readonly string[] }> {
  service.dynamodb.reset();
  const response = await act();
  return { response, operations: [...service.dynamodb.operations()] };
}

/** A body with its members written out, so that a name can appear twice. */
function rawObject(members: ReadonlyArray<readonly [string, unknown]>): string {
  return `{${members.map(([name, value]) => `${name.startsWith('"') ? name : JSON.stringify(name)}:${JSON.stringify(value)}`).join(',')}}`;
}

describe('a lone surrogate in the body: 400 before any work', () => {
  // Each case sends a request that would succeed but for the surrogate (JSON.stringify writes a
  // lone surrogate as the escape "\udxxx", as a client would).
  const cases: Array<{ name: string; body: (user: string) => Record<string, unknown> }> = [
    // Regression: the message reached the SES query serialiser, which cannot encode it.
    { name: 'in message', body: (user) => emailSend(user, { message: 'Your code: %code% \ud800' }) },
    { name: 'in user_id (a low surrogate)', body: (user) => emailSend(`${user}\udc00`) },
    { name: 'in a member name', body: (user) => ({ ...emailSend(user), 'x\ud83d': 'y' }) },
    { name: 'in a nested value', body: (user) => emailSend(user, { extra: { list: [1, { deep: 'a\udfff' }] } }) },
    { name: 'in a nested member name', body: (user) => emailSend(user, { extra: [{ '\udbff': true }] }) },
  ];

  it.each(cases)('$name', async ({ body }) => {
    const user = uniqueEmail('surrogate');
    const { response, operations } = await observed(() => service.post(SEND, body(user)));
    expect(response.status).toBe(400);
    expect(response.body).toEqual(NOT_WELL_FORMED);
    expect(operations).toEqual([]);
    expect(await service.outbox(user)).toEqual([]);
  });

  it('refuses one in the token and introspection endpoints too, JSON as form', async () => {
    const user = uniqueEmail('surrogate-token');
    const token = await observed(() =>
      service.post(TOKEN, {
        grant_type: 'authorization_code',
        code: '123456',
        client_id: 'local-web',
        redirect_uri: REDIRECT_URI,
        user_id: `${user}\ud800`,
      }),
    );
    const introspect = await observed(() =>
      service.post(INTROSPECT, { token: 'a\udc00' }, { headers: { Authorization: `Bearer ${LOCAL_API_KEY}` } }),
    );
    for (const { response, operations } of [token, introspect]) {
      expect(response.status).toBe(400);
      expect(response.body).toEqual(NOT_WELL_FORMED);
      expect(operations).toEqual([]);
    }
  });

  it('accepts well-formed text beyond ASCII: a surrogate pair and U+FFFD are text', async () => {
    const user = uniqueEmail('pair');
    const response = await service.post(SEND, emailSend(user, { message: 'Dein Code 😀 \ufffd: %code%' }));
    expect(response.status).toBe(200);
    expect(await service.outbox(user)).toHaveLength(1);
  });
});

describe('a lone surrogate outside the body: query, headers and path', () => {
  // HTTP cannot carry one to the local server (URL and header decoding replace what is not UTF-8
  // with U+FFFD), but an API Gateway event is a JSON document that can: these tests hand the
  // handlers the event directly, with the service's real dependencies.
  function eventFor(method: string, path: string, overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
    const requestContext = { requestId: 'test', httpMethod: method, path, resourcePath: path } as APIGatewayProxyEvent['requestContext'];
    return apiEvent({ resource: path, path, httpMethod: method, body: null, requestContext, ...overrides });
  }
  // A fresh invocation each time: a context made once would run out of time over the file's tests,
  // and a send with too little time left answers 503 before it stores a code.
  const context = () => lambdaContext();

  const cases: Array<{ name: string; overrides: Partial<APIGatewayProxyEvent> }> = [
    {
      name: 'a query parameter value',
      overrides: { queryStringParameters: { utm: '\ud800' }, multiValueQueryStringParameters: { utm: ['\ud800'] } },
    },
    {
      name: 'a query parameter name',
      overrides: { queryStringParameters: { '\udc00': 'x' }, multiValueQueryStringParameters: { '\udc00': ['x'] } },
    },
    {
      name: 'env_id',
      overrides: { queryStringParameters: { env_id: 'local\ud800' }, multiValueQueryStringParameters: { env_id: ['local\ud800'] } },
    },
    { name: 'a multi-value query parameter only', overrides: { multiValueQueryStringParameters: { utm: ['x', '\ud800'] } } },
    { name: 'a header value', overrides: { headers: { 'Content-Type': 'application/json', 'X-Trace': '\ud800' } } },
    { name: 'a header name', overrides: { headers: { 'Content-Type': 'application/json', 'X-\udc00': '1' } } },
    { name: 'a multi-value header only', overrides: { multiValueHeaders: { 'X-Trace': ['ok', '\udfff'] } } },
    { name: 'the path', overrides: { path: `${SEND}\ud800` } },
  ];

  it.each(cases)('otp/send: in $name, with a body that would otherwise send a code', async ({ overrides }) => {
    const user = uniqueEmail('event');
    const handler = createSendHandler(() => service.deps);
    service.dynamodb.reset();
    const result = await handler(eventFor('POST', SEND, { body: JSON.stringify(emailSend(user)), ...overrides }), context());
    expect({ status: result.statusCode, body: JSON.parse(result.body) as unknown }).toEqual({ status: 400, body: NOT_WELL_FORMED });
    expect(service.dynamodb.operations()).toEqual([]);
    expect(await service.outbox(user)).toEqual([]);
  });

  it('the same event without the surrogate sends the code (the cases above fail for the surrogate alone)', async () => {
    const user = uniqueEmail('event-ok');
    const handler = createSendHandler(() => service.deps);
    const result = await handler(
      eventFor('POST', SEND, {
        body: JSON.stringify(emailSend(user)),
        queryStringParameters: { utm: 'x' },
        multiValueQueryStringParameters: { utm: ['x'] },
      }),
      context(),
    );
    expect(result.statusCode).toBe(200);
    expect(await service.outbox(user)).toHaveLength(1);
  });

  it('GET /.well-known/jwks.json (a route without a body): in a query parameter or a header', async () => {
    const handler = createWellKnownHandler(() => service.deps);
    const path = '/.well-known/jwks.json';
    for (const overrides of [{ queryStringParameters: { x: '\ud800' } }, { headers: { Accept: '\udc00' } }]) {
      const result = await handler(eventFor('GET', path, overrides), context());
      expect({ status: result.statusCode, body: JSON.parse(result.body) as unknown }).toEqual({ status: 400, body: NOT_WELL_FORMED });
    }
    expect((await handler(eventFor('GET', path, { queryStringParameters: { x: 'é' } }), context())).statusCode).toBe(200);
  });
});

describe('a JSON member name given twice: 400 before any work, as a repeated form parameter', () => {
  it('otp/send: two user_id members (regression: JSON.parse kept the second silently and sent the code to it)', async () => {
    const first = uniqueEmail('first');
    const second = uniqueEmail('second');
    const body = rawObject([...Object.entries(emailSend(first)), ['user_id', second]]);
    const { response, operations } = await observed(() => service.post(SEND, body, { raw: true }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual(REPEATED);
    expect(operations).toEqual([]);
    expect(await service.outbox(first)).toEqual([]);
    expect(await service.outbox(second)).toEqual([]);
  });

  it('otp/send: the same name written with an escape ("\\u0075ser_id")', async () => {
    const user = uniquePhone();
    const body = rawObject([
      ['auth_type', 'sms'],
      ['client_id', 'local-web'],
      ['redirect_uri', REDIRECT_URI],
      ['user_id', user],
      ['"\\u0075ser_id"', uniquePhone()],
    ]);
    const { response, operations } = await observed(() => service.post(SEND, body, { raw: true }));
    expect(response.body).toEqual(REPEATED);
    expect(operations).toEqual([]);
    expect(await service.outbox(user)).toEqual([]);
  });

  it('otp/send: a name repeated inside a nested object', async () => {
    const user = uniqueEmail('nested');
    const body = rawObject([...Object.entries(emailSend(user)), ['extra', { list: [{ a: 1 }] }]]).replace('{"a":1}', '{"a":1,"a":2}');
    const { response, operations } = await observed(() => service.post(SEND, body, { raw: true }));
    expect(response.body).toEqual(REPEATED);
    expect(operations).toEqual([]);
    expect(await service.outbox(user)).toEqual([]);
  });

  it('token (JSON): two code members', async () => {
    const user = uniqueEmail('token-dup');
    const body = rawObject([
      ['grant_type', 'authorization_code'],
      ['code', '111111'],
      ['client_id', 'local-web'],
      ['redirect_uri', REDIRECT_URI],
      ['user_id', user],
      ['code', '222222'],
    ]);
    const { response, operations } = await observed(() => service.post(TOKEN, body, { raw: true }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual(REPEATED);
    expect(operations).toEqual([]);
  });

  it('introspect (JSON): two token members', async () => {
    const body = rawObject([
      ['token', 'x'.repeat(43)],
      ['token', 'y'.repeat(43)],
    ]);
    const { response, operations } = await observed(() =>
      service.post(INTROSPECT, body, { raw: true, headers: { Authorization: `Bearer ${LOCAL_API_KEY}` } }),
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual(REPEATED);
    expect(operations).toEqual([]);
  });
});
