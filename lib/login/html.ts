/**
 * Responses of the hosted login page: HTML with the headers a page that takes codes needs, the
 * transaction cookie, and responses back to the client (a redirect, or a form post page).
 *
 * - `Content-Security-Policy`: nothing by default; the one inline stylesheet by its hash; forms
 *   only to this endpoint (and, after a code is checked, the client's redirect origin, since
 *   browsers apply `form-action` to the redirect a form post ends in); no framing; no `<base>`.
 *   No script, except on a page that includes the passkey script, which may run exactly that
 *   script, by its hash (the form post page has its own, likewise: `formPostResponse`). The
 *   policy follows the page's body, so the two cannot disagree.
 * - `Cache-Control: no-store` (and `Pragma`): a page holding a CSRF token must not be cached.
 * - `Referrer-Policy: no-referrer`: the authorization request's query stays out of other sites' logs.
 * - `X-Frame-Options: DENY` for browsers that predate `frame-ancestors`.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { SUBMIT_SCRIPT_HASH } from './form-post';
import { PAGE_SCRIPT_ELEMENT, STYLE_HASH } from './login-page';
import { PASSKEY_SCRIPT_HASH } from './passkey-script';
import { LOGIN_COOKIE, LOGIN_TRANSACTION_TTL_SECONDS } from './login-transaction';

const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
});

/**
 * The page's Content-Security-Policy, with the origins its forms may end up at; `script`: the page
 * includes the passkey script (login-page.ts `PAGE_SCRIPT_ELEMENT`), the one script it may run.
 */
export function pagePolicy(formTargets: readonly string[], options: { readonly script?: boolean } = {}): string {
  return [
    "default-src 'none'",
    ...(options.script === true ? [`script-src ${PASSKEY_SCRIPT_HASH}`] : []),
    `style-src ${STYLE_HASH}`,
    `form-action 'self'${formTargets.map((origin) => ` ${origin}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** How the transaction cookie changes with a response. */
export type CookieChange = { readonly set: string } | { readonly clear: true } | undefined;

/** An HTML page. */
export function htmlResponse(
  event: APIGatewayProxyEvent,
  status: number,
  html: string,
  options: { formTargets: readonly string[]; cookie: CookieChange; retryAfterSeconds?: number | undefined },
): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: {
      ...PAGE_HEADERS,
      'Content-Security-Policy': pagePolicy(options.formTargets, { script: html.includes(PAGE_SCRIPT_ELEMENT) }),
      ...(options.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(options.retryAfterSeconds) }),
      ...cookieHeader(event, options.cookie),
    },
    body: html,
  };
}

/**
 * The form post page (lib/login/form-post.ts), clearing the transaction when it is done. Its CSP
 * allows its one script by hash and its form only to the client's redirect URI's origin (always
 * http or https: lib/login/authorize.ts refuses form_post to any other scheme).
 */
export function formPostResponse(
  event: APIGatewayProxyEvent,
  action: string,
  html: string,
  clearTransaction: boolean,
): APIGatewayProxyResult {
  const policy = [
    "default-src 'none'",
    `script-src ${SUBMIT_SCRIPT_HASH}`,
    `form-action ${new URL(action).origin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return {
    statusCode: 200,
    headers: { ...PAGE_HEADERS, 'Content-Security-Policy': policy, ...cookieHeader(event, clearTransaction ? { clear: true } : undefined) },
    body: html,
  };
}

/** A 302 to the client (RFC 6749 §4.1.2), clearing the transaction when it is done. */
export function redirectResponse(event: APIGatewayProxyEvent, location: string, clearTransaction: boolean): APIGatewayProxyResult {
  return {
    statusCode: 302,
    headers: {
      Location: location,
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      'Referrer-Policy': 'no-referrer',
      ...cookieHeader(event, clearTransaction ? { clear: true } : undefined),
    },
    body: '',
  };
}

/** The transaction cookie of a request, if it has one. */
export function transactionCookie(event: APIGatewayProxyEvent): string | undefined {
  for (const part of (event.headers?.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === LOGIN_COOKIE) return value.join('=');
  }
  return undefined;
}

/**
 * `Set-Cookie` for the transaction: only to this endpoint's path, never readable by script,
 * sent with the page's own form posts (`SameSite=Lax`), and `Secure` wherever the request came
 * over HTTPS (API Gateway always does; the local runtime is plain HTTP on 127.0.0.1).
 */
function cookieHeader(event: APIGatewayProxyEvent, change: CookieChange): Record<string, string> {
  if (change === undefined) return {};
  const path = event.requestContext?.path ?? event.path;
  const secure = event.headers?.['x-forwarded-proto']?.toLowerCase() === 'https' ? '; Secure' : '';
  const value = 'set' in change ? `${change.set}; Max-Age=${LOGIN_TRANSACTION_TTL_SECONDS}` : '; Max-Age=0';
  return { 'Set-Cookie': `${LOGIN_COOKIE}=${value}; Path=${path}; HttpOnly; SameSite=Lax${secure}` };
}
