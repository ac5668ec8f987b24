import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import fc from 'fast-check';
import { apiHandler } from '../../../../lib/platform/http/handler';
import { isWellFormedDeep } from '../../../../lib/platform/http/well-formed-unicode';
import { apiEvent, lambdaContext } from '../../../support/api-event';

const NOT_WELL_FORMED = { error: 'invalid_request', error_description: 'The request contains text that is not well-formed Unicode.' };
const HIGH = '\ud83d';
const LOW = '\ude00';

describe('isWellFormedDeep', () => {
  it.each([
    ['ASCII', 'user@example.com'],
    ['a surrogate pair', `${HIGH}${LOW}`],
    ['U+FFFD and noncharacters (well-formed, if odd)', '\ufffd\ufffe\uffff'],
    ['NUL and control characters', '\u0000\u001f\u007f'],
    ['scalars of every other type', [1, true, null, 0.5]],
    ['nested arrays and objects', { a: [{ b: ['c', { d: 'é' }] }] }],
    ['nothing', undefined],
  ])('accepts %s', (_name, value) => {
    expect(isWellFormedDeep(value)).toBe(true);
  });

  it.each([
    ['a lone high surrogate', HIGH],
    ['a lone low surrogate', LOW],
    ['a pair in the wrong order', `${LOW}${HIGH}`],
    ['a high surrogate at the end', `abc${HIGH}`],
    ['one in an array', ['ok', 'x', `y${LOW}`]],
    ['one in a member name', { [`k${HIGH}`]: 'v' }],
    ['one in a nested member name', { a: [1, { b: { [LOW]: 1 } }] }],
    ['one in a nested value', { a: { b: [[[HIGH]]] } }],
  ])('refuses %s', (_name, value) => {
    expect(isWellFormedDeep(value)).toBe(false);
  });

  it('walks deep nesting without recursion', () => {
    let deep: unknown = [HIGH];
    for (let depth = 0; depth < 100_000; depth += 1) deep = depth % 2 === 0 ? [deep] : { a: deep };
    expect(isWellFormedDeep(deep)).toBe(false);
  });

  it('agrees with String.prototype.isWellFormed on every string, wherever it sits in a JSON value', () => {
    const units = fc.string({
      unit: fc.oneof(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
        fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
      ),
      maxLength: 4,
    });
    fc.assert(
      fc.property(units, fc.nat(3), (text, place) => {
        const value = [text, [text], { [text]: 1 }, { a: [{ b: text }] }][place];
        expect(isWellFormedDeep(value)).toBe(text.isWellFormed());
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the shared stack refuses a lone surrogate anywhere, before any other step', () => {
  const handle = jest.fn((): Promise<APIGatewayProxyResult> => Promise.resolve({ statusCode: 200, body: '{}' }));
  const post = apiHandler(
    { methods: ['POST'], body: ['json', 'form'], cors: () => ({ allowOrigins: ['https://app.example.com'] }) },
    handle,
  );
  const get = apiHandler({ methods: ['GET'], cors: () => undefined }, handle);
  const context = lambdaContext();
  beforeEach(() => handle.mockClear());
  const event = apiEvent;

  async function refused(handler: typeof post, overrides: Partial<APIGatewayProxyEvent>): Promise<void> {
    const result = await handler(event(overrides), context);
    expect({ status: result.statusCode, body: JSON.parse(result.body) as unknown }).toEqual({ status: 400, body: NOT_WELL_FORMED });
    expect(handle).not.toHaveBeenCalled();
  }

  it('regression: a lone surrogate in message passed validation, and the SES query serialiser threw URIError (a 502 for a client mistake)', async () => {
    await refused(post, { body: '{"user_id":"a@example.com","message":"%code% \\ud800"}' });
  });

  it.each<[string, Partial<APIGatewayProxyEvent>]>([
    ['a JSON value', { body: `{"user_id":"a\\u${HIGH.charCodeAt(0).toString(16)}"}` }],
    ['a JSON member name', { body: '{"\\udc00":1}' }],
    ['a JSON value in an array in an object', { body: '{"a":{"b":[1,"\\udfff"]}}' }],
    ['a raw JSON body string (not an escape)', { body: `{"user_id":"a${LOW}"}` }],
    [
      'a raw form body string (URLSearchParams would turn it into U+FFFD)',
      { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `user_id=a${HIGH}` },
    ],
    ['a base64 body that is not UTF-8', { isBase64Encoded: true, body: Buffer.from([0x7b, 0xff, 0x7d]).toString('base64') }],
    [
      'a base64 body with an encoded surrogate (CESU-8)',
      { isBase64Encoded: true, body: Buffer.from([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]).toString('base64') },
    ],
    ['a query parameter value', { queryStringParameters: { env_id: HIGH } }],
    ['a query parameter name', { queryStringParameters: { [LOW]: 'x' } }],
    ['a multi-value query parameter', { multiValueQueryStringParameters: { env_id: ['local', HIGH] } }],
    ['a header value', { headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${LOW}` } }],
    ['a header name', { headers: { 'Content-Type': 'application/json', [`X-${HIGH}`]: '1' } }],
    ['a multi-value header', { multiValueHeaders: { Authorization: ['Bearer a', LOW] } }],
    ['the path', { path: `/r/${HIGH}` }],
    ['a path parameter', { pathParameters: { id: LOW } }],
  ])('in %s', async (_name, overrides) => {
    await refused(post, overrides);
  });

  it('on a route without a body (GET): in the query and in the headers', async () => {
    await refused(get, { httpMethod: 'GET', body: null, queryStringParameters: { x: HIGH } });
    await refused(get, { httpMethod: 'GET', body: null, headers: { Accept: LOW } });
  });

  it('before the method check (405) and the media type check (415)', async () => {
    await refused(post, { httpMethod: 'PUT', queryStringParameters: { x: HIGH } });
    await refused(post, { headers: { 'Content-Type': 'text/plain', 'X-Trace': LOW } });
  });

  it('keeps the CORS headers on this 400, so a browser client can read it', async () => {
    const result = await post(
      event({ headers: { 'Content-Type': 'application/json', Origin: 'https://app.example.com' }, queryStringParameters: { x: HIGH } }),
      context,
    );
    expect(result.statusCode).toBe(400);
    expect(result.headers).toMatchObject({ 'Access-Control-Allow-Origin': 'https://app.example.com', Vary: 'Origin' });
  });

  it('lets well-formed text through: pairs, U+FFFD, NUL, non-ASCII in every part', async () => {
    const result = await post(
      event({
        body: `{"user_id":"a@example.com","message":"${HIGH}${LOW} \\ud83d\\ude00 \\ufffd \\u0000"}`,
        queryStringParameters: { env_id: 'é' },
        headers: { 'Content-Type': 'application/json', 'X-Name': 'Jörg' },
        path: '/r/é',
      }),
      context,
    );
    expect(result.statusCode).toBe(200);
    expect(handle).toHaveBeenCalledTimes(1);
  });
});
