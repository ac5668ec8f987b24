/**
 * The demo relying party `npm start` serves at http://127.0.0.1:3000/: a stand-in for a
 * newcomer's own applications, logging in and out through the hosted page with a standard OpenID
 * Connect library (openid-client) and nothing of ours, then showing what the application received.
 * It plays two applications, two clients of the same environment (config/local.json): the first
 * at `/` (local-web) and a second at `/second` (local-web-2), so that a newcomer sees the
 * service's single sign-on session: after a login at one, the other logs in without a code.
 *
 * - `GET /`, `GET /second` — what the application is, and "Log in", or, once logged in, "Logged
 *   in as <email or phone>" and "Log out". `/` is also the post-logout redirect URI both clients
 *   register (OpenID Connect RP-Initiated Logout 1.0 §3): a return with `state` is checked against
 *   the logout this browser started;
 * - `GET /login`, `GET /second/login` — start an authorization-code flow with PKCE (S256),
 *   `state` and `nonce` (RFC 6749 §4.1, RFC 7636, OpenID Connect Core §3.1.2): a redirect to the
 *   issuer's `authorization_endpoint` from discovery. `prompt`, `max_age`, `login_hint`,
 *   `ui_locales` and `scope` in its query are passed on, to try the endpoint's other answers;
 * - `GET /callback` — the redirect URI both clients register: openid-client checks `iss`
 *   (RFC 9207) and `state`, exchanges the code with the PKCE verifier, and checks the ID token
 *   (signature against the JWKS, `iss`, `aud`, `exp`, `nonce`); the demo checks `at_hash` itself
 *   (openid-client does not in the code flow), calls UserInfo with the expected subject, and shows
 *   the claims. An error the issuer redirects with (`?error=access_denied`) is shown, never
 *   thrown. The page then calls UserInfo again from the browser itself (`/demo.js`,
 *   local/demo-browser.ts) through the typed client (client/): a cross-origin call from `origin`
 *   to the issuer, which works only because the API answers its CORS preflight and echoes the
 *   allowed origin;
 * - `GET /logout`, `GET /second/logout` — the application forgets its login and sends the browser
 *   to the issuer's `end_session_endpoint` (openid-client's `buildEndSessionUrl`) with the ID
 *   token as `id_token_hint`, `post_logout_redirect_uri` `origin`/ and a new `state`;
 * - `GET /demo.js` — that script, bundled by esbuild from local/demo-browser.ts on first request.
 *
 * A login's secrets (PKCE verifier, state, nonce) stay in this process, in a map keyed by a
 * random id; the browser holds only that id, in an HttpOnly, SameSite=Lax cookie (Lax: the
 * callback is a top-level GET navigation from the issuer's page, on another site) limited to the
 * callback's path. Each id works once. What the applications keep of a login (its ID token, for
 * the logout, and who logged in) is held the same way: a `demo_session` cookie (Lax too: the
 * return from the end-session endpoint is a top-level GET from the issuer) names it.
 *
 * The demo lives at `origin` (http://127.0.0.1:3000, the host of the registered redirect URI)
 * while the issuer is http://localhost:3000 (a host name, which WebAuthn needs for its RP ID):
 * one server, two host names. Cookies are per host, so the demo sends a browser that reached it
 * under another name to `origin` first: the cookie set at /login must be there when the issuer
 * redirects to `origin`/callback.
 *
 * Local tooling only: it is not bundled into any Lambda, and plain-HTTP issuers are allowed here
 * (openid-client's `allowInsecureRequests`) only because the local issuer is plain HTTP.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as oidc from 'openid-client';
import { escapeHtml } from '../lib/messages/markup';
import type { PageRoute } from './api-server';

export interface DemoClientOptions {
  /** The issuer to discover, e.g. http://localhost:3000. */
  readonly issuer: string;
  /** Where the demo is reached, e.g. http://127.0.0.1:3000; its redirect URI is `${origin}/callback`. */
  readonly origin: string;
  /** The first application's client: public, with the redirect URI registered (config/local.json: local-web). */
  readonly clientId: string;
  /** The second application's client (`/second`), registered as the first is. Default: SECOND_DEMO_CLIENT_ID. */
  readonly secondClientId?: string;
  /** Default: `openid email phone`. */
  readonly scope?: string;
  /** Whether the client has `${origin}/callback` registered: the home page warns when it has not. */
  readonly redirectUriRegistered?: boolean;
  /** Where a newcomer reads the code, shown on the home page. */
  readonly outboxUrl?: string;
  readonly sesViewerUrl?: string;
}

