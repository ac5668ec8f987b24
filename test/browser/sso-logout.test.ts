/**
 * Single sign-on and logout as a person meets them, in Chromium (issue 28): the service's session
 * (docs/decisions/014-sso-sessions.md; its rules are tested over HTTP in test/http/sessions.test.ts)
 * and its end-session endpoint (OpenID Connect RP-Initiated Logout 1.0), driven by unmodified
 * relying-party libraries:
 *
 * - the demo client (local/demo-client.ts, openid-client) playing two applications, local-web at
 *   `/` and local-web-2 at `/second`: a login at one, then the other logs in without the page or
 *   a second message; `prompt=none` top-level; `max_age=0`, `prompt=login` and another user's
 *   `login_hint` show the page again; its "Log out" with openid-client's `buildEndSessionUrl`;
 * - oidc-client-ts in a page: logged in by the session of a login at another app, then
 *   `signoutRedirect()` and `signoutCallback()`, which checks the `state` it sent;
 * - express-openid-connect with `idpLogout: true`: its own `/logout` route;
 * - requests a relying party did not prove (an unregistered post-logout redirect URI, a forged
 *   `id_token_hint`): the confirmation page, and never a redirect.
 *
 * Every library lands on a post-logout redirect URI registered for its client in this file's
 * configuration (`postLogoutRedirectUris`). What a test asserts of a redirect chain it reads from
 * the browser's own navigations, so a page shown in between (a login page, a confirmation) would
 * be seen. Screenshots go to test-output/screenshots/.
 */
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { newClientSecret } from '../../infra/client-secret';
import { sessionCookieName } from '../../lib/sessions/session-cookie';
import { sessionKeyOf } from '../../lib/sessions/sessions';
import { SECOND_DEMO_CLIENT_ID } from '../../local/demo-client';
import { launchBrowser, screenshot, startDemoService, type DemoService } from '../support/browser';
import { uniqueEmail } from '../support/harness';
import { rememberSecret } from '../support/log-capture';
import { AUTHORIZE_PATH } from '../support/login-flow';
import { withRelyingParties, type Registration } from '../support/relying-parties/clients';
import { expressOpenidConnectApp } from '../support/relying-parties/express-openid-connect';
import { listenOnLoopback, type LoopbackServer } from '../support/relying-parties/loopback';
import { oidcClientTsApp } from '../support/relying-parties/oidc-client-ts';

/** The end-session endpoint (discovery's `end_session_endpoint`). */
const LOGOUT_PATH = '/idp/v1/account/logout';

/** A client secret as `npm run client-secret` makes one, remembered as a secret the logs must not show. */
function clientSecret(): { secret: string; sha256: string } {
  const made = newClientSecret();
  rememberSecret(made.secret);
  return made;
}
const expressSecret = clientSecret();

let browser: Browser;
let demo: DemoService;
let servers: Record<'oidcClientTs' | 'expressOpenidConnect', LoopbackServer>;

beforeAll(async () => {
  // Each app's port first: its redirect and post-logout redirect URIs, which the configuration registers, name it.
  const [launched, oidcClientTs, expressOpenidConnect] = await Promise.all([launchBrowser(), listenOnLoopback(), listenOnLoopback()]);
  browser = launched;
  servers = { oidcClientTs, expressOpenidConnect };
  const registrations: Registration[] = [
    {
      id: 'rp-oidc-client-ts',
      redirectUri: `${oidcClientTs.origin}/callback`,
      tokenEndpointAuthMethod: 'none',
      refreshes: false,
      postLogoutRedirectUris: [`${oidcClientTs.origin}/signed-out`],
    },
    {
      id: 'rp-express-openid-connect',
      redirectUri: `${expressOpenidConnect.origin}/callback`,
      secretSha256: expressSecret.sha256,
      tokenEndpointAuthMethod: 'client_secret_basic',
      refreshes: false,
      // The library's post_logout_redirect_uri is its baseURL as given (no trailing slash).
      postLogoutRedirectUris: [expressOpenidConnect.origin],
    },
  ];
  demo = await startDemoService({ config: (config) => withRelyingParties(config, registrations, [oidcClientTs.origin]) });
  // The libraries check `exp`, `iat` and token expiry against the machine's clock (none takes an
  // injected one), so the service's clock is the real one here, not the suite's day-ahead clock.
  demo.service.clock.set(Date.now());
  demo.service.clock.runInRealTime();
  oidcClientTs.serve(oidcClientTsApp({ issuer: demo.issuer, origin: oidcClientTs.origin, clientId: 'rp-oidc-client-ts' }));
  expressOpenidConnect.serve(
    expressOpenidConnectApp({
      issuer: demo.issuer,
      origin: expressOpenidConnect.origin,
      clientId: 'rp-express-openid-connect',
      clientSecret: expressSecret.secret,
      cookieSecret: clientSecret().secret,
      idpLogout: true,
    }),
  );
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(Object.values(servers ?? {}).map((server) => server.stop()));
  await demo?.service.stop();
});

