/**
 * The operator controls over the local HTTP path (the admin API, lib/admin/operator.ts): a
 * blocked user gets exactly the answers a user with no code gets, whole responses compared (otp/send
 * "sent" with nothing delivered, invalid_grant at the token endpoint, the dead-code message on the
 * hosted page) until unblocked; ending a user's sessions revokes their refresh families; bad input
 * is a 400 in the API's error JSON; every action is audited with its caller; `npm run admin` calls
 * the local runtime unsigned.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { createHandler } from '../../functions/admin';
import { LOG_EVENTS } from '../../lib/platform/log-events';
import { LOGIN_PAGES } from '../../lib/messages/locales';
import { logHandleOf, userKeyOf } from '../../lib/keys/hmac-keys';
import { apiEvent, lambdaContext } from '../support/api-event';
import { capturedLogs, rememberSecret } from '../support/log-capture';
import {
  exchangeBody,
  logEntries,
  SEND_PATH,
  sendBody,
  serviceHeaders,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  uniquePhone,
  type TestResponse,
  type TestService,
} from '../support/harness';
import { LoginSession } from '../support/login-flow';
import { storedPasskey } from '../support/passkey-records';

const ADMIN = '/idp/v1/admin/users';
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

const admin = (action: string, body: unknown) => service.post(`${ADMIN}/${action}`, body);
const block = (user: string) => admin('block', { env_id: 'local', user_id: user });
const unblock = (user: string) => admin('unblock', { env_id: 'local', user_id: user });
/** The log handle of a user, as the service computes it (its HMAC key, then a prefix). */
const handleOf = async (user: string, authType: 'email' | 'sms' = 'email') =>
  logHandleOf(userKeyOf(await service.deps.hmacKeys(), { authType, value: user }));
/** A response as the client sees it: status, the service's own headers, body. */
const answer = (response: TestResponse) => ({ status: response.status, headers: serviceHeaders(response.headers), body: response.body });

describe('a blocked user gets the answers a user with no code gets', () => {
  it('otp/send: the same "sent" answer, whole, and nothing delivered (email and SMS)', async () => {
    const [blocked, other] = [uniqueEmail('blocked'), uniqueEmail('other')];
    const [blockedPhone, otherPhone] = [uniquePhone(), uniquePhone()];
    expect((await block(blocked)).status).toBe(200);
    expect((await block(blockedPhone)).status).toBe(200);

    for (const [who, anyone] of [
      [blocked, other],
      [blockedPhone, otherPhone],
    ] as const) {
      const refused = await service.post(SEND_PATH, sendBody(who));
      const sent = await service.post(SEND_PATH, sendBody(anyone));
      expect(answer(refused)).toEqual(answer(sent));
      expect(refused.body).toMatchObject({ status: 'sent' });
      expect(await service.outbox(who)).toEqual([]);
      expect(await service.outbox(anyone)).toHaveLength(1);
    }
  });

  it('otp/send: the request is still checked and counted as anyone’s (a bad client is 401, the sixth send in a minute 429)', async () => {
    const user = uniqueEmail('blocked');
    await block(user);
    const badClient = await service.post(SEND_PATH, sendBody(user, 'nobody'));
    expect(answer(badClient)).toEqual(answer(await service.post(SEND_PATH, sendBody(uniqueEmail('other'), 'nobody'))));
    expect(badClient.status).toBe(401);
    // The bad client's request counted: four more are answered "sent", the next is refused.
    for (let index = 0; index < 4; index += 1) expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(200);
    const sixth = await service.post(SEND_PATH, sendBody(user));
    expect([sixth.status, sixth.body.error, sixth.headers.get('retry-after')]).toEqual([429, 'too_many_requests', '300']);
    service.clock.advanceSeconds(360);
  });

  it('a code check: invalid_grant, as for a code that does not exist, even with the code sent before the block', async () => {
    const [user, noCode] = [uniqueEmail('blocked'), uniqueEmail('no-code')];
    expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(200);
    const code = await service.latestCode(user);
    await block(user);

    const before = capturedLogs().length;
    service.dynamodb.reset();
    const refused = await service.post(TOKEN_PATH, exchangeBody(user, code));
    const blockedRequests = service.dynamodb.operations();
    service.dynamodb.reset();
    const unknown = await service.post(TOKEN_PATH, exchangeBody(noCode, code));
    // The same requests as a check of a user who has no code: the attempt, the try, the failure.
    expect(blockedRequests).toEqual(service.dynamodb.operations());
    expect(answer(refused)).toEqual(answer(unknown));
    expect(refused.body).toEqual({ error: 'invalid_grant', error_description: 'The code is invalid, expired, or was already used.' });

    const handle = await handleOf(user);
    expect(logEntries(capturedLogs().slice(before), LOG_EVENTS.blockedUserAttempt)).toEqual([
      expect.objectContaining({ operation: 'token', environment: 'local', user: handle }),
    ]);
    expect(logEntries(capturedLogs().slice(before), LOG_EVENTS.grantRefused).map((entry) => [entry.user, entry.reason])).toEqual([
      [handle, 'user_blocked'],
      [await handleOf(noCode), 'not_found'],
    ]);
  });

  it('the hosted page: the code page with nothing sent, then the dead-code message for any code', async () => {
    const user = uniqueEmail('blocked');
    await block(user);
    const session = new LoginSession(service, 'local-web');
    const codePage = await session.post(await session.start(), 'send', { user_id: user });
    expect(codePage.status).toBe(200);
    expect(codePage.html).toContain('name="code"');
    expect(await service.outbox(user)).toEqual([]);

    const checked = await session.post(codePage, 'verify', { code: '123456' });
    expect(checked.status).toBe(400);
    expect(checked.html).toContain(LOGIN_PAGES['en-US'].codeDead);
    expect(checked.location).toBeUndefined();
  });
});

