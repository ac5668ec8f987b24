/**
 * Single sign-on sessions at the authorization endpoint (OpenID Connect Core §3.1.2.1–§3.1.2.3,
 * docs/decisions/014-sso-sessions.md), over HTTP as a browser without JavaScript sends them: a
 * second client logs in without a code, `prompt`, `max_age`, `login_hint` and `id_token_hint`
 * decide when a session may serve, the idle and absolute lifetimes (with the injected clock), one
 * environment's session never serves another, a new code re-authenticates the session of its user
 * and ends another user's, and the DynamoDB requests of a login a session serves.
 */
import { decodeJwt, SignJWT, generateKeyPair, type JWK } from 'jose';
import { REDIRECT_URI, startTestService, uniqueEmail, uniquePhone, type TestService } from '../support/harness';
import { exchangeForIdToken, LoginSession, type PageResponse } from '../support/login-flow';
import { rememberSecret } from '../support/log-capture';
import { sessionCookieName } from '../../lib/sessions/session-cookie';
import { sessionKeyOf } from '../../lib/sessions/sessions';

const TOKEN = '/idp/v1/account/token';
/** A second client of the same environment (another application the user opens). */
const SECOND = 'sso-second';
/** A client that may use email only: a session whose code came by SMS cannot serve it. */
const EMAIL_ONLY = 'sso-email-only';
/** A client of a second environment too. */
const TWO_ENVIRONMENTS = 'sso-two-environments';
const IDLE_SECONDS = 3600;
const ABSOLUTE_SECONDS = 4 * 3600;

let service: TestService;
let jwks: { keys: JWK[] };
beforeAll(async () => {
  service = await startTestService({
    config: (config) => {
      const web = config.clients.find((client) => client.id === 'local-web')!;
      const local = config.environments.find((environment) => environment.id === 'local')!;
      const sessions = { idleSeconds: IDLE_SECONDS, absoluteSeconds: ABSOLUTE_SECONDS };
      return {
        ...config,
        environments: [
          { ...local, sessions },
          { ...local, id: 'other', sessions },
        ],
        clients: [
          ...config.clients,
          { ...web, id: SECOND },
          { ...web, id: EMAIL_ONLY, channels: ['email'] },
          { ...web, id: TWO_ENVIRONMENTS, environments: ['local', 'other'] },
        ],
      };
    },
  });
  jwks = (await service.get('/.well-known/jwks.json')).body as { keys: JWK[] };
});
afterAll(async () => service.stop());

/** The code of a redirect to the client (302 with `code`). */
function codeOf(response: PageResponse): string {
  expect(response.status).toBe(302);
  expect(response.location?.origin + (response.location?.pathname ?? '')).toBe(REDIRECT_URI);
  const code = response.location?.searchParams.get('code');
  if (code === null || code === undefined) throw new Error(`no code in ${response.location?.toString()}`);
  return code;
}

/** Exchanges the redirect's code and returns the verified ID token's claims (and the refresh token). */
async function idTokenOf(session: LoginSession, response: PageResponse): Promise<Record<string, unknown>> {
  const { claims, refreshToken } = await exchangeForIdToken(service, jwks, session, codeOf(response));
  return { ...claims, refresh_token: refreshToken };
}

/** A browser that has logged in at local-web as `userId`; returns the login's ID token claims. */
async function loggedIn(userId: string): Promise<{ browser: LoginSession; idToken: Record<string, unknown> }> {
  const browser = new LoginSession(service);
  const idToken = await idTokenOf(browser, await browser.signIn(userId));
  expect(browser.sessionCookies.has(sessionCookieName('local'))).toBe(true);
  return { browser, idToken };
}

/** Another client's login in the same browser. */
function sameBrowser(browser: LoginSession, clientId = SECOND): LoginSession {
  return new LoginSession(service, clientId, { sessionCookies: browser.sessionCookies });
}

