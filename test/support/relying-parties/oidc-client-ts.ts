/**
 * A single-page app signed in by oidc-client-ts in the browser, as its README configures one:
 * `new UserManager({ authority, client_id, redirect_uri, scope })`, a public client (no secret:
 * the browser cannot keep one) with the library's defaults: the code flow with PKCE, `state`,
 * tokens kept in sessionStorage, and `signinSilent()` by the refresh token when the login got one.
 * The library is its own browser build (`dist/browser/oidc-client-ts.min.js`, the global `oidc`),
 * served as is: no bundler. docs/connect.md shows the same lines.
 *
 * Pages: `/` with a "Log in" button (`signinRedirect()`); `/callback`, where `signinCallback()`
 * completes the login and the page shows `User.profile`, a "Refresh" button (`signinSilent()`)
 * shows the renewed user, and a "Log out" button (`signoutRedirect()`, with state data, so the
 * library sends `state` and keeps it) sends the browser to the issuer's `end_session_endpoint`
 * with the ID token as `id_token_hint`; `/signed-out`, the `post_logout_redirect_uri`, where
 * `signoutCallback()` checks the returned `state` against the one it kept and the page shows the
 * state data it got back. What the page shows is never a token.
 */
import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { dirname, resolve } from 'node:path';

export interface OidcClientTsOptions {
  readonly issuer: string;
  /** The page's origin: its redirect URI is `${origin}/callback`, its post-logout redirect URI `${origin}/signed-out`. */
  readonly origin: string;
  readonly clientId: string;
}

const LIBRARY = readFileSync(resolve(dirname(require.resolve('oidc-client-ts/package.json')), 'dist/browser/oidc-client-ts.min.js'));

/** The page's script: the settings, then what the page does (shown with `show(id, value)`). */
function page(options: OidcClientTsOptions, script: string): string {
  const settings = {
    authority: options.issuer,
    client_id: options.clientId,
    redirect_uri: `${options.origin}/callback`,
    post_logout_redirect_uri: `${options.origin}/signed-out`,
    scope: 'openid email',
  };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SPA</title><script src="/oidc-client-ts.js"></script></head>
<body>
<button id="login" type="button">Log in</button> <button id="refresh" type="button">Refresh</button> <button id="logout" type="button">Log out</button>
<pre id="user"></pre><pre id="renewed"></pre><pre id="signed-out"></pre><pre id="error"></pre>
<script>
const userManager = new oidc.UserManager(${JSON.stringify(settings)});
// What the page shows of a user: the library's view of who logged in, and whether it may renew.
const seen = (user) => ({ profile: user.profile, scope: user.scope, expired: user.expired, renewable: typeof user.refresh_token === 'string' });
const show = (id, value) => { document.getElementById(id).textContent = JSON.stringify(value); };
const fail = (error) => show('error', { name: error.name, message: error.message, error: error.error });
${script}
</script></body></html>`;
}

export function oidcClientTsApp(options: OidcClientTsOptions): RequestListener {
  const home = page(options, "document.getElementById('login').onclick = () => userManager.signinRedirect().catch(fail);");
  const callback = page(
    options,
    `userManager.signinCallback().then((user) => show('user', seen(user)), fail);
document.getElementById('refresh').onclick = () => userManager.signinSilent().then((user) => show('renewed', seen(user)), fail);
document.getElementById('logout').onclick = () => userManager.signoutRedirect({ state: { from: 'callback' } }).catch(fail);`,
  );
  // signoutCallback() rejects a state it did not keep; what it kept comes back as userState.
  const signedOut = page(
    options,
    `userManager.signoutCallback().then(async (response) => show('signed-out', { userState: response?.userState, user: await userManager.getUser() }), fail);`,
  );
  return (request, response) => {
    const path = new URL(request.url ?? '/', options.origin).pathname;
    if (path === '/oidc-client-ts.js') {
      response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(LIBRARY);
      return;
    }
    const html = path === '/' ? home : path === '/callback' ? callback : path === '/signed-out' ? signedOut : undefined;
    if (html === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(html);
  };
}