describe('unblock', () => {
  it('lets the user in again: a send delivers, the code is accepted', async () => {
    const user = uniqueEmail('unblocked');
    await block(user);
    const lifted = await unblock(user);
    expect(answer(lifted)).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }),
      body: { user: await handleOf(user), blocked: false, was_blocked: true },
    });
    const tokens = await service.signIn(user);
    expect(tokens.status).toBe(200);
    // Unblocking a user who is not blocked changes nothing, and says so.
    expect((await unblock(user)).body).toEqual({ user: await handleOf(user), blocked: false, was_blocked: false });
  });

  it('a block covers every address of the mailbox for sends (alice+x@ is alice@), and its exact address for code checks', async () => {
    const user = uniqueEmail('mailbox');
    const tagged = user.replace('@', '+tag@');
    await block(user);
    expect((await service.post(SEND_PATH, sendBody(tagged))).status).toBe(200);
    expect(await service.outbox(tagged)).toEqual([]);
    await unblock(tagged);
    await service.signIn(tagged);
  });
});

describe('ending a user’s sessions', () => {
  it('revokes their refresh token families: a refresh is then invalid_grant', async () => {
    const user = uniqueEmail('signed-out');
    const tokens = await service.signIn(user);
    const ended = await admin('end-sessions', { env_id: 'local', user_id: user, auth_type: 'email' });
    expect(answer(ended)).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'content-type': 'application/json; charset=utf-8' }),
      body: { user: await handleOf(user), sessions_ended: 0, refresh_families_revoked: 1 },
    });
    const refreshed = await service.postForm(TOKEN_PATH, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      client_id: 'local-web',
    });
    expect([refreshed.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('a block ends them too: a live session would log the user in to another client without a code', async () => {
    const user = uniqueEmail('blocked-session');
    const redirect = await new LoginSession(service, 'local-web').signIn(user);
    expect(redirect.status).toBe(302);
    const blocked = await block(user);
    expect(blocked.body).toEqual({ user: await handleOf(user), blocked: true, sessions_ended: 1, refresh_families_revoked: 0 });
  });
});

