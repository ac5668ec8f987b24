/**
 * A storage failure at one precise step of an operation (each `catch` on these paths is tested:
 * emptied, a test here fails). A proxy in front of DynamoDB Local fails exactly the write the test
 * names, as DynamoDB fails an internal error (HTTP 500, retried by the SDK, failing again):
 *
 * - the guess's write (spending a try): 503 temporarily_unavailable, never a refusal that would
 *   tell the user their right code is wrong; the code is untouched and works afterwards;
 * - counting a failed exchange into the user's failure run: 503, never a silent 400 that would let
 *   a guesser past the cap;
 * - putting back the last delivered code after a failed delivery: still the 502 of the delivery
 *   (the storage failure is not raised over it), and logged as `discard failed` for the operator.
 */
import { capturedLogs } from '../support/log-capture';
import { LoginSession } from '../support/login-flow';
import { startFailingDynamoDbProxy, type DynamoDbRequest, type FailingDynamoDbProxy } from '../support/failing-dynamodb-proxy';
import {
  exchangeBody,
  logEntries,
  requiredEnv,
  SEND_PATH,
  sendBody,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  uniquePhone,
  type TestService,
} from '../support/harness';

const REVOKE_PATH = '/idp/v1/account/revoke';
const UNAVAILABLE = { error: 'temporarily_unavailable', error_description: expect.any(String) };

/** The code store's guess: spends a try of the live code (lib/adapters/dynamodb/code-store.ts). */
const isGuess = ({ body }: DynamoDbRequest) => body.UpdateExpression?.includes('list_append(#live.#guesses') === true;
/** The attempt limiter's failure count, either of its two writes (attempt-limiter.ts recordFailure). */
const isFailureCount = ({ body }: DynamoDbRequest) => body.UpdateExpression?.startsWith('SET #c = ') === true;
/** The discard step that puts a replaced code back into `live` (code-store.ts applyStep 'restore'). */
const isRestore = ({ body }: DynamoDbRequest) => body.UpdateExpression === 'SET #live = #h, #h = :none';

const undeliverable = new Set<string>();
let proxy: FailingDynamoDbProxy;
let service: TestService;
beforeAll(async () => {
  proxy = await startFailingDynamoDbProxy(requiredEnv('TEST_DYNAMODB_ENDPOINT'));
  service = await startTestService({
    dynamodbEndpoint: proxy.endpoint,
    // DynamoDB Local on a loaded machine can take longer than the production 1 s to answer.
    dynamodbRequestTimeoutMs: 5_000,
    capture: { failFor: (to) => undeliverable.has(to) },
  });
});
afterEach(() => proxy.heal());
afterAll(async () => {
  await service.stop();
  await proxy.stop();
});

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

async function sendCode(userId: string): Promise<string> {
  expect((await service.post(SEND_PATH, sendBody(userId))).status).toBe(200);
  return service.latestCode(userId);
}

it('a failed guess write answers 503 with Retry-After, and the code keeps all its tries', async () => {
  const user = uniqueEmail('guess-fault');
  const code = await sendCode(user);
  proxy.failWhen(isGuess);
  const response = await service.post(TOKEN_PATH, exchangeBody(user, code));
  expect(response.status).toBe(503);
  expect(response.body).toEqual(UNAVAILABLE);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(proxy.failed().filter(isGuess).length).toBeGreaterThan(0);
  proxy.heal();
  expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(200);
});

it('a failed write after the right code was accepted (the refresh token family) answers 503, and the same code then works once', async () => {
  const user = uniqueEmail('family-fault');
  const code = await sendCode(user);
  const isFamilyPut = ({ operation, body }: DynamoDbRequest) =>
    operation === 'PutItem' && String((body.Item as { pk?: { S?: string } } | undefined)?.pk?.S).startsWith('refresh#');
  proxy.failWhen(isFamilyPut);
  const response = await service.post(TOKEN_PATH, exchangeBody(user, code));
  expect(response.status).toBe(503);
  expect(proxy.failed().filter(isFamilyPut).length).toBeGreaterThan(0);
  proxy.heal();
  // The try was spent and the guess recorded, but the presentation was abandoned: the retry takes its place.
  expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(200);
  expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).body).toMatchObject({ error: 'invalid_grant' });
});

