/**
 * `private_key_jwt` client assertions' rules (lib/oauth/client-assertions.ts; RFC 7523 §2.2, §3,
 * OIDC Core §9): the claims checked one by one, the keys and algorithms, the audiences of each
 * endpoint, and the client authentication that spends a `jti` only once everything else passed.
 * Over HTTP, with DynamoDB Local and real client libraries: test/http/private-key-jwt.test.ts.
 */
import { CompactSign, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { buildServiceConfig, parseStageConfig, type ClientConfig, type ServiceConfig } from '../../../lib/platform/config';
import {
  ASSERTION_CLOCK_SKEW_SECONDS,
  ASSERTION_REFUSALS,
  assertionJtiHash,
  audiencesAt,
  checkAssertionClaims,
  claimedClientOf,
  JWT_BEARER_ASSERTION_TYPE,
  MAX_ASSERTION_LIFETIME_SECONDS,
  verifyClientAssertion,
} from '../../../lib/oauth/client-assertions';
import { authenticateClient } from '../../../lib/oauth/client-authentication';
import type { AssertionUse } from '../../../lib/oauth/ports';
import { InvalidClientError } from '../../../lib/platform/errors';
import { ROUTES } from '../../../lib/platform/routes';

const ISSUER = 'https://id.example.test';
const TOKEN_ENDPOINT = `${ISSUER}/idp/v1/account/token`;
const REVOCATION_ENDPOINT = `${ISSUER}/idp/v1/account/revoke`;
const NOW = 1_900_000_000;

interface KeyPair {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}
async function keyPair(alg: string, kid?: string): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {});
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), ...(kid === undefined ? {} : { kid }) } };
}

let es256: KeyPair;
let rotated: KeyPair;
let stranger: KeyPair;
let config: ServiceConfig;
beforeAll(async () => {
  es256 = await keyPair('ES256', 'es-1');
  rotated = await keyPair('ES256');
  stranger = await keyPair('ES256', 'es-1');
  const client = (id: string) => ({
    id,
    environments: ['dev'],
    redirectUris: ['https://app.example.test/callback'],
    accessToken: { format: 'jwt', audience: 'api' },
  });
  config = buildServiceConfig(
    parseStageConfig({
      defaultEnvironment: 'dev',
      environments: [{ id: 'dev', serviceName: 'Example', email: { sender: 'no-reply@example.test' } }],
      clients: [
        { ...client('signer'), tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [es256.publicJwk] } },
        // Two keys without `kid`, as during a rotation: each is tried.
        {
          ...client('rotating'),
          tokenEndpointAuthMethod: 'private_key_jwt',
          jwks: { keys: [(await keyPair('ES256')).publicJwk, rotated.publicJwk] },
        },
        { ...client('web'), tokenEndpointAuthMethod: 'none' },
      ],
    }),
  );
});
const clientOf = (id: string) => config.client(id) as ClientConfig;

/** Claims a client would send at NOW, with `overrides` (undefined removes one). */
function claims(overrides: Record<string, unknown> = {}, clientId = 'signer'): JWTPayload {
  const base: Record<string, unknown> = { iss: clientId, sub: clientId, aud: ISSUER, exp: NOW + 60, iat: NOW, jti: 'jti-1' };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete base[name];
    else base[name] = value;
  }
  return base;
}

async function sign(payload: JWTPayload, key: KeyPair = es256, header: Record<string, unknown> = { alg: 'ES256', kid: 'es-1' }) {
  return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
}

