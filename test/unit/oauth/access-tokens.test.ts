/**
 * The access token as a resource server receives it (lib/oauth/access-tokens.ts): the JWT's
 * header and claim names on the wire, which verifiers nobody on the team wrote key on, and the
 * opaque token's stored record. Read back with jose's decoders, never with our own constants, so
 * a renamed claim or header value is caught here and not only by the HTTP suites.
 */
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildServiceConfig, parseStageConfig, type ClientConfig } from '../../../lib/platform/config';
import {
  acrOf,
  amrOf,
  mintOpaqueToken,
  PHISHING_RESISTANT_ACR,
  opaqueTokenHash,
  signAccessToken,
  signingKeyFor,
  subjectFor,
  type Grant,
} from '../../../lib/oauth/access-tokens';
import { signIdToken } from '../../../lib/oauth/id-tokens';
import { deriveHmacKeys, subjectOf } from '../../../lib/keys/hmac-keys';
import { initialKeySet, loadSigningKeys, loadVerificationKeys, publicKeySet, type SigningKeys } from '../../../lib/keys/signing-keys';
import { TemporarilyUnavailableError } from '../../../lib/platform/errors';

const config = buildServiceConfig(parseStageConfig(JSON.parse(readFileSync(resolve(__dirname, '../../../config/local.json'), 'utf8'))));
const client = (id: string): ClientConfig => {
  const found = config.client(id);
  if (found === undefined) throw new Error(`no client ${id}`);
  return found;
};
const NOW = new Date('2026-11-23T12:00:00Z');
const ISSUED_AT = Math.floor(NOW.getTime() / 1000);

const grant = (overrides: Partial<Grant> = {}): Grant => ({
  issuer: 'http://127.0.0.1:3000',
  client: client('local-web'),
  environmentId: 'local',
  subject: 'pairwise-subject',
  channel: 'email',
  claims: {},
  scope: 'openid email',
  issuedAt: ISSUED_AT,
  authTime: ISSUED_AT - 5,
  ...overrides,
});

let keys: SigningKeys;
let stored: Awaited<ReturnType<typeof initialKeySet>>;
beforeAll(async () => {
  stored = await initialKeySet(NOW);
  keys = await loadSigningKeys(stored);
});

describe('signAccessToken (RFC 9068)', () => {
  it.each(['local-web', 'local-rs256'])(
    'types the header at+jwt (§2.1: typ MUST be "at+jwt") for %s, with its algorithm and kid',
    async (id) => {
      const { accessToken } = await signAccessToken(keys, grant({ client: client(id) }));

      const header = decodeProtectedHeader(accessToken);
      const alg = client(id).accessToken.signingAlgorithm;
      expect(header).toEqual({ typ: 'at+jwt', alg, kid: signingKeyFor(keys, alg).kid });
    },
  );

  it('carries the §2.2 claims, the environment as env_id and the method as amr, and lives ttlSeconds', async () => {
    const { accessToken, expiresIn } = await signAccessToken(keys, grant({ channel: 'voice' }));

    expect(expiresIn).toBe(client('local-web').accessToken.ttlSeconds);
    expect(decodeJwt(accessToken)).toEqual({
      iss: 'http://127.0.0.1:3000',
      sub: 'pairwise-subject',
      aud: 'http://127.0.0.1:3000/api',
      client_id: 'local-web',
      env_id: 'local',
      iat: ISSUED_AT,
      exp: ISSUED_AT + expiresIn,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      auth_time: ISSUED_AT - 5,
      amr: ['otp', 'tel'],
      scope: 'openid email',
    });
  });

  it('names the refresh token family sid only when there is one, and leaves scope out when none was granted', async () => {
    const withFamily = decodeJwt((await signAccessToken(keys, grant({ familyKey: 'family-key' }))).accessToken);
    const without = decodeJwt((await signAccessToken(keys, grant({ scope: undefined }))).accessToken);

    expect(withFamily.sid).toBe('family-key');
    expect(without).not.toHaveProperty('sid');
    expect(without).not.toHaveProperty('scope');
  });

  it('verifies with the published key set, and gives every token its own jti', async () => {
    const verification = await loadVerificationKeys(publicKeySet(stored));
    const first = (await signAccessToken(keys, grant())).accessToken;
    const second = (await signAccessToken(keys, grant())).accessToken;
    const kid = decodeProtectedHeader(first).kid as string;
    const key = verification.verification.get(kid);
    if (key === undefined) throw new Error('the signing key is not published');

    await expect(jwtVerify(first, key.key, { typ: 'at+jwt', currentDate: NOW })).resolves.toBeDefined();
    expect(decodeJwt(first).jti).not.toBe(decodeJwt(second).jti);
  });
});

