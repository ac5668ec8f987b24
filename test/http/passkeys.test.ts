/**
 * Passkeys on the hosted login page (docs/decisions/016-passkeys.md), over HTTP as a browser
 * whose page script drives a platform authenticator would send them: test/support/soft-authenticator.ts
 * answers the options the page carries, and the forms are posted as the script posts them. The
 * issuer is http://localhost:PORT (WebAuthn refuses an IP address as RP ID), so the RP ID is
 * `localhost`. Time is the injected clock's.
 *
 * Enrolment after a code login (`webauthn=1`), the passkeys page (list, create, remove, continue,
 * "Not now"), sign-in with no code, the refusals (each with nothing written but the counted
 * failure), `acr_values=phr`, the clients' `passkeys` setting, and the DynamoDB requests of each step.
 */
import type { JWK } from 'jose';
import { LOGIN_PAGES } from '../../lib/messages/locales';
import { escapeHtml } from '../../lib/messages/markup';
import { logHandleOf, userKeyOf } from '../../lib/keys/hmac-keys';
import { passkeyHandleOf, passkeyLaterCookieName } from '../../lib/login/passkey-login';
import { sessionCookieName } from '../../lib/sessions/session-cookie';
import { capturedLogs, rememberSecret } from '../support/log-capture';
import { logEntries, REDIRECT_URI, startTestService, uniqueEmail, uniquePhone, type TestService } from '../support/harness';
import { exchangeForIdToken, formOptionsOf, formsOf, LoginSession, offersAction, type PageResponse } from '../support/login-flow';
import { SoftAuthenticator, type SoftAuthenticatorKnobs } from '../support/soft-authenticator';

/** A client that requires a passkey once its user has one (no code sent to them). */
const REQUIRED = 'pk-required';
/** A client with passkeys off. */
const OFF = 'pk-off';
/** A client of two environments (a credential of one never signs in to the other). */
const TWO_ENVIRONMENTS = 'pk-two-environments';
const ASK_AGAIN_DAYS = 7;
const strings = LOGIN_PAGES['en-US'];

let service: TestService;
let jwks: { keys: JWK[] };
beforeAll(async () => {
  service = await startTestService({
    config: (config) => {
      const web = config.clients.find((client) => client.id === 'local-web')!;
      const local = config.environments.find((environment) => environment.id === 'local')!;
      const passkeys = { askAgainDays: ASK_AGAIN_DAYS };
      return {
        ...config,
        environments: [
          { ...local, passkeys },
          { ...local, id: 'other', passkeys },
        ],
        clients: [
          ...config.clients,
          { ...web, id: REQUIRED, passkeys: 'required' },
          { ...web, id: OFF, passkeys: 'off' },
          { ...web, id: TWO_ENVIRONMENTS, environments: ['local', 'other'] },
        ],
      };
    },
  });
  jwks = (await service.get('/.well-known/jwks.json')).body as { keys: JWK[] };
});
afterAll(async () => service.stop());

/** The issuer's origin: localhost (an RP ID must be a host name), not the API's 127.0.0.1. */
function origin(): string {
  return service.url.replace('127.0.0.1', 'localhost');
}

/** A browser at the issuer's origin; `cookies`: another browser's session cookies (the same browser). */
function browser(clientId = 'local-web', cookies?: Map<string, string>): LoginSession {
  const site = { url: origin(), latestCode: (userId: string) => service.latestCode(userId) };
  return new LoginSession(site, clientId, cookies === undefined ? {} : { sessionCookies: cookies });
}

/** A platform authenticator of the page's origin (a synced passkey unless told otherwise). */
function authenticator(knobs: SoftAuthenticatorKnobs = {}): SoftAuthenticator {
  return new SoftAuthenticator({ origin: origin(), ...knobs });
}

/** The redirect's code (302 to the client with `code`, `state` and `iss`). */
function codeOf(response: PageResponse): string {
  expect(response.status).toBe(302);
  expect(`${response.location?.origin}${response.location?.pathname}`).toBe(REDIRECT_URI);
  expect(response.location?.searchParams.get('state')).toBe('state-123');
  expect(response.location?.searchParams.get('iss')).toBe(origin());
  const code = response.location?.searchParams.get('code');
  if (code === null || code === undefined) throw new Error(`no code in ${response.location?.toString()}`);
  return code;
}

