/**
 * A web app signed in by Auth.js (`@auth/core`, the engine under every Auth.js framework package)
 * with its generic OpenID Connect provider: `type: 'oidc'`, the issuer, the client id and secret,
 * and nothing else, so Auth.js's defaults apply: discovery, the code flow with PKCE, scope
 * `openid profile email`, `client_secret_basic`, and the user from the ID token. `secret` and
 * `trustHost` are what Auth.js itself needs on a server of its own. docs/connect.md shows the same
 * lines.
 *
 * The app serves Auth.js at its default base path `/auth` (its own sign-in page at `/auth/signin`,
 * the callback at `/auth/callback/identity`) through a small bridge between Node's HTTP server and
 * the Web `Request`/`Response` that `Auth()` takes, as a framework adapter does; `/` answers the
 * session as Auth.js gives it to the app (`/auth/session`).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Auth, type AuthConfig } from '@auth/core';

export interface AuthJsOptions {
  readonly issuer: string;
  readonly origin: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Encrypts Auth.js's session cookie and signs its CSRF token (`AUTH_SECRET`). */
  readonly secret: string;
}

/** The provider id: the redirect URI is `${origin}/auth/callback/${AUTHJS_PROVIDER_ID}`. */
export const AUTHJS_PROVIDER_ID = 'identity';

export function authJsConfig(options: AuthJsOptions): AuthConfig {
  return {
    secret: options.secret,
    trustHost: true,
    providers: [
      {
        id: AUTHJS_PROVIDER_ID,
        name: 'Identity',
        type: 'oidc',
        issuer: options.issuer,
        clientId: options.clientId,
        clientSecret: options.clientSecret,
      },
    ],
  };
}

export function authJsApp(options: AuthJsOptions): RequestListener {
  const config = authJsConfig(options);
  return (request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: String(error) }));
    });
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', options.origin).pathname;
    // The app's home: who Auth.js says is signed in (what a page would get from auth()).
    if (path === '/') return send(response, await Auth(await toRequest(`${options.origin}/auth/session`, request), config));
    if (path.startsWith('/auth/'))
      return send(response, await Auth(await toRequest(`${options.origin}${request.url ?? '/'}`, request), config));
    // Anything else (the browser's /favicon.ico) is not Auth.js's to answer.
    response.writeHead(404).end();
  }
}

async function toRequest(url: string, request: IncomingMessage): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  const method = request.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers });
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new Request(url, { method, headers, body: Buffer.concat(chunks) });
}

async function send(response: ServerResponse, answer: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  response.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()));
}
