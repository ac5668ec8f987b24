/**
 * The session cookie (docs/decisions/014-sso-sessions.md): one per environment, holding only the
 * session's reference (256 random bits; the table keys the session on a keyed hash of it).
 *
 * - `HttpOnly`: no script of any page reads it.
 * - Host-only (no `Domain`): only the service's own host gets it.
 * - `Path` of the stage: the authorization and end-session endpoints both get it, whatever the
 *   stage's base path (`/prod` on an execute-api URL, `/` on a custom domain).
 * - `SameSite=None; Secure` where the issuer is https: a top-level navigation from a relying party
 *   (SSO) sends it, and so does an iframe of a relying party on another site (`prompt=none`
 *   silent checks), where the browser still sends third-party cookies. No flow relies on SameSite
 *   against forgery: the authorization endpoint's page forms carry the transaction's CSRF token,
 *   and the end-session endpoint asks the user unless the relying party proves itself with an ID
 *   token. On plain http (the local runtime) browsers refuse `SameSite=None` without `Secure`, so
 *   there it is `Lax`: top-level SSO works; a cross-site iframe check does not.
 * - `Max-Age`: the environment's absolute session lifetime; the idle lifetime is the table's to
 *   enforce (a cookie cannot be touched without a response).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { EnvironmentConfig } from '../platform/config';
import { SESSION_REFERENCE_PATTERN } from './sessions';

/** The cookie of `environmentId`'s session: a cookie name may hold every character an environment id may. */
export function sessionCookieName(environmentId: string): string {
  return `idp_sso_${environmentId}`;
}

/** The value of the cookie `name` in a request, if it sent one (the first, as RFC 6265 §5.4 orders them). */
export function cookieValue(event: APIGatewayProxyEvent, name: string): string | undefined {
  // The handler normalises header names to lower case (lib/platform/http/handler.ts).
  const header = event.headers?.cookie ?? '';
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** The session reference the request's cookie holds for `environmentId`, when it is shaped like one. */
export function sessionReferenceOf(event: APIGatewayProxyEvent, environmentId: string): string | undefined {
  const value = cookieValue(event, sessionCookieName(environmentId));
  return value !== undefined && SESSION_REFERENCE_PATTERN.test(value) ? value : undefined;
}

/** Whether the request came over https: API Gateway always; the local runtime is plain http. */
export function isHttps(event: APIGatewayProxyEvent): boolean {
  return event.headers?.['x-forwarded-proto']?.toLowerCase() === 'https';
}

/**
 * The path of the stage the request came through: API Gateway's `requestContext.path` is the
 * whole path asked for (with the stage, or a custom domain's base path), `event.path` the
 * resource's, so the stage's is what the first has before the second.
 */
export function stagePathOf(event: APIGatewayProxyEvent): string {
  const full = event.requestContext?.path ?? event.path;
  const prefix = full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
  return prefix === '' ? '/' : prefix;
}

/** How a response changes an environment's session cookie. */
export type SessionCookieChange =
  { readonly environmentId: string; readonly set: string } | { readonly environmentId: string; readonly clear: true };

/** The `Set-Cookie` value for a session cookie change. */
export function sessionSetCookie(
  event: APIGatewayProxyEvent,
  environment: Pick<EnvironmentConfig, 'sessions'>,
  change: SessionCookieChange,
): string {
  const secure = isHttps(event);
  const value = 'set' in change ? `${change.set}; Max-Age=${environment.sessions.absoluteSeconds}` : '; Max-Age=0';
  const sameSite = secure ? 'SameSite=None; Secure' : 'SameSite=Lax';
  return `${sessionCookieName(change.environmentId)}=${value}; Path=${stagePathOf(event)}; HttpOnly; ${sameSite}`;
}