/** Exchanges the redirect's code; returns the verified ID token's claims. */
async function idTokenOf(session: LoginSession, response: PageResponse): Promise<Record<string, unknown>> {
  return (await exchangeForIdToken(service, jwks, session, codeOf(response))).claims;
}

/** A login by code in a browser whose script found a platform authenticator: the passkeys page. */
async function passkeysPageAfterCode(session: LoginSession, userId: string, extra: Record<string, string> = {}): Promise<PageResponse> {
  const sent = await session.post(await session.start(extra), 'send', { user_id: userId });
  expect(sent.status).toBe(200);
  const page = await session.post(sent, 'verify', { code: await service.latestCode(userId), webauthn: '1' });
  expect(page.status).toBe(200);
  expect(page.html).toContain(escapeHtml(strings.passkeysTitle));
  return page;
}

/** A user who logged in by code and created a passkey with `device`: the browser (its session) and the page after it. */
async function enrolled(
  userId: string,
  device: SoftAuthenticator,
  knobs: SoftAuthenticatorKnobs = {},
): Promise<{ session: LoginSession; created: PageResponse; credentialId: string }> {
  const session = browser();
  const created = await session.createPasskey(await passkeysPageAfterCode(session, userId), device, knobs);
  expect(created.status).toBe(200);
  expect(created.html).toContain(escapeHtml(strings.passkeyCreated));
  const credentialId = device.credentials.at(-1)?.id as string;
  rememberSecret(credentialId);
  return { session, created, credentialId };
}

/** The user page of a new browser with no session: the passkey sign-in's form and options. */
async function userPage(
  clientId = 'local-web',
  extra: Record<string, string> = {},
): Promise<{ session: LoginSession; page: PageResponse }> {
  const session = browser(clientId);
  const page = await session.start(extra);
  expect(page.status).toBe(200);
  return { session, page };
}

async function storedPasskeys(userId: string, environmentId = 'local') {
  const keys = await service.deps.hmacKeys();
  return service.deps.passkeys.listOf(environmentId, userKeyOf(keys, { authType: 'email', value: userId }));
}