let context: BrowserContext;
let page: Page;
beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
});
afterEach(async () => context.close());

/** The main frame's navigations from now on (each request, redirects included), as the browser made them. */
function navigations(on: Page = page): URL[] {
  const seen: URL[] = [];
  on.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === on.mainFrame()) seen.push(new URL(request.url()));
  });
  return seen;
}

/** A URL without its query: what a redirect chain is compared by. */
const place = (url: URL): string => `${url.origin}${url.pathname}`;

async function text(selector: string): Promise<string> {
  return ((await page.textContent(selector)) ?? '').trim();
}

/** The JSON a demo callback page shows in the element `id`. */
async function shown(id: string): Promise<Record<string, unknown>> {
  return JSON.parse((await page.textContent(`#${id}`)) ?? 'null') as Record<string, unknown>;
}

/** The JSON the oidc-client-ts page shows in `id`, once its script has shown something there or in #error. */
async function shownIn(id: string): Promise<Record<string, unknown>> {
  await page.waitForSelector(`#${id}:not(:empty), #error:not(:empty)`);
  const error = (await page.textContent('#error')) ?? '';
  if (error !== '') throw new Error(`the page's library failed: ${error}`);
  return JSON.parse((await page.textContent(`#${id}`)) ?? 'null') as Record<string, unknown>;
}

/** The person's part on the hosted login page: their email, then the code from the outbox; waits until the browser leaves for `origin`. */
async function logInOnPage(user: string, origin: string): Promise<void> {
  await page.waitForSelector('#user_id');
  await page.fill('#user_id', user);
  await Promise.all([page.waitForNavigation(), page.click('button[value="send"]')]);
  await page.waitForSelector('#code');
  await page.fill('#code', await demo.service.latestCode(user));
  await Promise.all([page.waitForURL((url) => url.origin === origin), page.click('button[value="verify"]')]);
}

const demoOrigin = (): string => new URL(demo.demoUrl).origin;

/** A login with a code at the demo's application at `home` (`/` or `/second`); returns its ID token's claims. */
async function demoLogin(user: string, home: '/' | '/second' = '/'): Promise<Record<string, unknown>> {
  await page.goto(`${demoOrigin()}${home}`);
  await Promise.all([page.waitForURL((url) => url.href.startsWith(demo.issuer)), page.click('#login')]);
  await logInOnPage(user, demoOrigin());
  expect(await text('#logged-in-as')).toBe(`Logged in as ${user}`);
  return shown('id-token-claims');
}

/** The session the browser's cookie names at the service, read from the table (undefined: none, or ended). */
async function browserSession(): Promise<unknown> {
  const cookie = (await context.cookies(demo.issuer)).find((candidate) => candidate.name === sessionCookieName('local'));
  if (cookie === undefined) return undefined;
  return demo.service.deps.sessions.find(sessionKeyOf(await demo.service.deps.hmacKeys(), cookie.value));
}

/** Expects an authorization of the demo's second application to show the hosted login page: no session served it. */
async function expectLoginPageAtSecond(): Promise<void> {
  await page.goto(`${demoOrigin()}/second/login`);
  await page.waitForSelector('#user_id');
  expect(place(new URL(page.url()))).toBe(`${demo.issuer}${AUTHORIZE_PATH}`);
}

