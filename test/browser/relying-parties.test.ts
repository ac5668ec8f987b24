/**
 * Relying-party libraries, unmodified, each with the configuration its documentation gives its
 * kind of app and nothing else (issue 27), signing a person in through the hosted login page in
 * Chromium: the browser opens the app, the app sends it to the page, the person enters their email
 * and the code from the outbox, and lands back in the app, logged in. Then the test asks the app
 * what its library knows of the user (the ID token's claims, UserInfo), and refreshes where the
 * library refreshes. The apps are in test/support/relying-parties/; docs/connect.md shows the
 * same configuration to integrators.
 *
 * - express-openid-connect 3 (a server-rendered app): code flow, client_secret_basic, default
 *   scope, idpLogout off; `req.oidc.user`, `fetchUserInfo()`, `accessToken.refresh()`;
 * - Auth.js (`@auth/core`) with its generic OIDC provider: its own sign-in page, `/auth/session`;
 * - Passport with openid-client's strategy: client_secret_post, `req.user`;
 * - oidc-client-ts in a page (a public client, CORS): `User.profile`, `signinSilent()` by the
 *   refresh token;
 * - Authlib 1.2 (Debian's python3-authlib, a child process): client_secret_basic, the ID token
 *   verified with the JWKS, UserInfo, `refresh_token()`.
 *
 * Each client is registered with the one method its library uses, so a library that
 * authenticated otherwise would be refused: the method is tested by the login succeeding.
 */
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { newClientSecret } from '../../infra/client-secret';
import { launchBrowser, screenshot } from '../support/browser';
import { startTestService, TOKEN_PATH, uniqueEmail, type TestService } from '../support/harness';
import { rememberSecret } from '../support/log-capture';
import { AUTHORIZE_PATH } from '../support/login-flow';
import { AUTHJS_PROVIDER_ID, authJsApp } from '../support/relying-parties/authjs';
import { launchAuthlibApp, type AuthlibApp } from '../support/relying-parties/authlib';
import { withRelyingParties, type Registration } from '../support/relying-parties/clients';
import { expressOpenidConnectApp } from '../support/relying-parties/express-openid-connect';
import { listenOnLoopback, type LoopbackServer } from '../support/relying-parties/loopback';
import { oidcClientTsApp } from '../support/relying-parties/oidc-client-ts';
import { passportApp } from '../support/relying-parties/passport';

/** A client secret as `npm run client-secret` makes one, remembered as a secret the logs must not show. */
function clientSecret(): { secret: string; sha256: string } {
  const made = newClientSecret();
  rememberSecret(made.secret);
  return made;
}

const secrets = {
  expressOpenidConnect: clientSecret(),
  authJs: clientSecret(),
  passport: clientSecret(),
  authlib: clientSecret(),
};

let browser: Browser;
let service: TestService;
let servers: Record<'expressOpenidConnect' | 'authJs' | 'passport' | 'oidcClientTs', LoopbackServer>;
let authlib: AuthlibApp;

beforeAll(async () => {
  // Each app's port first: its redirect URI, which the service's configuration registers, names it.
  const [launched, expressOpenidConnect, authJs, passport, oidcClientTs, python] = await Promise.all([
    launchBrowser(),
    listenOnLoopback(),
    listenOnLoopback(),
    listenOnLoopback(),
    listenOnLoopback(),
    launchAuthlibApp('rp-authlib', secrets.authlib.secret),
  ]);
  browser = launched;
  servers = { expressOpenidConnect, authJs, passport, oidcClientTs };
  authlib = python;

  const registrations: Registration[] = [
    {
      id: 'rp-express-openid-connect',
      redirectUri: `${expressOpenidConnect.origin}/callback`,
      secretSha256: secrets.expressOpenidConnect.sha256,
      tokenEndpointAuthMethod: 'client_secret_basic',
      refreshes: true,
    },
    {
      id: 'rp-authjs',
      redirectUri: `${authJs.origin}/auth/callback/${AUTHJS_PROVIDER_ID}`,
      secretSha256: secrets.authJs.sha256,
      tokenEndpointAuthMethod: 'client_secret_basic',
      refreshes: false,
    },
    {
      id: 'rp-passport',
      redirectUri: `${passport.origin}/login/callback`,
      secretSha256: secrets.passport.sha256,
      tokenEndpointAuthMethod: 'client_secret_post',
      refreshes: false,
    },
    { id: 'rp-oidc-client-ts', redirectUri: `${oidcClientTs.origin}/callback`, tokenEndpointAuthMethod: 'none', refreshes: true },
    {
      id: 'rp-authlib',
      redirectUri: `${authlib.origin}/callback`,
      secretSha256: secrets.authlib.sha256,
      tokenEndpointAuthMethod: 'client_secret_basic',
      refreshes: true,
    },
  ];
  service = await startTestService({ config: (config) => withRelyingParties(config, registrations, [oidcClientTs.origin]) });
  // The libraries check `exp`, `iat` and token expiry against the machine's clock (none takes an
  // injected one), so the service's clock is the real one here, not the suite's day-ahead clock.
  service.clock.set(Date.now());
  service.clock.runInRealTime();

  const issuer = service.url;
  const options = (server: LoopbackServer, clientId: string, secret: string) => ({
    issuer,
    origin: server.origin,
    clientId,
    clientSecret: secret,
  });
  expressOpenidConnect.serve(
    expressOpenidConnectApp({
      ...options(expressOpenidConnect, 'rp-express-openid-connect', secrets.expressOpenidConnect.secret),
      cookieSecret: clientSecret().secret,
    }),
  );
  authJs.serve(authJsApp({ ...options(authJs, 'rp-authjs', secrets.authJs.secret), secret: clientSecret().secret }));
  passport.serve(await passportApp({ ...options(passport, 'rp-passport', secrets.passport.secret), sessionSecret: clientSecret().secret }));
  oidcClientTs.serve(oidcClientTsApp({ issuer, origin: oidcClientTs.origin, clientId: 'rp-oidc-client-ts' }));
  authlib.start(issuer);
}, 60_000);

