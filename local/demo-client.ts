/**
 * The demo relying party `npm start` serves at http://localhost:3000/: a stand-in for a
 * newcomer's own application, logging in through the hosted page with a standard OpenID Connect
 * library (openid-client) and nothing of ours, then showing what the application received.
 *
 * - `GET /` — what the demo is, and a "Log in" link;
 * - `GET /login` — starts an authorization-code flow with PKCE (S256), `state` and `nonce`
 *   (RFC 6749 §4.1, RFC 7636, OpenID Connect Core §3.1.2): a redirect to the issuer's
 *   `authorization_endpoint` from discovery. `prompt`, `login_hint`, `ui_locales` and `scope` in
 *   its query are passed on, to try the endpoint's other answers;
 * - `GET /callback` — the registered redirect URI: openid-client checks `iss` (RFC 9207) and
 *   `state`, exchanges the code with the PKCE verifier, and checks the ID token (signature against
 *   the JWKS, `iss`, `aud`, `exp`, `nonce`); the demo checks `at_hash` itself (openid-client does
 *   not in the code flow), calls UserInfo with the expected subject, and shows the claims. An
 *   error the issuer redirects with (`?error=access_denied`) is shown, never thrown. The page
 *   then calls UserInfo again from the browser itself (`/demo.js`, local/demo-browser.ts) through
 *   the typed client (client/): a cross-origin call from `origin` to the issuer, which works only
 *   because the API answers its CORS preflight and echoes the allowed origin;
 * - `GET /demo.js` — that script, bundled by esbuild from local/demo-browser.ts on first request.
 *
 * A login's secrets (PKCE verifier, state, nonce) stay in this process, in a map keyed by a
 * random id; the browser holds only that id, in an HttpOnly, SameSite=Lax cookie (Lax: the
 * callback is a top-level GET navigation from the issuer's page, on another site) limited to the
 * callback's path. Each id works once.
 *
 * The demo lives at `origin` (http://localhost:3000, the host of the registered redirect URI)
 * while the issuer is http://127.0.0.1:3000: one server, two host names. Cookies are per host, so
 * the demo sends a browser that reached it under another name to `origin` first: the cookie set
 * at /login must be there when the issuer redirects to `origin`/callback.
 *
 * Local tooling only: it is not bundled into any Lambda, and plain-HTTP issuers are allowed here
 * (openid-client's `allowInsecureRequests`) only because the local issuer is plain HTTP.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as oidc from 'openid-client';
import { escapeHtml } from '../lib/messages/markup';
import type { PageRoute } from './api-server';

export interface DemoClientOptions {
  /** The issuer to discover, e.g. http://127.0.0.1:3000. */
  readonly issuer: string;
  /** Where the demo is reached, e.g. http://localhost:3000; its redirect URI is `${origin}/callback`. */
  readonly origin: string;
  /** A public client that has the redirect URI registered (config/local.json: local-web). */
  readonly clientId: string;
  /** Default: `openid email phone`. */
  readonly scope?: string;
  /** Whether the client has `${origin}/callback` registered: the home page warns when it has not. */
  readonly redirectUriRegistered?: boolean;
  /** Where a newcomer reads the code, shown on the home page. */
  readonly outboxUrl?: string;
  readonly sesViewerUrl?: string;
}

export interface DemoClient {
  /** `/`, `/login` and `/callback`, for the local server. */
  readonly routes: Readonly<Record<string, PageRoute>>;
  readonly redirectUri: string;
}

/** The client the demo logs in as: public, JWT access tokens, http://localhost:3000/callback registered (config/local.json). */
export const DEMO_CLIENT_ID = 'local-web';

/** The cookie holding a login's id, sent only to the callback. */
export const DEMO_COOKIE = 'demo_login';

/** How long a started login may take, and how many may be pending at once (oldest dropped first). */
const LOGIN_TTL_MS = 10 * 60 * 1000;
const MAX_PENDING_LOGINS = 100;

/** The authorization request parameters /login passes on from its own query. */
const PASSED_ON = ['prompt', 'login_hint', 'ui_locales', 'scope'] as const;

interface PendingLogin {
  readonly codeVerifier: string;
  readonly state: string;
  readonly nonce: string;
  readonly startedAt: number;
}

