/**
 * The hosted login page's responses (lib/login/html.ts): the headers a page that takes codes needs,
 * exactly, the transaction cookie's attributes (RFC 6265), and reading the cookie back. The page
 * over HTTP is test/http/authorize.test.ts.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { STYLE_HASH } from '../../../lib/login/login-page';
import { createHash } from 'node:crypto';
import { formPostResponse, htmlResponse, pagePolicy, redirectResponse, transactionCookie } from '../../../lib/login/html';
import { renderFormPost, SUBMIT_SCRIPT_HASH } from '../../../lib/login/form-post';
import { LOGIN_PAGES } from '../../../lib/messages/locales';
import { apiEvent } from '../../support/api-event';

/** A request to the endpoint as API Gateway sends it: the stage in requestContext.path only. */
const gatewayEvent = (headers: Record<string, string> = {}) =>
  apiEvent({
    path: '/idp/v1/account/authorize',
    headers,
    requestContext: { requestId: 'unit', path: '/prod/idp/v1/account/authorize' } as APIGatewayProxyEvent['requestContext'],
  });

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

describe('the page’s Content-Security-Policy', () => {
  it('allows nothing but its stylesheet, no framing, no <base>, and forms only to itself and the origins given', () => {
    expect(pagePolicy([])).toBe(`default-src 'none'; style-src ${STYLE_HASH}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`);
    expect(pagePolicy(['https://app.example', 'http://localhost:3000'])).toBe(
      `default-src 'none'; style-src ${STYLE_HASH}; form-action 'self' https://app.example http://localhost:3000; frame-ancestors 'none'; base-uri 'none'`,
    );
  });
});

describe('a page', () => {
  it('has exactly the page headers, Retry-After only when given, and no cookie unless it changes', () => {
    expect(htmlResponse(gatewayEvent(), 200, '<p>', { formTargets: [], cookie: undefined })).toEqual({
      statusCode: 200,
      headers: { ...PAGE_HEADERS, 'Content-Security-Policy': pagePolicy([]) },
      body: '<p>',
    });
    expect(htmlResponse(gatewayEvent(), 429, '', { formTargets: [], cookie: undefined, retryAfterSeconds: 60 }).headers).toEqual({
      ...PAGE_HEADERS,
      'Content-Security-Policy': pagePolicy([]),
      'Retry-After': '60',
    });
  });

  it('sets the transaction for 10 minutes on the path the browser used (the stage included), HttpOnly, SameSite=Lax (RFC 6265 §5.2)', () => {
    const response = htmlResponse(gatewayEvent(), 200, '', { formTargets: [], cookie: { set: 'sealed' } });
    expect(response.headers?.['Set-Cookie']).toBe(
      'idp_login=sealed; Max-Age=600; Path=/prod/idp/v1/account/authorize; HttpOnly; SameSite=Lax',
    );
  });

  it('marks the cookie Secure on a request that came over HTTPS, however API Gateway spells it', () => {
    for (const proto of ['https', 'HTTPS']) {
      const response = htmlResponse(gatewayEvent({ 'x-forwarded-proto': proto }), 200, '', { formTargets: [], cookie: { set: 's' } });
      expect(response.headers?.['Set-Cookie']).toBe(
        'idp_login=s; Max-Age=600; Path=/prod/idp/v1/account/authorize; HttpOnly; SameSite=Lax; Secure',
      );
    }
    const plain = htmlResponse(gatewayEvent({ 'x-forwarded-proto': 'http' }), 200, '', { formTargets: [], cookie: { set: 's' } });
    expect(plain.headers?.['Set-Cookie']).not.toContain('Secure');
  });

  it('clears the cookie with an empty value and Max-Age=0; without API Gateway’s context or headers (a direct invocation), on the event’s path', () => {
    const local = apiEvent({
      path: '/idp/v1/account/authorize',
      headers: null as unknown as APIGatewayProxyEvent['headers'],
      requestContext: undefined as unknown as APIGatewayProxyEvent['requestContext'],
    });
    expect(htmlResponse(local, 400, '', { formTargets: [], cookie: { clear: true } }).headers?.['Set-Cookie']).toBe(
      'idp_login=; Max-Age=0; Path=/idp/v1/account/authorize; HttpOnly; SameSite=Lax',
    );
  });
});