afterAll(async () => {
  authlib?.stop();
  await browser?.close();
  await Promise.all(Object.values(servers ?? {}).map((server) => server.stop()));
  await service?.stop();
});

let page: Page;
beforeEach(async () => {
  page = await (await browser.newContext()).newPage();
});
afterEach(async () => page.context().close());

/** Waits on the hosted login page (where the app sent the browser); returns the authorization request. */
async function atLoginPage(): Promise<Record<string, string>> {
  await page.waitForSelector('#user_id');
  const request = new URL(page.url());
  expect(`${request.origin}${request.pathname}`).toBe(`${service.url}${AUTHORIZE_PATH}`);
  return Object.fromEntries(request.searchParams);
}

/**
 * The person's part on the hosted page: their email, then the code from the outbox. Returns where
 * the browser came to rest back in the app at `origin` (after the app's own redirects), which a
 * test asserts: a library that refused the login rests on its error, not on a page a test waits for.
 */
async function logIn(user: string, origin: string): Promise<string> {
  await page.fill('#user_id', user);
  await Promise.all([page.waitForNavigation(), page.click('button[value="send"]')]);
  await page.waitForSelector('#code');
  await page.fill('#code', await service.latestCode(user));
  await Promise.all([page.waitForURL((url) => url.origin === origin), page.click('button[value="verify"]')]);
  return new URL(page.url()).pathname;
}

/** The JSON the app answered with at the page's URL (what it answered instead, if not JSON). */
async function shownJson(): Promise<Record<string, unknown>> {
  const text = (await page.textContent('body')) ?? '';
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${page.url()} answered no JSON: ${text.slice(0, 300)}`);
  }
}

/** The JSON a page element shows, once the page's script has shown something there or in #error. */
async function shownIn(id: string): Promise<Record<string, unknown>> {
  await page.waitForSelector(`#${id}:not(:empty), #error:not(:empty)`);
  const error = (await page.textContent('#error')) ?? '';
  if (error !== '') throw new Error(`the page's library failed: ${error}`);
  return JSON.parse((await page.textContent(`#${id}`)) ?? 'null') as Record<string, unknown>;
}

/**
 * The `sub` the service gives `user` in this environment (a public subject: one for every client
 * of it), read from an access token of the API flow: what the libraries must all have been told.
 */
async function subjectOf(user: string): Promise<string> {
  const tokens = await service.signIn(user);
  return decodeJwt(tokens.body.access_token as string).sub as string;
}

const PKCE_CHALLENGE = expect.stringMatching(/^[A-Za-z0-9_-]{43}$/);