describe('signingKeyFor', () => {
  it('is a 503 (a dependency not ready), not a 500, when the set has no current key of the algorithm', () => {
    const esOnly: SigningKeys = { ...keys, current: new Map([...keys.current].filter(([alg]) => alg === 'ES256')) };

    expect(() => signingKeyFor(esOnly, 'RS256')).toThrow(TemporarilyUnavailableError);
    // The logs say what to do (docs/operations/key-rotation.md): rotate once to create the group.
    let detail: string | undefined;
    try {
      signingKeyFor(esOnly, 'RS256');
    } catch (error) {
      detail = (error as TemporarilyUnavailableError).detail;
    }
    expect(detail).toMatch(/RS256.*rotate/);
  });
});

describe('mintOpaqueToken', () => {
  it('is 256 CSPRNG bits, stored only by its SHA-256, with the grant’s claims', () => {
    const { token, record } = mintOpaqueToken(grant({ client: client('local-opaque'), familyKey: 'family-key' }));

    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(record.tokenHash).toBe(createHash('sha256').update(token).digest('base64url'));
    expect(opaqueTokenHash(token)).toBe(record.tokenHash);
    expect(JSON.stringify(record)).not.toContain(token);
    expect(record).toMatchObject({
      subject: 'pairwise-subject',
      clientId: 'local-opaque',
      environmentId: 'local',
      issuedAt: ISSUED_AT,
      expiresAt: ISSUED_AT + client('local-opaque').accessToken.ttlSeconds,
      amr: ['otp'],
      familyKey: 'family-key',
    });
  });
});

describe('amrOf (RFC 8176 §2: registered values only)', () => {
  it.each([
    ['email', ['otp']],
    ['sms', ['otp', 'sms']],
    ['voice', ['otp', 'tel']],
  ] as const)('a %s code is %j: no value is made up for email, which RFC 8176 does not register', (channel, amr) => {
    expect(amrOf(channel)).toEqual(amr);
  });

  // §2: hwk "proof-of-possession of a hardware-secured key", swk "… of a software-secured key",
  // user "user presence test" (the authenticator's user verification), mfa "multiple-factor
  // authentication" (a key held and a user verified: NIST's multi-factor cryptographic authenticator).
  it.each([
    ['passkey', ['hwk', 'user', 'mfa']],
    ['synced_passkey', ['swk', 'user', 'mfa']],
  ] as const)('a %s login is %j: hwk for a device-bound key, swk for a synced one, never otp', (method, amr) => {
    expect(amrOf(method)).toEqual(amr);
  });
});

