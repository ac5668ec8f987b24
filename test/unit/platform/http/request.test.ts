import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { IdpError } from '../../../../lib/platform/errors';
import { parseBody, queryParameter, queryValues, type ParsedEvent } from '../../../../lib/platform/http/request';

const REPEATED = { error: 'invalid_request', error_description: 'A JSON member name is repeated (RFC 7493 section 2.3 allows each once).' };
const NOT_WELL_FORMED = { error: 'invalid_request', error_description: 'The request contains text that is not well-formed Unicode.' };

/** Runs a parseBody's `before` step on `event`; returns the fields, or the error's status and JSON. */
function run(middleware: ReturnType<typeof parseBody>, event: Partial<APIGatewayProxyEvent>): unknown {
  const request = { event } as middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>;
  try {
    void middleware.before?.(request);
  } catch (error) {
    if (error instanceof IdpError) return { status: error.statusCode, ...error.toJSON() };
    throw error;
  }
  return (event as ParsedEvent).fields;
}

/** Runs the JSON-or-form parseBody on a body; returns the fields, or the error's status and JSON. */
function parse(body: string, options: { contentType?: string; base64?: boolean } = {}): unknown {
  return run(parseBody(['json', 'form']), {
    headers: { 'content-type': options.contentType ?? 'application/json' },
    body: options.base64 === true ? Buffer.from(body, 'utf8').toString('base64') : body,
    isBase64Encoded: options.base64 === true,
  });
}

describe('parseBody: JSON member names given twice', () => {
  it('regression: two client_id members were read as the second, where a form with two is refused', () => {
    expect(parse('{"client_id":"local-web","client_id":"evil"}')).toEqual({ status: 400, ...REPEATED });
    expect(parse('client_id=local-web&client_id=evil', { contentType: 'application/x-www-form-urlencoded' })).toMatchObject({
      status: 400,
      error: 'invalid_request',
    });
  });

  it.each([
    ['spelled with an escape', '{"code":"1","\\u0063ode":"2"}'],
    ['in a nested object', '{"a":{"b":{"c":1,"c":2}}}'],
    ['in an object in an array', '{"a":[{"c":1,"c":2}]}'],
    ['in a body that is not an object', '[{"c":1,"c":2}]'],
  ])('refuses one %s, with the fixed description', (_name, body) => {
    expect(parse(body)).toEqual({ status: 400, ...REPEATED });
  });

  it('accepts one name in different objects', () => {
    expect(parse('{"a":{"c":1},"b":[{"c":2},{"c":3}],"c":4}')).toEqual({ a: { c: 1 }, b: [{ c: 2 }, { c: 3 }], c: 4 });
  });

  it('reports malformed JSON as such first, and an ill-formed name before its repetition', () => {
    expect(parse('{"a":1,"a":')).toMatchObject({ error_description: 'The request body is not valid JSON.' });
    expect(parse('{"\\ud800":1,"\\ud800":2}')).toEqual({ status: 400, ...NOT_WELL_FORMED });
  });
});

describe('parseBody: text', () => {
  it('accepts a base64 body that is UTF-8', () => {
    expect(parse('{"user_id":"jörg@example.com","m":"😀"}', { base64: true })).toEqual({ user_id: 'jörg@example.com', m: '😀' });
  });

  it('refuses a base64 body that is not UTF-8 instead of replacing its bytes with U+FFFD', () => {
    const event = {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.from([0x61, 0x3d, 0xff]).toString('base64'),
      isBase64Encoded: true,
    };
    const request = { event } as unknown as middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>;
    expect(() => {
      void parseBody(['form']).before?.(request);
    }).toThrow(expect.objectContaining({ statusCode: 400, description: NOT_WELL_FORMED.error_description }) as Error);
  });

  it('refuses a lone surrogate in a member name or a value', () => {
    expect(parse('{"\\ud800":1}')).toEqual({ status: 400, ...NOT_WELL_FORMED });
    expect(parse('{"a":["\\udc00"]}')).toEqual({ status: 400, ...NOT_WELL_FORMED });
  });

  it('still refuses a byte order mark as JSON (RFC 8259 §8.1), base64 or not', () => {
    expect(parse('\ufeff{}')).toMatchObject({ status: 400, error_description: 'The request body is not valid JSON.' });
    expect(parse('\ufeff{}', { base64: true })).toMatchObject({ status: 400, error_description: 'The request body is not valid JSON.' });
  });
});

