/**
 * The response checker itself (test/support/contract.ts): it accepts what docs/openapi.json
 * describes and names every way a response departs from it, so that a suite where it finds
 * nothing means something.
 */
import { responseContract, type ObservedResponse } from '../../support/contract';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
const check = (observed: Partial<ObservedResponse> & Pick<ObservedResponse, 'status'>) =>
  responseContract().check({ method: 'POST', path: '/idp/v1/otp/send', headers: JSON_HEADERS, body: '', ...observed });
const error = (code: string) => JSON.stringify({ error: code, error_description: 'Too many attempts. Try again in 42 seconds.' });

describe('accepts what the document describes', () => {
  it.each<[string, Partial<ObservedResponse> & Pick<ObservedResponse, 'status'>]>([
    ['a sent code', { status: 200, body: JSON.stringify({ status: 'sent', channel: 'email', expires_in: 300 }) }],
    ['a 429 with Retry-After', { status: 429, headers: { ...JSON_HEADERS, 'Retry-After': '42' }, body: error('too_many_requests') }],
    [
      'an unknown path (its 404)',
      { method: 'GET', path: '/nope', status: 404, body: JSON.stringify({ error: 'not_found', error_description: 'No such endpoint.' }) },
    ],
    [
      'a method the path does not take (405 with Allow)',
      {
        method: 'DELETE',
        status: 405,
        headers: { ...JSON_HEADERS, allow: 'POST' },
        body: JSON.stringify({ error: 'method_not_allowed', error_description: 'This endpoint accepts POST only.' }),
      },
    ],
    [
      "the login page's redirect",
      {
        method: 'GET',
        path: '/idp/v1/account/authorize',
        status: 302,
        headers: { location: 'http://localhost:3000/callback?error=invalid_request', 'cache-control': 'no-store' },
      },
    ],
  ])('%s', (_name, observed) => {
    expect(check(observed)).toEqual([]);
  });
});

describe('names every departure', () => {
  it('a status the operation does not answer', () => {
    expect(check({ status: 418, body: error('invalid_request') })).toEqual([
      expect.stringMatching(/POST \/idp\/v1\/otp\/send → 418: status 418 is not described/),
    ]);
  });

  it('an error code the status does not carry', () => {
    // invalid_grant belongs to the token endpoint, never to otp/send.
    expect(check({ status: 400, body: error('invalid_grant') })).toEqual([
      expect.stringContaining('/error must be equal to one of the allowed values'),
    ]);
    // A code of another status: 401's invalid_client is not a 400.
    expect(check({ status: 400, body: error('invalid_client') })).toHaveLength(1);
  });

  it('a 429 without Retry-After', () => {
    expect(check({ status: 429, body: error('too_many_requests') })).toEqual([
      expect.stringContaining('the required header Retry-After is missing'),
    ]);
  });

  it('a header whose value the document does not allow', () => {
    expect(check({ status: 429, headers: { ...JSON_HEADERS, 'retry-after': 'soon' }, body: error('too_many_requests') })).toEqual([
      expect.stringContaining('header Retry-After: "soon"'),
    ]);
    expect(
      check({
        status: 200,
        headers: { ...JSON_HEADERS, 'cache-control': 'max-age=60' },
        body: '{"status":"sent","channel":"sms","expires_in":1}',
      }),
    ).toEqual([expect.stringContaining('header Cache-Control')]);
  });

  it('a property the schema does not have (additionalProperties: false), and a missing one', () => {
    const extra = JSON.stringify({ status: 'sent', channel: 'email', expires_in: 300, code: '123456' });
    expect(check({ status: 200, body: extra })).toEqual([
      expect.stringContaining('must NOT have additional properties {"additionalProperty":"code"}'),
    ]);
    expect(check({ status: 200, body: JSON.stringify({ status: 'sent', channel: 'email' }) })).toEqual([
      expect.stringContaining("must have required property 'expires_in'"),
    ]);
  });

  it('a media type the response does not have, and a body that is not JSON', () => {
    expect(check({ status: 200, headers: { 'content-type': 'text/html', 'cache-control': 'no-store' }, body: '<p>sent</p>' })).toEqual([
      expect.stringContaining('Content-Type "text/html" is not described'),
    ]);
    expect(check({ status: 200, body: 'sent' })).toEqual([expect.stringContaining('the body is not JSON')]);
  });

  it('the login page: a page without its Content-Security-Policy, a redirect without Location, a body where none is described', () => {
    const page = { method: 'GET', path: '/idp/v1/account/authorize', status: 200, body: '<!doctype html>' };
    expect(
      check({ ...page, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache' } }),
    ).toEqual([expect.stringContaining('the required header Content-Security-Policy is missing')]);
    expect(check({ ...page, status: 302, headers: { 'cache-control': 'no-store' }, body: 'moved' })).toEqual([
      expect.stringContaining('the required header Location is missing'),
      expect.stringContaining('a body where none is described'),
    ]);
  });

  it('a response to an unknown path that is not its 404', () => {
    expect(check({ method: 'GET', path: '/nope', status: 200, body: '{}' })).toEqual([
      expect.stringContaining('status 200 is not described'),
    ]);
  });
});