/** An unsigned JWT with this header (`alg: none`, or an HMAC's name with a made-up signature). */
const unsigned = (header: object, payload: object, signature = '') =>
  `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;

const expected = (clientId = 'signer', audiences = audiencesAt(ISSUER, 'token')) => ({ clientId, audiences, now: NOW });

describe('the audiences (RFC 7523 §3 item 3: a value that identifies the authorization server)', () => {
  it('are the issuer or the token endpoint at the token endpoint', () => {
    expect(audiencesAt(ISSUER, 'token')).toEqual([ISSUER, TOKEN_ENDPOINT]);
  });

  it('are the issuer, the token endpoint or the revocation endpoint at revocation', () => {
    expect(audiencesAt(ISSUER, 'revocation')).toEqual([ISSUER, TOKEN_ENDPOINT, REVOCATION_ENDPOINT]);
  });

  it('name the routes the service serves those endpoints at (the paths are written out in the module)', () => {
    const pathOf = (functionName: string) => ROUTES.find((route) => route.functionName === functionName)?.path;
    expect(audiencesAt('', 'revocation')).toEqual(['', pathOf('token'), pathOf('revoke')]);
  });
});

describe('the claims (RFC 7523 §3, OIDC Core §9)', () => {
  it('accept what openid-client sends (aud the issuer, exp 60 s ahead, nbf now) and give the jti and exp', () => {
    expect(checkAssertionClaims(claims({ nbf: NOW }), expected())).toEqual({ jti: 'jti-1', exp: NOW + 60 });
  });

  it.each([
    ['Authlib’s (aud the token endpoint, exp iat + 3600, no nbf)', { aud: TOKEN_ENDPOINT, exp: NOW + 3600 }],
    ['Auth.js’s (aud [issuer, token endpoint])', { aud: [ISSUER, TOKEN_ENDPOINT] }],
    ['an aud array with another audience beside ours', { aud: ['https://other.example.test', TOKEN_ENDPOINT] }],
    ['an exp just inside the skew behind', { exp: NOW - ASSERTION_CLOCK_SKEW_SECONDS + 1 }],
    ['an exp at the lifetime cap plus the skew', { exp: NOW + MAX_ASSERTION_LIFETIME_SECONDS + ASSERTION_CLOCK_SKEW_SECONDS }],
    ['an nbf within the skew ahead', { nbf: NOW + ASSERTION_CLOCK_SKEW_SECONDS }],
  ])('accept %s', (_case, overrides) => {
    expect(checkAssertionClaims(claims(overrides), expected())).toMatchObject({ jti: 'jti-1' });
  });

  it.each([
    ['iss other than the client (RFC 7523 §3 item 1)', { iss: 'web' }, 'issuer'],
    ['sub other than the client (item 2: the client id for client authentication)', { sub: 'web' }, 'issuer'],
    ['no aud (item 3: MUST contain aud)', { aud: undefined }, 'claims_missing'],
    ['no exp (item 4: MUST contain exp)', { exp: undefined }, 'claims_missing'],
    ['no jti (OIDC Core §9: jti REQUIRED)', { jti: undefined }, 'claims_missing'],
    ['an empty jti', { jti: '' }, 'claims_missing'],
    ['a jti that is not text', { jti: 42 }, 'claims_missing'],
    ['an aud that is another server', { aud: 'https://other.example.test' }, 'audience'],
    ['an aud that is the userinfo endpoint', { aud: `${ISSUER}/idp/v1/account/userinfo` }, 'audience'],
    ['an aud of the revocation endpoint at the token endpoint', { aud: REVOCATION_ENDPOINT }, 'audience'],
    ['an aud with a trailing slash', { aud: `${ISSUER}/` }, 'audience'],
    ['an empty aud array', { aud: [] }, 'audience'],
    ['an aud that is not text', { aud: 7 }, 'audience'],
    ['an exp past by the skew (item 4: MUST reject expired JWTs)', { exp: NOW - ASSERTION_CLOCK_SKEW_SECONDS }, 'expired'],
    ['an exp beyond the lifetime cap', { exp: NOW + MAX_ASSERTION_LIFETIME_SECONDS + ASSERTION_CLOCK_SKEW_SECONDS + 1 }, 'lifetime'],
    ['an nbf beyond the skew (item 5: MUST NOT accept before nbf)', { nbf: NOW + ASSERTION_CLOCK_SKEW_SECONDS + 1 }, 'not_yet_valid'],
    ['an nbf that is not a number', { nbf: 'soon' }, 'not_yet_valid'],
  ])('refuse %s', (_case, overrides, reason) => {
    expect(checkAssertionClaims(claims(overrides), expected())).toEqual({ refused: reason });
  });

  it('accept the revocation endpoint as aud at revocation only', () => {
    const atRevocation = expected('signer', audiencesAt(ISSUER, 'revocation'));
    expect(checkAssertionClaims(claims({ aud: REVOCATION_ENDPOINT }), atRevocation)).toMatchObject({ jti: 'jti-1' });
  });
});

describe('the client an assertion names, before its signature is checked', () => {
  it('is its iss, when sub is the same', async () => {
    expect(claimedClientOf(await sign(claims()))).toEqual({ clientId: 'signer' });
  });

  it.each([
    ['iss ≠ sub', { sub: 'web' }],
    ['no iss', { iss: undefined }],
    ['no sub', { sub: undefined }],
    ['an iss that is not text', { iss: 5, sub: 5 }],
  ])('is none for %s', async (_case, overrides) => {
    expect(claimedClientOf(await sign(claims(overrides)))).toEqual({ refused: 'issuer' });
  });

  it.each([
    ['alg none (RFC 8725 §3.2)', { alg: 'none' }, ''],
    ['HS256 (the service holds no client secret in clear)', { alg: 'HS256' }, 'c2ln'],
    ['RS384 (not in CLIENT_ASSERTION_ALGORITHMS)', { alg: 'RS384' }, 'c2ln'],
    ['no alg', {}, 'c2ln'],
  ])('is none for %s', (_case, header, signature) => {
    expect(claimedClientOf(unsigned(header, claims(), signature))).toEqual({ refused: 'algorithm' });
  });

  it.each(['', 'a.b.c', 'not a jwt', 'e30.e30'])('is none for the malformed assertion %j', (assertion) => {
    expect(claimedClientOf(assertion)).toEqual({ refused: 'malformed' });
  });

  it.each([
    ['four parts', `${unsigned({ alg: 'ES256' }, claims(), 'c2ln')}.c2ln`],
    ['a payload that is a JSON array', unsigned({ alg: 'ES256' }, [claims()], 'c2ln')],
    ['a payload that is JSON null', unsigned({ alg: 'ES256' }, null as unknown as object, 'c2ln')],
    ['a payload that is a JSON string', unsigned({ alg: 'ES256' }, 'signer' as unknown as object, 'c2ln')],
  ])('is none for %s (RFC 7523 §3: a JWT, whose claims are a JSON object)', (_case, assertion) => {
    expect(claimedClientOf(assertion)).toEqual({ refused: 'malformed' });
  });

  it('is none for an empty iss, even when sub is empty too', () => {
    expect(claimedClientOf(unsigned({ alg: 'ES256' }, claims({ iss: '', sub: '' }), 'c2ln'))).toEqual({ refused: 'issuer' });
  });
});

describe('the signature (RFC 7523 §3 item 9: MUST be digitally signed)', () => {
  it.each(['RS256', 'PS256', 'ES256', 'EdDSA'])('is verified with the client’s %s key', async (alg) => {
    const pair = await keyPair(alg, 'k');
    const client = { ...clientOf('signer'), jwks: { keys: [pair.publicJwk] } } as ClientConfig;
    const assertion = await sign(claims(), pair, { alg, kid: 'k' });
    expect(await verifyClientAssertion(assertion, client, expected())).toEqual({ jti: 'jti-1', exp: NOW + 60 });
  });

  it('refuses an algorithm outside the list even when a registered key fits it (RS384 with an RSA key that names no alg)', async () => {
    const pair = await keyPair('RS384', 'k');
    const client = { ...clientOf('signer'), jwks: { keys: [{ ...pair.publicJwk, alg: undefined }] } } as ClientConfig;
    const assertion = await sign(claims(), pair, { alg: 'RS384', kid: 'k' });
    expect(await verifyClientAssertion(assertion, client, expected())).toEqual({ refused: 'algorithm' });
  });

  it('refuses a key the client did not register, even with a kid it has', async () => {
    expect(await verifyClientAssertion(await sign(claims(), stranger), clientOf('signer'), expected())).toEqual({ refused: 'signature' });
  });

  it('tries each key without a kid (a rotation), and refuses when none verifies', async () => {
    const noKid = { alg: 'ES256' };
    expect(
      await verifyClientAssertion(await sign(claims({}, 'rotating'), rotated, noKid), clientOf('rotating'), expected('rotating')),
    ).toEqual({
      jti: 'jti-1',
      exp: NOW + 60,
    });
    expect(
      await verifyClientAssertion(await sign(claims({}, 'rotating'), stranger, noKid), clientOf('rotating'), expected('rotating')),
    ).toEqual({
      refused: 'signature',
    });
  });

  it('refuses a client without keys', async () => {
    expect(await verifyClientAssertion(await sign(claims({}, 'web')), clientOf('web'), expected('web'))).toEqual({ refused: 'signature' });
  });

  it('refuses alg none and HS256 even past the header check (jose’s algorithms allow-list)', async () => {
    for (const alg of ['none', 'HS256']) {
      expect(await verifyClientAssertion(unsigned({ alg }, claims(), 'c2ln'), clientOf('signer'), expected())).toEqual({
        refused: 'algorithm',
      });
    }
  });

  it('refuses an expired assertion with a good signature as expired, and a future nbf as not yet valid', async () => {
    expect(await verifyClientAssertion(await sign(claims({ exp: NOW - 3600 })), clientOf('signer'), expected())).toEqual({
      refused: 'expired',
    });
    expect(await verifyClientAssertion(await sign(claims({ nbf: NOW + 3600 })), clientOf('signer'), expected())).toEqual({
      refused: 'not_yet_valid',
    });
  });

  it('refuses a signed payload that is not a JSON object as malformed, not as unsigned', async () => {
    const signedArray = await new CompactSign(new TextEncoder().encode(JSON.stringify([claims()])))
      .setProtectedHeader({ alg: 'ES256', kid: 'es-1' })
      .sign(es256.privateKey);
    expect(await verifyClientAssertion(signedArray, clientOf('signer'), expected())).toEqual({ refused: 'malformed' });
  });

  it.each([
    ['a signature that is not base64url', `${Buffer.from('{"alg":"ES256","kid":"es-1"}').toString('base64url')}.e30.!!!`, 'malformed'],
    [
      'a critical header extension it does not know (RFC 7515 §4.1.11)',
      unsigned({ alg: 'ES256', kid: 'es-1', crit: ['x'], x: 1 }, claims(), 'c2ln'),
      'algorithm',
    ],
  ])('names jose’s refusal of %s', async (_case, assertion, refused) => {
    expect(await verifyClientAssertion(assertion, clientOf('signer'), expected())).toEqual({ refused });
  });

  it('checks the claims after the signature (a signed assertion for another audience)', async () => {
    expect(await verifyClientAssertion(await sign(claims({ aud: 'https://other.example.test' })), clientOf('signer'), expected())).toEqual({
      refused: 'audience',
    });
  });
});

describe('the jti’s record key', () => {
  it('is the SHA-256 of the jti, base64url: fixed length, no client text', () => {
    expect(assertionJtiHash('jti-1')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(assertionJtiHash('x'.repeat(10_000))).toHaveLength(43);
    expect(assertionJtiHash('jti-1')).not.toBe(assertionJtiHash('jti-2'));
  });
});

describe('authenticating with an assertion (the jti spent last, once)', () => {
  const spent: AssertionUse[] = [];
  let replay = false;
  beforeEach(() => {
    spent.splice(0);
    replay = false;
  });
  const deps = () => ({
    config,
    clock: { now: () => NOW * 1000 + 999 },
    clientAssertions: { spend: (use: AssertionUse) => Promise.resolve((spent.push(use), !replay)) },
  });
  const fields = (assertion: string, extra: Record<string, string> = {}) => ({
    client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
    client_assertion: assertion,
    ...extra,
  });
  async function refusal(presented: Record<string, unknown>, authorization?: string) {
    try {
      await authenticateClient(deps(), { authorization, fields: presented, issuer: ISSUER }, 'token');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidClientError);
      const { statusCode, description, detail, headers } = error as InvalidClientError;
      return { statusCode, description, detail, challenge: headers['WWW-Authenticate'] };
    }
    throw new Error('accepted');
  }

  it('is the client, with its jti spent until exp plus the skew', async () => {
    const client = await authenticateClient(
      deps(),
      { authorization: undefined, fields: fields(await sign(claims())), issuer: ISSUER },
      'token',
    );
    expect(client.id).toBe('signer');
    expect(spent).toEqual([
      { clientId: 'signer', jtiHash: assertionJtiHash('jti-1'), keepUntil: NOW + 60 + ASSERTION_CLOCK_SKEW_SECONDS, now: NOW },
    ]);
  });

  it('keeps a fractional exp’s jti until the whole second after it, plus the skew', async () => {
    await authenticateClient(
      deps(),
      { authorization: undefined, fields: fields(await sign(claims({ exp: NOW + 60.5 }))), issuer: ISSUER },
      'token',
    );
    expect(spent).toMatchObject([{ keepUntil: NOW + 61 + ASSERTION_CLOCK_SKEW_SECONDS }]);
  });

  it('accepts the same client_id beside it (openid-client sends it; Authlib does not)', async () => {
    const presented = fields(await sign(claims()), { client_id: 'signer' });
    expect((await authenticateClient(deps(), { authorization: undefined, fields: presented, issuer: ISSUER }, 'token')).id).toBe('signer');
  });

  it('refuses a replayed jti: 401, no Basic challenge, ids only in the detail', async () => {
    replay = true;
    expect(await refusal(fields(await sign(claims())))).toEqual({
      statusCode: 401,
      description: 'The client assertion was already used: its jti is single use (RFC 7523 section 3).',
      detail: 'client_assertion refused: replayed (client signer)',
      challenge: 'Bearer realm="identity"',
    });
  });

  it.each([
    [
      'another type',
      async () => ({ ...fields(await sign(claims())), client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' }),
      'type',
    ],
    ['an unknown key', async () => fields(await sign(claims(), stranger)), 'signature (client signer)'],
    ['an expired assertion', async () => fields(await sign(claims({ exp: NOW - 120 }))), 'expired (client signer)'],
    ['another audience', async () => fields(await sign(claims({ aud: 'https://other.example.test' }))), 'audience (client signer)'],
    [
      'a client_id that is not the assertion’s',
      async () => fields(await sign(claims()), { client_id: 'web' }),
      'client_id (client signer)',
    ],
    ['a client registered otherwise', async () => fields(await sign(claims({}, 'web'))), 'not_registered (client web)'],
    ['an iss that names no client (and is not logged)', async () => fields(await sign(claims({}, 'alice@example.com'))), 'unknown_client'],
    ['alg none', () => Promise.resolve(fields(unsigned({ alg: 'none' }, claims()))), 'algorithm'],
  ])('refuses %s before spending anything', async (_case, presented, reason) => {
    expect(await refusal(await presented())).toMatchObject({
      statusCode: 401,
      detail: `client_assertion refused: ${reason}`,
      challenge: 'Bearer realm="identity"',
    });
    expect(spent).toEqual([]);
  });

  it('never puts the assertion in the description or the detail', async () => {
    const assertion = await sign(claims({ aud: 'https://other.example.test' }));
    const refused = await refusal(fields(assertion));
    for (const part of assertion.split('.')) expect(JSON.stringify(refused)).not.toContain(part);
  });

  it('refuses a private_key_jwt client that presents a secret, or nothing', async () => {
    expect(await refusal({ client_id: 'signer', client_secret: 'a-secret' })).toMatchObject({
      statusCode: 401,
      detail: 'client_secret_post credentials refused',
    });
    expect(await refusal({ client_id: 'signer' })).toEqual({
      statusCode: 401,
      description: 'This client must authenticate: a client assertion (private_key_jwt, RFC 7523 section 2.2).',
      detail: 'client signer presented no credentials',
      challenge: 'Bearer realm="identity"',
    });
    expect(spent).toEqual([]);
  });
});

describe('the refusals’ descriptions (RFC 6749 §5.2 error_description)', () => {
  it('are each a sentence of their own, in the characters §5.2 allows (no quote, no backslash), never empty', () => {
    const descriptions = Object.values(ASSERTION_REFUSALS);
    expect(new Set(descriptions).size).toBe(descriptions.length);
    for (const description of descriptions) {
      expect(description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]{20,}$/);
      expect(description).toMatch(/\.$/);
    }
  });
});
