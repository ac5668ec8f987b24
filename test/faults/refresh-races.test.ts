/**
 * A refresh whose family another request changes between the family's read and the rotation's
 * conditional write (lib/oauth/grants/refresh-token-grant.ts step 7, docs/decisions/009): the refused
 * write returns the family as it now is (ALL_OLD), and the refresh decides from that. A proxy in
 * front of DynamoDB Local holds the rotation's write while the other request runs, so each race is
 * met exactly, where test/http/refresh.test.ts's concurrent refreshes meet them only by chance.
 * Both of the rotation's forms are raced: a JWT client's single update, and an opaque client's
 * transaction with its access token's record (whose refusal comes back as a cancelled transaction).
 */
import { capturedLogs, rememberSecret } from '../support/log-capture';
import { startFailingDynamoDbProxy, type DynamoDbRequest, type FailingDynamoDbProxy } from '../support/failing-dynamodb-proxy';
import {
  LOCAL_API_KEY,
  logEntries,
  requiredEnv,
  startTestService,
  uniqueEmail,
  type TestResponse,
  type TestService,
} from '../support/harness';

const TOKEN = '/idp/v1/account/token';
const REFUSED = { error: 'invalid_grant', error_description: 'The refresh token is invalid, expired, revoked, or was already used.' };
const ROTATION = 'SET #current = :successor';

/** The rotation's write (refresh-token-store.ts rotate): an update, or the transaction that holds it. */
const isRotation = ({ operation, body }: DynamoDbRequest) => {
  if (operation === 'UpdateItem') return body.UpdateExpression?.startsWith(ROTATION) === true;
  const items = (body.TransactItems ?? []) as Array<{ Update?: { UpdateExpression?: string } }>;
  return operation === 'TransactWriteItems' && items[0]?.Update?.UpdateExpression?.startsWith(ROTATION) === true;
};

let proxy: FailingDynamoDbProxy;
let service: TestService;
beforeAll(async () => {
  proxy = await startFailingDynamoDbProxy(requiredEnv('TEST_DYNAMODB_ENDPOINT'));
  // local-web and local-opaque without a reuse interval; local-rs256 with one of 10 s.
  service = await startTestService({
    dynamodbEndpoint: proxy.endpoint,
    dynamodbRequestTimeoutMs: 10_000,
    config: (config) => ({
      ...config,
      clients: config.clients.map((entry) =>
        entry.id === 'local-rs256' ? { ...entry, refreshTokens: { ...entry.refreshTokens!, reuseIntervalSeconds: 10 } } : entry,
      ),
    }),
  });
});
afterEach(() => proxy.heal());
afterAll(async () => {
  await service.stop();
  await proxy.stop();
});

async function refresh(token: unknown, clientId: string): Promise<TestResponse> {
  const response = await service.postForm(TOKEN, { grant_type: 'refresh_token', refresh_token: token as string, client_id: clientId });
  for (const name of ['access_token', 'refresh_token']) {
    if (typeof response.body[name] === 'string') rememberSecret(response.body[name]);
  }
  return response;
}

async function login(clientId: string): Promise<string> {
  const response = await service.signIn(uniqueEmail('race'), { clientId });
  expect(response.status).toBe(200);
  return response.body.refresh_token as string;
}

/** The log entries with `message` written while `act` ran. */
async function logsOf<T>(act: () => Promise<T>): Promise<{ result: T; entries: (message: string) => Array<Record<string, unknown>> }> {
  const before = capturedLogs().length;
  const result = await act();
  const lines = capturedLogs().slice(before);
  return { result, entries: (message) => logEntries(lines, message) };
}

describe.each([
  ['a single update', 'local-web'],
  ['a transaction with the opaque access token', 'local-opaque'],
])('a rotation written as %s (%s)', (_form, clientId) => {
  it('is refused when the family was revoked between the read and the write: invalid_grant, reason revoked', async () => {
    const token = await login(clientId);
    proxy.interleave(isRotation, async () => {
      const revoked = await service.postForm('/idp/v1/account/revoke', { token, client_id: clientId });
      expect(revoked.status).toBe(200);
    });

    const { result, entries } = await logsOf(() => refresh(token, clientId));

    expect({ status: result.status, body: result.body }).toEqual({ status: 400, body: REFUSED });
    expect(entries('grant refused')).toEqual([expect.objectContaining({ client: clientId, grant: 'refresh_token', reason: 'revoked' })]);
    expect(entries('token issued')).toEqual([]);
  });

  it('is reuse when another request rotated the same token between the read and the write: the family is revoked', async () => {
    const token = await login(clientId);
    let winner: TestResponse | undefined;
    proxy.interleave(isRotation, async () => {
      winner = await refresh(token, clientId);
    });

    const { result, entries } = await logsOf(() => refresh(token, clientId));

    expect(winner?.status).toBe(200);
    expect({ status: result.status, body: result.body }).toEqual({ status: 400, body: REFUSED });
    expect(entries('refresh token reused')).toEqual([expect.objectContaining({ client: clientId, generation: 1 })]);
    expect(entries('grant refused')).toEqual([expect.objectContaining({ reason: 'reuse' })]);
    // The winner's successor belongs to the revoked family now.
    expect((await refresh(winner?.body.refresh_token, clientId)).body).toEqual(REFUSED);
  });
});