it('on the hosted page: a failed save of the authorization code answers the page’s 503, and the same code then signs in', async () => {
  const user = uniqueEmail('page-fault');
  const session = new LoginSession(service);
  const sent = await session.post(await session.start(), 'send', { user_id: user });
  expect(sent.status).toBe(200);
  const code = await service.latestCode(user);
  // The code is saved with the session its login starts, in one transaction.
  const isAuthorizationCodeSave = ({ operation, body }: DynamoDbRequest) =>
    operation === 'TransactWriteItems' &&
    ((body as { TransactItems?: Array<{ Put?: { Item?: { pk?: { S?: string } } } }> }).TransactItems ?? []).some((item) =>
      String(item.Put?.Item?.pk?.S).startsWith('authcode#'),
    );
  proxy.failWhen(isAuthorizationCodeSave);
  const failed = await session.post(sent, 'verify', { code });
  expect(failed.status).toBe(503);
  expect(proxy.failed().filter(isAuthorizationCodeSave).length).toBeGreaterThan(0);
  proxy.heal();
  const retried = await session.post(failed, 'verify', { code });
  expect(retried.status).toBe(302);
  expect(retried.location?.searchParams.get('code')).toEqual(expect.any(String));
});

it('when the abandon fails too, the 503 stands and `presentation not abandoned` is logged with ids only', async () => {
  const user = uniqueEmail('abandon-fault');
  const code = await sendCode(user);
  const isAbandon = ({ body }: DynamoDbRequest) => body.UpdateExpression?.startsWith('SET #live.#abandoned') === true;
  proxy.failWhen((request) => isGuess(request) || isAbandon(request));
  const since = capturedLogs().length;
  const response = await service.post(TOKEN_PATH, exchangeBody(user, code));
  expect(response.status).toBe(503);
  expect(proxy.failed().filter(isAbandon).length).toBeGreaterThan(0);
  expect(logEntries(capturedLogs().slice(since), 'presentation not abandoned')).toEqual([
    expect.objectContaining({ level: 'ERROR', environment: 'local', client: 'local-web', error: 'TemporarilyUnavailableError' }),
  ]);
});

it('a guess write that lands but answers 500 (twice: the SDK retries it) answers 503, and the same code then works once', async () => {
  const user = uniqueEmail('guess-applied');
  const code = await sendCode(user);
  const failedBefore = proxy.failed().length;
  proxy.failWhen(isGuess, 'applied');
  expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(503);
  expect(proxy.failed().slice(failedBefore).filter(isGuess)).toHaveLength(2);
  proxy.heal();
  expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(200);
  expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).body).toMatchObject({ error: 'invalid_grant' });
});

it('a save that lands but answers 500 (twice) answers 503, delivers nothing, and the code the user holds still works', async () => {
  const user = uniqueEmail('save-applied');
  const held = await sendCode(user);
  const isSave = ({ body }: DynamoDbRequest) => body.UpdateExpression?.includes('#live = :code') === true;
  const failedBefore = proxy.failed().length;
  proxy.failWhen(isSave, 'applied');
  const response = await service.post(SEND_PATH, sendBody(user));
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(proxy.failed().slice(failedBefore).filter(isSave)).toHaveLength(2);
  proxy.heal();
  expect(await service.outbox(user)).toHaveLength(1);
  expect((await service.post(TOKEN_PATH, exchangeBody(user, held))).status).toBe(200);
});