describe('parseBody: what each refusal says', () => {
  it('names every media type the route takes (415), the size limit (413) and the repeated form parameter (400)', () => {
    const post = (headers: Record<string, string>, body: string) => ({ httpMethod: 'POST', headers, body, isBase64Encoded: false });
    expect(run(parseBody(['json', 'form']), post({ 'content-type': 'text/plain' }, 'x'))).toEqual({
      status: 415,
      error: 'invalid_request',
      error_description: 'Content-Type must be application/json or application/x-www-form-urlencoded.',
    });
    expect(run(parseBody(['form']), post({ 'content-type': 'application/json' }, '{}'))).toEqual({
      status: 415,
      error: 'invalid_request',
      error_description: 'Content-Type must be application/x-www-form-urlencoded.',
    });
    expect(run(parseBody(['json'], 10), post({ 'content-type': 'application/json' }, '{"a":"bcd"}'))).toEqual({
      status: 413,
      error: 'invalid_request',
      error_description: 'The request body must not exceed 10 bytes.',
    });
    expect(run(parseBody(['form']), post({ 'content-type': 'application/x-www-form-urlencoded' }, 'a=1&a=2'))).toEqual({
      status: 400,
      error: 'invalid_request',
      error_description: 'A parameter is repeated (RFC 6749 section 3.2 allows each once).',
    });
  });
});