describe('a session at the service', () => {
  it('logs the user in to a second client at once, with the session’s auth_time, amr and sid (OIDC Core §3.1.2.1), in 2 DynamoDB requests', async () => {
    const { browser, idToken } = await loggedIn(uniqueEmail('sso'));
    const second = sameBrowser(browser);
    service.clock.advanceSeconds(60);
    service.dynamodb.reset();
    const answer = await second.start();
    // The session's read, then one transaction: its touch and the authorization code.
    expect(service.dynamodb.operations()).toEqual(['GetItem', 'TransactWriteItems']);
    expect(answer.location?.searchParams.get('state')).toBe('state-123');
    expect(answer.location?.searchParams.get('iss')).toBe(service.url);
    const claims = await idTokenOf(second, answer);
    expect(claims).toMatchObject({
      sub: idToken.sub,
      auth_time: idToken.auth_time,
      amr: idToken.amr,
      sid: idToken.sid,
      nonce: 'nonce-456',
    });
  });

  it('sets a host-only HttpOnly cookie holding only an unguessable reference, on the stage’s path, SameSite=Lax over plain http', async () => {
    const user = uniqueEmail('cookie');
    const browser = new LoginSession(service);
    const sent = await browser.post(await browser.start(), 'send', { user_id: user });
    const granted = await browser.post(sent, 'verify', { code: await service.latestCode(user) });
    expect(granted.status).toBe(302);
    const cookies = granted.headers.getSetCookie();
    const session = cookies.find((cookie) => cookie.startsWith(`${sessionCookieName('local')}=`));
    expect(session).toMatch(
      new RegExp(`^${sessionCookieName('local')}=[A-Za-z0-9_-]{43}; Max-Age=${ABSOLUTE_SECONDS}; Path=/; HttpOnly; SameSite=Lax$`),
    );
    // The transaction's cookie is cleared beside it.
    expect(cookies.some((cookie) => /^idp_login=;.*Max-Age=0/.test(cookie))).toBe(true);
  });

  it('answers prompt=none with a code when a session fits and login_required when none does (OIDC Core §3.1.2.6)', async () => {
    const { browser } = await loggedIn(uniqueEmail('none'));
    codeOf(await sameBrowser(browser).start({ prompt: 'none' }));
    const stranger = await new LoginSession(service, SECOND).start({ prompt: 'none' });
    expect(stranger.location?.searchParams.get('error')).toBe('login_required');
    expect(stranger.location?.searchParams.get('state')).toBe('state-123');
  });

  it('asks for a code again with prompt=login (no read at all) and with max_age=0; keeps a session younger than max_age (OIDC Core §3.1.2.1)', async () => {
    const { browser } = await loggedIn(uniqueEmail('max-age'));
    service.dynamodb.reset();
    const again = await sameBrowser(browser).start({ prompt: 'login' });
    expect(again.status).toBe(200);
    expect(again.html).toContain('name="user_id"');
    expect(service.dynamodb.operations()).toEqual([]);
    expect((await sameBrowser(browser).start({ max_age: '0' })).status).toBe(200);
    service.clock.advanceSeconds(120);
    codeOf(await sameBrowser(browser).start({ max_age: '600' }));
    expect((await sameBrowser(browser).start({ max_age: '100' })).status).toBe(200);
    const none = await sameBrowser(browser).start({ max_age: '100', prompt: 'none' });
    expect(none.location?.searchParams.get('error')).toBe('login_required');
  });

  it('asks for a code when login_hint names another user, prefilled with it; serves the same user however written', async () => {
    const user = uniqueEmail('hint');
    const { browser } = await loggedIn(user);
    const other = uniqueEmail('hint-other');
    const asked = await sameBrowser(browser).start({ login_hint: other });
    expect(asked.status).toBe(200);
    expect(asked.html).toContain(`value="${other}"`);
    codeOf(await sameBrowser(browser).start({ login_hint: ` ${user.toUpperCase()} ` }));
  });

  it('serves an id_token_hint of the session’s user (expired too) and asks for a code for another user’s or a forged one', async () => {
    const { browser } = await loggedIn(uniqueEmail('id-hint'));
    const hint = await rawIdToken(browser);
    // Past the ID token's hour, with the session used in between (its idle hour).
    service.clock.advanceSeconds(1800);
    codeOf(await sameBrowser(browser).start());
    service.clock.advanceSeconds(1900);
    expect(decodeJwt(hint).exp).toBeLessThan(service.clock.now() / 1000);
    codeOf(await sameBrowser(browser).start({ id_token_hint: hint }));

    const othersHint = await rawIdToken((await loggedIn(uniqueEmail('id-hint-other'))).browser);
    expect((await sameBrowser(browser).start({ id_token_hint: othersHint })).status).toBe(200);
    const forged = await forgedIdToken(decodeJwt(hint));
    expect((await sameBrowser(browser).start({ id_token_hint: forged })).status).toBe(200);
    const none = await sameBrowser(browser).start({ id_token_hint: forged, prompt: 'none' });
    expect(none.location?.searchParams.get('error')).toBe('login_required');
  });

  it('offers “continue as” and “use another account” with prompt=select_account', async () => {
    const { browser } = await loggedIn(uniqueEmail('select'));
    const second = sameBrowser(browser);
    const chooser = await second.start({ prompt: 'select_account' });
    expect(chooser.status).toBe(200);
    expect(chooser.html).toMatch(/Continue as s•••@example\.com/);
    codeOf(await second.post(chooser, 'continue'));
    const another = sameBrowser(browser);
    const page = await another.post(await another.start({ prompt: 'select_account' }), 'restart');
    expect(page.status).toBe(200);
    expect(page.html).toContain('name="user_id"');
  });

  it('never serves a client that may not use the channel the session’s code came by', async () => {
    const { browser } = await loggedIn(uniquePhone());
    expect((await sameBrowser(browser, EMAIL_ONLY).start()).status).toBe(200);
  });

  it('never serves another environment (the cookie is per environment)', async () => {
    const { browser } = await loggedIn(uniqueEmail('environments'));
    const elsewhere = await sameBrowser(browser, TWO_ENVIRONMENTS).start({ env_id: 'other' });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.html).toContain('name="user_id"');
    codeOf(await sameBrowser(browser, TWO_ENVIRONMENTS).start());
  });

  it('ends after its idle lifetime without a login, and after its absolute lifetime however used (injected clock)', async () => {
    const idle = await loggedIn(uniqueEmail('idle'));
    service.clock.advanceSeconds(IDLE_SECONDS - 5);
    codeOf(await sameBrowser(idle.browser).start());
    service.clock.advanceSeconds(IDLE_SECONDS - 5);
    codeOf(await sameBrowser(idle.browser).start());
    service.clock.advanceSeconds(IDLE_SECONDS);
    expect((await sameBrowser(idle.browser).start()).status).toBe(200);

    const absolute = await loggedIn(uniqueEmail('absolute'));
    for (let used = 0; used < ABSOLUTE_SECONDS - IDLE_SECONDS / 2; used += IDLE_SECONDS / 2) {
      service.clock.advanceSeconds(IDLE_SECONDS / 2);
      codeOf(await sameBrowser(absolute.browser).start());
    }
    service.clock.advanceSeconds(IDLE_SECONDS / 2);
    expect((await sameBrowser(absolute.browser).start()).status).toBe(200);
  });

  it('re-authenticates its user’s session in place (same sid, new auth_time) and replaces another user’s, ending it', async () => {
    const user = uniqueEmail('reauth');
    const { browser, idToken } = await loggedIn(user);
    service.clock.advanceSeconds(300);
    const again = sameBrowser(browser);
    const renewed = await idTokenOf(again, await again.signIn(user, { prompt: 'login' }));
    expect(renewed.sid).toBe(idToken.sid);
    expect(renewed.auth_time).toBe((idToken.auth_time as number) + 300);

    const before = browser.sessionCookies.get(sessionCookieName('local')) as string;
    const other = sameBrowser(browser);
    const switched = await idTokenOf(other, await other.signIn(uniqueEmail('reauth-other'), { prompt: 'login' }));
    expect(switched.sid).not.toBe(idToken.sid);
    expect(browser.sessionCookies.get(sessionCookieName('local'))).not.toBe(before);
    const keys = await service.deps.hmacKeys();
    expect(await service.deps.sessions.find(sessionKeyOf(keys, before))).toBeUndefined();
    // The first user's refresh family (no offline_access) ended with the session.
    const refreshed = await service.postForm(TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: idToken.refresh_token as string,
      client_id: 'local-web',
    });
    expect(refreshed.body.error).toBe('invalid_grant');
  });
});

/** A fresh ID token of `browser`'s session user for local-web, as a relying party keeps it. */
async function rawIdToken(browser: LoginSession): Promise<string> {
  const client = sameBrowser(browser, 'local-web');
  const answer = await client.start();
  const exchanged = await service.postForm(TOKEN, {
    grant_type: 'authorization_code',
    code: codeOf(answer),
    client_id: 'local-web',
    redirect_uri: REDIRECT_URI,
    code_verifier: client.verifier,
  });
  rememberSecret(exchanged.body.id_token);
  return exchanged.body.id_token as string;
}

/** The same claims signed by a key that is not the service's. */
async function forgedIdToken(claims: Record<string, unknown>): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: 'forged' }).sign(privateKey);
}
