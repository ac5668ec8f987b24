/**
 * How the revocation endpoint knows its caller (lib/oauth/client-authentication.ts): RFC 7009
 * §2.1 and RFC 6749 §2.3. A public client names itself; a client with API keys proves it, by HTTP
 * Basic (RFC 6749 §2.3.1) or a Bearer API key. Every refusal is 401 invalid_client (RFC 6749 §5.2),
 * whose WWW-Authenticate challenge is `Basic` exactly when the client tried Basic, and whose
 * private detail tells the operator which check refused it. The endpoint's answers over HTTP:
 * test/http/revoke.test.ts.
 */
import { createHash } from 'node:crypto';
import { buildServiceConfig, parseStageConfig, type ServiceConfig } from '../../../lib/platform/config';
import { authenticateClient } from '../../../lib/oauth/client-authentication';
import { InvalidClientError } from '../../../lib/platform/errors';

const BACKEND_KEY = 'k3y-Backend_0123456789abcdefghijklmnopqrstuv';
const OTHER_KEY = 'k3y-Other_0123456789abcdefghijklmnopqrstuvwxy';
const sha256Hex = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;

/** A public client (`web`) and two with API keys (`backend`, `other`). */
function config(): ServiceConfig {
  const client = (id: string, keys: string[]) => ({
    id,
    environments: ['dev'],
    redirectUris: ['https://app.example.test/callback'],
    accessToken: { format: 'jwt', audience: 'api' },
    apiKeySha256: keys.map(sha256Hex),
  });
  return buildServiceConfig(
    parseStageConfig({
      defaultEnvironment: 'dev',
      environments: [{ id: 'dev', serviceName: 'Example', email: { sender: 'no-reply@example.test' } }],
      clients: [client('web', []), client('backend', [BACKEND_KEY]), client('other', [OTHER_KEY])],
    }),
  );
}

/** The refusal `authenticate` throws: its public description, private detail and challenge. */
function refusal(authorization: string | undefined, clientId?: unknown) {
  try {
    authenticateClient(config(), authorization, clientId);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidClientError);
    const { description, detail, headers, statusCode } = error as InvalidClientError;
    return { statusCode, description, detail, challenge: headers['WWW-Authenticate'] };
  }
  throw new Error('accepted');
}

const idOf = (authorization: string | undefined, clientId?: unknown) => authenticateClient(config(), authorization, clientId).id;

describe('a public client (RFC 6749 §2.1: it names itself with client_id)', () => {
  it('is the client its client_id names', () => {
    expect(idOf(undefined, 'web')).toBe('web');
  });

  it('treats an empty Authorization header as none (RFC 6749 §3.1: a parameter without a value is omitted)', () => {
    expect(idOf('', 'web')).toBe('web');
  });

  it.each([
    ['no client_id', undefined],
    ['an empty client_id', ''],
    ['a client_id that is not text', ['web']],
    ['an unknown client_id', 'mobile'],
  ])('refuses %s: unknown client, with the usual Bearer challenge', (_case, clientId) => {
    expect(refusal(undefined, clientId)).toEqual({
      statusCode: 401,
      description: 'Unknown client: name it with client_id, or authenticate.',
      detail: undefined,
      challenge: 'Bearer realm="identity"',
    });
  });

  it('refuses a client with API keys that only names itself: it must prove it (RFC 6749 §2.3)', () => {
    expect(refusal(undefined, 'backend')).toEqual({
      statusCode: 401,
      description: 'This client must authenticate: HTTP Basic with its client id and API key.',
      detail: 'client backend presented no credentials',
      challenge: 'Bearer realm="identity"',
    });
  });
});

describe('client_secret_basic (RFC 6749 §2.3.1)', () => {
  it('is the client whose id and API key the header carries', () => {
    expect(idOf(basic('backend', BACKEND_KEY))).toBe('backend');
    expect(idOf(basic('other', OTHER_KEY))).toBe('other');
  });

  it.each([
    ['the same client_id', 'backend'],
    ['an empty client_id (omitted, RFC 6749 §3.1)', ''],
    ['a client_id that is not text (ignored)', 42],
  ])('accepts %s beside it', (_case, clientId) => {
    expect(idOf(basic('backend', BACKEND_KEY), clientId)).toBe('backend');
  });

  it.each([
    ['a wrong key', basic('backend', OTHER_KEY), undefined],
    ['an unknown client id', basic('mobile', BACKEND_KEY), undefined],
    ['a public client (it has no key to present)', basic('web', BACKEND_KEY), undefined],
    ['another client’s client_id beside it (one method per request, RFC 6749 §2.3.1)', basic('backend', BACKEND_KEY), 'other'],
  ])('refuses %s, with a Basic challenge (RFC 6749 §5.2)', (_case, authorization, clientId) => {
    expect(refusal(authorization, clientId)).toEqual({
      statusCode: 401,
      description: 'Client authentication failed.',
      detail: 'basic credentials refused',
      challenge: 'Basic realm="identity"',
    });
  });

  it.each(['Basic', 'basic !!!', 'BASIC Og==', 'Basic\tYmFja2VuZA=='])(
    'refuses the malformed Basic header %j, saying what the header must be',
    (header) => {
      expect(refusal(header)).toEqual({
        statusCode: 401,
        description: 'The Authorization header must be: Basic base64(client_id:secret).',
        detail: undefined,
        challenge: 'Basic realm="identity"',
      });
    },
  );
});

describe('a Bearer API key (as introspection takes it)', () => {
  it('is the client that holds the key', () => {
    expect(idOf(`Bearer ${BACKEND_KEY}`)).toBe('backend');
    expect(idOf(`bearer ${OTHER_KEY}`)).toBe('other');
  });

  it('accepts the holder’s own client_id beside it', () => {
    expect(idOf(`Bearer ${BACKEND_KEY}`, 'backend')).toBe('backend');
  });

  it.each([
    ['an unknown key', `Bearer ${BACKEND_KEY}x`, undefined],
    ['a key whose token is the word basic', 'Bearer basic', undefined],
    ['another client’s client_id beside it', `Bearer ${BACKEND_KEY}`, 'other'],
  ])('refuses %s, with the usual Bearer challenge', (_case, authorization, clientId) => {
    expect(refusal(authorization, clientId)).toEqual({
      statusCode: 401,
      description: 'Client authentication failed.',
      detail: 'bearer API key refused',
      challenge: 'Bearer realm="identity"',
    });
  });

  it.each(['Digest basic', 'Bearer', `Token ${BACKEND_KEY}`, 'Bearer a b'])(
    'refuses the header %j, naming both ways to authenticate',
    (header) => {
      expect(refusal(header, 'web')).toEqual({
        statusCode: 401,
        description: 'Authenticate with HTTP Basic (client id and API key), or a Bearer API key.',
        detail: undefined,
        challenge: 'Bearer realm="identity"',
      });
    },
  );
});
