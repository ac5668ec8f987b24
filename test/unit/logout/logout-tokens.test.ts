/**
 * The logout token as a relying party receives it (lib/logout/logout-tokens.ts, OpenID Connect
 * Back-Channel Logout 1.0 §2.4): read back with jose against the public JWKS, and with literal
 * header and claim values, never our own constants, so a renamed claim or type is caught here.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildServiceConfig, parseStageConfig, type ClientConfig } from '../../../lib/platform/config';
import { signingKeyFor } from '../../../lib/oauth/access-tokens';
import { initialKeySet, loadSigningKeys, publicKeySet, type SigningKeys, type StoredKeySet } from '../../../lib/keys/signing-keys';
import { signLogoutToken } from '../../../lib/logout/logout-tokens';
import type { LogoutNotice } from '../../../lib/logout/ports';
import { TemporarilyUnavailableError } from '../../../lib/platform/errors';

const config = buildServiceConfig(parseStageConfig(JSON.parse(readFileSync(resolve(__dirname, '../../../config/local.json'), 'utf8'))));
const client = (id: string, overrides: Partial<ClientConfig> = {}): ClientConfig => {
  const found = config.client(id);
  if (found === undefined) throw new Error(`no client ${id}`);
  return { ...found, ...overrides };
};
const NOW = new Date('2026-11-23T12:00:00.750Z');
const ISSUED_AT = Math.floor(NOW.getTime() / 1000);
const ISSUER = 'http://127.0.0.1:3000';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

const notice = (overrides: Partial<LogoutNotice> = {}): LogoutNotice => ({
  issuer: ISSUER,
  environmentId: 'local',
  clientId: 'local-web',
  subject: 'pairwise-subject',
  sid: 'session-id-0123456789abcdef',
  ...overrides,
});

let stored: StoredKeySet;
let keys: SigningKeys;
beforeAll(async () => {
  stored = await initialKeySet(NOW);
  keys = await loadSigningKeys(stored);
});

describe('signLogoutToken (Back-Channel Logout §2.4)', () => {
  it.each([['RS256' as const], ['ES256' as const]])(
    'types the header logout+jwt (§2.4, §4.1: explicit typing) and signs with the client’s ID token algorithm, %s, and its current kid',
    async (alg) => {
      const token = await signLogoutToken(keys, client('local-web', { idTokenSignedResponseAlg: alg }), notice(), NOW.getTime());

      expect(decodeProtectedHeader(token)).toEqual({ typ: 'logout+jwt', alg, kid: signingKeyFor(keys, alg).kid });
    },
  );

  it('carries exactly iss, aud, iat, exp (iat + 120 s), jti, events, sub and sid: never a nonce (§2.4 "A nonce Claim MUST NOT be present")', async () => {
    const token = await signLogoutToken(keys, client('local-web'), notice(), NOW.getTime());

    expect(decodeJwt(token)).toEqual({
      iss: ISSUER,
      aud: 'local-web',
      iat: ISSUED_AT,
      exp: ISSUED_AT + 120,
      jti: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      // §2.4: "events … MUST be a JSON object containing the member name
      // http://schemas.openid.net/event/backchannel-logout"; its value SHOULD be the empty object.
      events: { [EVENT]: {} },
      sub: 'pairwise-subject',
      sid: 'session-id-0123456789abcdef',
    });
  });

  it('takes iss from the notice and aud from the client it is for (§2.4: aud is the RP’s client id)', async () => {
    const token = await signLogoutToken(
      keys,
      client('local-rs256'),
      notice({ issuer: 'https://id.example.com/prod', clientId: 'local-rs256' }),
      NOW.getTime(),
    );

    expect(decodeJwt(token)).toMatchObject({ iss: 'https://id.example.com/prod', aud: 'local-rs256' });
  });

  it('verifies with jose against the public JWKS, as a relying party does (§2.6): signature, iss, aud, iat, exp and typ', async () => {
    const token = await signLogoutToken(keys, client('local-web'), notice(), NOW.getTime());

    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(publicKeySet(stored)), {
      issuer: ISSUER,
      audience: 'local-web',
      typ: 'logout+jwt',
      requiredClaims: ['iat', 'exp', 'jti', 'events', 'sub', 'sid'],
      maxTokenAge: '2 minutes',
      currentDate: new Date(NOW.getTime() + 1000),
    });

    expect(protectedHeader.typ).toBe('logout+jwt');
    expect(payload.nonce).toBeUndefined();
  });

  it('is refused by a verifier that expects an ID token (§4.1, Cross-JWT Confusion): its typ is not JWT', async () => {
    const token = await signLogoutToken(keys, client('local-web'), notice(), NOW.getTime());

    await expect(
      jwtVerify(token, createLocalJWKSet(publicKeySet(stored)), { issuer: ISSUER, audience: 'local-web', typ: 'JWT', currentDate: NOW }),
    ).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'typ' });
  });

  it('expires two minutes after it was issued: a relying party refuses it after that (§2.6: exp as for ID tokens)', async () => {
    const token = await signLogoutToken(keys, client('local-web'), notice(), NOW.getTime());
    const jwks = createLocalJWKSet(publicKeySet(stored));
    const options = { issuer: ISSUER, audience: 'local-web', typ: 'logout+jwt' };

    await expect(jwtVerify(token, jwks, { ...options, currentDate: new Date((ISSUED_AT + 119) * 1000) })).resolves.toBeDefined();
    await expect(jwtVerify(token, jwks, { ...options, currentDate: new Date((ISSUED_AT + 120) * 1000) })).rejects.toMatchObject({
      code: 'ERR_JWT_EXPIRED',
    });
  });

  it('gives every token its own jti, so a relying party can refuse a replay by it (§2.6) and a retry is not one', async () => {
    const tokens = await Promise.all([1, 2, 3].map(() => signLogoutToken(keys, client('local-web'), notice(), NOW.getTime())));

    expect(new Set(tokens.map((token) => decodeJwt(token).jti)).size).toBe(3);
  });

  it('answers 503 temporarily_unavailable when the key set has no current key of the client’s algorithm (a set not yet rotated)', async () => {
    const esOnly: SigningKeys = { current: new Map([...keys.current].filter(([alg]) => alg === 'ES256')) };

    await expect(
      signLogoutToken(esOnly, client('local-web', { idTokenSignedResponseAlg: 'RS256' }), notice(), NOW.getTime()),
    ).rejects.toThrow(TemporarilyUnavailableError);
  });
});
