import fc from 'fast-check';
import {
  DeliveryFailedError,
  DestinationNotAllowedError,
  describable,
  ForeignHttpError,
  IdpError,
  InvalidClientError,
  InvalidGrantError,
  InvalidScopeError,
  InvalidRequestError,
  InvalidTokenError,
  MethodNotAllowedError,
  NotFoundError,
  RequestTooLargeError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
  UnauthorizedClientError,
  UnsupportedGrantTypeError,
  UnsupportedMediaTypeError,
} from '../../../lib/platform/errors';

interface Expectation {
  readonly make: () => IdpError;
  readonly name: string;
  readonly statusCode: number;
  readonly error: string;
  readonly description: string | RegExp;
  readonly headers: Record<string, string | RegExp>;
}

const cases: Expectation[] = [
  {
    make: () => new InvalidRequestError('user_id is required.', { detail: 'private' }),
    name: 'InvalidRequestError',
    statusCode: 400,
    error: 'invalid_request',
    description: 'user_id is required.',
    headers: {},
  },
  {
    make: () => new RequestTooLargeError('The body must be at most 16 KiB.'),
    name: 'RequestTooLargeError',
    statusCode: 413,
    error: 'invalid_request',
    description: 'The body must be at most 16 KiB.',
    headers: {},
  },
  {
    make: () => new UnsupportedMediaTypeError('Send application/json.'),
    name: 'UnsupportedMediaTypeError',
    statusCode: 415,
    error: 'invalid_request',
    description: 'Send application/json.',
    headers: {},
  },
  {
    make: () => new NotFoundError('No such endpoint.'),
    name: 'NotFoundError',
    statusCode: 404,
    error: 'not_found',
    description: 'No such endpoint.',
    headers: {},
  },
  {
    make: () => new MethodNotAllowedError(['POST', 'OPTIONS']),
    name: 'MethodNotAllowedError',
    statusCode: 405,
    error: 'method_not_allowed',
    description: 'This endpoint accepts POST, OPTIONS only.',
    headers: { Allow: 'POST, OPTIONS' },
  },
  {
    make: () => new InvalidClientError(),
    name: 'InvalidClientError',
    statusCode: 401,
    error: 'invalid_client',
    description: 'Client authentication failed.',
    headers: { 'WWW-Authenticate': /^Bearer realm="identity"/ },
  },
  {
    make: () => new InvalidGrantError({ detail: 'expired' }),
    name: 'InvalidGrantError',
    statusCode: 400,
    error: 'invalid_grant',
    description: 'The code is invalid, expired, or was already used.',
    headers: {},
  },
  {
    make: () => new InvalidGrantError({ detail: 'reuse', presented: 'refresh_token' }),
    name: 'InvalidGrantError',
    statusCode: 400,
    error: 'invalid_grant',
    description: 'The refresh token is invalid, expired, revoked, or was already used.',
    headers: {},
  },
  {
    make: () => new InvalidScopeError(),
    name: 'InvalidScopeError',
    statusCode: 400,
    error: 'invalid_scope',
    description: 'The requested scope exceeds the scope originally granted.',
    headers: {},
  },
  {
    make: () => new UnauthorizedClientError('This client may not send codes by voice.'),
    name: 'UnauthorizedClientError',
    statusCode: 400,
    error: 'unauthorized_client',
    description: 'This client may not send codes by voice.',
    headers: {},
  },
  {
    make: () => new UnsupportedGrantTypeError(),
    name: 'UnsupportedGrantTypeError',
    statusCode: 400,
    error: 'unsupported_grant_type',
    description: "grant_type must be 'authorization_code' or 'refresh_token'.",
    headers: {},
  },
  {
    make: () => new InvalidTokenError('The API key is not valid.', { bearerPresented: true }),
    name: 'InvalidTokenError',
    statusCode: 401,
    error: 'invalid_token',
    description: 'The API key is not valid.',
    headers: { 'WWW-Authenticate': 'Bearer realm="identity", error="invalid_token", error_description="The API key is not valid."' },
  },
  {
    make: () => new TooManyRequestsError(17),
    name: 'TooManyRequestsError',
    statusCode: 429,
    error: 'too_many_requests',
    description: /17 seconds/,
    headers: { 'Retry-After': '17' },
  },
  {
    make: () => new TooManyRequestsError(17, { limit: 'phone_sends', detail: 'per source IP' }),
    name: 'TooManyRequestsError',
    statusCode: 429,
    error: 'too_many_requests',
    description: 'Too many codes by SMS or voice call were requested. Try again in 17 seconds.',
    headers: { 'Retry-After': '17' },
  },
  {
    make: () => new DeliveryFailedError({ detail: 'SES throttled' }),
    name: 'DeliveryFailedError',
    statusCode: 502,
    error: 'delivery_failed',
    description: 'The code could not be delivered. Try again later.',
    // Regression: no Retry-After, where every 503 has one.
    headers: { 'Retry-After': '15' },
  },
  {
    make: () => new TemporarilyUnavailableError({ detail: 'DynamoDB down' }),
    name: 'TemporarilyUnavailableError',
    statusCode: 503,
    error: 'temporarily_unavailable',
    description: 'The service is temporarily unavailable. Try again shortly.',
    headers: { 'Retry-After': '1' },
  },
  {
    make: () =>
      new TemporarilyUnavailableError({ detail: 'daily SMS and voice budget spent', phoneBudgetSpent: { retryAfterSeconds: 3600 } }),
    name: 'TemporarilyUnavailableError',
    statusCode: 503,
    error: 'temporarily_unavailable',
    description: 'Codes by SMS and voice call are unavailable until the next UTC day. Codes by email still work.',
    headers: { 'Retry-After': '3600' },
  },
  {
    make: () => new DestinationNotAllowedError({ detail: 'destination number_type (private)' }),
    name: 'DestinationNotAllowedError',
    statusCode: 403,
    error: 'destination_not_allowed',
    description: 'Codes cannot be sent to this phone number in this environment.',
    headers: {},
  },
];

