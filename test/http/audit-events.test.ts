/**
 * Every audit event type (lib/audit/events.ts) is emitted by the request that causes it, driven
 * over HTTP, and shows in the local runtime's dev outbox (`GET /__dev/events`) as the stack's
 * EventBridge bus would get it: `source` identity.local, `detail-type` the type, a detail that
 * matches its committed schema (docs/events/), with ids and log handles only.
 *
 * The lines carry their CloudWatch EMF members here as on AWS (POWERTOOLS_METRICS_NAMESPACE set,
 * lib/platform/log.ts), so the events are shown not to copy them.
 */
import { logHandleOf, userKeyOf } from '../../lib/keys/hmac-keys';
import type { OutboxEvent } from '../../local/events';
import { auditEventProblems } from '../support/audit-schemas';
import { LoginSession } from '../support/login-flow';
import { storedPasskey } from '../support/passkey-records';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { rememberSecret } from '../support/log-capture';
import {
  exchangeBody,
  REDIRECT_URI,
  SEND_PATH,
  sendBody,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  uniquePhone,
  withLimits,
  type TestService,
} from '../support/harness';

const REVOKE = '/idp/v1/account/revoke';
const LOGOUT = '/idp/v1/account/logout';
const ADMIN = '/idp/v1/admin/users';
/** The failure cap, lowered so that a test reaches it in a few requests. */
const FAILURE_CAP = 3;

let service: TestService;
const namespaceBefore = process.env.POWERTOOLS_METRICS_NAMESPACE;
beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_NAMESPACE = 'Identity/audit-test';
  service = await startTestService({ config: withLimits({ failures: { maxConsecutive: FAILURE_CAP } }) });
});
afterAll(async () => {
  await service.stop();
  if (namespaceBefore === undefined) delete process.env.POWERTOOLS_METRICS_NAMESPACE;
  else process.env.POWERTOOLS_METRICS_NAMESPACE = namespaceBefore;
});

/** Every event the outbox holds, oldest first. */
async function allEvents(target: TestService = service): Promise<OutboxEvent[]> {
  const response = await target.get('/__dev/events');
  expect(response.status).toBe(200);
  return [...(response.body.events as OutboxEvent[])].reverse();
}

/** The events about one user (their log handle), oldest first, as type and detail. */
async function eventsOf(handle: string, target: TestService = service): Promise<Array<{ type: string; detail: Record<string, unknown> }>> {
  return (await allEvents(target))
    .filter((event) => event.detail.user === handle)
    .map((event) => ({ type: event['detail-type'], detail: event.detail }));
}

const handleOf = async (user: string, authType: 'email' | 'sms' = 'email') =>
  logHandleOf(userKeyOf(await service.deps.hmacKeys(), { authType, value: user }));

/** The envelope every detail has: its version, its id, its time and the request's id. */
const envelope = { version: 1, id: expect.stringMatching(/^[0-9a-f-]{36}$/), time: expect.any(String), request: expect.any(String) };
/** The envelope of a type's version 2, published beside its version 1. */
const envelopeV2 = { ...envelope, version: 2 };

async function sendCode(user: string, target: TestService = service): Promise<string> {
  expect((await target.post(SEND_PATH, sendBody(user))).status).toBe(200);
  return target.latestCode(user);
}

/** A wrong code: the `nth` six-digit code of repeated digits that is not `code` (a repeated guess is refused as such). */
const wrongCodeFor = (code: string, nth = 0) =>
  ['000000', '111111', '222222', '333333', '444444'].filter((wrong) => wrong !== code)[nth] as string;

describe('a login by code at the token endpoint', () => {
  it('code.sent, code.checked wrong (with the reason), code.checked right and login.completed: ids and handles only', async () => {
    const user = uniqueEmail('audit');
    const handle = await handleOf(user);
    const code = await sendCode(user);
    expect((await service.post(TOKEN_PATH, exchangeBody(user, wrongCodeFor(code)))).status).toBe(400);
    const tokens = await service.post(TOKEN_PATH, exchangeBody(user, code));
    expect(tokens.status).toBe(200);
    rememberSecret(tokens.body.access_token);
    rememberSecret(tokens.body.refresh_token);

    const ids = { environment: 'local', client: 'local-web', user: handle };
    expect(await eventsOf(handle)).toEqual([
      { type: 'code.sent', detail: { ...envelope, ...ids, channel: 'email' } },
      { type: 'code.checked', detail: { ...envelope, ...ids, outcome: 'wrong', reason: 'wrong_code' } },
      { type: 'code.checked', detail: { ...envelope, ...ids, outcome: 'right' } },
      {
        type: 'login.completed',
        detail: { ...envelope, ...ids, grant: 'one_time_code', channel: 'email', family: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/) },
      },
      {
        type: 'login.completed',
        detail: {
          ...envelopeV2,
          ...ids,
          grant: 'one_time_code',
          method: 'email',
          amr: ['otp'],
          family: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
        },
      },
    ]);
    const events = await allEvents();
    expect(JSON.stringify(events)).not.toContain(user);
    expect(events.every((event) => event.source === 'identity.local')).toBe(true);
    // Not the logger's keys, nor the EMF members the log adapter adds to the lines.
    expect(
      events
        .flatMap((event) => Object.keys(event.detail))
        .filter((key) => /^(_aws|level|service|cold_start|CodeSent|TokenIssued)$/.test(key)),
    ).toEqual([]);
    expect(events.flatMap((event) => auditEventProblems(event['detail-type'], event.detail.version as number, event.detail))).toEqual([]);
  });
});