describe('enrolment after a login by code, then a sign-in with no code', () => {
  it('code login → passkeys page → create → continue → the code; then a new browser signs in with the passkey alone, amr and acr of a passkey', async () => {
    const user = uniqueEmail('enrol');
    const device = authenticator();
    const session = browser();
    const sent = await session.post(await session.start(), 'send', { user_id: user });
    // The code form carries the field the page script fills when a platform authenticator is there.
    expect(formsOf(sent.html).some((form) => 'webauthn' in form.values && form.values.action === 'verify')).toBe(true);
    const since = capturedLogs().length;
    const page = await session.post(sent, 'verify', { code: await service.latestCode(user), webauthn: '1' });
    expect(page.status).toBe(200);
    // The address is masked on the page; only the registration options carry it (user.name: what
    // the user's own passkey manager lists).
    expect(page.html).toMatch(/e•••@example\.com/);
    expect(page.html.replace(/data-options="[^"]*"/g, '')).not.toContain(user);
    // The session has started (its cookie set), without an authorization code yet.
    expect(session.sessionCookies.has(sessionCookieName('local'))).toBe(true);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'sha256-/);
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${new URL(REDIRECT_URI).origin}`);
    const options = formOptionsOf(page.html, 'passkey-register-form') as { user: { id: string } };
    expect(options).toMatchObject({
      rp: { id: 'localhost' },
      user: { name: user, displayName: user },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      attestation: 'none',
      excludeCredentials: [],
    });
    // user.id: 32 random bytes, never the address.
    expect(Buffer.from(options.user.id, 'base64url')).toHaveLength(32);

    const created = await session.createPasskey(page, device);
    expect(created.status).toBe(200);
    expect(created.html).toContain(escapeHtml(strings.passkeyCreated));
    const credentialId = device.credentials[0]?.id as string;
    rememberSecret(credentialId);
    const [stored] = await storedPasskeys(user);
    expect(stored).toMatchObject({ credentialId, userHandle: options.user.id, backupEligible: true, signCount: 0 });
    expect(logEntries(capturedLogs().slice(since), 'passkey registered')).toEqual([
      expect.objectContaining({
        environment: 'local',
        client: 'local-web',
        user: logHandleOf(stored!.userKey),
        passkey: passkeyHandleOf(credentialId),
        method: 'synced_passkey',
      }),
    ]);

    const codeLogin = await idTokenOf(session, await session.post(created, 'continue'));
    expect(codeLogin.amr).toEqual(['otp']);
    expect(codeLogin.acr).toBeUndefined();

    // Another browser, no session: the passkey alone, no code sent.
    const messages = (await service.outbox(user)).length;
    const { session: other, page: first } = await userPage();
    const signedIn = await other.signInWithPasskey(first, device);
    const claims = await idTokenOf(other, signedIn);
    expect(claims).toMatchObject({ sub: codeLogin.sub, amr: ['swk', 'user', 'mfa'], acr: 'phr', nonce: 'nonce-456' });
    expect(claims.sid).not.toBe(codeLogin.sid);
    expect(other.sessionCookies.has(sessionCookieName('local'))).toBe(true);
    expect(await service.outbox(user)).toHaveLength(messages);
    const [used] = await storedPasskeys(user);
    expect(used).toMatchObject({ signCount: 1, lastUsedAt: service.clock.now() });
  });

  it('gives a device-bound passkey (not backup eligible) amr hwk, and the session it starts serves another client at once', async () => {
    const device = authenticator({ backupEligible: false });
    const { session } = await enrolled(uniqueEmail('device-bound'), device);
    expect(session.sessionCookies.size).toBeGreaterThan(0);
    const { session: other, page } = await userPage();
    const claims = await idTokenOf(other, await other.signInWithPasskey(page, device));
    expect(claims).toMatchObject({ amr: ['hwk', 'user', 'mfa'], acr: 'phr' });
    // The passkey session serves an authorization request of another client without a page, with its amr.
    const second = browser('local-web-2', other.sessionCookies);
    const served = await idTokenOf(second, await second.start());
    expect(served).toMatchObject({ amr: ['hwk', 'user', 'mfa'], acr: 'phr', sid: claims.sid });
  });

  it('lists the user’s passkeys after a later code login, removes one (its own only), and a removed passkey no longer signs in', async () => {
    const user = uniqueEmail('remove');
    const device = authenticator();
    const { credentialId } = await enrolled(user, device);
    const session = browser();
    const page = await passkeysPageAfterCode(session, user);
    expect(formsOf(page.html).some((form) => form.values.passkey === credentialId)).toBe(true);
    // A credential of the user is excluded from a new registration (the authenticator would replace it).
    expect((formOptionsOf(page.html, 'passkey-register-form') as { excludeCredentials: Array<{ id: string }> }).excludeCredentials).toEqual(
      [expect.objectContaining({ id: credentialId })],
    );

    // Another user's credential id is not this user's to remove: nothing is.
    const strangerDevice = authenticator();
    const stranger = uniqueEmail('remove-stranger');
    const { credentialId: strangers } = await enrolled(stranger, strangerDevice);
    const refused = await session.post(page, 'passkey_remove', { passkey: strangers });
    expect(refused.status).toBe(400);
    expect(refused.html).not.toContain(escapeHtml(strings.passkeyRemoved));
    expect(await storedPasskeys(stranger)).toHaveLength(1);

    const since = capturedLogs().length;
    const removed = await session.removePasskey(refused, credentialId);
    expect(removed.status).toBe(200);
    expect(removed.html).toContain(escapeHtml(strings.passkeyRemoved));
    expect(formsOf(removed.html).some((form) => form.values.passkey === credentialId)).toBe(false);
    expect(await storedPasskeys(user)).toEqual([]);
    expect(logEntries(capturedLogs().slice(since), 'passkey removed')).toEqual([
      expect.objectContaining({ by: 'user', count: 1, environment: 'local', passkey: passkeyHandleOf(credentialId) }),
    ]);
    codeOf(await session.post(removed, 'continue'));

    const { session: other, page: first } = await userPage();
    const failed = await other.signInWithPasskey(first, device);
    expect(failed.status).toBe(400);
    expect(failed.html).toContain(escapeHtml(strings.passkeyFailed));
  });
});

describe('refusals: the user page again (400, one message, a fresh challenge), nothing written but the counted failure', () => {
  /** A fresh user with a passkey on `device`, and a new browser at the user page. */
  async function ready(
    device: SoftAuthenticator,
  ): Promise<{ user: string; credentialId: string; session: LoginSession; page: PageResponse }> {
    const user = uniqueEmail('refusal');
    const { credentialId } = await enrolled(user, device);
    return { user, credentialId, ...(await userPage()) };
  }

  /**
   * Posts `credential` (or the device's assertion with `knobs`) and expects a refusal: the page,
   * the requests, the log's reason (at warn for a regression), and the stored credential as it was.
   */
  async function expectRefused(
    setting: { session: LoginSession; page: PageResponse; user?: string },
    send: () => Promise<PageResponse>,
    expected: { operations: string[]; reason: string; level?: 'INFO' | 'WARN'; counted: boolean },
  ): Promise<void> {
    const before = setting.user === undefined ? [] : await storedPasskeys(setting.user);
    const since = capturedLogs().length;
    service.dynamodb.reset();
    const refused = await send();
    expect(service.dynamodb.operations()).toEqual(expected.operations);
    expect(refused.status).toBe(400);
    expect(refused.location).toBeUndefined();
    expect(refused.html).toContain(escapeHtml(strings.passkeyFailed));
    // The same page as every other refusal: a new challenge, the sign-in offered again, no session.
    const challenge = (formOptionsOf(refused.html, 'passkey-form') as { challenge: string }).challenge;
    expect(challenge).not.toBe((formOptionsOf(setting.page.html, 'passkey-form') as { challenge: string }).challenge);
    expect(refused.headers.getSetCookie().filter((cookie) => !cookie.startsWith('idp_login='))).toEqual([]);
    const [line] = logEntries(capturedLogs().slice(since), 'passkey refused');
    expect(line).toMatchObject({ reason: expected.reason, environment: 'local', client: 'local-web', level: expected.level ?? 'INFO' });
    expect('user' in (line ?? {})).toBe(expected.counted);
    if (setting.user !== undefined) expect(await storedPasskeys(setting.user)).toEqual(before);
  }

  it.each<[string, SoftAuthenticatorKnobs, string]>([
    ['a wrong RP ID (another site’s, in the authenticator data)', { rpId: 'evil.example' }, 'rp_id'],
    ['another origin (a phishing page)', { origin: 'http://evil.example' }, 'origin'],
    ['a forged signature', { forgeSignature: true }, 'signature'],
    ['no user verification', { userVerified: false }, 'user_verification'],
    ['another user handle', { userHandle: Buffer.alloc(32, 7).toString('base64url') }, 'user_handle'],
    ['another challenge', { challenge: Buffer.alloc(32, 1).toString('base64url') }, 'challenge'],
  ])('refuses %s, counting a failure for the credential’s user', async (_name, knobs, reason) => {
    const device = authenticator();
    const setting = await ready(device);
    await expectRefused(setting, () => setting.session.signInWithPasskey(setting.page, device, knobs), {
      operations: ['GetItem', 'UpdateItem'],
      reason,
      counted: true,
    });
  });

  it('refuses a sign-count regression (a cloned authenticator), logged at warn', async () => {
    const device = authenticator({ backupEligible: false });
    const setting = await ready(device);
    codeOf(await setting.session.signInWithPasskey(setting.page, device));
    const { session, page } = await userPage();
    await expectRefused({ ...setting, session, page }, () => session.signInWithPasskey(page, device, { signCount: 1 }), {
      operations: ['GetItem', 'UpdateItem'],
      reason: 'counter',
      level: 'WARN',
      counted: true,
    });
  });

  it('refuses the same assertion twice (a replayed challenge): the spent challenge’s record refuses it even for a passkey that never counts', async () => {
    const device = authenticator();
    const setting = await ready(device);
    const cookie = setting.session.transactionCookie;
    const options = formOptionsOf(setting.page.html, 'passkey-form') as Parameters<SoftAuthenticator['authenticate']>[0];
    // A synced passkey whose counter stays 0: the assertion alone would pass again.
    const assertion = JSON.stringify(device.authenticate(options, { signCount: 0 }));
    codeOf(await setting.session.signInWithPasskey(setting.page, device, { credential: assertion }));
    const attacker = browser();
    attacker.transactionCookie = cookie;
    await expectRefused(
      { ...setting, session: attacker },
      () => attacker.signInWithPasskey(setting.page, device, { credential: assertion }),
      {
        // The credential, the one transaction (cancelled on the spent challenge: nothing written), the failure.
        operations: ['GetItem', 'TransactWriteItems', 'UpdateItem'],
        reason: 'replayed',
        counted: true,
      },
    );
  });

  it('refuses a user an operator blocked, in the sign-in’s own transaction', async () => {
    const device = authenticator();
    const setting = await ready(device);
    const keys = await service.deps.hmacKeys();
    const userKey = userKeyOf(keys, { authType: 'email', value: setting.user });
    await service.deps.limiter.block({ operation: 'token', environmentId: 'local', userKey }, service.clock.now());
    await expectRefused(setting, () => setting.session.signInWithPasskey(setting.page, device), {
      operations: ['GetItem', 'TransactWriteItems', 'UpdateItem'],
      reason: 'blocked',
      counted: true,
    });
  });

  it('refuses an unknown credential and a malformed one, counting nothing (they name nobody)', async () => {
    const stranger = authenticator();
    stranger.register({
      rp: { id: 'localhost', name: 'elsewhere' },
      user: { id: Buffer.alloc(32, 3).toString('base64url'), name: 'nobody', displayName: 'nobody' },
      challenge: Buffer.alloc(32, 2).toString('base64url'),
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
    });
    const unknown = await userPage();
    await expectRefused(unknown, () => unknown.session.signInWithPasskey(unknown.page, stranger), {
      operations: ['GetItem'],
      reason: 'unknown_credential',
      counted: false,
    });
    const malformed = await userPage();
    await expectRefused(malformed, () => malformed.session.submit(malformed.page, 'passkey-form', { credential: '{"id":' }), {
      operations: [],
      reason: 'malformed',
      counted: false,
    });
  });

  it('refuses another environment’s credential (stored per environment)', async () => {
    const device = authenticator();
    const user = uniqueEmail('other-environment');
    const elsewhere = browser(TWO_ENVIRONMENTS);
    const page = await passkeysPageAfterCode(elsewhere, user, { env_id: 'other' });
    expect((await elsewhere.createPasskey(page, device)).status).toBe(200);
    rememberSecret(device.credentials[0]?.id);
    expect(await storedPasskeys(user, 'other')).toHaveLength(1);
    const here = await userPage();
    await expectRefused(here, () => here.session.signInWithPasskey(here.page, device), {
      operations: ['GetItem'],
      reason: 'unknown_credential',
      counted: false,
    });
    // In its own environment it signs in.
    const there = browser(TWO_ENVIRONMENTS);
    codeOf(await there.signInWithPasskey(await there.start({ env_id: 'other' }), device));
  });
});

describe('when the page offers a passkey: the script, “Not now”, and the enrolment window', () => {
  it('redirects as before when the script did not mark the code form (JavaScript off, or no platform authenticator)', async () => {
    const session = browser();
    const user = uniqueEmail('no-script');
    const first = await session.start();
    expect(first.html).toContain('name="user_id"');
    const sent = await session.post(first, 'send', { user_id: user });
    const claims = await idTokenOf(session, await session.post(sent, 'verify', { code: await service.latestCode(user) }));
    expect(claims.amr).toEqual(['otp']);
  });

  it('sets the “Not now” cookie for the environment’s askAgainDays, after which the code login redirects at once', async () => {
    const user = uniqueEmail('later');
    const session = browser();
    const page = await passkeysPageAfterCode(session, user);
    const later = await session.post(page, 'later');
    codeOf(later);
    expect(later.headers.getSetCookie()).toContain(
      `${passkeyLaterCookieName('local')}=1; Max-Age=${ASK_AGAIN_DAYS * 86_400}; Path=/idp/v1/account/authorize; HttpOnly; SameSite=Lax`,
    );
    expect(session.sessionCookies.get(passkeyLaterCookieName('local'))).toBe('1');

    // The same browser, a new code login: no webauthn field on the code form, and a post with one redirects.
    const again = browser('local-web', session.sessionCookies);
    const sent = await again.post(await again.start({ prompt: 'login' }), 'send', { user_id: user });
    expect(formsOf(sent.html).some((form) => 'webauthn' in form.values)).toBe(false);
    codeOf(await again.post(sent, 'verify', { code: await service.latestCode(user), webauthn: '1' }, { offered: false }));
  });

  it('refuses a registration more than 300 s after the code login (the expired page), and stores nothing', async () => {
    const user = uniqueEmail('late');
    const session = browser();
    const page = await passkeysPageAfterCode(session, user);
    service.clock.advanceSeconds(301);
    const late = await session.createPasskey(page, authenticator());
    expect(late.status).toBe(400);
    expect(late.html).toContain(escapeHtml(strings.expired));
    expect(await storedPasskeys(user)).toEqual([]);
  });

  it('accepts one within 300 s, and then offers only “Continue”', async () => {
    const user = uniqueEmail('in-time');
    const session = browser();
    const page = await passkeysPageAfterCode(session, user);
    expect(offersAction(page.html, 'later')).toBe(true);
    service.clock.advanceSeconds(299);
    const created = await session.createPasskey(page, authenticator());
    expect(created.status).toBe(200);
    expect(offersAction(created.html, 'later')).toBe(false);
    expect(await storedPasskeys(user)).toHaveLength(1);
    rememberSecret((await storedPasskeys(user))[0]?.credentialId);
  });

  it('shows “could not create” when the browser’s ceremony failed, and lets the user go on', async () => {
    const session = browser();
    const page = await passkeysPageAfterCode(session, uniqueEmail('ceremony-failed'));
    const failed = await session.submit(page, 'passkey-register-form', { credential: '' }, { failure: 'NotAllowedError' });
    expect(failed.status).toBe(400);
    expect(failed.html).toContain(escapeHtml(strings.passkeyCreateFailed));
    codeOf(await session.post(failed, 'continue'));
  });
});

describe('acr_values=phr (a phishing-resistant login)', () => {
  it('offers no code form and sends no code; a passkey signs in, with acr phr', async () => {
    const device = authenticator();
    const user = uniqueEmail('phr');
    await enrolled(user, device);
    const { session, page } = await userPage('local-web', { acr_values: 'phr' });
    expect(offersAction(page.html, 'send')).toBe(false);
    expect(page.html).toContain(escapeHtml(strings.passkeyRequired));
    const messages = (await service.outbox(user)).length;
    const refused = await session.post(page, 'send', { user_id: user }, { offered: false });
    expect(refused.status).toBe(403);
    expect(await service.outbox(user)).toHaveLength(messages);
    const claims = await idTokenOf(session, await session.signInWithPasskey(refused, device));
    expect(claims.acr).toBe('phr');
  });

  it('is served only by a passkey session: a code session asks for the passkey, and prompt=none answers login_required', async () => {
    const code = browser();
    codeOf(await code.signIn(uniqueEmail('phr-code-session')));
    const asked = await browser('local-web', code.sessionCookies).start({ acr_values: 'phr' });
    expect(asked.status).toBe(200);
    expect(formsOf(asked.html).some((form) => form.id === 'passkey-form')).toBe(true);
    const none = await browser('local-web', code.sessionCookies).start({ acr_values: 'phr', prompt: 'none' });
    expect(none.location?.searchParams.get('error')).toBe('login_required');

    const device = authenticator();
    await enrolled(uniqueEmail('phr-passkey-session'), device);
    const { session, page } = await userPage();
    codeOf(await session.signInWithPasskey(page, device));
    const served = browser('local-web', session.sessionCookies);
    expect((await idTokenOf(served, await served.start({ acr_values: 'phr', prompt: 'none' }))).acr).toBe('phr');
  });

  it('ignores values it does not know (OIDC Core §3.1.2.1: acr_values are voluntary), and phr for a client with passkeys off', async () => {
    const code = browser();
    codeOf(await code.signIn(uniqueEmail('acr-unknown')));
    codeOf(await browser('local-web', code.sessionCookies).start({ acr_values: 'urn:example:silver', prompt: 'none' }));
    const { page } = await userPage('local-web', { acr_values: 'urn:example:silver' });
    expect(offersAction(page.html, 'send')).toBe(true);
    const off = await userPage(OFF, { acr_values: 'phr' });
    expect(offersAction(off.page.html, 'send')).toBe(true);
    expect(formsOf(off.page.html).some((form) => form.id === 'passkey-form')).toBe(false);
  });
});

describe('the client’s passkeys setting', () => {
  it('required: sends no code to a user who has a passkey (403, one Query of their passkeys), a code to one who has none', async () => {
    const device = authenticator();
    const user = uniqueEmail('required');
    await enrolled(user, device);
    const { session, page } = await userPage(REQUIRED);
    const messages = (await service.outbox(user)).length;
    service.dynamodb.reset();
    const refused = await session.post(page, 'send', { user_id: user });
    // The send attempt, whether the user has a passkey (the index alone): no code, no window.
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'Query']);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain(escapeHtml(strings.passkeyRequired));
    expect(await service.outbox(user)).toHaveLength(messages);
    codeOf(await session.signInWithPasskey(refused, device));

    const newcomer = browser(REQUIRED);
    service.dynamodb.reset();
    const sent = await newcomer.post(await newcomer.start(), 'send', { user_id: uniqueEmail('required-newcomer') });
    expect(sent.status).toBe(200);
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'Query', 'UpdateItem', 'UpdateItem']);
    // Phone users too: the rule is per user, whatever the channel.
    const phone = browser(REQUIRED);
    expect((await phone.post(await phone.start(), 'send', { user_id: uniquePhone() })).status).toBe(200);
  });

  it('off: no passkey parts on any page, a forged passkey post starts over, and a passkey session does not serve the client', async () => {
    const { session, page } = await userPage(OFF);
    expect(formsOf(page.html).some((form) => form.id === 'passkey-form')).toBe(false);
    expect(page.headers.get('content-security-policy')).not.toContain('script-src');
    const user = uniqueEmail('off');
    const sent = await session.post(page, 'send', { user_id: user });
    expect(formsOf(sent.html).some((form) => 'webauthn' in form.values)).toBe(false);
    codeOf(await session.post(sent, 'verify', { code: await service.latestCode(user), webauthn: '1' }, { offered: false }));

    const forged = await userPage(OFF);
    service.dynamodb.reset();
    const restarted = await forged.session.post(forged.page, 'passkey', { credential: '{}' }, { offered: false });
    expect(restarted.status).toBe(200);
    expect(service.dynamodb.operations()).toEqual([]);

    const device = authenticator();
    await enrolled(uniqueEmail('off-session'), device);
    const signedIn = await userPage();
    codeOf(await signedIn.session.signInWithPasskey(signedIn.page, device));
    expect((await browser(OFF, signedIn.session.sessionCookies).start()).status).toBe(200);
  });
});

describe('DynamoDB requests per step (docs/decisions/016-passkeys.md)', () => {
  it('a passkey sign-in: 2 (the credential, one transaction), 3 with a session cookie (its read); enrolment and continue as counted here', async () => {
    const user = uniqueEmail('budget');
    const device = authenticator();
    const session = browser();
    const sent = await session.post(await session.start(), 'send', { user_id: user });
    service.dynamodb.reset();
    const page = await session.post(sent, 'verify', { code: await service.latestCode(user), webauthn: '1' });
    expect(page.status).toBe(200);
    // The attempt, the guess, the session (a plain Put: no authorization code yet), the user's passkeys (none: the index alone).
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'PutItem', 'Query']);
    service.dynamodb.reset();
    const created = await session.createPasskey(page, device);
    expect(created.status).toBe(200);
    // The user's passkeys (none: the index alone, for the handle), then the new one's Put.
    expect(service.dynamodb.operations()).toEqual(['Query', 'PutItem']);
    rememberSecret(device.credentials[0]?.id);
    service.dynamodb.reset();
    codeOf(await session.post(created, 'continue'));
    // The session's read, then its touch and the authorization code in one transaction (the SSO path).
    expect(service.dynamodb.operations()).toEqual(['GetItem', 'TransactWriteItems']);

    const fresh = await userPage();
    expect(fresh.page.status).toBe(200);
    service.dynamodb.reset();
    codeOf(await fresh.session.signInWithPasskey(fresh.page, device));
    expect(service.dynamodb.operations()).toEqual(['GetItem', 'TransactWriteItems']);

    const withCookie = browser('local-web', fresh.session.sessionCookies);
    service.dynamodb.reset();
    const again = await withCookie.start({ prompt: 'login' });
    expect(service.dynamodb.operations()).toEqual([]);
    codeOf(await withCookie.signInWithPasskey(again, device));
    // The credential, the session (re-authenticated in place), one transaction.
    expect(service.dynamodb.operations()).toEqual(['GetItem', 'GetItem', 'TransactWriteItems']);
  });
});