/** RFC 6750 §3: each auth-param value is a quoted-string of %x20-21 / %x23-5B / %x5D-7E. */
const WELL_FORMED_CHALLENGE =
  /^Bearer realm="[\x20\x21\x23-\x5b\x5d-\x7e]*"(, error="[\x20\x21\x23-\x5b\x5d-\x7e]+"(, error_description="[\x20\x21\x23-\x5b\x5d-\x7e]*")?)?$/;

describe.each(cases.map((expectation) => [expectation.name, expectation] as const))('%s', (_name, expectation) => {
  it(`has status ${expectation.statusCode} and error "${expectation.error}"`, () => {
    // Act
    const error = expectation.make();

    // Assert
    expect(error.statusCode).toBe(expectation.statusCode);
    expect(error.error).toBe(expectation.error);
  });

  it('is an Error and an IdpError, named after its class, with the description as message', () => {
    const error = expectation.make();
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(IdpError);
    expect(error.name).toBe(expectation.name);
    expect(error.message).toBe(error.description);
  });

  it('serialises to exactly { error, error_description }, with neither the private detail nor a stack', () => {
    // Act
    const error = expectation.make();
    const json = error.toJSON();
    const wire = JSON.stringify(error);

    // Assert
    expect(Object.keys(json).sort()).toEqual(['error', 'error_description']);
    expect(json.error).toBe(expectation.error);
    if (typeof expectation.description === 'string') expect(json.error_description).toBe(expectation.description);
    else expect(json.error_description).toMatch(expectation.description);
    expect(JSON.parse(wire)).toEqual(json);
    expect(wire).not.toContain('private');
    expect(wire).not.toContain('SES');
    expect(wire).not.toContain('DynamoDB');
    expect(wire).not.toContain('    at ');
  });

  it('has exactly the expected headers, frozen', () => {
    // Act
    const error = expectation.make();

    // Assert
    expect(Object.keys(error.headers).sort()).toEqual(Object.keys(expectation.headers).sort());
    for (const [name, value] of Object.entries(expectation.headers)) {
      if (typeof value === 'string') expect(error.headers[name]).toBe(value);
      else expect(error.headers[name]).toMatch(value);
    }
    expect(Object.isFrozen(error.headers)).toBe(true);
  });

  it('is a client error (4xx) unless it is a dependency failure (502/503)', () => {
    const error = expectation.make();
    expect(error.statusCode >= 400 && error.statusCode < 500 ? true : [502, 503].includes(error.statusCode)).toBe(true);
  });
});

describe('IdpError options', () => {
  it('keeps the private detail for the logs', () => {
    expect(new InvalidRequestError('bad', { detail: 'client web' }).detail).toBe('client web');
    expect(new InvalidRequestError('bad').detail).toBeUndefined();
  });

  it('keeps the cause', () => {
    // Arrange
    const cause = new Error('socket hang up');

    // Act
    const error = new DeliveryFailedError({ cause });

    // Assert
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error)).not.toContain('socket hang up');
  });

  it('copies the headers it is given', () => {
    // Arrange
    const headers: Record<string, string> = { 'X-Test': '1' };

    // Act
    const error = new InvalidRequestError('bad', { headers });
    headers['X-Test'] = '2';

    // Assert
    expect(error.headers).toEqual({ 'X-Test': '1' });
  });
});