describe('parseBody: a route that answers repeated form fields itself (the end-session endpoint’s error page)', () => {
  const reporting = parseBody(['form'], undefined, { repeated: 'report' });
  const form = (body: string) => ({ httpMethod: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

  it('keeps each first value and names every field given more than once, once', () => {
    const event = form('state=a&client_id=x&state=b&state=c&env_id=1&env_id=');
    expect(run(reporting, event)).toEqual({ state: 'a', client_id: 'x', env_id: '1' });
    expect((event as unknown as ParsedEvent).repeatedFields).toEqual(['state', 'env_id']);
  });

  it('names none when nothing is repeated, and refuses as before where the route does not say so', () => {
    const event = form('state=a');
    expect(run(reporting, event)).toEqual({ state: 'a' });
    expect((event as unknown as ParsedEvent).repeatedFields).toBeUndefined();
    expect(run(parseBody(['form'], undefined, { repeated: 'refuse' }), form('a=1&a=2'))).toMatchObject({ status: 400 });
  });
});

describe('queryValues', () => {
  it('gives each parameter’s first value and the names given more than once (API Gateway’s multi-value form)', () => {
    const event = {
      queryStringParameters: { state: 'b', client_id: 'x' },
      multiValueQueryStringParameters: { state: ['a', 'b'], client_id: ['x'] },
    } as unknown as APIGatewayProxyEvent;
    expect(queryValues(event)).toEqual({ values: { state: 'a', client_id: 'x' }, repeated: ['state'] });
  });

  it('reads a hand-made event without the multi-value form, and one with no query at all', () => {
    const single = { queryStringParameters: { state: 'a' }, multiValueQueryStringParameters: null } as unknown as APIGatewayProxyEvent;
    expect(queryValues(single)).toEqual({ values: { state: 'a' }, repeated: [] });
    expect(queryValues({ queryStringParameters: null } as unknown as APIGatewayProxyEvent)).toEqual({ values: {}, repeated: [] });
  });
});

describe('parseBody: a body the route makes optional (UserInfo’s POST, OIDC Core §5.3.1)', () => {
  const optional = parseBody(['form'], undefined, { optional: true });

  it('takes a POST with neither content nor Content-Type as empty, headers or none (a direct invocation has none)', () => {
    expect(run(optional, { httpMethod: 'POST', headers: {}, body: null })).toEqual({});
    expect(run(optional, { httpMethod: 'POST', headers: null as unknown as APIGatewayProxyEvent['headers'], body: '' })).toEqual({});
  });

  it('still refuses content without a Content-Type, and an empty body of a type the route does not take (415, RFC 9110 §15.5.16)', () => {
    expect(run(optional, { httpMethod: 'POST', headers: {}, body: 'access_token=x' })).toMatchObject({ status: 415 });
    expect(run(optional, { httpMethod: 'POST', headers: { 'content-type': 'text/plain' }, body: '' })).toMatchObject({ status: 415 });
  });

  it('is not optional where the route does not say so', () => {
    expect(run(parseBody(['form']), { httpMethod: 'POST', headers: {}, body: '' })).toMatchObject({ status: 415 });
  });
});

describe('queryParameter', () => {
  const query = (parameters: Record<string, string> | null) => ({ queryStringParameters: parameters }) as unknown as APIGatewayProxyEvent;
  /** The event API Gateway (REST, v1) builds for a query: the last value of each name, and every value. */
  const multiValue = (parameters: Record<string, string[]>) =>
    ({
      queryStringParameters: Object.fromEntries(Object.entries(parameters).map(([name, values]) => [name, values.at(-1)])),
      multiValueQueryStringParameters: parameters,
    }) as unknown as APIGatewayProxyEvent;
  const REPEATED_QUERY = {
    status: 400,
    error: 'invalid_request',
    error_description: 'A query parameter is repeated (RFC 6749 section 3.1 allows each once).',
  };
  const read = (event: APIGatewayProxyEvent, name: string) => {
    try {
      return queryParameter(event, name);
    } catch (error) {
      if (error instanceof IdpError) return { status: error.statusCode, ...error.toJSON() };
      throw error;
    }
  };

  it.each([
    ['two values (the last one was read)', ['nope', 'local']],
    ['one value twice', ['local', 'local']],
    ['an empty one and a value', ['', 'local']],
    ['two empty ones', ['', '']],
  ])('regression: refuses a parameter given twice, %s: 400 with a fixed description that echoes nothing', (_name, values) => {
    expect(read(multiValue({ env_id: values }), 'env_id')).toEqual(REPEATED_QUERY);
  });

  it('reads a parameter given once, whatever else is repeated (a parameter the endpoint does not read is not its business)', () => {
    expect(read(multiValue({ env_id: ['local'], utm: ['a', 'b'] }), 'env_id')).toBe('local');
    expect(read(multiValue({ utm: ['a', 'b'] }), 'env_id')).toBeUndefined();
    // A hand-made event (a direct invocation) may carry no multi-value form, or null in it.
    expect(read({ queryStringParameters: { env_id: 'local' }, multiValueQueryStringParameters: null } as never, 'env_id')).toBe('local');
    expect(read({ queryStringParameters: { env_id: 'local' }, multiValueQueryStringParameters: { env_id: null } } as never, 'env_id')).toBe(
      'local',
    );
  });

  it('is the value, or undefined when the query, the parameter or its value is missing (an empty value counts as absent)', () => {
    expect(queryParameter(query({ env_id: 'second' }), 'env_id')).toBe('second');
    expect(queryParameter(query({ env_id: '' }), 'env_id')).toBeUndefined();
    expect(queryParameter(query({ other: 'x' }), 'env_id')).toBeUndefined();
    expect(queryParameter(query(null), 'env_id')).toBeUndefined();
    // A hand-made event (a direct invocation) may hold null where API Gateway would leave the name out.
    expect(queryParameter(query({ env_id: null as unknown as string }), 'env_id')).toBeUndefined();
  });
});
