/**
 * Tokens every consumer accepts: an RS256 client's tokens verify with aws-jwt-verify's
 * JwtRsaVerifier (what Lambda authorizers on AWS use) and jose, an ES256 client's with its
 * JwtVerifier and jose, each with the JWKS fetched from the service, and both introspect as
 * active, with the Bearer API key or HTTP Basic client authentication (RFC 7662 §2.1).
 */
import { JwtRsaVerifier, JwtVerifier } from 'aws-jwt-verify';
import { base64url, createLocalJWKSet, decodeProtectedHeader, jwtVerify, SignJWT, type JWK } from 'jose';
import {
  LOCAL_API_KEY,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  exchangeBody,
  SEND_PATH,
  sendBody,
  type TestService,
} from '../support/harness';
import { rememberSecret } from '../support/log-capture';

const AUDIENCE = 'http://127.0.0.1:3000/api';
const INTROSPECT = '/idp/v1/account/introspect';

let service: TestService;
let jwks: { keys: JWK[] };
beforeAll(async () => {
  service = await startTestService();
  jwks = (await service.get('/.well-known/jwks.json')).body as { keys: JWK[] };
});
afterAll(async () => service.stop());

async function tokenOf(clientId: string): Promise<string> {
  const response = await service.signIn(uniqueEmail(clientId), { clientId });
  expect(response.status).toBe(200);
  return response.body.access_token as string;
}

const basic = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('the JWKS', () => {
  it('publishes every public key with its kid, alg and use: ES256 (P-256) and RS256 (2048-bit RSA)', () => {
    const byAlg = (alg: string) => jwks.keys.filter((key) => key.alg === alg);
    expect(byAlg('ES256').length).toBeGreaterThanOrEqual(2);
    expect(byAlg('RS256').length).toBeGreaterThanOrEqual(2);
    for (const key of byAlg('ES256'))
      expect(key).toEqual({
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String),
        y: expect.any(String),
        kid: expect.any(String),
        alg: 'ES256',
        use: 'sig',
      });
    for (const key of byAlg('RS256')) {
      expect(key).toEqual({ kty: 'RSA', n: expect.any(String), e: 'AQAB', kid: expect.any(String), alg: 'RS256', use: 'sig' });
      // RFC 7518 §3.3: "A key of size 2048 bits or larger MUST be used".
      expect(base64url.decode(key.n as string).length * 8).toBeGreaterThanOrEqual(2048);
    }
  });
});

describe('an RS256 client (local-rs256)', () => {
  it('gets RS256 tokens that AWS’s JwtRsaVerifier accepts, with the JWKS the service publishes', async () => {
    const token = await tokenOf('local-rs256');
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', typ: 'at+jwt', kid: expect.any(String) });
    const verifier = JwtRsaVerifier.create({ issuer: service.url, audience: AUDIENCE, jwksUri: `${service.url}/.well-known/jwks.json` });
    // aws-jwt-verify fetches over https only: hand it the JWKS the service serves.
    verifier.cacheJwks(jwks as Parameters<typeof verifier.cacheJwks>[0]);
    await expect(verifier.verify(token)).resolves.toMatchObject({
      iss: service.url,
      aud: AUDIENCE,
      client_id: 'local-rs256',
      env_id: 'local',
    });
  });

  it('gets tokens jose verifies with the JWKS (RFC 9068 §4: typ, iss, aud, alg)', async () => {
    const token = await tokenOf('local-rs256');
    const { protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
      issuer: service.url,
      audience: AUDIENCE,
      typ: 'at+jwt',
      algorithms: ['RS256'],
      currentDate: new Date(service.clock.now()),
    });
    expect(protectedHeader.alg).toBe('RS256');
  });

  it('exchanges in the DynamoDB requests ES256 does (the attempt, the guess, the refresh token family): the signature is the only extra work', async () => {
    const user = uniqueEmail('rs256-budget');
    await service.post(SEND_PATH, sendBody(user, 'local-rs256'));
    const code = await service.latestCode(user);
    service.dynamodb.reset();
    const response = await service.post(TOKEN_PATH, exchangeBody(user, code, 'local-rs256'));
    expect(response.status).toBe(200);
    rememberSecret(response.body.access_token);
    rememberSecret(response.body.refresh_token);
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'PutItem']);
  });
});