describe('removing a user’s passkeys', () => {
  /** Stores passkeys of `user` (email) in the environment `local`; their credential ids. */
  const enrol = async (user: string, count: number): Promise<string[]> => {
    const userKey = userKeyOf(await service.deps.hmacKeys(), { authType: 'email', value: user });
    const ids = Array.from({ length: count }, (_, index) => Buffer.from(`${user}#${index}`).toString('base64url'));
    for (const id of ids) expect(await service.deps.passkeys.add(storedPasskey(id, userKey, user, service.clock.now()))).toBe(true);
    return ids;
  };
  const listOf = async (user: string) =>
    service.deps.passkeys.listOf('local', userKeyOf(await service.deps.hmacKeys(), { authType: 'email', value: user }));

  it('removes every passkey of the user in the environment, and no one else’s: says how many, and audits it', async () => {
    const [user, other] = [uniqueEmail('passkeys'), uniqueEmail('passkeys-other')];
    await enrol(user, 2);
    await enrol(other, 1);
    const before = capturedLogs().length;

    const removed = await admin('remove-passkeys', { env_id: 'local', user_id: user.toUpperCase() });

    expect(answer(removed)).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }),
      body: { user: await handleOf(user), passkeys_removed: 2 },
    });
    expect(await listOf(user)).toEqual([]);
    expect(await listOf(other)).toHaveLength(1);
    const handle = await handleOf(user);
    const logs = capturedLogs().slice(before);
    expect(logEntries(logs, LOG_EVENTS.passkeyRemoved)).toEqual([
      expect.objectContaining({ by: 'operator', count: 2, environment: 'local', user: handle }),
    ]);
    expect(logEntries(logs, LOG_EVENTS.operatorAction)).toEqual([
      expect.objectContaining({ action: 'remove-passkeys', environment: 'local', user: handle, caller: 'anonymous', completed: true }),
    ]);
    // Never the address, nor a credential id.
    expect(logs.join('\n')).not.toContain(user);
  });

  it('answers 0 for a user who has none, and removes nothing when asked again', async () => {
    const user = uniqueEmail('no-passkeys');
    expect((await admin('remove-passkeys', { env_id: 'local', user_id: user })).body).toEqual({
      user: await handleOf(user),
      passkeys_removed: 0,
    });
    await enrol(user, 1);
    expect((await admin('remove-passkeys', { env_id: 'local', user_id: user })).body).toMatchObject({ passkeys_removed: 1 });
    expect((await admin('remove-passkeys', { env_id: 'local', user_id: user })).body).toMatchObject({ passkeys_removed: 0 });
  });

  it('leaves the user’s sessions and block alone: a separate action each', async () => {
    const user = uniqueEmail('passkeys-session');
    const tokens = await service.signIn(user);
    await enrol(user, 1);
    await admin('remove-passkeys', { env_id: 'local', user_id: user });
    const refreshed = await service.postForm(TOKEN_PATH, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      client_id: 'local-web',
    });
    expect(refreshed.status).toBe(200);
    rememberSecret(refreshed.body.access_token);
    rememberSecret(refreshed.body.refresh_token);
  });

  it('refuses bad input as the other actions do (400, nothing removed)', async () => {
    const refused = await admin('remove-passkeys', { env_id: 'nowhere', user_id: 'a@example.com' });
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_request']);
  });
});