describe('refresh tokens', () => {
  it('token.refreshed for a rotation, refresh_token.reused for a replay, token.revoked for a revocation that revoked', async () => {
    const user = uniqueEmail('refresh');
    const handle = await handleOf(user);
    const login = await service.signIn(user);
    const family = (await eventsOf(handle)).find((event) => event.type === 'login.completed')?.detail.family;
    const refresh = (token: unknown) =>
      service.postForm(TOKEN_PATH, { grant_type: 'refresh_token', refresh_token: token as string, client_id: 'local-web' });

    const rotated = await refresh(login.body.refresh_token);
    expect(rotated.status).toBe(200);
    rememberSecret(rotated.body.access_token);
    rememberSecret(rotated.body.refresh_token);
    expect((await refresh(login.body.refresh_token)).status).toBe(400);

    const ids = { environment: 'local', client: 'local-web', user: handle, family };
    expect((await eventsOf(handle)).filter((event) => event.type.startsWith('token.') || event.type.startsWith('refresh_token.'))).toEqual([
      { type: 'token.refreshed', detail: { ...envelope, ...ids } },
      { type: 'refresh_token.reused', detail: { ...envelope, ...ids, generation: 1 } },
    ]);

    const other = await service.signIn(uniqueEmail('revoke'));
    const revokedBefore = (await allEvents()).filter((event) => event['detail-type'] === 'token.revoked').length;
    expect((await service.postForm(REVOKE, { token: other.body.refresh_token as string, client_id: 'local-web' })).status).toBe(200);
    // A token the service never issued revokes nothing: no event.
    expect((await service.postForm(REVOKE, { token: 'never-issued', client_id: 'local-web' })).status).toBe(200);
    const revoked = (await allEvents()).filter((event) => event['detail-type'] === 'token.revoked').slice(revokedBefore);
    expect(revoked.map((event) => event.detail)).toEqual([
      { ...envelope, client: 'local-web', kind: 'refresh_token', family: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/) },
    ]);
  });
});

describe('the hosted login page and logout', () => {
  it('code.checked right on the page, login.completed for its authorization code, logout when the user ends the session', async () => {
    const user = uniqueEmail('page');
    const handle = await handleOf(user);
    const cookies = new Map<string, string>();
    const page = new LoginSession(service, 'local-web', { sessionCookies: cookies });
    const redirect = await page.signIn(user);
    expect(redirect.status).toBe(302);
    const tokens = await service.postForm(TOKEN_PATH, {
      grant_type: 'authorization_code',
      code: redirect.location?.searchParams.get('code') ?? '',
      client_id: 'local-web',
      redirect_uri: REDIRECT_URI,
      code_verifier: page.verifier,
    });
    expect(tokens.status).toBe(200);
    for (const name of ['access_token', 'id_token', 'refresh_token']) rememberSecret(tokens.body[name]);

    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const logout = await fetch(
      `${service.url}${LOGOUT}?${new URLSearchParams({ id_token_hint: tokens.body.id_token as string }).toString()}`,
      {
        redirect: 'manual',
        headers: { Cookie: cookie },
      },
    );
    expect(logout.status).toBeLessThan(400);

    const ids = { environment: 'local', client: 'local-web', user: handle };
    expect(await eventsOf(handle)).toEqual([
      { type: 'code.sent', detail: { ...envelope, ...ids, channel: 'email' } },
      { type: 'code.checked', detail: { ...envelope, ...ids, outcome: 'right' } },
      {
        type: 'login.completed',
        detail: { ...envelope, ...ids, grant: 'authorization_code', channel: 'email', family: expect.any(String) },
      },
      {
        type: 'login.completed',
        detail: { ...envelopeV2, ...ids, grant: 'authorization_code', method: 'email', amr: ['otp'], family: expect.any(String) },
      },
      {
        type: 'logout',
        detail: {
          ...envelope,
          environment: 'local',
          user: handle,
          session: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
          reason: 'logout',
          clients: 1,
          families: 1,
          notices: 0,
        },
      },
    ]);
  });
});