export interface DemoClient {
  /** The pages (`/`, `/login`, `/callback`, `/logout`, `/second`…), for the local server. */
  readonly routes: Readonly<Record<string, PageRoute>>;
  readonly redirectUri: string;
  /** Where the end-session endpoint sends the browser back: `${origin}/`. */
  readonly postLogoutRedirectUri: string;
}

/** The client the demo logs in as: public, JWT access tokens, http://127.0.0.1:3000/callback registered (config/local.json). */
export const DEMO_CLIENT_ID = 'local-web';
/** The second application's client: as local-web, another client id (config/local.json). */
export const SECOND_DEMO_CLIENT_ID = 'local-web-2';

/** The cookie holding a login's id, sent only to the callback. */
export const DEMO_COOKIE = 'demo_login';
/** The cookie naming what the demo's applications keep of their logins in this browser. */
export const DEMO_SESSION_COOKIE = 'demo_session';

/** How long a started login may take, and how many may be pending at once (oldest dropped first). */
const LOGIN_TTL_MS = 10 * 60 * 1000;
const MAX_PENDING_LOGINS = 100;
/** How long the demo remembers a browser's logins, and for how many browsers. */
const SESSION_TTL_MS = 8 * 60 * 60 * 1000;
const MAX_SESSIONS = 100;

/** The authorization request parameters /login passes on from its own query. */
const PASSED_ON = ['prompt', 'max_age', 'login_hint', 'ui_locales', 'scope'] as const;

/** One of the two applications the demo plays, and its pages. */
interface DemoApp {
  readonly clientId: string;
  readonly title: string;
  readonly home: '/' | '/second';
  readonly login: '/login' | '/second/login';
  readonly logout: '/logout' | '/second/logout';
}

interface PendingLogin {
  readonly app: DemoApp;
  readonly codeVerifier: string;
  readonly state: string;
  readonly nonce: string;
  readonly startedAt: number;
}

/** What an application keeps of a login: the ID token (its logout's `id_token_hint`) and whom it names. */
interface AppLogin {
  readonly idToken: string;
  readonly user: string;
}

/** What the demo keeps for one browser. */
interface DemoSession {
  readonly startedAt: number;
  /**
   * Put in the "Log out" links and checked by /logout: a page of another site cannot log this
   * browser out by sending it to /logout (logout CSRF, the concern of RP-Initiated Logout §2,
   * here on the relying party's side: the demo's hint is valid, so the issuer would not ask).
   */
  readonly logoutToken: string;
  readonly logins: Map<DemoApp, AppLogin>;
  /** The logout sent to the issuer, until the browser comes back with its `state`. */
  pendingLogout?: { readonly app: DemoApp; readonly state: string; readonly startedAt: number };
}

/** What a return to the post-logout redirect URI showed: the logout this browser started, or not. */
type LogoutReturn = { readonly ok: true; readonly app: DemoApp } | { readonly ok: false };

