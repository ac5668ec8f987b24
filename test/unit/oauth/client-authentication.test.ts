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
import { authenticateClient, type PresentedClient } from '../../../lib/oauth/client-authentication';
import type { AssertionUse } from '../../../lib/oauth/ports';
import { InvalidClientError, InvalidRequestError } from '../../../lib/platform/errors';

const BACKEND_KEY = 'k3y-Backend_0123456789abcdefghijklmnopqrstuv';
const OTHER_KEY = 'k3y-Other_0123456789abcdefghijklmnopqrstuvwxy';
const BASIC_ONLY_KEY = 'k3y-BasicOnly_0123456789abcdefghijklmnopqrst';
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
      clients: [
        client('web', []),
        client('backend', [BACKEND_KEY]),
        client('other', [OTHER_KEY]),
        { ...client('basic-only', [BASIC_ONLY_KEY]), tokenEndpointAuthMethod: 'client_secret_basic' },
        { ...client('post-only', [BACKEND_KEY]), tokenEndpointAuthMethod: 'client_secret_post' },
        { ...client('declared-public', []), tokenEndpointAuthMethod: 'none' },
      ],
    }),
  );
}

/** Every use of a client assertion the client authentication spent (none: no client here registers private_key_jwt). */
const spent: AssertionUse[] = [];
beforeEach(() => spent.splice(0));
afterEach(() => expect(spent).toEqual([]));

/** The client authentication at the token endpoint, with this file's clients; assertions spent in memory. */
function authenticate(presented: Omit<PresentedClient, 'issuer'>) {
  const clientAssertions = {
    spend: (use: AssertionUse) => Promise.resolve(spent.push(use) === 1),
  };
  return authenticateClient(
    { config: config(), clock: { now: () => Date.UTC(2030, 0, 1) }, clientAssertions },
    { ...presented, issuer: 'https://id.example.test' },
    'token',
  );
}

/** The error `authenticateClient` throws for this request. */
async function thrown(authorization: string | undefined, fields: Record<string, unknown>) {
  try {
    await authenticate({ authorization, fields });
  } catch (error) {
    const { error: code, description, detail, statusCode, headers } = error as InvalidClientError;
    return { statusCode, error: code, description, detail, challenge: headers['WWW-Authenticate'] };
  }
  throw new Error('accepted');
}

/** A request with an Authorization header and, when given, a client_id. */
const presented = (authorization: string | undefined, clientId?: unknown) => ({
  authorization,
  fields: clientId === undefined ? {} : { client_id: clientId },
});

/** The refusal `authenticate` throws: its public description, private detail and challenge. */
async function refusal(authorization: string | undefined, clientId?: unknown) {
  try {
    await authenticate(presented(authorization, clientId));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidClientError);
    const { description, detail, headers, statusCode } = error as InvalidClientError;
    return { statusCode, description, detail, challenge: headers['WWW-Authenticate'] };
  }
  throw new Error('accepted');
}

const idOf = async (authorization: string | undefined, clientId?: unknown) => (await authenticate(presented(authorization, clientId))).id;

describe('a public client (RFC 6749 §2.1: it names itself with client_id)', () => {
  it('is the client its client_id names', async () => {
    expect(await idOf(undefined, 'web')).toBe('web');
  });

  it('treats an empty Authorization header as none (RFC 6749 §3.1: a parameter without a value is omitted)', async () => {
    expect(await idOf('', 'web')).toBe('web');
  });

  it.each([
    ['no client_id', undefined],
    ['an empty client_id', ''],
    ['a client_id that is not text', ['web']],
    ['an unknown client_id', 'mobile'],
  ])('refuses %s: unknown client, with the usual Bearer challenge', async (_case, clientId) => {
    expect(await refusal(undefined, clientId)).toEqual({
      statusCode: 401,
      description: 'Unknown client: name it with client_id, or authenticate.',
      detail: undefined,
      challenge: 'Bearer realm="identity"',
    });
  });

  it('refuses a client with API keys that only names itself: it must prove it (RFC 6749 §2.3)', async () => {
    expect(await refusal(undefined, 'backend')).toEqual({
      statusCode: 401,
      description: 'This client must authenticate: HTTP Basic with its client id and secret.',
      detail: 'client backend presented no credentials',
      challenge: 'Bearer realm="identity"',
    });
  });
});