describe('passkeys', () => {
  it('passkey.registered when a user creates one after a code login; then, signing in with it, login.completed v2 (method, amr) and no code.checked', async () => {
    const user = uniqueEmail('passkey-audit');
    const handle = await handleOf(user);
    // The issuer's host name (WebAuthn refuses an IP address as RP ID): the page at localhost.
    const site = { url: service.url.replace('127.0.0.1', 'localhost'), latestCode: (userId: string) => service.latestCode(userId) };
    const device = new SoftAuthenticator({ origin: site.url });
    const enrolling = new LoginSession(site, 'local-web');
    const sent = await enrolling.post(await enrolling.start(), 'send', { user_id: user });
    const offer = await enrolling.post(sent, 'verify', { code: await service.latestCode(user), webauthn: '1' });
    expect((await enrolling.createPasskey(offer, device)).status).toBe(200);
    rememberSecret(device.credentials[0]?.id);
    const before = (await eventsOf(handle)).length;

    const signingIn = new LoginSession(site, 'local-web');
    const redirect = await signingIn.signInWithPasskey(await signingIn.start(), device);
    const tokens = await service.postForm(TOKEN_PATH, {
      grant_type: 'authorization_code',
      code: redirect.location?.searchParams.get('code') ?? '',
      client_id: 'local-web',
      redirect_uri: REDIRECT_URI,
      code_verifier: signingIn.verifier,
    });
    expect(tokens.status).toBe(200);
    for (const name of ['access_token', 'id_token', 'refresh_token']) rememberSecret(tokens.body[name]);

    const events = await eventsOf(handle);
    const ids = { environment: 'local', client: 'local-web', user: handle };
    expect(events.filter((event) => event.type === 'passkey.registered')).toEqual([
      {
        type: 'passkey.registered',
        detail: { ...envelope, ...ids, passkey: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/), method: 'synced_passkey' },
      },
    ]);
    expect(events.slice(before)).toEqual([
      {
        type: 'login.completed',
        detail: {
          ...envelopeV2,
          ...ids,
          grant: 'authorization_code',
          method: 'synced_passkey',
          amr: ['swk', 'user', 'mfa'],
          family: expect.any(String),
        },
      },
    ]);
  });
});

describe('the limits', () => {
  it('block.started when a send over the limit starts a block; its further refusals are no events', async () => {
    const user = uniqueEmail('block');
    const handle = await handleOf(user);
    for (let index = 0; index < 5; index += 1) expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(200);
    expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(429);
    expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(429);

    expect((await eventsOf(handle)).filter((event) => event.type === 'block.started')).toEqual([
      { type: 'block.started', detail: { ...envelope, environment: 'local', user: handle, operation: 'send', reason: 'limit' } },
    ]);
  });

  it('failure_cap.reached when a user’s failed checks reach the cap', async () => {
    const user = uniqueEmail('cap');
    const handle = await handleOf(user);
    const code = await sendCode(user);
    for (let index = 0; index < FAILURE_CAP; index += 1) {
      expect((await service.post(TOKEN_PATH, exchangeBody(user, wrongCodeFor(code, index)))).status).toBe(400);
    }

    const events = await eventsOf(handle);
    expect(events.filter((event) => event.type === 'code.checked').map((event) => event.detail.reason)).toEqual([
      'wrong_code',
      'wrong_code',
      'wrong_code_last_try',
    ]);
    expect(events.filter((event) => event.type === 'failure_cap.reached')).toEqual([
      { type: 'failure_cap.reached', detail: { ...envelope, environment: 'local', user: handle, failures: FAILURE_CAP } },
    ]);
  });
});