it('when the cancel fails too, the 503 stands and `discard failed` is logged with ids only', async () => {
  const user = uniqueEmail('cancel-fault');
  await sendCode(user);
  const isSaveOrCancel = ({ body }: DynamoDbRequest) =>
    body.UpdateExpression?.includes('#live = :code') === true || body.UpdateExpression?.startsWith('SET #cancelled') === true;
  proxy.failWhen(isSaveOrCancel);
  const since = capturedLogs().length;
  expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(503);
  expect(proxy.failed().filter(({ body }) => body.UpdateExpression?.startsWith('SET #cancelled') === true).length).toBeGreaterThan(0);
  expect(logEntries(capturedLogs().slice(since), 'discard failed')).toEqual([
    expect.objectContaining({ level: 'ERROR', environment: 'local', client: 'local-web', error: 'TemporarilyUnavailableError' }),
  ]);
});

it('a failed write of the failure count answers 503, not the invalid_grant the cap would not have seen', async () => {
  const user = uniqueEmail('failure-count-fault');
  const code = await sendCode(user);
  proxy.failWhen(isFailureCount);
  const response = await service.post(TOKEN_PATH, exchangeBody(user, wrong(code)));
  expect(response.status).toBe(503);
  expect(response.body).toEqual(UNAVAILABLE);
  expect(proxy.failed().filter(isFailureCount).length).toBeGreaterThan(0);
});

it('a failed restore after a failed delivery still answers the delivery’s 502, and logs `discard failed` with ids only', async () => {
  const phone = uniquePhone();
  await sendCode(phone);
  undeliverable.add(phone);
  proxy.failWhen(isRestore);
  const since = capturedLogs().length;
  const response = await service.post(SEND_PATH, sendBody(phone));
  expect(response.status).toBe(502);
  expect(response.body).toEqual({ error: 'delivery_failed', error_description: expect.any(String) });
  expect(proxy.failed().filter(isRestore).length).toBeGreaterThan(0);
  const logged = logEntries(capturedLogs().slice(since), 'discard failed');
  expect(logged).toEqual([
    expect.objectContaining({ level: 'ERROR', environment: 'local', client: 'local-web', error: 'TemporarilyUnavailableError' }),
  ]);
  // The delivery's own failure, with the provider's error name and the user's log handle only.
  expect(logEntries(capturedLogs().slice(since), 'delivery failed')).toEqual([
    expect.objectContaining({
      level: 'WARN',
      environment: 'local',
      client: 'local-web',
      channel: 'sms',
      user: expect.stringMatching(/^[\w-]{12}$/),
      detail: expect.stringMatching(/^SNS Publish: \w+$/),
    }),
  ]);
});

it('a failed revocation answers 503, never the 200 that tells the client its token is gone (RFC 7009 §2.2)', async () => {
  const signedIn = await service.signIn(uniqueEmail('revoke-fault'), { clientId: 'local-opaque' });
  expect(signedIn.status).toBe(200);
  // The opaque access token's conditional delete, then the refresh token family's revocation.
  const isTokenDelete = ({ operation }: DynamoDbRequest) => operation === 'DeleteItem';
  const isFamilyRevocation = ({ body }: DynamoDbRequest) => body.UpdateExpression?.startsWith('SET #revoked_at') === true;
  for (const [token, matches, step] of [
    [signedIn.body.access_token, isTokenDelete, 'revoke token'],
    [signedIn.body.refresh_token, isFamilyRevocation, 'revoke refresh token family'],
  ] as const) {
    proxy.failWhen(matches);
    const since = capturedLogs().length;
    const response = await service.postForm(REVOKE_PATH, { token: token as string, client_id: 'local-opaque' });
    expect(response.status).toBe(503);
    expect(response.body).toEqual(UNAVAILABLE);
    expect(proxy.failed().filter(matches).length).toBeGreaterThan(0);
    // The operator's log names the step that failed.
    expect(logEntries(capturedLogs().slice(since), 'request failed')).toEqual([
      expect.objectContaining({ level: 'ERROR', detail: `DynamoDB ${step}: InternalServerError` }),
    ]);
  }
});