describe('relying-party libraries through the hosted login page', () => {
  it('express-openid-connect: code flow with client_secret_basic and its default scope; req.oidc.user, fetchUserInfo() and accessToken.refresh()', async () => {
    const user = uniqueEmail('express-openid-connect');
    const app = servers.expressOpenidConnect.origin;

    await page.goto(`${app}/`);
    const request = await atLoginPage();
    const landed = await logIn(user, app);
    const signedIn = await shownJson();
    await page.goto(`${app}/refresh`);
    const refreshed = await shownJson();

    expect(request).toEqual({
      client_id: 'rp-express-openid-connect',
      scope: 'openid profile email',
      response_type: 'code',
      redirect_uri: `${app}/callback`,
      nonce: expect.any(String),
      state: expect.any(String),
      code_challenge_method: 'S256',
      code_challenge: PKCE_CHALLENGE,
    });
    const sub = await subjectOf(user);
    const userinfo = { sub, email: user, email_verified: true };
    // req.oidc.user: the ID token's claims less the protocol ones the library filters out (iss, aud, nonce…).
    expect(signedIn).toEqual({ user: expect.objectContaining(userinfo), userinfo });
    expect(signedIn.user).not.toHaveProperty('nonce');
    // The library's callback, then its redirect back to the page the login started from.
    expect(landed).toBe('/');
    expect(refreshed).toEqual({ newAccessToken: true, expiresIn: 3600, userinfo });
    await screenshot(page, 'rp-express-openid-connect');
  });

  it('Auth.js (@auth/core) with the generic OIDC provider: its own sign-in page, then /auth/session', async () => {
    const user = uniqueEmail('authjs');
    const app = servers.authJs.origin;

    await page.goto(`${app}/auth/signin?callbackUrl=${encodeURIComponent(`${app}/`)}`);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(service.url)), page.click('button[type="submit"]')]);
    const request = await atLoginPage();
    const landed = await logIn(user, app);
    const session = await shownJson();

    expect(request).toEqual({
      client_id: 'rp-authjs',
      scope: 'openid profile email',
      response_type: 'code',
      redirect_uri: `${app}/auth/callback/${AUTHJS_PROVIDER_ID}`,
      code_challenge_method: 'S256',
      code_challenge: PKCE_CHALLENGE,
    });
    // The user as Auth.js's default profile() maps the ID token: `email` (the service holds no name or picture).
    expect(session).toEqual({ user: { email: user }, expires: expect.any(String) });
    expect(landed).toBe('/');
  });

  it('Passport with openid-client’s strategy and client_secret_post: req.user from the ID token and UserInfo', async () => {
    const user = uniqueEmail('passport');
    const app = servers.passport.origin;

    await page.goto(`${app}/`);
    const request = await atLoginPage();
    const landed = await logIn(user, app);
    const signedIn = await shownJson();

    // openid-client sends no state when the server supports PKCE, and no nonce in the code flow.
    expect(request).toEqual({
      client_id: 'rp-passport',
      scope: 'openid email',
      response_type: 'code',
      redirect_uri: `${app}/login/callback`,
      code_challenge_method: 'S256',
      code_challenge: PKCE_CHALLENGE,
    });
    expect(signedIn).toEqual({ user: { sub: await subjectOf(user), email: user } });
    expect(landed).toBe('/');
  });

  it('oidc-client-ts in a page, a public client: User.profile after signinCallback(), and signinSilent() by the refresh token', async () => {
    const user = uniqueEmail('oidc-client-ts');
    const app = servers.oidcClientTs.origin;

    await page.goto(`${app}/`);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(service.url)), page.click('#login')]);
    const request = await atLoginPage();
    const landed = await logIn(user, app);
    const signedIn = await shownIn('user');
    const [refresh] = await Promise.all([
      page.waitForRequest((sent) => sent.method() === 'POST' && sent.url() === `${service.url}${TOKEN_PATH}`),
      page.click('#refresh'),
    ]);
    const renewed = await shownIn('renewed');

    expect(request).toEqual({
      client_id: 'rp-oidc-client-ts',
      scope: 'openid email',
      response_type: 'code',
      redirect_uri: `${app}/callback`,
      state: expect.any(String),
      code_challenge_method: 'S256',
      code_challenge: PKCE_CHALLENGE,
    });
    const sub = await subjectOf(user);
    // User.profile: the ID token's claims (the library's default, loadUserInfo off), some protocol ones filtered out.
    const profile = expect.objectContaining({ iss: service.url, aud: 'rp-oidc-client-ts', sub, email: user, email_verified: true });
    expect(signedIn).toEqual({ profile, scope: 'openid email', expired: false, renewable: true });
    expect(landed).toBe('/callback');
    // The renewal was the refresh token grant, from the page, cross-origin (CORS), with the original scope.
    expect(Object.fromEntries(new URLSearchParams(refresh.postData() ?? ''))).toEqual({
      grant_type: 'refresh_token',
      client_id: 'rp-oidc-client-ts',
      refresh_token: expect.any(String),
      scope: 'openid email',
    });
    expect(renewed).toEqual({ profile, scope: 'openid email', expired: false, renewable: true });
    await screenshot(page, 'rp-oidc-client-ts');
  });

  it('Authlib (Python) with client_secret_basic: the ID token verified with the JWKS, UserInfo, refresh_token()', async () => {
    const user = uniqueEmail('authlib');

    await page.goto(`${authlib.origin}/login`);
    const request = await atLoginPage();
    const landed = await logIn(user, authlib.origin);
    const result = await authlib.result();

    expect(request).toEqual({
      client_id: 'rp-authlib',
      scope: 'openid email',
      response_type: 'code',
      redirect_uri: `${authlib.origin}/callback`,
      state: expect.any(String),
      nonce: expect.any(String),
      code_challenge_method: 'S256',
      code_challenge: PKCE_CHALLENGE,
    });
    const sub = await subjectOf(user);
    const userinfo = { sub, email: user, email_verified: true };
    expect(result).toEqual({
      query: ['code', 'iss', 'state'],
      id_token: { iss: service.url, aud: 'rp-authlib', sub, email: user, email_verified: true },
      userinfo,
      refreshed: { rotated: true, new_access_token: true, userinfo },
    });
    expect(landed).toBe('/callback');
  });
});