describe('acrOf (OIDC Core §2 acr; OpenID EAP ACR Values: phr)', () => {
  it.each([
    ['passkey', 'phr'],
    ['synced_passkey', 'phr'],
    ['email', undefined],
    ['sms', undefined],
    ['voice', undefined],
  ] as const)('a %s login is %j: phishing-resistant for a passkey, none for a code', (method, acr) => {
    expect(acrOf(method)).toBe(acr);
  });

  it('names the value as the profile registers it', () => {
    expect(PHISHING_RESISTANT_ACR).toBe('phr');
  });

  it('puts acr in a passkey login’s JWT access token and opaque record, and none in a code login’s', async () => {
    expect(decodeJwt((await signAccessToken(keys, grant({ channel: 'passkey' }))).accessToken)).toMatchObject({
      amr: ['hwk', 'user', 'mfa'],
      acr: 'phr',
    });
    expect(decodeJwt((await signAccessToken(keys, grant({ channel: 'sms' }))).accessToken)).not.toHaveProperty('acr');
    expect(mintOpaqueToken(grant({ client: client('local-opaque'), channel: 'synced_passkey' })).record).toMatchObject({
      amr: ['swk', 'user', 'mfa'],
      acr: 'phr',
    });
    expect(mintOpaqueToken(grant({ client: client('local-opaque') })).record.acr).toBeUndefined();
  });

  it('puts acr in a passkey login’s ID token (OIDC Core §2), and none in a code login’s', async () => {
    expect(decodeJwt(await signIdToken(keys, grant({ channel: 'passkey' }), 'access-token'))).toMatchObject({
      amr: ['hwk', 'user', 'mfa'],
      acr: 'phr',
    });
    expect(decodeJwt(await signIdToken(keys, grant({ channel: 'email' }), 'access-token'))).not.toHaveProperty('acr');
  });
});

describe('subjectFor (OIDC Core §8)', () => {
  const hmacKeys = deriveHmacKeys(Buffer.alloc(32, 9));
  const alice = { authType: 'email', value: 'alice@example.com' } as const;
  const registered = (fields: Record<string, unknown>): ClientConfig =>
    parseStageConfig({
      stage: 'test',
      defaultEnvironment: 'dev',
      environments: [{ id: 'dev', serviceName: 'Test', email: { sender: 'no-reply@example.com' } }],
      clients: [{ id: 'app', environments: ['dev'], accessToken: { format: 'jwt', audience: 'api' }, ...fields }],
    }).clients[0]!;

  it('gives a public client the environment’s subject, the same for every client', () => {
    const web = registered({ redirectUris: ['https://a.example/cb'] });
    const other = registered({ redirectUris: ['https://b.example/cb'] });

    expect(subjectFor(hmacKeys, 'dev', web, alice)).toBe(subjectOf(hmacKeys, 'dev', alice));
    expect(subjectFor(hmacKeys, 'dev', other, alice)).toBe(subjectOf(hmacKeys, 'dev', alice));
  });

  it('§8.1: gives pairwise clients one subject per sector (the redirect URIs’ host): stable within a sector, different across', () => {
    const a = registered({ subjectType: 'pairwise', redirectUris: ['https://a.example/cb'] });
    const aOtherPort = registered({ subjectType: 'pairwise', redirectUris: ['https://a.example:8443/other'] });
    const b = registered({ subjectType: 'pairwise', redirectUris: ['https://b.example/cb'] });

    const subject = subjectFor(hmacKeys, 'dev', a, alice);
    expect(subjectFor(hmacKeys, 'dev', aOtherPort, alice)).toBe(subject);
    expect(subjectFor(hmacKeys, 'dev', b, alice)).not.toBe(subject);
    expect(subject).not.toBe(subjectOf(hmacKeys, 'dev', alice));
    expect(subjectFor(hmacKeys, 'prod', a, alice)).not.toBe(subject);
    expect(subjectFor(hmacKeys, 'dev', a, { authType: 'email', value: 'bob@example.com' })).not.toBe(subject);
    expect(subject).not.toContain('alice');
  });

  it('§8.1: takes the sector from sectorIdentifierUri’s host when one is registered, whatever the redirect hosts', () => {
    const spread = registered({
      subjectType: 'pairwise',
      sectorIdentifierUri: 'https://sector.example/redirect-uris.json',
      redirectUris: ['https://a.example/cb', 'https://b.example/cb'],
    });
    const atSector = registered({ subjectType: 'pairwise', redirectUris: ['https://sector.example/cb'] });

    expect(subjectFor(hmacKeys, 'dev', spread, alice)).toBe(subjectFor(hmacKeys, 'dev', atSector, alice));
  });
});