describe('TooManyRequestsError', () => {
  it.each([1, 59, 300])('sets Retry-After to %d and keeps the number', (seconds) => {
    // Act
    const error = new TooManyRequestsError(seconds);

    // Assert
    expect(error.headers).toEqual({ 'Retry-After': String(seconds) });
    expect(error.retryAfterSeconds).toBe(seconds);
    expect(error.description).toContain(String(seconds));
    expect(error.limit).toBe('attempts');
  });

  it("tells a fraud guard's refusal from the attempt limit (the login page words them apart)", () => {
    const error = new TooManyRequestsError(60, { limit: 'phone_sends' });
    expect(error.limit).toBe('phone_sends');
    expect(error.retryAfterSeconds).toBe(60);
  });
});

describe('TemporarilyUnavailableError', () => {
  it('is the service, retry in a second, unless the phone budget is spent', () => {
    const service = new TemporarilyUnavailableError({ detail: 'DynamoDB down' });
    const budget = new TemporarilyUnavailableError({ phoneBudgetSpent: { retryAfterSeconds: 7200 } });
    expect({ unavailable: service.unavailable, retryAfterSeconds: service.retryAfterSeconds }).toEqual({
      unavailable: 'service',
      retryAfterSeconds: 1,
    });
    expect({ unavailable: budget.unavailable, retryAfterSeconds: budget.retryAfterSeconds }).toEqual({
      unavailable: 'phone_sends',
      retryAfterSeconds: 7200,
    });
  });
});

describe('MethodNotAllowedError', () => {
  it('lists a single method in Allow', () => {
    expect(new MethodNotAllowedError(['GET']).headers).toEqual({ Allow: 'GET' });
  });
});

describe('InvalidClientError', () => {
  it('has WWW-Authenticate on every 401 (RFC 7235 §3.1), also with a custom description', () => {
    // Act
    const error = new InvalidClientError('Unknown client.', { detail: 'client_id mobile' });

    // Assert
    expect(error.headers['WWW-Authenticate']).toMatch(/^Bearer /);
    expect(error.description).toBe('Unknown client.');
    expect(error.detail).toBe('client_id mobile');
  });
});

describe('InvalidGrantError', () => {
  const causes = [
    'not_found',
    'expired',
    'consumed',
    'replaced',
    'client mismatch',
    'redirect_uri mismatch',
    'user mismatch',
    'environment mismatch',
    'too many tries',
  ];

  it('has the same description for every cause', () => {
    // Act
    const descriptions = new Set(causes.map((detail) => new InvalidGrantError({ detail }).description));

    // Assert
    expect([...descriptions]).toEqual([new InvalidGrantError().description]);
  });

  it('has the same wire body for every cause, without the private detail', () => {
    const details = causes.map((cause) => `code ${cause} for client web`);
    const bodies = new Set(details.map((detail) => JSON.stringify(new InvalidGrantError({ detail }))));
    expect(bodies.size).toBe(1);
    for (const detail of details) expect([...bodies][0]).not.toContain(detail);
  });

  it('says nothing about which part of the request was wrong', () => {
    // Act
    const description = new InvalidGrantError().description.toLowerCase();

    // Assert
    for (const part of ['client', 'redirect', 'user', 'environment', 'env_id', 'auth_type', 'mismatch', 'bound', 'verifier']) {
      expect(description).not.toContain(part);
    }
  });
});

describe('InvalidTokenError (RFC 6750 §3)', () => {
  it('without credentials: the challenge has no error code (§3.1)', () => {
    // Act
    const error = new InvalidTokenError('An API key is required.', { bearerPresented: false, detail: 'x' });

    // Assert
    expect(error.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="identity"' });
    expect(error.statusCode).toBe(401);
  });

  it('with credentials: the challenge carries error="invalid_token" and the description', () => {
    const error = new InvalidTokenError('The API key is not valid.', { bearerPresented: true });
    expect(error.headers['WWW-Authenticate']).toBe(
      'Bearer realm="identity", error="invalid_token", error_description="The API key is not valid."',
    );
  });

  it('keeps the challenge well-formed when the description contains a double quote', () => {
    // Arrange: the description requireApiKey uses for a malformed Authorization header.
    const description = 'The Authorization header must be "Bearer <key>".';

    // Act
    const error = new InvalidTokenError(description, { bearerPresented: true });

    // Assert
    expect(error.headers['WWW-Authenticate']).toMatch(WELL_FORMED_CHALLENGE);
  });

  it('property: the challenge is well-formed for any printable ASCII description', () => {
    const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 60 });
    fc.assert(
      fc.property(printable, fc.boolean(), (description, bearerPresented) => {
        const error = new InvalidTokenError(description, { bearerPresented });
        expect(error.headers['WWW-Authenticate']).toMatch(WELL_FORMED_CHALLENGE);
      }),
    );
  });
});