describe('the DynamoDB budget of a JWT exchange, whatever the algorithm', () => {
  it('is 2 requests (the attempt, the guess) for an RS256 and an ES256 client without refresh tokens', async () => {
    const plain = await startTestService({
      config: (config) => ({ ...config, clients: config.clients.map(({ refreshTokens: _dropped, ...client }) => client) }),
    });
    try {
      const operationsOf = async (clientId: string) => {
        const user = uniqueEmail(`budget-${clientId}`);
        await plain.post(SEND_PATH, sendBody(user, clientId));
        const code = await plain.latestCode(user);
        plain.dynamodb.reset();
        const response = await plain.post(TOKEN_PATH, exchangeBody(user, code, clientId));
        expect(response.status).toBe(200);
        expect(response.body).not.toHaveProperty('refresh_token');
        rememberSecret(response.body.access_token);
        expect(decodeProtectedHeader(response.body.access_token as string).alg).toBe(clientId === 'local-rs256' ? 'RS256' : 'ES256');
        return [...plain.dynamodb.operations()];
      };
      expect({ rs256: await operationsOf('local-rs256'), es256: await operationsOf('local-web') }).toEqual({
        rs256: ['UpdateItem', 'UpdateItem'],
        es256: ['UpdateItem', 'UpdateItem'],
      });
    } finally {
      await plain.stop();
    }
  });
});

describe('an ES256 client (local-web)', () => {
  it('gets ES256 tokens that AWS’s JwtVerifier accepts, with the same JWKS', async () => {
    const token = await tokenOf('local-web');
    expect(decodeProtectedHeader(token).alg).toBe('ES256');
    const verifier = JwtVerifier.create({ issuer: service.url, audience: AUDIENCE, jwksUri: `${service.url}/.well-known/jwks.json` });
    verifier.cacheJwks(jwks as Parameters<typeof verifier.cacheJwks>[0]);
    await expect(verifier.verify(token)).resolves.toMatchObject({ client_id: 'local-web' });
  });
});

describe('introspection of both algorithms, with either client authentication', () => {
  it.each(['local-rs256', 'local-web'])(
    'answers active for a %s token, with the Bearer API key and with client_secret_basic',
    async (clientId) => {
      const token = await tokenOf(clientId);
      for (const authorization of [`Bearer ${LOCAL_API_KEY}`, basic('local-backend', LOCAL_API_KEY)]) {
        const response = await service.postForm(INTROSPECT, { token }, { Authorization: authorization });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ active: true, client_id: clientId, aud: AUDIENCE });
      }
    },
  );

  it.each([
    ['a wrong secret', basic('local-backend', 'wrong')],
    ['the key of a client that may not introspect', basic('local-web', LOCAL_API_KEY)],
    ['an unknown client', basic('nobody', LOCAL_API_KEY)],
    ['Basic credentials without a colon', `Basic ${Buffer.from('local-backend').toString('base64')}`],
  ])('refuses %s with 401 invalid_client and a Basic challenge (RFC 6749 §5.2)', async (_name, authorization) => {
    const response = await service.postForm(INTROSPECT, { token: 'x' }, { Authorization: authorization });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="identity"');
  });
});

describe('algorithm confusion (RFC 8725 §3.1)', () => {
  const introspect = async (token: string) =>
    (await service.postForm(INTROSPECT, { token }, { Authorization: `Bearer ${LOCAL_API_KEY}` })).body;

  async function forged(header: Record<string, unknown>, key: Uint8Array): Promise<string> {
    const now = Math.floor(service.clock.now() / 1000);
    const token = await new SignJWT({ client_id: 'local-rs256', env_id: 'local', sub: 'forged' })
      .setProtectedHeader({ typ: 'at+jwt', ...header } as never)
      .setIssuer(service.url)
      .setAudience(AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(key);
    rememberSecret(token);
    return token;
  }

  it('answers inactive for an HS256 token keyed with our RSA public key under its kid', async () => {
    const rsa = jwks.keys.find((key) => key.alg === 'RS256')!;
    const token = await forged({ alg: 'HS256', kid: rsa.kid }, new TextEncoder().encode(JSON.stringify(rsa)));
    expect(await introspect(token)).toEqual({ active: false });
  });

  it('answers inactive for a token that names an ES256 key but another algorithm', async () => {
    const real = await tokenOf('local-web');
    const [, payload, signature] = real.split('.');
    const header = base64url.encode(JSON.stringify({ ...decodeProtectedHeader(real), alg: 'RS256' }));
    const relabelled = `${header}.${payload}.${signature}`;
    rememberSecret(relabelled);
    expect(await introspect(relabelled)).toEqual({ active: false });
  });
});