export function createDemoClient(options: DemoClientOptions): DemoClient {
  const origin = new URL(options.origin).origin;
  const redirectUri = `${origin}/callback`;
  const postLogoutRedirectUri = `${origin}/`;
  const scope = options.scope ?? 'openid email phone';
  const first: DemoApp = { clientId: options.clientId, title: 'Demo application', home: '/', login: '/login', logout: '/logout' };
  const second: DemoApp = {
    clientId: options.secondClientId ?? SECOND_DEMO_CLIENT_ID,
    title: 'Second demo application',
    home: '/second',
    login: '/second/login',
    logout: '/second/logout',
  };
  const pending = new Map<string, PendingLogin>();
  const sessions = new Map<string, DemoSession>();
  const configurations = new Map<string, Promise<oidc.Configuration>>();
  const pageOptions: PageOptions = { connectTo: new URL(options.issuer).origin };
  const homeOptions: HomeOptions = { ...options, redirectUri, postLogoutRedirectUri, scope };
  let script: Promise<string> | undefined;

  /** Discovery (OpenID Connect Discovery 1.0 §4) once per client, retried after a failure. */
  const discover = (clientId: string): Promise<oidc.Configuration> => {
    let configuration = configurations.get(clientId);
    if (configuration === undefined) {
      configuration = discoverIssuer(options.issuer, clientId).catch((error: unknown) => {
        configurations.delete(clientId);
        throw error;
      });
      configurations.set(clientId, configuration);
    }
    return configuration;
  };

  /** Sends a browser that came by another host name (localhost, the issuer's) to the demo's own origin. */
  const onOrigin = (request: IncomingMessage, response: ServerResponse, url: URL): boolean => {
    if (request.headers.host === new URL(origin).host) return true;
    redirect(response, `${origin}${url.pathname}${url.search}`);
    return false;
  };

  /** The browser's demo session, if it has a live one. */
  const sessionOf = (request: IncomingMessage): DemoSession | undefined => {
    const id = cookieOf(request, DEMO_SESSION_COOKIE);
    const session = id === undefined ? undefined : sessions.get(id);
    return session !== undefined && Date.now() - session.startedAt <= SESSION_TTL_MS ? session : undefined;
  };

  /**
   * RP-Initiated Logout §3: the issuer sends the browser back with the `state` the logout was
   * sent with; the demo accepts only the one it sent from this browser, once. Undefined: not a
   * return from a logout (no `state`).
   */
  const returnFromLogout = (session: DemoSession | undefined, url: URL): LogoutReturn | undefined => {
    const state = url.searchParams.get('state');
    if (state === null) return undefined;
    const sent = session?.pendingLogout;
    if (session === undefined || sent === undefined || Date.now() - sent.startedAt > LOGIN_TTL_MS || !sameSecret(sent.state, state)) {
      return { ok: false };
    }
    session.pendingLogout = undefined;
    return { ok: true, app: sent.app };
  };

  const home =
    (app: DemoApp): PageRoute =>
    (request, response, url) => {
      if (!onOrigin(request, response, url)) return Promise.resolve();
      const session = sessionOf(request);
      const returned = app === first ? returnFromLogout(session, url) : undefined;
      const state = { login: session?.logins.get(app), logoutToken: session?.logoutToken, returned };
      const body = app === first ? homeBody(homeOptions, app, state) : secondHomeBody(homeOptions, app, state);
      writePage(pageOptions, response, returned?.ok === false ? 400 : 200, app.title, body);
      return Promise.resolve();
    };

  const login =
    (app: DemoApp): PageRoute =>
    async (request, response, url) => {
      if (!onOrigin(request, response, url)) return;
      let config: oidc.Configuration;
      try {
        config = await discover(app.clientId);
      } catch (error) {
        return writePage(
          pageOptions,
          response,
          502,
          'Demo client: no issuer',
          failureBody(app, 'Discovery failed', describeError(error), []),
        );
      }
      const started: PendingLogin = {
        app,
        codeVerifier: oidc.randomPKCECodeVerifier(),
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        startedAt: Date.now(),
      };
      const id = randomBytes(16).toString('base64url');
      remember(pending, id, started, LOGIN_TTL_MS, MAX_PENDING_LOGINS);
      const parameters: Record<string, string> = {
        redirect_uri: redirectUri,
        scope,
        code_challenge: await oidc.calculatePKCECodeChallenge(started.codeVerifier),
        code_challenge_method: 'S256',
        state: started.state,
        nonce: started.nonce,
      };
      for (const name of PASSED_ON) {
        const value = url.searchParams.get(name);
        if (value !== null && value !== '') parameters[name] = value;
      }
      redirect(response, oidc.buildAuthorizationUrl(config, parameters).href, [
        `${DEMO_COOKIE}=${id}; Path=/callback; Max-Age=${LOGIN_TTL_MS / 1000}; HttpOnly; SameSite=Lax`,
      ]);
    };

  const callback: PageRoute = async (request, response, url) => {
    const clearCookie = `${DEMO_COOKIE}=; Path=/callback; Max-Age=0; HttpOnly; SameSite=Lax`;
    const id = cookieOf(request, DEMO_COOKIE);
    const started = id === undefined ? undefined : pending.get(id);
    if (id !== undefined) pending.delete(id);
    const received = [...url.searchParams].filter(([name]) => name !== 'code');
    if (started === undefined || Date.now() - started.startedAt > LOGIN_TTL_MS) {
      const body = failureBody(
        first,
        'No login in progress',
        'This callback does not belong to a login this browser started here (or that login is finished or more than 10 minutes old), so nothing was exchanged.',
        received,
      );
      return writePage(pageOptions, response, 400, 'Demo client: login failed', body, [clearCookie]);
    }
    const { app } = started;
    // The URL the issuer redirected to: the redirect URI (which the token request repeats) plus the response.
    const currentUrl = new URL(`${redirectUri}${url.search}`);
    try {
      const config = await discover(app.clientId);
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: started.codeVerifier,
        expectedState: started.state,
        expectedNonce: started.nonce,
      });
      const idToken = tokens.id_token as string;
      const idClaims = tokens.claims() as Record<string, unknown>;
      const atHashChecked = checkAtHash(idToken, tokens.access_token, idClaims.at_hash);
      const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub as string);
      const user = [idClaims.email, idClaims.phone_number, userInfo.email, userInfo.phone_number, idClaims.sub].find(
        (value): value is string => typeof value === 'string',
      ) as string;
      // What the application keeps: the ID token for its logout, and whom it names.
      let session = sessionOf(request);
      const cookies = [clearCookie];
      if (session === undefined) {
        const sessionId = randomBytes(16).toString('base64url');
        session = { startedAt: Date.now(), logoutToken: randomBytes(16).toString('base64url'), logins: new Map() };
        remember(sessions, sessionId, session, SESSION_TTL_MS, MAX_SESSIONS);
        cookies.push(`${DEMO_SESSION_COOKIE}=${sessionId}; Path=/; Max-Age=${SESSION_TTL_MS / 1000}; HttpOnly; SameSite=Lax`);
      }
      session.logins.set(app, { idToken, user });
      const body = successBody({
        app,
        other: app === first ? second : first,
        user,
        logoutToken: session.logoutToken,
        issuer: options.issuer,
        accessToken: tokens.access_token,
        idClaims,
        accessClaims: accessTokenClaims(tokens.access_token),
        userInfo,
        tokenType: tokens.token_type,
        expiresIn: tokens.expires_in,
        grantedScope: tokens.scope,
        atHashChecked,
      });
      return writePage(pageOptions, response, 200, 'Demo client: logged in', body, cookies);
    } catch (error) {
      if (error instanceof oidc.AuthorizationResponseError) {
        // openid-client checked `iss` and `state` before reading the error (RFC 9207 §2.4, RFC 6749 §4.1.2.1).
        const body = failureBody(
          app,
          `The issuer answered ${error.error}`,
          error.error_description ?? '(no description)',
          received,
          'The response’s iss and state matched this login (openid-client checked them before reading the error).',
        );
        return writePage(pageOptions, response, 400, 'Demo client: login failed', body, [clearCookie]);
      }
      return writePage(
        pageOptions,
        response,
        400,
        'Demo client: login failed',
        failureBody(app, 'The login failed', describeError(error), received),
        [clearCookie],
      );
    }
  };

  const logout =
    (app: DemoApp): PageRoute =>
    async (request, response, url) => {
      if (!onOrigin(request, response, url)) return;
      const session = sessionOf(request);
      const kept = session?.logins.get(app);
      const token = url.searchParams.get('token');
      // Nothing to log out of, or a link this demo did not make: back to the application, nothing ended.
      if (session === undefined || kept === undefined || token === null || !sameSecret(session.logoutToken, token)) {
        return redirect(response, `${origin}${app.home}`);
      }
      let location: URL;
      const state = oidc.randomState();
      try {
        // RP-Initiated Logout §2: the ID token names the login to end, so the issuer need not ask;
        // the post-logout redirect URI is one the client registered (§3.1), `state` comes back with it.
        location = oidc.buildEndSessionUrl(await discover(app.clientId), {
          id_token_hint: kept.idToken,
          post_logout_redirect_uri: postLogoutRedirectUri,
          state,
        });
      } catch (error) {
        const body = failureBody(app, 'The logout could not start', describeError(error), [], undefined, 'Logout failed');
        return writePage(pageOptions, response, 502, 'Demo client: logout failed', body);
      }
      // The application's own login ends first, whatever the issuer answers.
      session.logins.delete(app);
      session.pendingLogout = { app, state, startedAt: Date.now() };
      redirect(response, location.href);
    };

  const demoScript: PageRoute = async (_request, response) => {
    script ??= bundleBrowserScript().catch((error: unknown) => {
      script = undefined;
      throw error;
    });
    const code = await script;
    response.writeHead(200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    response.end(code);
  };

  return {
    routes: {
      '/': home(first),
      '/login': login(first),
      '/logout': logout(first),
      '/second': home(second),
      '/second/login': login(second),
      '/second/logout': logout(second),
      '/callback': callback,
      '/demo.js': demoScript,
    },
    redirectUri,
    postLogoutRedirectUri,
  };
}