describe('error_description character set (RFC 6749 §5.2)', () => {
  it('property: whatever the text, the description on the wire is printable ASCII without " or \\ (regression: descriptions quoted values with ")', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const { error_description } = new InvalidRequestError(text).toJSON();
        expect(error_description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/);
      }),
    );
  });

  it('turns double quotes into single ones, so \'grant_type must be "authorization_code"\' stays readable', () => {
    expect(new InvalidRequestError('must be "x".').description).toBe("must be 'x'.");
  });
});

describe('IdpError: the cause is kept only when there is one', () => {
  it('has no cause property without one (Error options are not passed at all)', () => {
    expect('cause' in new InvalidRequestError('bad')).toBe(false);
    expect('cause' in new DeliveryFailedError({ cause: new Error('x') })).toBe(true);
  });
});

describe('describable (RFC 6749 §5.2 character set)', () => {
  it('turns double quotes into single ones and drops backslashes and non-ASCII', () => {
    expect(describable('say "hi" \\ é\u0007 ok')).toBe("say 'hi'   ok");
  });
});

describe('TooManyRequestsError descriptions', () => {
  it('says what was counted', () => {
    expect(new TooManyRequestsError(30).description).toBe('Too many attempts. Try again in 30 seconds.');
    expect(new TooManyRequestsError(60, { limit: 'phone_sends' }).description).toBe(
      'Too many codes by SMS or voice call were requested. Try again in 60 seconds.',
    );
  });
});

describe('ForeignHttpError.from: middy-style HTTP errors (statusCode, expose) as ours', () => {
  const foreign = (statusCode: unknown, message = 'Unsupported thing', expose?: boolean) =>
    Object.assign(new Error(message), { name: 'UnsupportedMediaTypeError', statusCode, ...(expose === undefined ? {} : { expose }) });

  it.each([
    [400, 'invalid_request'],
    [401, 'invalid_token'],
    [404, 'not_found'],
    [405, 'method_not_allowed'],
    [413, 'invalid_request'],
    [415, 'invalid_request'],
    [422, 'invalid_request'],
    [429, 'too_many_requests'],
    [418, 'invalid_request'],
    [502, 'delivery_failed'],
    [503, 'temporarily_unavailable'],
    [500, 'server_error'],
    [504, 'server_error'],
    [599, 'server_error'],
  ])('keeps status %d, with the error code %s', (statusCode, error) => {
    const adapted = ForeignHttpError.from(foreign(statusCode, 'Unsupported thing', true));
    expect(adapted).toBeInstanceOf(ForeignHttpError);
    expect({ statusCode: adapted?.statusCode, error: adapted?.error }).toEqual({ statusCode, error });
    expect(adapted?.detail).toBe(`UnsupportedMediaTypeError: ${statusCode}`);
    // Every delivery_failed and temporarily_unavailable carries Retry-After, ours or not.
    const retryAfter: Record<string, string> = { temporarily_unavailable: '1', delivery_failed: '15' };
    expect(adapted?.headers).toEqual(retryAfter[error] === undefined ? {} : { 'Retry-After': retryAfter[error] });
  });

  it('shows an exposed 4xx message (in the RFC 6749 character set), never a 5xx one nor an unexposed one', () => {
    expect(ForeignHttpError.from(foreign(415, 'Unsupported "media"', true))?.description).toBe("Unsupported 'media'");
    expect(ForeignHttpError.from(foreign(415, 'internal detail'))?.description).toBe('The request failed (HTTP 415).');
    expect(ForeignHttpError.from(foreign(415, 'internal detail', false))?.description).toBe('The request failed (HTTP 415).');
    expect(ForeignHttpError.from(foreign(415, '', true))?.description).toBe('The request failed (HTTP 415).');
    expect(ForeignHttpError.from(foreign(500, 'stack and secrets', true))?.description).toBe('The request failed (HTTP 500).');
    expect(ForeignHttpError.from(foreign(499, 'Client closed', true))?.description).toBe('Client closed');
  });

  it('keeps the original error as the cause', () => {
    const original = foreign(400, 'bad', true);
    expect(ForeignHttpError.from(original)?.cause).toBe(original);
  });

  it.each([
    ['not an Error', { statusCode: 400, message: 'x' }],
    ['a status that is a string', foreign('400')],
    ['a status that is not an integer', foreign(400.5)],
    ['a status below 400', foreign(399)],
    ['a status above 599', foreign(600)],
    ['no status', new Error('plain')],
  ])('is undefined for %s', (_name, error) => {
    expect(ForeignHttpError.from(error)).toBeUndefined();
  });
});