describe('client_secret_basic (RFC 6749 §2.3.1)', () => {
  it('is the client whose id and API key the header carries', async () => {
    expect(await idOf(basic('backend', BACKEND_KEY))).toBe('backend');
    expect(await idOf(basic('other', OTHER_KEY))).toBe('other');
  });

  it.each([
    ['the same client_id', 'backend'],
    ['an empty client_id (omitted, RFC 6749 §3.1)', ''],
    ['a client_id that is not text (ignored)', 42],
  ])('accepts %s beside it', async (_case, clientId) => {
    expect(await idOf(basic('backend', BACKEND_KEY), clientId)).toBe('backend');
  });

  it.each([
    ['a wrong key', basic('backend', OTHER_KEY), undefined],
    ['an unknown client id', basic('mobile', BACKEND_KEY), undefined],
    ['a public client (it has no key to present)', basic('web', BACKEND_KEY), undefined],
    ['another client’s client_id beside it (one method per request, RFC 6749 §2.3.1)', basic('backend', BACKEND_KEY), 'other'],
  ])('refuses %s, with a Basic challenge (RFC 6749 §5.2)', async (_case, authorization, clientId) => {
    expect(await refusal(authorization, clientId)).toEqual({
      statusCode: 401,
      description: 'Client authentication failed.',
      detail: 'basic credentials refused',
      challenge: 'Basic realm="identity"',
    });
  });

  it.each(['Basic', 'basic !!!', 'BASIC Og==', 'Basic\tYmFja2VuZA=='])(
    'refuses the malformed Basic header %j, saying what the header must be',
    async (header) => {
      expect(await refusal(header)).toEqual({
        statusCode: 401,
        description: 'The Authorization header must be: Basic base64(client_id:secret).',
        detail: undefined,
        challenge: 'Basic realm="identity"',
      });
    },
  );
});

describe('a Bearer API key (as introspection takes it)', () => {
  it('is the client that holds the key', async () => {
    expect(await idOf(`Bearer ${BACKEND_KEY}`)).toBe('backend');
    expect(await idOf(`bearer ${OTHER_KEY}`)).toBe('other');
  });

  it('accepts the holder’s own client_id beside it', async () => {
    expect(await idOf(`Bearer ${BACKEND_KEY}`, 'backend')).toBe('backend');
  });

  it.each([
    ['an unknown key', `Bearer ${BACKEND_KEY}x`, undefined],
    ['a key whose token is the word basic', 'Bearer basic', undefined],
    ['another client’s client_id beside it', `Bearer ${BACKEND_KEY}`, 'other'],
  ])('refuses %s, with the usual Bearer challenge', async (_case, authorization, clientId) => {
    expect(await refusal(authorization, clientId)).toEqual({
      statusCode: 401,
      description: 'Client authentication failed.',
      detail: 'bearer API key refused',
      challenge: 'Bearer realm="identity"',
    });
  });

  it.each(['Digest basic', 'Bearer', `Token ${BACKEND_KEY}`, 'Bearer a b'])(
    'refuses the header %j, naming both ways to authenticate',
    async (header) => {
      expect(await refusal(header, 'web')).toEqual({
        statusCode: 401,
        description: 'Authenticate with HTTP Basic (client id and API key), or a Bearer API key.',
        detail: undefined,
        challenge: 'Bearer realm="identity"',
      });
    },
  );
});