function redirect(response: ServerResponse, location: string, cookies: readonly string[] = []): void {
  response.writeHead(302, {
    Location: location,
    'Cache-Control': 'no-store',
    ...(cookies.length === 0 ? {} : { 'Set-Cookie': [...cookies] }),
  });
  response.end();
}

/** Whether two random values are equal, compared in constant time. */
function sameSecret(expected: string, given: string): boolean {
  const [a, b] = [Buffer.from(expected), Buffer.from(given)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** local/demo-browser.ts and the typed client it imports, as one ES module for the browser. */
async function bundleBrowserScript(): Promise<string> {
  const result = await build({
    entryPoints: [resolve(__dirname, 'demo-browser.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

async function discoverIssuer(issuer: string, clientId: string): Promise<oidc.Configuration> {
  const url = new URL(issuer);
  const plainHttp = url.protocol === 'http:';
  const config = await oidc.discovery(url, clientId, undefined, oidc.None(), plainHttp ? { execute: [oidc.allowInsecureRequests] } : {});
  // Check the ID token's signature against the issuer's JWKS too (openid-client skips it by
  // default for a token received straight from the token endpoint, as OIDC Core §3.1.3.7 allows).
  oidc.enableNonRepudiationChecks(config);
  return config;
}

/** Keeps an entry (a pending login, a browser's session), dropping expired ones and, past the cap, the oldest. */
function remember<T extends { readonly startedAt: number }>(
  entries: Map<string, T>,
  id: string,
  entry: T,
  ttlMs: number,
  max: number,
): void {
  for (const [key, value] of entries) if (entry.startedAt - value.startedAt > ttlMs) entries.delete(key);
  while (entries.size >= max) entries.delete(entries.keys().next().value as string);
  entries.set(id, entry);
}

function cookieOf(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/**
 * OIDC Core §3.1.3.6: at_hash is the base64url of the left half of the hash of the access token's
 * ASCII octets, with the hash of the ID token's `alg`. True when it matches; an ID token without
 * at_hash (optional in the code flow) is not a failure; a mismatch is.
 */
function checkAtHash(idToken: string, accessToken: string, atHash: unknown): boolean {
  if (atHash === undefined) return false;
  const { alg = '' } = decodeProtectedHeader(idToken);
  const bits = alg === 'EdDSA' || alg === 'Ed25519' ? 512 : Number(/(256|384|512)$/.exec(alg)?.[1] ?? NaN);
  if (!Number.isFinite(bits)) throw new Error(`the ID token's alg ${alg} has no at_hash hash`);
  const digest = createHash(`sha${bits}`).update(accessToken, 'ascii').digest();
  if (digest.subarray(0, digest.length / 2).toString('base64url') !== atHash)
    throw new Error('the ID token’s at_hash does not match the access token');
  return true;
}

/** The access token's claims when it is a JWT (RFC 9068); an opaque token has none to show. */
function accessTokenClaims(accessToken: string): Record<string, unknown> | undefined {
  if (accessToken.split('.').length !== 3) return undefined;
  try {
    return decodeJwt(accessToken);
  } catch {
    return undefined;
  }
}

function describeError(error: unknown): string {
  if (error instanceof oidc.ResponseBodyError) return `${error.error}: ${error.error_description ?? error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

const STYLESHEET = [
  "body{margin:0;background:#f4f4f5;color:#18181b;font:16px/1.5 -apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif}",
  '.banner{margin:0;padding:8px 16px;background:#fef3c7;color:#78350f;font-weight:600;text-align:center}',
  'main{max-width:44rem;margin:24px auto;padding:24px;background:#fff;border-radius:8px}',
  'h1{margin-top:0;font-size:1.5rem}h2{font-size:1.125rem;margin:24px 0 8px}',
  'pre{margin:0;padding:12px;overflow-x:auto;background:#f4f4f5;border-radius:6px;font-size:.875rem}',
  '.button{display:inline-block;margin-right:16px;padding:10px 20px;color:#fff;background:#1d4ed8;border-radius:6px;font-weight:600;text-decoration:none}',
  '.error{color:#b91c1c;font-weight:600}.notice{padding:12px;background:#dcfce7;color:#14532d;border-radius:6px}',
  'a{color:#1d4ed8}:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}',
  'dt{font-weight:600}dd{margin:0 0 8px;word-break:break-all}',
].join('');
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLESHEET, 'utf8').digest('base64')}'`;

interface PageOptions {
  /** The only origin the page's script may fetch from (CSP connect-src): the issuer's. */
  readonly connectTo: string;
}

function writePage(
  page: PageOptions,
  response: ServerResponse,
  status: number,
  title: string,
  body: readonly string[],
  cookies: readonly string[] = [],
): void {
  const html = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLESHEET}</style>`,
    '</head>',
    '<body>',
    '<p class="banner" id="demo-banner">Demo client: a sample application served by npm start, not part of the identity service</p>',
    '<main>',
    ...body,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
  response.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    // The one script is the demo's own /demo.js, which may fetch from the issuer only.
    'Content-Security-Policy': `default-src 'none'; script-src 'self'; connect-src ${page.connectTo}; style-src ${STYLE_HASH}; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
    // The callback's URL holds the authorization code, a Log out link the demo's token: keep them out of any Referer.
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    ...(cookies.length === 0 ? {} : { 'Set-Cookie': [...cookies] }),
  });
  response.end(html);
}

/** What the home pages need beside the options: the URIs the clients register, the scope asked. */
interface HomeOptions extends DemoClientOptions {
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string;
  readonly scope: string;
}

/** What an application's home page shows of this browser: its login, and a return from a logout. */
interface HomeState {
  readonly login: AppLogin | undefined;
  readonly logoutToken: string | undefined;
  readonly returned: LogoutReturn | undefined;
}

/** "Logged in as …" and "Log out", or the "Log in" button. */
function loginPart(app: DemoApp, state: HomeState): string[] {
  if (state.login === undefined || state.logoutToken === undefined) {
    return [`<p><a class="button" id="login" href="${app.login}">Log in</a></p>`];
  }
  return [
    `<p id="logged-in-as">Logged in as <strong>${escapeHtml(state.login.user)}</strong> (client ${escapeHtml(app.clientId)}).</p>`,
    `<p>${logoutButton(app, state.logoutToken)}</p>`,
  ];
}

function logoutButton(app: DemoApp, logoutToken: string): string {
  return `<a class="button" id="logout" href="${app.logout}?token=${escapeHtml(logoutToken)}">Log out</a>`;
}

/** The notice of a return to the post-logout redirect URI. */
function logoutReturnPart(returned: LogoutReturn | undefined): string[] {
  if (returned === undefined) return [];
  if (!returned.ok) {
    return [
      '<p class="error" role="alert" id="error">This is not a logout this browser started</p>',
      '<p id="error-description">The <code>state</code> in this address is not the one the demo sent with its last logout from this browser (or that logout is more than 10 minutes old, or came back already), so the demo ignores it.</p>',
    ];
  }
  return [
    `<p class="notice" role="status" id="logged-out">Logged out of ${escapeHtml(returned.app.title)} and of the identity service. The <code>state</code> the demo sent came back unchanged: this is the logout this browser started. Log in again and the service asks for a code.</p>`,
  ];
}

function homeBody(options: HomeOptions, app: DemoApp, state: HomeState): string[] {
  const where = [
    options.outboxUrl === undefined ? '' : `the outbox, <a href="${escapeHtml(options.outboxUrl)}">${escapeHtml(options.outboxUrl)}</a>`,
    options.sesViewerUrl === undefined
      ? ''
      : `the SES email viewer, <a href="${escapeHtml(options.sesViewerUrl)}">${escapeHtml(options.sesViewerUrl)}</a>`,
  ].filter((part) => part !== '');
  return [
    ...logoutReturnPart(state.returned),
    `<h1>${escapeHtml(app.title)}</h1>`,
    `<p>This page plays your application. <strong>Log in</strong> sends you to the identity service’s hosted login page at ${escapeHtml(options.issuer)} with a standard OpenID Connect library (openid-client): authorization code with PKCE (S256), <code>state</code> and <code>nonce</code>. Enter any email address or phone number (in international format, +1…), then the code you receive.</p>`,
    where.length === 0
      ? ''
      : `<p>Nothing is really sent: read the code in ${where.join(', or ')} (add your address to the outbox link).</p>`,
    options.redirectUriRegistered === false
      ? `<p class="error" role="alert">The client ${escapeHtml(app.clientId)} does not have this demo’s redirect URI ${escapeHtml(options.redirectUri)} registered (config/local.json registers http://127.0.0.1:3000/callback): the login page will refuse the request. Run npm start with PORT=3000.</p>`
      : '',
    ...loginPart(app, state),
    '<h2>Single sign-on</h2>',
    `<p>Once you are logged in here, the <a id="second" href="/second">second application</a> (another client, ${escapeHtml(SECOND_DEMO_CLIENT_ID)}) logs you in without a code: the service remembers your login in this browser (a session cookie at ${escapeHtml(options.issuer)}). <strong>Log out</strong> ends that session too.</p>`,
    '<h2>Try the other answers</h2>',
    '<ul>',
    `<li><a href="${app.login}?prompt=none">prompt=none</a>: never shows the page: with a session the issuer redirects back with a code at once, without one with <code>login_required</code></li>`,
    `<li><a href="${app.login}?prompt=login">prompt=login</a> or <a href="${app.login}?max_age=0">max_age=0</a>: asks for a code even with a session</li>`,
    `<li><a href="${app.login}?prompt=select_account">prompt=select_account</a>: with a session, “continue as …” or “use another account”</li>`,
    `<li><a href="${app.login}?ui_locales=de-DE">ui_locales=de-DE</a>: the page in German</li>`,
    '</ul>',
    '<h2>This client</h2>',
    '<dl>',
    `<dt>client_id</dt><dd>${escapeHtml(app.clientId)} (public: no secret, PKCE instead)</dd>`,
    `<dt>redirect_uri</dt><dd>${escapeHtml(options.redirectUri)}</dd>`,
    `<dt>post_logout_redirect_uri</dt><dd>${escapeHtml(options.postLogoutRedirectUri)}</dd>`,
    `<dt>scope</dt><dd>${escapeHtml(options.scope)}</dd>`,
    `<dt>issuer</dt><dd>${escapeHtml(options.issuer)} (discovered from ${escapeHtml(options.issuer)}/.well-known/openid-configuration)</dd>`,
    '</dl>',
  ].filter((line) => line !== '');
}

function secondHomeBody(options: HomeOptions, app: DemoApp, state: HomeState): string[] {
  return [
    `<h1>${escapeHtml(app.title)}</h1>`,
    `<p>This page plays a second application of the same environment: client ${escapeHtml(app.clientId)}, with the same redirect URI. If you logged in to the <a id="first" href="/">first application</a> in this browser, <strong>Log in</strong> here comes back logged in at once: no login page, no new code. That is the identity service’s single sign-on session; the ID token says so with the first login’s <code>auth_time</code> and <code>sid</code>.</p>`,
    ...loginPart(app, state),
    `<p>Its logout comes back to ${escapeHtml(options.postLogoutRedirectUri)}, the post-logout redirect URI both clients register.</p>`,
  ];
}

function successBody(result: {
  app: DemoApp;
  other: DemoApp;
  user: string;
  logoutToken: string;
  issuer: string;
  accessToken: string;
  idClaims: Record<string, unknown>;
  accessClaims: Record<string, unknown> | undefined;
  userInfo: oidc.UserInfoResponse;
  tokenType: string;
  expiresIn: number | undefined;
  grantedScope: string | undefined;
  atHashChecked: boolean;
}): string[] {
  return [
    `<h1 id="logged-in-as">Logged in as ${escapeHtml(result.user)}</h1>`,
    `<p id="client">${escapeHtml(result.app.title)}, client ${escapeHtml(result.app.clientId)}. ${result.other.home === '/second' ? `Open the <a id="other" href="/second">second application</a>: it logs you in without a code now.` : `Back to the <a id="other" href="/">first application</a>.`}</p>`,
    `<p>${logoutButton(result.app, result.logoutToken)} <a href="${result.app.home}">Home</a></p>`,
    '<p id="checks">Checked: the response’s <code>iss</code> and <code>state</code>; the code exchanged with the PKCE verifier; the ID token’s signature (the issuer’s JWKS), <code>iss</code>, <code>aud</code>, <code>exp</code> and <code>nonce</code>' +
      (result.atHashChecked ? '; its <code>at_hash</code> against the access token' : '') +
      '; UserInfo’s <code>sub</code> against the ID token’s.</p>',
    '<h2>ID token claims</h2>',
    `<pre id="id-token-claims">${json(result.idClaims)}</pre>`,
    '<h2>Access token claims</h2>',
    result.accessClaims === undefined
      ? '<p id="access-token-claims">An opaque access token: only the issuer can say what it means (introspection).</p>'
      : `<pre id="access-token-claims">${json(result.accessClaims)}</pre>`,
    `<p>${escapeHtml(result.tokenType)} token, expires in ${escapeHtml(String(result.expiresIn ?? '?'))} s${result.grantedScope === undefined ? '' : `, scope <code>${escapeHtml(result.grantedScope)}</code>`}. A resource server verifies it with the issuer’s JWKS.</p>`,
    '<h2>UserInfo</h2>',
    `<pre id="userinfo">${json(result.userInfo)}</pre>`,
    '<h2>UserInfo, asked by this page</h2>',
    `<p>Your browser asks ${escapeHtml(result.issuer)} for the same claims, from this page’s origin (another one) with the access token, through the typed client (<code>client/</code>, the <a href="/demo.js">script</a>): it can read the answer because the API answers the CORS preflight and allows this origin, on AWS as here.</p>`,
    `<pre id="browser-userinfo" data-issuer="${escapeHtml(result.issuer)}" data-access-token="${escapeHtml(result.accessToken)}">Asking…</pre>`,
    '<script type="module" src="/demo.js"></script>',
    `<p><a class="button" id="login-again" href="${result.app.login}">Log in again</a> <a href="${result.app.home}">Home</a></p>`,
  ];
}

function failureBody(
  app: DemoApp,
  headline: string,
  detail: string,
  received: ReadonlyArray<[string, string]>,
  note?: string,
  title = 'Login failed',
): string[] {
  return [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="error" role="alert" id="error">${escapeHtml(headline)}</p>`,
    `<p id="error-description">${escapeHtml(detail)}</p>`,
    note === undefined ? '' : `<p id="note">${escapeHtml(note)}</p>`,
    received.length === 0
      ? ''
      : `<h2>What the callback received</h2><dl id="received">${received.map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>`,
    `<p><a class="button" id="login-again" href="${app.login}">Log in again</a> <a href="${app.home}">Home</a></p>`,
  ].filter((line) => line !== '');
}

function json(value: unknown): string {
  return escapeHtml(JSON.stringify(value, null, 2));
}