export function createDemoClient(options: DemoClientOptions): DemoClient {
  const origin = new URL(options.origin).origin;
  const redirectUri = `${origin}/callback`;
  const scope = options.scope ?? 'openid email phone';
  const pending = new Map<string, PendingLogin>();
  const pageOptions: PageOptions = { connectTo: new URL(options.issuer).origin };
  let configuration: Promise<oidc.Configuration> | undefined;
  let script: Promise<string> | undefined;

  /** Discovery (OpenID Connect Discovery 1.0 §4) once, retried after a failure. */
  const discover = (): Promise<oidc.Configuration> => {
    configuration ??= discoverIssuer(options.issuer, options.clientId).catch((error: unknown) => {
      configuration = undefined;
      throw error;
    });
    return configuration;
  };

  /** Sends a browser that came by another host name (127.0.0.1) to the demo's own origin. */
  const onOrigin = (request: IncomingMessage, response: ServerResponse, url: URL): boolean => {
    if (request.headers.host === new URL(origin).host) return true;
    response.writeHead(302, { Location: `${origin}${url.pathname}${url.search}`, 'Cache-Control': 'no-store' });
    response.end();
    return false;
  };

  const home: PageRoute = (request, response, url) => {
    if (onOrigin(request, response, url)) writePage(pageOptions, response, 200, 'Demo client', homeBody(options, redirectUri, scope));
    return Promise.resolve();
  };

  const login: PageRoute = async (request, response, url) => {
    if (!onOrigin(request, response, url)) return;
    let config: oidc.Configuration;
    try {
      config = await discover();
    } catch (error) {
      return writePage(pageOptions, response, 502, 'Demo client: no issuer', failureBody('Discovery failed', describeError(error), []));
    }
    const login: PendingLogin = {
      codeVerifier: oidc.randomPKCECodeVerifier(),
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      startedAt: Date.now(),
    };
    const id = randomBytes(16).toString('base64url');
    remember(pending, id, login);
    const parameters: Record<string, string> = {
      redirect_uri: redirectUri,
      scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(login.codeVerifier),
      code_challenge_method: 'S256',
      state: login.state,
      nonce: login.nonce,
    };
    for (const name of PASSED_ON) {
      const value = url.searchParams.get(name);
      if (value !== null && value !== '') parameters[name] = value;
    }
    const location = oidc.buildAuthorizationUrl(config, parameters);
    response.writeHead(302, {
      Location: location.href,
      'Set-Cookie': `${DEMO_COOKIE}=${id}; Path=/callback; Max-Age=${LOGIN_TTL_MS / 1000}; HttpOnly; SameSite=Lax`,
      'Cache-Control': 'no-store',
    });
    response.end();
  };

  const callback: PageRoute = async (request, response, url) => {
    const clearCookie = `${DEMO_COOKIE}=; Path=/callback; Max-Age=0; HttpOnly; SameSite=Lax`;
    const id = cookieOf(request, DEMO_COOKIE);
    const login = id === undefined ? undefined : pending.get(id);
    if (id !== undefined) pending.delete(id);
    const received = [...url.searchParams].filter(([name]) => name !== 'code');
    if (login === undefined || Date.now() - login.startedAt > LOGIN_TTL_MS) {
      const body = failureBody(
        'No login in progress',
        'This callback does not belong to a login this browser started here (or that login is finished or more than 10 minutes old), so nothing was exchanged.',
        received,
      );
      return writePage(pageOptions, response, 400, 'Demo client: login failed', body, clearCookie);
    }
    // The URL the issuer redirected to: the redirect URI (which the token request repeats) plus the response.
    const currentUrl = new URL(`${redirectUri}${url.search}`);
    try {
      const config = await discover();
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: login.codeVerifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
      });
      const idClaims = tokens.claims() as Record<string, unknown>;
      const atHashChecked = checkAtHash(tokens.id_token as string, tokens.access_token, idClaims.at_hash);
      const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub as string);
      const body = successBody({
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
      return writePage(pageOptions, response, 200, 'Demo client: logged in', body, clearCookie);
    } catch (error) {
      if (error instanceof oidc.AuthorizationResponseError) {
        // openid-client checked `iss` and `state` before reading the error (RFC 9207 §2.4, RFC 6749 §4.1.2.1).
        const body = failureBody(
          `The issuer answered ${error.error}`,
          error.error_description ?? '(no description)',
          received,
          'The response’s iss and state matched this login (openid-client checked them before reading the error).',
        );
        return writePage(pageOptions, response, 400, 'Demo client: login failed', body, clearCookie);
      }
      return writePage(
        pageOptions,
        response,
        400,
        'Demo client: login failed',
        failureBody('The login failed', describeError(error), received),
        clearCookie,
      );
    }
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

  return { routes: { '/': home, '/login': login, '/callback': callback, '/demo.js': demoScript }, redirectUri };
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

/** Keeps a pending login, dropping expired ones and, past the cap, the oldest. */
function remember(pending: Map<string, PendingLogin>, id: string, login: PendingLogin): void {
  for (const [key, value] of pending) if (login.startedAt - value.startedAt > LOGIN_TTL_MS) pending.delete(key);
  while (pending.size >= MAX_PENDING_LOGINS) pending.delete(pending.keys().next().value as string);
  pending.set(id, login);
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
  '.error{color:#b91c1c;font-weight:600}',
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
  setCookie?: string,
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
    // The callback's URL holds the authorization code: keep it out of any Referer.
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    ...(setCookie === undefined ? {} : { 'Set-Cookie': setCookie }),
  });
  response.end(html);
}