describe('client_secret_post (RFC 6749 §2.3.1: the secret in the body, beside client_id)', () => {
  it('is the client its client_id names, when the secret is one of its own', async () => {
    expect((await authenticate({ authorization: undefined, fields: { client_id: 'backend', client_secret: BACKEND_KEY } })).id).toBe(
      'backend',
    );
    expect((await authenticate({ authorization: '', fields: { client_id: 'post-only', client_secret: BACKEND_KEY } })).id).toBe(
      'post-only',
    );
  });

  it.each([
    ['a wrong secret', { client_id: 'backend', client_secret: OTHER_KEY }],
    ['no client_id', { client_secret: BACKEND_KEY }],
    ['an unknown client', { client_id: 'mobile', client_secret: BACKEND_KEY }],
    ['a public client (it has no secret)', { client_id: 'web', client_secret: BACKEND_KEY }],
    ['a client registered for client_secret_basic only', { client_id: 'basic-only', client_secret: BASIC_ONLY_KEY }],
  ])('refuses %s, without a Basic challenge (no Basic was tried)', async (_case, fields) => {
    expect(await thrown(undefined, fields)).toEqual({
      statusCode: 401,
      error: 'invalid_client',
      description: 'Client authentication failed.',
      detail: 'client_secret_post credentials refused',
      challenge: 'Bearer realm="identity"',
    });
  });

  it('takes an empty client_secret as absent (RFC 6749 §3.1): a confidential client then presented nothing', async () => {
    expect(await thrown(undefined, { client_id: 'backend', client_secret: '' })).toMatchObject({
      statusCode: 401,
      detail: 'client backend presented no credentials',
    });
  });
});

describe('a registered method narrows the secret methods to itself', () => {
  it('refuses HTTP Basic of a client registered for client_secret_post, with a Basic challenge', async () => {
    expect(await thrown(basic('post-only', BACKEND_KEY), {})).toEqual({
      statusCode: 401,
      error: 'invalid_client',
      description: 'Client authentication failed.',
      detail: 'client_secret_basic not registered for client post-only',
      challenge: 'Basic realm="identity"',
    });
  });

  it('refuses the Bearer API key of a client that registered a method (an extension for clients that registered none)', async () => {
    expect(await thrown(`Bearer ${BASIC_ONLY_KEY}`, { client_id: 'basic-only' })).toMatchObject({
      statusCode: 401,
      detail: 'bearer not registered for client basic-only',
      challenge: 'Bearer realm="identity"',
    });
  });

  it('accepts HTTP Basic of a client registered for it, and a public client registered as none by its client_id', async () => {
    expect((await authenticate({ authorization: basic('basic-only', BASIC_ONLY_KEY), fields: {} })).id).toBe('basic-only');
    expect((await authenticate({ authorization: undefined, fields: { client_id: 'declared-public' } })).id).toBe('declared-public');
  });
});

describe('one method per request, and client assertions only whole', () => {
  it.each([
    ['Basic and client_secret', basic('backend', BACKEND_KEY), { client_id: 'backend', client_secret: BACKEND_KEY }],
    ['a Bearer key and client_secret', `Bearer ${BACKEND_KEY}`, { client_id: 'backend', client_secret: BACKEND_KEY }],
    ['client_secret and a client assertion', undefined, { client_id: 'backend', client_secret: BACKEND_KEY, client_assertion: 'a.b.c' }],
    [
      'Basic and a client assertion type',
      basic('backend', BACKEND_KEY),
      { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' },
    ],
  ])('refuses %s at once: 400 invalid_request (RFC 6749 §2.3, §5.2)', async (_case, authorization, fields) => {
    let refusal: unknown;
    try {
      await authenticate({ authorization, fields });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(InvalidRequestError);
    expect(refusal).toMatchObject({
      error: 'invalid_request',
      statusCode: 400,
      description: 'Authenticate the client by one method per request (RFC 6749 section 2.3).',
    });
  });

  it.each([
    [
      'client_assertion without its type',
      { client_id: 'backend', client_assertion: 'a.b.c' },
      'client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer (RFC 7523 section 2.2).',
      'client_assertion refused: type',
    ],
    [
      'client_assertion_type without an assertion',
      { client_id: 'backend', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' },
      'client_assertion_type needs a client_assertion: a JWT signed by the client (RFC 7523 section 2.2).',
      'client_assertion refused: missing',
    ],
  ])(
    'refuses %s (RFC 7523 §2.2: both parameters), without a Basic challenge and without a write',
    async (_case, fields, description, detail) => {
      expect(await thrown(undefined, fields)).toEqual({
        statusCode: 401,
        error: 'invalid_client',
        description,
        detail,
        challenge: 'Bearer realm="identity"',
      });
    },
  );
});