describe('operators', () => {
  it('operator.action for a block, logout for the sessions it ended, blocked_user.attempted for the blocked user’s next send', async () => {
    const user = uniqueEmail('operated');
    const handle = await handleOf(user);
    const page = new LoginSession(service, 'local-web');
    expect((await page.signIn(user)).status).toBe(302);

    expect((await service.post(`${ADMIN}/block`, { env_id: 'local', user_id: user })).status).toBe(200);
    expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(200);

    const events = (await eventsOf(handle)).filter((event) => !event.type.startsWith('code.'));
    expect(events).toEqual([
      {
        type: 'logout',
        detail: {
          ...envelope,
          environment: 'local',
          user: handle,
          session: expect.any(String),
          reason: 'operator',
          clients: 1,
          families: 0,
          notices: 0,
        },
      },
      ...[envelope, envelopeV2].map((version) => ({
        type: 'operator.action',
        detail: {
          ...version,
          environment: 'local',
          user: handle,
          action: 'block',
          caller: 'anonymous',
          completed: true,
          blocked: true,
          sessions_ended: 1,
          refresh_families_revoked: 0,
        },
      })),
      { type: 'blocked_user.attempted', detail: { ...envelope, environment: 'local', user: handle, operation: 'send' } },
    ]);
  });

  it('passkey.removed (by operator) and operator.action v2 for remove-passkeys, with how many it removed', async () => {
    const user = uniqueEmail('passkeys-removed');
    const handle = await handleOf(user);
    const userKey = userKeyOf(await service.deps.hmacKeys(), { authType: 'email', value: user });
    for (const credentialId of ['Y3JlZGVudGlhbC1vbmU', 'Y3JlZGVudGlhbC10d28']) {
      await service.deps.passkeys.add(storedPasskey(credentialId, userKey, user, service.clock.now()));
    }

    expect((await service.post(`${ADMIN}/remove-passkeys`, { env_id: 'local', user_id: user })).status).toBe(200);

    expect(await eventsOf(handle)).toEqual([
      { type: 'passkey.removed', detail: { ...envelope, environment: 'local', user: handle, by: 'operator', count: 2 } },
      {
        type: 'operator.action',
        detail: {
          ...envelopeV2,
          environment: 'local',
          user: handle,
          action: 'remove-passkeys',
          caller: 'anonymous',
          completed: true,
          passkeys_removed: 2,
        },
      },
    ]);
  });
});

describe('test recipients', () => {
  it('test_message.taken when an operator takes the message kept for a test recipient, with the caller and whether one was kept', async () => {
    const recipient = 'smoke@identity.local';
    const handle = await handleOf(recipient);
    const take = () => service.post('/idp/v1/admin/test-messages/take', { env_id: 'local', user_id: recipient });
    // Whatever an earlier test left is taken first, so the two takes below are one found and one not.
    await take();
    expect((await service.post(SEND_PATH, sendBody(recipient))).status).toBe(200);
    expect((await take()).status).toBe(200);
    expect((await take()).status).toBe(404);

    const taken = (await eventsOf(handle)).filter((event) => event.type === 'test_message.taken').slice(-2);
    expect(taken).toEqual([
      { type: 'test_message.taken', detail: { ...envelope, environment: 'local', user: handle, caller: 'anonymous', found: true } },
      { type: 'test_message.taken', detail: { ...envelope, environment: 'local', user: handle, caller: 'anonymous', found: false } },
    ]);
  });
});

describe('the fraud guards', () => {
  it('fraud_guard.refused for a destination the environment does not allow (country), never the number', async () => {
    const before = (await allEvents()).length;
    expect((await service.post(SEND_PATH, sendBody('+447624123456'))).status).toBe(403);

    expect((await allEvents()).slice(before).map((event) => ({ type: event['detail-type'], detail: event.detail }))).toEqual([
      {
        type: 'fraud_guard.refused',
        detail: { ...envelope, environment: 'local', channel: 'sms', guard: 'destination', country: 'IM', reason: 'country' },
      },
    ]);
  });

  it('fraud_guard.refused for a source over its email window, with the network’s handle only', async () => {
    const guarded = await startTestService({ config: withLimits({ emailPerIp: { maxSends: 1, windowSeconds: 60 } }) });
    try {
      const from = '127.0.44.7';
      expect((await guarded.post(SEND_PATH, sendBody(uniqueEmail('first')), { from })).status).toBe(200);
      const before = (await allEvents(guarded)).length;
      expect((await guarded.post(SEND_PATH, sendBody(uniqueEmail('second')), { from })).status).toBe(429);

      const refused = (await allEvents(guarded)).slice(before).filter((event) => event['detail-type'] === 'fraud_guard.refused');
      expect(refused.map((event) => event.detail)).toEqual([
        { ...envelope, environment: 'local', channel: 'email', guard: 'ip', source: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/) },
      ]);
      expect(JSON.stringify(refused)).not.toContain(from);
    } finally {
      await guarded.stop();
    }
  });

  it('an SMS code is code.sent by sms, with the number’s handle only', async () => {
    const phone = uniquePhone();
    const handle = await handleOf(phone, 'sms');
    await sendCode(phone);
    expect(await eventsOf(handle)).toEqual([
      { type: 'code.sent', detail: { ...envelope, environment: 'local', client: 'local-web', channel: 'sms', user: handle } },
    ]);
    expect(JSON.stringify(await allEvents())).not.toContain(phone.slice(1));
  });
});

it('emits every event type of the catalogue in this file', async () => {
  const { AUDIT_EVENT_TYPES } = await import('../../lib/audit/events');
  const seen = new Set((await allEvents()).map((event) => event['detail-type']));
  expect(AUDIT_EVENT_TYPES.map((eventType) => eventType.type).filter((type) => !seen.has(type))).toEqual([]);
});