describe('the redirect to the client (RFC 6749 §4.1.2)', () => {
  it('is a 302 that no cache keeps and that sends no Referer, clearing the transaction only when told', () => {
    expect(redirectResponse(gatewayEvent(), 'https://app.example/cb?code=x', false)).toEqual({
      statusCode: 302,
      headers: {
        Location: 'https://app.example/cb?code=x',
        'Cache-Control': 'no-store',
        Pragma: 'no-cache',
        'Referrer-Policy': 'no-referrer',
      },
      body: '',
    });
    expect(redirectResponse(gatewayEvent(), 'https://app.example/cb', true).headers?.['Set-Cookie']).toBe(
      'idp_login=; Max-Age=0; Path=/prod/idp/v1/account/authorize; HttpOnly; SameSite=Lax',
    );
  });
});

describe('the transaction cookie of a request', () => {
  const withCookie = (cookie: string) => apiEvent({ headers: { cookie } });

  it('is found among the browser’s other cookies (RFC 6265 §5.4: "; " between them), with an = in its value kept', () => {
    expect(transactionCookie(withCookie('theme=dark; idp_login=a.b=c; other=1'))).toBe('a.b=c');
    expect(transactionCookie(withCookie('idp_login=first'))).toBe('first');
  });

  it('is absent when the request has no such cookie, no Cookie header, or no headers at all (a direct invocation)', () => {
    expect(transactionCookie(withCookie('theme=dark; idp_login_old=x'))).toBeUndefined();
    expect(transactionCookie(apiEvent({ headers: {} }))).toBeUndefined();
    expect(transactionCookie(apiEvent({ headers: null as unknown as APIGatewayProxyEvent['headers'] }))).toBeUndefined();
  });
});

describe('the form post page (OAuth 2.0 Form Post Response Mode)', () => {
  it('§2: posts every parameter to the redirect URI as a hidden field, escaped, with its one script and a no-script button in the login’s language', () => {
    const html = renderFormPost('https://app.example/cb?x="1"', { code: 'abc', state: '"><script>alert(1)</script>' }, 'de-DE');

    expect(html).toContain('<html lang="de-DE">');
    expect(html).toContain('<form method="post" action="https://app.example/cb?x=&quot;1&quot;">');
    expect(html).toContain('<input type="hidden" name="code" value="abc">');
    expect(html).toContain('<input type="hidden" name="state" value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">');
    expect(html).toContain(`<noscript><button type="submit">${LOGIN_PAGES['de-DE'].signIn}</button></noscript>`);
    expect(html.match(/<script>/g)).toEqual(['<script>']);
    expect(html).toContain('<script>document.forms[0].submit();</script>');
  });

  it('is this whole document, and nothing else (no stylesheet, no other script, nothing to load)', () => {
    expect(renderFormPost('https://app.example/cb', { code: 'c', iss: 'https://id.example' }, 'en-US')).toBe(
      [
        '<!DOCTYPE html>',
        '<html lang="en-US">',
        '<head>',
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<title>Sign in</title>',
        '</head>',
        '<body>',
        '<form method="post" action="https://app.example/cb">',
        '<input type="hidden" name="code" value="c">',
        '<input type="hidden" name="iss" value="https://id.example">',
        '<noscript><button type="submit">Sign in</button></noscript>',
        '</form>',
        '<script>document.forms[0].submit();</script>',
        '</body>',
        '</html>',
        '',
      ].join('\n'),
    );
  });

  it('§4: is never cached, and its CSP runs that script alone (by hash) and lets the form post only to the redirect URI’s origin', () => {
    const response = formPostResponse(gatewayEvent(), 'https://app.example:8443/cb', '<html></html>', true);

    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({ ...PAGE_HEADERS });
    expect(response.headers?.['Content-Security-Policy']).toBe(
      `default-src 'none'; script-src ${SUBMIT_SCRIPT_HASH}; form-action https://app.example:8443; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(SUBMIT_SCRIPT_HASH).toBe(`'sha256-${createHash('sha256').update('document.forms[0].submit();').digest('base64')}'`);
    expect(response.headers?.['Set-Cookie']).toContain('Max-Age=0');
  });

  it('leaves the transaction cookie alone when told (an error of the request, before any transaction)', () => {
    const response = formPostResponse(gatewayEvent(), 'https://app.example/cb', '<html></html>', false);

    expect(response.headers).not.toHaveProperty('Set-Cookie');
  });
});
