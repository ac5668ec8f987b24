/**
 * What a token says beyond the defaults, as clients configure it: a scope, the user's email or
 * phone number when a client asks for it, and how introspection reads JWTs that lack a claim.
 */
import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, SignJWT } from 'jose';
import { rememberSecret } from '../support/log-capture';
import { LOCAL_API_KEY, startTestService, uniqueEmail, uniquePhone, type TestService } from '../support/harness';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    config: (config) => {
      const web = config.clients.find((client) => client.id === 'local-web')!;
      const opaque = config.clients.find((client) => client.id === 'local-opaque')!;
      return {
        ...config,
        clients: [
          ...config.clients,
          { ...web, id: 'scoped-web', accessToken: { ...web.accessToken, scope: 'profile:read orders:write', includeUserIdClaim: true } },
          { ...opaque, id: 'scoped-opaque', accessToken: { ...opaque.accessToken, scope: 'orders:read' } },
        ],
      };
    },
  });
});
afterAll(async () => service.stop());

async function tokenFor(user: string, clientId: string) {
  const response = await service.signIn(user, { clientId });
  expect(response.status).toBe(200);
  return response;
}

async function verified(token: string) {
  const jwks = createRemoteJWKSet(new URL(`${service.url}/.well-known/jwks.json`));
  return (await jwtVerify(token, jwks, { issuer: service.url, currentDate: new Date(service.clock.now()) })).payload;
}

const introspect = async (token: string) =>
  (await service.postForm('/idp/v1/account/introspect', { token }, { Authorization: `Bearer ${LOCAL_API_KEY}` })).body;

describe('a client with a scope', () => {
  it('returns it in the token response (RFC 6749 §5.1), the JWT and introspection', async () => {
    const response = await tokenFor(uniqueEmail('scope'), 'scoped-web');
    rememberSecret(response.body.refresh_token);
    expect(response.body).toEqual({
      access_token: expect.any(String),
      // scoped-web is local-web's copy, which has refresh tokens.
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'profile:read orders:write',
    });
    expect((await verified(response.body.access_token as string)).scope).toBe('profile:read orders:write');
    expect(await introspect(response.body.access_token as string)).toMatchObject({ active: true, scope: 'profile:read orders:write' });
  });

  it('keeps it with an opaque token too', async () => {
    const response = await tokenFor(uniqueEmail('scope-opaque'), 'scoped-opaque');
    expect(response.body.scope).toBe('orders:read');
    expect(await introspect(response.body.access_token as string)).toMatchObject({ active: true, scope: 'orders:read' });
  });

  it('leaves scope out for a client without one', async () => {
    expect((await tokenFor(uniqueEmail('no-scope'), 'local-web')).body).not.toHaveProperty('scope');
  });
});

describe('the user’s address in the token, only where a client asks (includeUserIdClaim)', () => {
  it('puts a verified email under the OpenID Connect claim names', async () => {
    const user = uniqueEmail('claims');
    const claims = await verified((await tokenFor(user, 'scoped-web')).body.access_token as string);
    expect(claims).toMatchObject({ email: user, email_verified: true });
    expect(claims).not.toHaveProperty('phone_number');
  });

  it('puts a verified phone number in E.164', async () => {
    const user = uniquePhone();
    const claims = await verified((await tokenFor(user, 'scoped-web')).body.access_token as string);
    expect(claims).toMatchObject({ phone_number: user, phone_number_verified: true });
    expect(claims).not.toHaveProperty('email');
  });

  it('puts neither for a client that does not ask', async () => {
    const claims = await verified((await tokenFor(uniqueEmail('private'), 'local-web')).body.access_token as string);
    expect(Object.keys(claims)).not.toEqual(expect.arrayContaining(['email']));
  });
});

describe('introspecting JWTs signed with our key but missing a claim', () => {
  async function signed(claims: Record<string, unknown>): Promise<string> {
    const keys = await service.deps.signingKeys();
    const now = Math.floor(service.clock.now() / 1000);
    const token = await new SignJWT({ client_id: 'local-web', env_id: 'local', jti: randomUUID(), ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: keys.current.get('ES256')!.kid })
      .setIssuer(service.url)
      .setSubject('subject')
      .setAudience('http://127.0.0.1:3000/api')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(keys.current.get('ES256')!.key);
    rememberSecret(token);
    return token;
  }

  it('answers active for a complete one (the control)', async () => {
    expect(await introspect(await signed({}))).toMatchObject({ active: true, client_id: 'local-web' });
  });

  it.each([
    ['no environment (as issued before tokens named one)', { env_id: undefined }],
    ['no client', { client_id: undefined }],
    ['a client the service does not know', { client_id: 'nobody' }],
    // RFC 9068 §2.2: jti is REQUIRED (a revocation is recorded by it).
    ['no jti', { jti: undefined }],
  ])('answers inactive for %s', async (_name, claims) => {
    expect(await introspect(await signed(claims))).toEqual({ active: false });
  });
});
