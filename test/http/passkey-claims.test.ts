/**
 * What a passkey login says in its tokens (RFC 8176 §2 `amr`, OIDC Core §2 `acr`), through the
 * token endpoint and everything that reads a token after it: an authorization code whose record
 * says the user logged in with a passkey is written into the table through the service's own
 * store (the hosted page's passkey ceremony is test/browser's), then exchanged. ID token, JWT
 * access token, introspection (JWT and opaque) and every refresh keep `amr` and `acr`; a code
 * login carries no `acr` at all; discovery advertises `phr` (OIDC Discovery §3 `acr_values_supported`).
 */
import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { authorizationCodeHash, mintAuthorizationCode } from '../../lib/oauth/authorization-codes';
import { s256Challenge } from '../../lib/otp/codes';
import { LOG_EVENTS } from '../../lib/platform/log-events';
import type { LoginMethod } from '../../lib/platform/vocabulary';
import { capturedLogs, rememberSecret } from '../support/log-capture';
import { LOCAL_API_KEY, logEntries, REDIRECT_URI, startTestService, TOKEN_PATH, uniqueEmail, type TestService } from '../support/harness';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

/** An authorization code of a login by `method`, stored as the hosted page stores one; the code and its PKCE verifier. */
async function seedCode(method: LoginMethod, clientId: string): Promise<{ code: string; verifier: string }> {
  const keys = await service.deps.hmacKeys();
  const code = mintAuthorizationCode();
  const verifier = randomBytes(32).toString('base64url');
  const now = service.clock.now();
  await service.deps.authorizationCodes.save({
    codeHash: authorizationCodeHash(keys, code),
    environmentId: 'local',
    clientId,
    redirectUri: REDIRECT_URI,
    codeChallenge: s256Challenge(verifier),
    nonce: 'n-0S6_WzA2Mj',
    scope: 'openid',
    userKey: `user-key-${randomBytes(8).toString('hex')}`,
    subject: `subject-${randomBytes(8).toString('hex')}`,
    channel: method,
    claims: {},
    authTime: Math.floor(now / 1000) - 5,
    sessionId: randomBytes(16).toString('base64url'),
    notAfter: now + 60_000,
  });
  return { code, verifier };
}

async function exchange(method: LoginMethod, clientId: string) {
  const { code, verifier } = await seedCode(method, clientId);
  const response = await service.postForm(TOKEN_PATH, {
    grant_type: 'authorization_code',
    code,
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
  });
  expect(response.status).toBe(200);
  for (const name of ['access_token', 'refresh_token', 'id_token']) rememberSecret(response.body[name]);
  return response.body as { access_token: string; refresh_token: string; id_token: string };
}

async function verified(token: string, audience?: string) {
  const jwks = createRemoteJWKSet(new URL(`${service.url}/.well-known/jwks.json`));
  const options = { issuer: service.url, currentDate: new Date(service.clock.now()), ...(audience === undefined ? {} : { audience }) };
  return (await jwtVerify(token, jwks, options)).payload;
}

const introspect = async (token: string) =>
  (await service.postForm('/idp/v1/account/introspect', { token }, { Authorization: `Bearer ${LOCAL_API_KEY}` })).body;

const refresh = async (clientId: string, refreshToken: string) => {
  const response = await service.postForm(TOKEN_PATH, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
  expect(response.status).toBe(200);
  for (const name of ['access_token', 'refresh_token', 'id_token']) rememberSecret(response.body[name]);
  return response.body as { access_token: string; refresh_token: string; id_token: string };
};

describe('a device-bound passkey login (RFC 8176 §2: hwk, user, mfa; acr phr)', () => {
  it('puts amr ["hwk","user","mfa"] and acr "phr" in the ID token, the JWT access token and its introspection', async () => {
    const tokens = await exchange('passkey', 'local-web');

    const idToken = await verified(tokens.id_token, 'local-web');
    expect([idToken.amr, idToken.acr]).toEqual([['hwk', 'user', 'mfa'], 'phr']);
    const accessToken = await verified(tokens.access_token);
    expect([accessToken.amr, accessToken.acr]).toEqual([['hwk', 'user', 'mfa'], 'phr']);
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true, amr: ['hwk', 'user', 'mfa'], acr: 'phr' });
  });

  it('keeps them through refreshes: the family remembers how the login was made', async () => {
    const first = await exchange('passkey', 'local-web');
    const second = await refresh('local-web', first.refresh_token);
    const third = await refresh('local-web', second.refresh_token);

    for (const tokens of [second, third]) {
      expect(decodeJwt(tokens.id_token)).toMatchObject({ amr: ['hwk', 'user', 'mfa'], acr: 'phr' });
      expect(decodeJwt(tokens.access_token)).toMatchObject({ amr: ['hwk', 'user', 'mfa'], acr: 'phr' });
    }
  });

  it('logs the login with its method and amr (what login.completed v2 reads)', async () => {
    const before = capturedLogs().length;
    await exchange('passkey', 'local-web');
    expect(logEntries(capturedLogs().slice(before), LOG_EVENTS.tokenIssued)).toEqual([
      expect.objectContaining({ grant: 'authorization_code', method: 'passkey', amr: ['hwk', 'user', 'mfa'] }),
    ]);
  });
});

describe('a synced passkey login (swk)', () => {
  it('puts amr ["swk","user","mfa"] and acr "phr" in an opaque token’s introspection, and keeps them after a refresh', async () => {
    const tokens = await exchange('synced_passkey', 'local-opaque');
    expect(decodeJwt(tokens.id_token)).toMatchObject({ amr: ['swk', 'user', 'mfa'], acr: 'phr' });
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true, amr: ['swk', 'user', 'mfa'], acr: 'phr' });

    const refreshed = await refresh('local-opaque', tokens.refresh_token);
    expect(await introspect(refreshed.access_token)).toMatchObject({ active: true, amr: ['swk', 'user', 'mfa'], acr: 'phr' });
  });
});

describe('a code login', () => {
  it('carries no acr anywhere (no registered value says "a code"; its absence does): ID token, JWT, opaque introspection', async () => {
    const jwt = await exchange('sms', 'local-web');
    expect(decodeJwt(jwt.id_token)).not.toHaveProperty('acr');
    expect(decodeJwt(jwt.id_token).amr).toEqual(['otp', 'sms']);
    expect(decodeJwt(jwt.access_token)).not.toHaveProperty('acr');
    expect(await introspect(jwt.access_token)).not.toHaveProperty('acr');

    const opaque = await exchange('email', 'local-opaque');
    const introspected = await introspect(opaque.access_token);
    expect(introspected).toMatchObject({ active: true, amr: ['otp'] });
    expect(introspected).not.toHaveProperty('acr');
  });

  it('of a real user by the API flow: amr ["otp"], no acr', async () => {
    const response = await service.signIn(uniqueEmail('code-acr'));
    rememberSecret(response.body.refresh_token);
    const claims = decodeJwt(response.body.access_token as string);
    expect(claims.amr).toEqual(['otp']);
    expect(claims).not.toHaveProperty('acr');
  });
});

describe('discovery', () => {
  it.each(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'])(
    '%s advertises acr_values_supported ["phr"] (OIDC Discovery §3) and acr among claims_supported',
    async (path) => {
      const metadata = (await service.get(path)).body;
      expect(metadata.acr_values_supported).toEqual(['phr']);
      expect(metadata.claims_supported).toEqual(expect.arrayContaining(['acr', 'amr']));
    },
  );
});
