import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { parseStageConfig, type ClientConfig } from '../../../lib/platform/config';
import {
  apiKeyDigest,
  basicCredentials,
  bearerCredential,
  matchesAny,
  presentedDigest,
  requireApiKey,
  requireBearer,
} from '../../../lib/oauth/api-keys';
import { IdpError, InvalidTokenError } from '../../../lib/platform/errors';

const CURRENT_KEY = 'k3y-Current_0123456789abcdefghijklmnopqrstuv';
const NEXT_KEY = 'k3y-Next_0123456789abcdefghijklmnopqrstuvwxyz';
const sha256Hex = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** A client as the configuration produces it, holding the digests of `keys`. */
function clientWithKeys(...keys: string[]): ClientConfig {
  const config = parseStageConfig({
    defaultEnvironment: 'dev',
    environments: [{ id: 'dev', serviceName: 'Example', email: { sender: 'no-reply@example.test' } }],
    clients: [
      {
        id: 'backend',
        environments: ['dev'],
        redirectUris: ['https://app.example.test/callback'],
        accessToken: { format: 'opaque', audience: 'api' },
        sendRequiresApiKey: true,
        apiKeySha256: keys.map(sha256Hex),
      },
    ],
  });
  return config.clients[0]!;
}

/** Whatever `fn` throws, or undefined. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error;
  }
}

/** RFC 6750 §3: the challenge, with each auth-param a quoted-string of the allowed characters. */
const WELL_FORMED_CHALLENGE =
  /^Bearer realm="[\x20\x21\x23-\x5b\x5d-\x7e]*"(, error="[\x20\x21\x23-\x5b\x5d-\x7e]+"(, error_description="[\x20\x21\x23-\x5b\x5d-\x7e]*")?)?$/;