/**
 * A fresh ID token of the browser's session for local-web, as openid-client gets one: the
 * authorization (served by the session: no page) caught at the redirect URI, the code exchanged
 * here. What a relying party holds and may send as `id_token_hint`.
 */
async function idTokenOfSession(): Promise<string> {
  const config = await oidc.discovery(new URL(demo.issuer), 'local-web', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const authorization = oidc.buildAuthorizationUrl(config, {
    redirect_uri: demo.demo.redirectUri,
    scope: 'openid email',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  const caught = `${demo.demo.redirectUri}?*`;
  await page.route(caught, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'redirected' }));
  await page.goto(authorization.href);
  await page.unroute(caught);
  const callback = new URL(page.url());
  rememberSecret(callback.searchParams.get('code'));
  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: codeVerifier, expectedState: state });
  rememberSecret(tokens.access_token);
  rememberSecret(tokens.id_token);
  return tokens.id_token as string;
}

/** `genuine`'s claims and key id, signed with a key the service never had. */
async function forged(genuine: string): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256');
  const token = await new SignJWT(decodeJwt(genuine))
    .setProtectedHeader({ alg: 'ES256', kid: decodeProtectedHeader(genuine).kid, typ: 'JWT' })
    .sign(privateKey);
  rememberSecret(token);
  return token;
}

function endSessionUrl(parameters: Record<string, string>): string {
  return `${demo.issuer}${LOGOUT_PATH}?${new URLSearchParams(parameters).toString()}`;
}

describe('single sign-on in Chromium (OIDC Core §3.1.2.1)', () => {
  it('logs in at a second application without a code after a login at the first: no login page, no second message, the same sid and auth_time', async () => {
    const user = uniqueEmail('sso-browser');
    const first = await demoLogin(user);

    const seen = navigations();
    await page.goto(`${demoOrigin()}/second`);
    await screenshot(page, 'demo-second');
    await Promise.all([page.waitForURL((url) => url.pathname === '/callback'), page.click('#login')]);

    // From the second application to the authorization endpoint and straight back: no page in between.
    expect(seen.map(place)).toEqual([
      `${demoOrigin()}/second`,
      `${demoOrigin()}/second/login`,
      `${demo.issuer}${AUTHORIZE_PATH}`,
      `${demoOrigin()}/callback`,
    ]);
    expect(await text('#logged-in-as')).toBe(`Logged in as ${user}`);
    expect(await shown('id-token-claims')).toMatchObject({
      aud: SECOND_DEMO_CLIENT_ID,
      sub: first.sub,
      sid: first.sid,
      auth_time: first.auth_time,
      amr: first.amr,
    });
    expect((await demo.service.outbox(user)).length).toBe(1);
    await screenshot(page, 'demo-second-callback');
  });

  it('answers prompt=none in a top-level navigation with a code when the browser has a session, and login_required in a fresh browser (OIDC Core §3.1.2.6)', async () => {
    const user = uniqueEmail('sso-none');
    await demoLogin(user);

    await page.goto(`${demoOrigin()}/second/login?prompt=none`);
    expect(await text('#logged-in-as')).toBe(`Logged in as ${user}`);

    const fresh = await (await browser.newContext()).newPage();
    try {
      await fresh.goto(`${demoOrigin()}/second/login?prompt=none`);
      const callback = new URL(fresh.url());
      expect(place(callback)).toBe(`${demoOrigin()}/callback`);
      expect(callback.searchParams.get('error')).toBe('login_required');
      expect(((await fresh.textContent('#error')) ?? '').trim()).toBe('The issuer answered login_required');
    } finally {
      await fresh.context().close();
    }
    expect((await demo.service.outbox(user)).length).toBe(1);
  });

  it.each(['max_age=0', 'prompt=login'])(
    'shows the login page again with %s, and the new code re-authenticates the same session',
    async (query) => {
      const user = uniqueEmail('sso-again');
      const first = await demoLogin(user);

      await page.goto(`${demoOrigin()}/second/login?${query}`);
      await page.waitForSelector('#user_id');
      expect(place(new URL(page.url()))).toBe(`${demo.issuer}${AUTHORIZE_PATH}`);
      await logInOnPage(user, demoOrigin());

      expect(await text('#logged-in-as')).toBe(`Logged in as ${user}`);
      const again = await shown('id-token-claims');
      expect(again).toMatchObject({ aud: SECOND_DEMO_CLIENT_ID, sub: first.sub, sid: first.sid });
      expect(again.auth_time).toBeGreaterThanOrEqual(first.auth_time as number);
      expect((await demo.service.outbox(user)).length).toBe(2);
    },
  );

  it('shows the login page, prefilled, when login_hint names another user (never switches silently); serves the session’s own user', async () => {
    const user = uniqueEmail('sso-hint');
    const other = uniqueEmail('sso-hint-other');
    await demoLogin(user);

    await page.goto(`${demoOrigin()}/second/login?login_hint=${encodeURIComponent(other)}`);
    await page.waitForSelector('#user_id');
    expect(await page.inputValue('#user_id')).toBe(other);
    await screenshot(page, 'login-other-hint');

    await page.goto(`${demoOrigin()}/second/login?login_hint=${encodeURIComponent(user.toUpperCase())}`);
    expect(await text('#logged-in-as')).toBe(`Logged in as ${user}`);
    expect(await demo.service.outbox(other)).toEqual([]);
  });
});