describe('bad input', () => {
  it.each([
    ['no user', { env_id: 'local' }, 'user_id'],
    ['no environment', { user_id: 'a@example.com' }, 'env_id'],
    ['an unknown environment', { env_id: 'nowhere', user_id: 'a@example.com' }, 'env_id does not name a known environment.'],
    ['an auth_type that is neither', { env_id: 'local', user_id: 'a@example.com', auth_type: 'voice' }, 'auth_type'],
    ['an address that is not one', { env_id: 'local', user_id: 'not-an-address', auth_type: 'email' }, 'user_id'],
    ['a number that is not one', { env_id: 'local', user_id: '12', auth_type: 'sms' }, 'user_id'],
  ])('%s: 400 invalid_request in the API’s error JSON, and nothing audited', async (_, body, named) => {
    const before = capturedLogs().length;
    const refused = await admin('block', body);
    expect(answer(refused)).toEqual({
      status: 400,
      headers: expect.objectContaining({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }),
      body: { error: 'invalid_request', error_description: expect.stringContaining(named) },
    });
    expect(logEntries(capturedLogs().slice(before), LOG_EVENTS.operatorAction)).toEqual([]);
  });

  it('a body that is not JSON is refused before any work (415, 400), a GET is 405, and no answer carries CORS headers', async () => {
    const form = await service.postForm(`${ADMIN}/block`, { env_id: 'local', user_id: 'a@example.com' });
    expect([form.status, form.body.error]).toEqual([415, 'invalid_request']);
    const broken = await service.post(`${ADMIN}/block`, '{"env_id":', { raw: true });
    expect([broken.status, broken.body.error]).toEqual([400, 'invalid_request']);
    const get = await service.get(`${ADMIN}/unblock`, { Origin: 'http://127.0.0.1:3000' });
    expect([get.status, get.body.error, get.headers.get('allow')]).toEqual([405, 'method_not_allowed', 'POST']);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
    // No preflight either (API Gateway has none for them): the handler answers OPTIONS with 405.
    const preflight = await fetch(`${service.url}${ADMIN}/block`, { method: 'OPTIONS', headers: { Origin: 'http://127.0.0.1:3000' } });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([405, null]);
  });
});

describe('the audit trail', () => {
  it('logs every action with the environment, the user’s log handle (never the address) and the caller (anonymous locally: no IAM)', async () => {
    const user = uniqueEmail('audited');
    const before = capturedLogs().length;
    await block(user);
    await unblock(user);
    await admin('end-sessions', { env_id: 'local', user_id: user });
    const handle = await handleOf(user);
    expect(logEntries(capturedLogs().slice(before), LOG_EVENTS.operatorAction).map(({ level, timestamp, ...entry }) => entry)).toEqual([
      expect.objectContaining({ action: 'block', environment: 'local', user: handle, caller: 'anonymous', completed: true, blocked: true }),
      expect.objectContaining({
        action: 'unblock',
        environment: 'local',
        user: handle,
        caller: 'anonymous',
        completed: true,
        was_blocked: true,
      }),
      expect.objectContaining({ action: 'end-sessions', environment: 'local', user: handle, caller: 'anonymous', completed: true }),
    ]);
  });

  it('names the IAM principal API Gateway authenticated (requestContext.identity.userArn)', async () => {
    const user = uniqueEmail('audited');
    const caller = 'arn:aws:iam::123456789012:role/identity-operators';
    const handler = createHandler(() => service.deps);
    const before = capturedLogs().length;
    const response = await handler(
      apiEvent({
        resource: `${ADMIN}/block`,
        path: `${ADMIN}/block`,
        body: JSON.stringify({ env_id: 'local', user_id: user }),
        requestContext: { requestId: 'operator', identity: { userArn: caller, sourceIp: '127.0.0.1' } } as never,
      }),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(200);
    expect(logEntries(capturedLogs().slice(before), LOG_EVENTS.operatorAction)).toEqual([
      expect.objectContaining({ action: 'block', user: await handleOf(user), caller, completed: true }),
    ]);
  });
});

describe('npm run admin against the local runtime', () => {
  it('calls it unsigned, prints what was done, and the block takes effect', async () => {
    const user = uniqueEmail('cli');
    const root = resolve(__dirname, '../..');
    const run = (action: string) =>
      promisify(execFile)(
        process.execPath,
        [require.resolve('tsx/cli'), 'infra/admin-cli.ts', action, '--env', 'local', '--user', user, '--url', service.url],
        {
          cwd: root,
          // No credentials anywhere: an unsigned call must not need any.
          env: { PATH: process.env.PATH ?? '', AWS_EC2_METADATA_DISABLED: 'true' },
        },
      );
    const blocked = await run('block');
    expect(JSON.parse(blocked.stdout)).toEqual({
      user: await handleOf(user),
      blocked: true,
      sessions_ended: 0,
      refresh_families_revoked: 0,
    });
    expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(200);
    expect(await service.outbox(user)).toEqual([]);
    expect(JSON.parse((await run('unblock')).stdout)).toMatchObject({ blocked: false, was_blocked: true });
    rememberSecret((await service.signIn(user)).body.access_token);
  }, 60_000);
});