describe.each([
  ['a single update', 'local-web'],
  ['a transaction with the opaque access token', 'local-opaque'],
])('regression: the loser of a race with no reuse interval, its clock read before the winner’s rotation (%s, %s)', (_form, clientId) => {
  it('is reuse, never the winner’s successor: exactly one request gets tokens and the family is revoked', async () => {
    // Each request reads its clock once, first: the loser read it before the winner did, so its
    // `now` is earlier than the rotation the winner wrote (it was `now < rotatedAt + 0`: a "retry").
    const token = await login(clientId);
    let winner: TestResponse | undefined;
    proxy.interleave(isRotation, async () => {
      service.clock.advance(5);
      winner = await refresh(token, clientId);
    });

    const { result, entries } = await logsOf(() => refresh(token, clientId));

    expect(winner?.status).toBe(200);
    expect({ status: result.status, body: result.body }).toEqual({ status: 400, body: REFUSED });
    expect(entries('token issued')).toEqual([expect.not.objectContaining({ reuseInterval: expect.anything() })]);
    expect(entries('refresh token reused')).toEqual([expect.objectContaining({ client: clientId, generation: 1 })]);
    expect((await refresh(winner?.body.refresh_token, clientId)).body).toEqual(REFUSED);
  });
});

it('gives a request that lost the race within the reuse interval the winner’s successor, logged as the interval’s retry', async () => {
  const token = await login('local-rs256');
  let winner: TestResponse | undefined;
  proxy.interleave(isRotation, async () => {
    winner = await refresh(token, 'local-rs256');
  });

  const { result, entries } = await logsOf(() => refresh(token, 'local-rs256'));

  expect(result.status).toBe(200);
  expect(result.body.refresh_token).toBe(winner?.body.refresh_token);
  expect(entries('grant refused')).toEqual([]);
  // The winner's response, then the loser's (the winner ran while the loser's write was held).
  expect(entries('token issued')).toEqual([
    expect.not.objectContaining({ reuseInterval: expect.anything() }),
    expect.objectContaining({ client: 'local-rs256', grant: 'refresh_token', reuseInterval: true }),
  ]);
  // The family lives on: the successor both were given rotates.
  expect((await refresh(result.body.refresh_token, 'local-rs256')).status).toBe(200);
});

it('gives the loser of the race an opaque access token that introspection knows, when the reuse interval applies to an opaque client', async () => {
  // The opaque retry's record is written apart from the rotation it lost (refresh-token-grant.ts).
  const opaque = await startTestService({
    dynamodbEndpoint: proxy.endpoint,
    dynamodbRequestTimeoutMs: 10_000,
    config: (config) => ({
      ...config,
      clients: config.clients.map((entry) =>
        entry.id === 'local-opaque' ? { ...entry, refreshTokens: { ...entry.refreshTokens!, reuseIntervalSeconds: 10 } } : entry,
      ),
    }),
  });
  try {
    const signedIn = await opaque.signIn(uniqueEmail('race'), { clientId: 'local-opaque' });
    const token = signedIn.body.refresh_token as string;
    const refreshHere = (presented: unknown) =>
      opaque.postForm(TOKEN, { grant_type: 'refresh_token', refresh_token: presented as string, client_id: 'local-opaque' });
    let winner: TestResponse | undefined;
    proxy.interleave(isRotation, async () => {
      winner = await refreshHere(token);
    });

    const loser = await refreshHere(token);

    expect(winner?.status).toBe(200);
    expect(loser.status).toBe(200);
    expect(loser.body.refresh_token).toBe(winner?.body.refresh_token);
    expect(loser.body.access_token).not.toBe(winner?.body.access_token);
    for (const response of [winner!, loser]) {
      for (const name of ['access_token', 'refresh_token']) rememberSecret(response.body[name]);
      const introspected = await opaque.postForm(
        '/idp/v1/account/introspect',
        { token: response.body.access_token as string },
        { Authorization: `Bearer ${LOCAL_API_KEY}` },
      );
      expect(introspected.body).toEqual(expect.objectContaining({ active: true, client_id: 'local-opaque' }));
    }
  } finally {
    await opaque.stop();
  }
});

it.each([
  ['local-web', 'conditional'],
  ['local-opaque', 'first-item'],
] as const)(
  'is refused when the family’s item is gone by the write (%s: a refused condition without an item): reason revoked, never a 500',
  async (clientId, failure) => {
    const token = await login(clientId);
    const failedBefore = proxy.failed().length;
    proxy.failWhen(isRotation, failure);

    const { result, entries } = await logsOf(() => refresh(token, clientId));

    expect({ status: result.status, body: result.body }).toEqual({ status: 400, body: REFUSED });
    expect(entries('grant refused')).toEqual([expect.objectContaining({ reason: 'revoked' })]);
    expect(proxy.failed()).toHaveLength(failedBefore + 1);
  },
);

describe('an opaque client’s rotation cancelled for another reason than its condition', () => {
  it('is 503 when a concurrent transaction cancelled it and the family is unchanged: the token still works afterwards', async () => {
    const token = await login('local-opaque');
    proxy.failWhen(isRotation, 'conflict');

    const { result, entries } = await logsOf(() => refresh(token, 'local-opaque'));

    expect(result.status).toBe(503);
    expect(result.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    expect(result.headers.get('retry-after')).toBe('1');
    expect(entries('grant refused')).toEqual([]);
    expect(entries('request failed')).toEqual([expect.objectContaining({ detail: 'rotation cancelled by a concurrent transaction' })]);
    proxy.heal();
    expect((await refresh(token, 'local-opaque')).status).toBe(200);
  });

  it('is a bug (500), never a refusal, when the access token’s record was what failed: token hashes do not collide', async () => {
    const token = await login('local-opaque');
    proxy.failWhen(isRotation, 'second-item');

    const { result, entries } = await logsOf(() => refresh(token, 'local-opaque'));

    expect(result.status).toBe(500);
    expect(result.body.error).toBe('server_error');
    expect(entries('grant refused')).toEqual([]);
    expect(entries('unhandled error')).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ name: 'TransactionCanceledException' }) }),
    ]);
    proxy.heal();
    expect((await refresh(token, 'local-opaque')).status).toBe(200);
  });
});