describe('RP-initiated logout in Chromium (OpenID Connect RP-Initiated Logout 1.0)', () => {
  it('openid-client buildEndSessionUrl (the demo): id_token_hint, post_logout_redirect_uri and state; back at the demo, which checks the state; the session is gone', async () => {
    const user = uniqueEmail('logout-openid-client');
    await demoLogin(user);

    const seen = navigations();
    await Promise.all([page.waitForURL((url) => url.origin === demoOrigin() && url.searchParams.has('state')), page.click('#logout')]);

    // Proven by the hint, the logout ended at once (§2): no confirmation page in between.
    expect(seen.map(place)).toEqual([`${demoOrigin()}/logout`, `${demo.issuer}${LOGOUT_PATH}`, demo.demoUrl]);
    const request = seen[1] as URL;
    expect(Object.fromEntries(request.searchParams)).toEqual({
      client_id: 'local-web',
      id_token_hint: expect.any(String),
      post_logout_redirect_uri: demo.demoUrl,
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    // §3: back at the registered URI with the state the demo sent, which it checked.
    const back = new URL(page.url());
    expect(Object.fromEntries(back.searchParams)).toEqual({ state: request.searchParams.get('state') });
    expect(await text('#logged-out')).toContain('Logged out of Demo application and of the identity service.');
    expect(await page.$('#login')).not.toBeNull();
    await screenshot(page, 'demo-logged-out');
    expect(await browserSession()).toBeUndefined();

    // The state is good once: the same return again is not a logout this browser started.
    await page.reload();
    expect(await text('#error')).toBe('This is not a logout this browser started');
    await expectLoginPageAtSecond();
  });

  it('oidc-client-ts signoutRedirect(): logged in by the session of a login at another app, then back at its post-logout URI with the state signoutCallback() checks; the session is gone', async () => {
    const user = uniqueEmail('logout-oidc-client-ts');
    const app = servers.oidcClientTs.origin;
    await demoLogin(user);
    await page.goto(`${app}/`);
    await Promise.all([page.waitForURL((url) => url.origin === app && url.pathname === '/callback'), page.click('#login')]);
    expect(await shownIn('user')).toMatchObject({ profile: expect.objectContaining({ aud: 'rp-oidc-client-ts', email: user }) });
    expect((await demo.service.outbox(user)).length).toBe(1);

    const seen = navigations();
    await Promise.all([page.waitForURL((url) => url.origin === app && url.pathname === '/signed-out'), page.click('#logout')]);
    const signedOut = await shownIn('signed-out');

    expect(seen.map(place)).toEqual([`${demo.issuer}${LOGOUT_PATH}`, `${app}/signed-out`]);
    const request = seen[0] as URL;
    // The library sends no client_id beside a hint.
    expect(Object.fromEntries(request.searchParams)).toEqual({
      id_token_hint: expect.any(String),
      post_logout_redirect_uri: `${app}/signed-out`,
      state: expect.any(String),
    });
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ state: request.searchParams.get('state') });
    // signoutCallback() found the state it kept and gave back its data; the library holds no user.
    expect(signedOut).toEqual({ userState: { from: 'callback' }, user: null });
    expect(await browserSession()).toBeUndefined();

    await page.goto(`${app}/`);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(demo.issuer)), page.click('#login')]);
    await page.waitForSelector('#user_id');
  });

  it('express-openid-connect with idpLogout: its /logout sends id_token_hint and its base URL; back there, the app asks for a login and the service shows the page', async () => {
    const user = uniqueEmail('logout-express');
    const app = servers.expressOpenidConnect.origin;
    await page.goto(`${app}/`);
    await logInOnPage(user, app);
    expect(JSON.parse((await page.textContent('body')) ?? '{}')).toMatchObject({ user: expect.objectContaining({ email: user }) });

    const seen = navigations();
    await page.goto(`${app}/logout`);
    // Back at its base URL, which requires a login (authRequired): the app sends the browser to
    // the service, which has no session any more and shows its page.
    await page.waitForSelector('#user_id');

    expect(seen.map(place)).toEqual([`${app}/logout`, `${demo.issuer}${LOGOUT_PATH}`, `${app}/`, `${demo.issuer}${AUTHORIZE_PATH}`]);
    const request = seen[1] as URL;
    // The library sends no state (nothing comes back to check).
    expect(Object.fromEntries(request.searchParams)).toEqual({
      client_id: 'rp-express-openid-connect',
      id_token_hint: expect.any(String),
      post_logout_redirect_uri: app,
    });
    expect([...(seen[2] as URL).searchParams]).toEqual([]);
    expect(await browserSession()).toBeUndefined();
  });

  it('asks before ending anything, and never redirects, when the post_logout_redirect_uri is not one the client registered (§2, §3.1); “Sign out” ends the session on the service’s page', async () => {
    const user = uniqueEmail('logout-unregistered');
    await demoLogin(user);
    const hint = await idTokenOfSession();

    const seen = navigations();
    await page.goto(
      endSessionUrl({ id_token_hint: hint, post_logout_redirect_uri: 'https://rp.example/after-logout', state: 'unregistered-state' }),
    );
    expect(await text('h1')).toBe('Sign out of Identity Dev?');
    await screenshot(page, 'logout-confirm');
    expect(await browserSession()).toBeDefined();

    await Promise.all([page.waitForNavigation(), page.click('button[value="logout"]')]);
    expect(page.url()).toBe(`${demo.issuer}${LOGOUT_PATH}`);
    expect(await text('h1')).toBe('You are signed out of Identity Dev');
    await screenshot(page, 'logout-signed-out');
    expect(seen.every((url) => url.origin === demo.issuer)).toBe(true);
    expect(await browserSession()).toBeUndefined();
    await expectLoginPageAtSecond();
  });

  it('asks before ending anything for a forged id_token_hint and never redirects, even to a registered URI (§2, §4); “Stay signed in” keeps the session', async () => {
    const user = uniqueEmail('logout-forged');
    await demoLogin(user);
    const hint = await forged(await idTokenOfSession());

    const seen = navigations();
    await page.goto(endSessionUrl({ id_token_hint: hint, post_logout_redirect_uri: demo.demoUrl, state: 'forged-state' }));
    expect(await text('h1')).toBe('Sign out of Identity Dev?');

    await Promise.all([page.waitForNavigation(), page.click('button[value="stay"]')]);
    expect(page.url()).toBe(`${demo.issuer}${LOGOUT_PATH}`);
    expect(await text('h1')).toBe('You are still signed in to Identity Dev');
    await screenshot(page, 'logout-still-signed-in');
    expect(seen.every((url) => url.origin === demo.issuer)).toBe(true);

    // The session still serves: the second application logs in at once.
    await page.goto(`${demoOrigin()}/second/login`);
    expect(await text('#logged-in-as')).toBe(`Logged in as ${user}`);
  });
});