function homeBody(options: DemoClientOptions, redirectUri: string, scope: string): string[] {
  const where = [
    options.outboxUrl === undefined ? '' : `the outbox, <a href="${escapeHtml(options.outboxUrl)}">${escapeHtml(options.outboxUrl)}</a>`,
    options.sesViewerUrl === undefined
      ? ''
      : `the SES email viewer, <a href="${escapeHtml(options.sesViewerUrl)}">${escapeHtml(options.sesViewerUrl)}</a>`,
  ].filter((part) => part !== '');
  return [
    '<h1>Demo application</h1>',
    `<p>This page plays your application. <strong>Log in</strong> sends you to the identity service’s hosted login page at ${escapeHtml(options.issuer)} with a standard OpenID Connect library (openid-client): authorization code with PKCE (S256), <code>state</code> and <code>nonce</code>. Enter any email address or phone number (in international format, +1…), then the code you receive.</p>`,
    where.length === 0
      ? ''
      : `<p>Nothing is really sent: read the code in ${where.join(', or ')} (add your address to the outbox link).</p>`,
    options.redirectUriRegistered === false
      ? `<p class="error" role="alert">The client ${escapeHtml(options.clientId)} does not have this demo’s redirect URI ${escapeHtml(redirectUri)} registered (config/local.json registers http://localhost:3000/callback): the login page will refuse the request. Run npm start with PORT=3000.</p>`
      : '',
    '<p><a class="button" id="login" href="/login">Log in</a></p>',
    '<h2>Try the other answers</h2>',
    '<ul>',
    '<li><a href="/login?prompt=none">prompt=none</a>: there is no session to reuse, so the issuer redirects back with <code>login_required</code></li>',
    '<li><a href="/login?ui_locales=de-DE">ui_locales=de-DE</a>: the page in German</li>',
    '</ul>',
    '<h2>This client</h2>',
    '<dl>',
    `<dt>client_id</dt><dd>${escapeHtml(options.clientId)} (public: no secret, PKCE instead)</dd>`,
    `<dt>redirect_uri</dt><dd>${escapeHtml(redirectUri)}</dd>`,
    `<dt>scope</dt><dd>${escapeHtml(scope)}</dd>`,
    `<dt>issuer</dt><dd>${escapeHtml(options.issuer)} (discovered from ${escapeHtml(options.issuer)}/.well-known/openid-configuration)</dd>`,
    '</dl>',
  ].filter((line) => line !== '');
}

function successBody(result: {
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
    '<h1>Logged in</h1>',
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
    '<p><a class="button" id="login-again" href="/login">Log in again</a> <a href="/">Home</a></p>',
  ];
}

function failureBody(headline: string, detail: string, received: ReadonlyArray<[string, string]>, note?: string): string[] {
  return [
    '<h1>Login failed</h1>',
    `<p class="error" role="alert" id="error">${escapeHtml(headline)}</p>`,
    `<p id="error-description">${escapeHtml(detail)}</p>`,
    note === undefined ? '' : `<p id="note">${escapeHtml(note)}</p>`,
    received.length === 0
      ? ''
      : `<h2>What the callback received</h2><dl id="received">${received.map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>`,
    '<p><a class="button" id="login-again" href="/login">Log in again</a> <a href="/">Home</a></p>',
  ].filter((line) => line !== '');
}

function json(value: unknown): string {
  return escapeHtml(JSON.stringify(value, null, 2));
}