describe('apiKeyDigest', () => {
  it('is the lower-case SHA-256 hex of the key', () => {
    // Act
    const digest = apiKeyDigest('local-dev-api-key');

    // Assert
    expect(digest).toBe(sha256Hex('local-dev-api-key'));
    expect(digest).toBe('2bcd99491790f5324dd084241b713b576a92b12c497f3b553230d49cc72e15c2');
  });

  it('matches the known SHA-256 of "abc" (FIPS 180-2 example)', () => {
    expect(apiKeyDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('bearerCredential', () => {
  it.each<[string, string]>([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['BeArEr abc', 'abc'],
    ['Bearer local-dev-api-key', 'local-dev-api-key'],
    ['Bearer a.b_c~d+e/f==', 'a.b_c~d+e/f=='],
    ['Bearer  abc', 'abc'],
    ['Bearer abc ', 'abc'],
  ])('reads %j as %j', (header, expected) => {
    expect(bearerCredential(header)).toBe(expected);
  });

  it.each<[string, string | undefined]>([
    ['no header', undefined],
    ['an empty header', ''],
    ['the Basic scheme', 'Basic abc'],
    ['the scheme without a token', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['two tokens', 'Bearer a b'],
    ['no space after the scheme', 'Bearerabc'],
    ['a token with a character outside token68', 'Bearer ab,c'],
    ['a quoted token', 'Bearer "abc"'],
    ['a leading space', ' Bearer abc'],
    ['"=" before the end of the token', 'Bearer a=b'],
  ])('rejects %s (%j)', (_label, header) => {
    expect(bearerCredential(header)).toBeUndefined();
  });
});

describe('matchesAny', () => {
  it('finds the key among one digest', () => {
    expect(matchesAny([apiKeyDigest(CURRENT_KEY)], presentedDigest(CURRENT_KEY))).toBe(true);
  });

  it('finds the second of several digests (rotation: old and new key both valid)', () => {
    expect(matchesAny([apiKeyDigest(CURRENT_KEY), apiKeyDigest(NEXT_KEY)], presentedDigest(NEXT_KEY))).toBe(true);
  });

  it('finds the first of several digests', () => {
    expect(matchesAny([apiKeyDigest(CURRENT_KEY), apiKeyDigest(NEXT_KEY)], presentedDigest(CURRENT_KEY))).toBe(true);
  });

  it('rejects a key whose digest is not listed', () => {
    expect(matchesAny([apiKeyDigest(CURRENT_KEY), apiKeyDigest(NEXT_KEY)], presentedDigest('someone-elses-key'))).toBe(false);
  });

  it('rejects everything when no digest is configured', () => {
    expect(matchesAny([], presentedDigest(CURRENT_KEY))).toBe(false);
  });

  it('does not accept the digest itself as the key', () => {
    const digest = apiKeyDigest(CURRENT_KEY);
    expect(matchesAny([digest], presentedDigest(digest))).toBe(false);
  });

  it('property: a key matches a list of digests exactly when its own digest is in it', () => {
    const key = fc.string({ minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(fc.array(key, { maxLength: 4 }), key, (keys, presented) => {
        expect(matchesAny(keys.map(apiKeyDigest), presentedDigest(presented))).toBe(keys.includes(presented));
      }),
    );
  });
});

describe('requireApiKey', () => {
  const client = clientWithKeys(CURRENT_KEY, NEXT_KEY);

  it.each([`Bearer ${CURRENT_KEY}`, `bearer ${NEXT_KEY}`])('passes with a configured key (%#)', (header) => {
    expect(() => requireApiKey(client, header)).not.toThrow();
  });

  it('passes with the local-backend key of config/local.json', () => {
    const local = clientWithKeys('local-dev-api-key');
    expect(() => requireApiKey(local, 'Bearer local-dev-api-key')).not.toThrow();
  });

  it('without an Authorization header: 401 invalid_token whose challenge is exactly Bearer realm="identity" (RFC 6750 §3.1: no error code)', () => {
    // Act
    const error = thrown(() => requireApiKey(client, undefined));

    // Assert
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect(error).toBeInstanceOf(IdpError);
    const tokenError = error as InvalidTokenError;
    expect(tokenError.statusCode).toBe(401);
    expect(tokenError.error).toBe('invalid_token');
    expect(tokenError.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="identity"' });
    expect(tokenError.toJSON()).toEqual({ error: 'invalid_token', error_description: expect.stringContaining('Bearer') });
  });

  it('with a wrong key: 401 invalid_token whose challenge carries error="invalid_token"', () => {
    // Act
    const error = thrown(() => requireApiKey(client, 'Bearer not-the-key'));

    // Assert
    expect(error).toBeInstanceOf(InvalidTokenError);
    const tokenError = error as InvalidTokenError;
    expect(tokenError.statusCode).toBe(401);
    expect(tokenError.headers['WWW-Authenticate']).toMatch(/^Bearer realm="identity", error="invalid_token"/);
    expect(tokenError.headers['WWW-Authenticate']).toMatch(WELL_FORMED_CHALLENGE);
  });

  it('with a wrong key: says nothing about the configured keys and does not echo the presented one', () => {
    const error = thrown(() => requireApiKey(client, 'Bearer not-the-key')) as InvalidTokenError;
    const wire = JSON.stringify({ body: error.toJSON(), headers: error.headers });
    expect(wire).not.toContain('not-the-key');
    expect(wire).not.toContain(apiKeyDigest(CURRENT_KEY));
  });

  it('with a malformed header ("Bearer a b"): 401 invalid_token', () => {
    const error = thrown(() => requireApiKey(client, 'Bearer a b'));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as InvalidTokenError).statusCode).toBe(401);
  });

  it('refuses a key of another client', () => {
    const error = thrown(() => requireApiKey(clientWithKeys('other-client-key'), `Bearer ${CURRENT_KEY}`));
    expect(error).toBeInstanceOf(InvalidTokenError);
  });

  it.each(['Basic dXNlcjpwYXNz', 'Bearer a b', 'Bearer'])(
    'keeps WWW-Authenticate well-formed for a malformed Authorization header %j (RFC 6750 §3: error_description has no DQUOTE)',
    (header) => {
      // Act
      const error = thrown(() => requireApiKey(client, header)) as InvalidTokenError;

      // Assert
      expect(error.headers['WWW-Authenticate']).toMatch(WELL_FORMED_CHALLENGE);
    },
  );

  it('answers another scheme (Basic) without an error code (RFC 6750 §3.1: "attempted using an unsupported authentication method")', () => {
    // Act
    const error = thrown(() => requireApiKey(client, 'Basic dXNlcjpwYXNz')) as InvalidTokenError;

    // Assert
    expect(error.statusCode).toBe(401);
    expect(error.headers['WWW-Authenticate']).toBe('Bearer realm="identity"');
  });
});

describe('basicCredentials (client_secret_basic, RFC 6749 §2.3.1)', () => {
  const header = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;

  it('reads the client id and secret, each form-urlencoded', () => {
    expect(basicCredentials(header('local-backend:local-dev-api-key'))).toEqual({ clientId: 'local-backend', secret: 'local-dev-api-key' });
    expect(basicCredentials(header('my%3Aclient:s%C3%A9cret+key'))).toEqual({ clientId: 'my:client', secret: 'sécret key' });
    expect(basicCredentials(`basic ${Buffer.from('a:b').toString('base64')}`)).toEqual({ clientId: 'a', secret: 'b' });
  });

  it.each([
    ['no header', undefined],
    ['a Bearer header', 'Bearer abc'],
    ['no colon', header('local-backend')],
    ['an empty client id', header(':secret')],
    ['a malformed escape', header('a:%E0%A4%A')],
    ['a lone surrogate once decoded', header('a:%ED%A0%80')],
    ['not base64', 'Basic !!!'],
  ])('is undefined for %s', (_name, value) => {
    expect(basicCredentials(value)).toBeUndefined();
  });
});

describe('requireBearer: whether a Bearer credential was presented decides the challenge (RFC 6750 §3.1)', () => {
  const challengeOf = (authorization: string | undefined) => thrown(() => requireBearer(authorization)) as InvalidTokenError;

  it.each(['Bearer', 'bearer ', 'Bearer  ', 'Bearer "quoted"', 'BEARER a b'])(
    'a malformed Bearer header %j: error="invalid_token" and says so',
    (header) => {
      const error = challengeOf(header);
      expect(error.description).toBe('The Authorization header must be: Bearer <key>.');
      expect(error.headers['WWW-Authenticate']).toBe(
        'Bearer realm="identity", error="invalid_token", error_description="The Authorization header must be: Bearer <key>."',
      );
    },
  );

  it.each([undefined, '', 'Basic YTpi', 'Bearerx abc', 'xBearer abc', 'Token Bearer abc'])(
    'no Bearer credential (%j): the bare challenge',
    (header) => {
      const error = challengeOf(header);
      expect(error.description).toBe('An API key is required: Authorization: Bearer <key>.');
      expect(error.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="identity"' });
    },
  );

  it('a wrong key: 401 with the error code, the client named in the private detail only', () => {
    const error = thrown(() => requireApiKey(clientWithKeys(CURRENT_KEY), 'Bearer not-the-key')) as InvalidTokenError;
    expect(error.description).toBe('The API key is not valid.');
    expect(error.detail).toMatch(/^client \S+$/);
    expect(error.headers['WWW-Authenticate']).toContain('error="invalid_token"');
  });
});

describe('basicCredentials: the exact shape of the header', () => {
  const encoded = Buffer.from('a:b').toString('base64');

  it('takes the scheme with any run of spaces before the credentials, and trailing spaces', () => {
    expect(basicCredentials(`Basic  ${encoded}`)).toEqual({ clientId: 'a', secret: 'b' });
    expect(basicCredentials(`Basic ${encoded}  `)).toEqual({ clientId: 'a', secret: 'b' });
  });

  it.each([`xBasic ${encoded}`, `Basic ${encoded} extra`, `Basic ${encoded}===`, `Basic${encoded}`])('refuses %j', (header) => {
    expect(basicCredentials(header)).toBeUndefined();
  });
});
