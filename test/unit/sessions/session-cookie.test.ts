/**
 * The session cookie (lib/sessions/session-cookie.ts, docs/decisions/014-sso-sessions.md): what a
 * request's cookie names, and the `Set-Cookie` of each change, on API Gateway (https, a stage in
 * the path) and on the local runtime (plain http, no stage).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { apiEvent } from '../../support/api-event';
import {
  cookieValue,
  isHttps,
  sessionCookieName,
  sessionReferenceOf,
  sessionSetCookie,
  stagePathOf,
} from '../../../lib/sessions/session-cookie';

const REFERENCE = 'r'.repeat(43);
const ENVIRONMENT = { sessions: { idleSeconds: 3600, absoluteSeconds: 7200 } };

/** A request as API Gateway hands it over: https, the stage `prod` in `requestContext.path`. */
const gateway = (headers: Record<string, string> = {}) =>
  apiEvent({
    path: '/idp/v1/account/authorize',
    headers: { 'x-forwarded-proto': 'https', ...headers },
    requestContext: { requestId: 'unit', path: '/prod/idp/v1/account/authorize' } as APIGatewayProxyEvent['requestContext'],
  });
/** A request of the local runtime: plain http, the path as asked. */
const local = (headers: Record<string, string> = {}) =>
  apiEvent({
    path: '/idp/v1/account/logout',
    headers,
    requestContext: { requestId: 'unit', path: '/idp/v1/account/logout' } as APIGatewayProxyEvent['requestContext'],
  });

describe('reading the cookie', () => {
  it('finds one cookie among several, with "=" in its value, and the first of two of a name (RFC 6265 §5.4)', () => {
    const event = local({ cookie: 'a=1; idp_sso_local=x=y; b=2; idp_sso_local=second' });
    expect(cookieValue(event, 'idp_sso_local')).toBe('x=y');
    expect(cookieValue(event, 'b')).toBe('2');
    expect(cookieValue(event, 'missing')).toBeUndefined();
    expect(cookieValue(local(), 'a')).toBeUndefined();
  });

  it('takes a session reference only in its own shape, and only its environment’s', () => {
    expect(sessionReferenceOf(local({ cookie: `idp_sso_local=${REFERENCE}` }), 'local')).toBe(REFERENCE);
    expect(sessionReferenceOf(local({ cookie: `idp_sso_local=${REFERENCE}` }), 'other')).toBeUndefined();
    for (const value of ['', 'short', `${REFERENCE}x`, `${'r'.repeat(42)}+`]) {
      expect(sessionReferenceOf(local({ cookie: `idp_sso_local=${value}` }), 'local')).toBeUndefined();
    }
  });

  it('names one cookie per environment', () => {
    expect(sessionCookieName('prod-eu.1')).toBe('idp_sso_prod-eu.1');
  });
});

describe('the stage and the scheme', () => {
  it('puts the cookie on the stage’s path: /prod on an execute-api URL, / on the local runtime, a custom domain’s base path', () => {
    expect(stagePathOf(gateway())).toBe('/prod');
    expect(stagePathOf(local())).toBe('/');
    const mapped = apiEvent({
      path: '/idp/v1/account/authorize',
      requestContext: { requestId: 'unit', path: '/id/idp/v1/account/authorize' } as APIGatewayProxyEvent['requestContext'],
    });
    expect(stagePathOf(mapped)).toBe('/id');
  });

  it('sees https only in X-Forwarded-Proto, in any case', () => {
    expect(isHttps(gateway())).toBe(true);
    expect(isHttps(local({ 'x-forwarded-proto': 'HTTPS' }))).toBe(true);
    expect(isHttps(local({ 'x-forwarded-proto': 'http' }))).toBe(false);
    expect(isHttps(local())).toBe(false);
  });
});

describe('Set-Cookie', () => {
  it('over https: HttpOnly, host-only, the stage’s path, SameSite=None; Secure, living the absolute lifetime', () => {
    expect(sessionSetCookie(gateway(), ENVIRONMENT, { environmentId: 'prod', set: REFERENCE })).toBe(
      `idp_sso_prod=${REFERENCE}; Max-Age=7200; Path=/prod; HttpOnly; SameSite=None; Secure`,
    );
  });

  it('over plain http: SameSite=Lax (browsers refuse None without Secure)', () => {
    expect(sessionSetCookie(local(), ENVIRONMENT, { environmentId: 'local', set: REFERENCE })).toBe(
      `idp_sso_local=${REFERENCE}; Max-Age=7200; Path=/; HttpOnly; SameSite=Lax`,
    );
  });

  it('clears with an empty value and Max-Age=0, with the same attributes', () => {
    expect(sessionSetCookie(gateway(), ENVIRONMENT, { environmentId: 'prod', clear: true })).toBe(
      'idp_sso_prod=; Max-Age=0; Path=/prod; HttpOnly; SameSite=None; Secure',
    );
  });
});
