/**
 * `private_key_jwt` client assertions (RFC 7523 §2.2, §3; OpenID Connect Core §9): a JWT the client
 * signs with its private key, checked against the public keys its registration holds (`jwks`).
 * The rules, top to bottom (lib/oauth/client-authentication.ts runs them, then spends the `jti`):
 *   1. the header's `alg` is one of CLIENT_ASSERTION_ALGORITHMS: never `none`, never an HMAC
 *      (RFC 8725 §3.1), checked before any key is chosen;
 *   2. `iss` and `sub` are both the client id (RFC 7523 §3 items 1-2): they name the client whose
 *      keys verify it, before anything else is trusted;
 *   3. the signature, by one of that client's keys (a `kid` picks one; without it each key that
 *      fits the algorithm is tried, so a key can be rotated);
 *   4. `aud` contains this server: its issuer (openid-client) or the endpoint's URL (Authlib, the
 *      token endpoint; Auth.js sends both), as a string or an array (item 3);
 *   5. `exp` is present and not past (item 4), and at most MAX_ASSERTION_LIFETIME_SECONDS ahead:
 *      the single-use record of the `jti` is kept until `exp` (plus the skew), so an unbounded
 *      `exp` would be an unbounded record, and an assertion is meant to be short-lived (Authlib's
 *      is iat + 3600);
 *   6. `nbf`, when present, has come (item 5);
 *   7. `jti` is present (item 7): the caller spends it, one conditional write, so a replayed
 *      assertion is refused.
 * Times allow ASSERTION_CLOCK_SKEW_SECONDS either way, as clients' clocks drift. jose verifies the
 * signature only (compactVerify); every claim is checked here, once.
 */
import { createHash } from 'node:crypto';
import { compactVerify, createLocalJWKSet, type CryptoKey, type JWTPayload } from 'jose';
import type { ClientConfig } from '../platform/config';
import { CLIENT_ASSERTION_ALGORITHMS } from '../platform/vocabulary';

/** The one `client_assertion_type` accepted (RFC 7523 §2.2). */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Seconds of clock difference allowed between a client and the service (`exp`, `nbf`, the lifetime cap). */
export const ASSERTION_CLOCK_SKEW_SECONDS = 30;
/** How far ahead an assertion's `exp` may be: an hour, as Authlib signs them (plus the skew). */
export const MAX_ASSERTION_LIFETIME_SECONDS = 3600;

/** Why an assertion was refused: a typed reason, whose public text is ASSERTION_REFUSALS'. */
export type AssertionRefusal =
  | 'type'
  | 'missing'
  | 'malformed'
  | 'algorithm'
  | 'issuer'
  | 'unknown_client'
  | 'client_id'
  | 'not_registered'
  | 'signature'
  | 'claims_missing'
  | 'audience'
  | 'expired'
  | 'lifetime'
  | 'not_yet_valid'
  | 'replayed';

/** The public `error_description` of each refusal: says what to fix, never echoes the assertion. */
export const ASSERTION_REFUSALS: Readonly<Record<AssertionRefusal, string>> = {
  type: `client_assertion_type must be ${JWT_BEARER_ASSERTION_TYPE} (RFC 7523 section 2.2).`,
  missing: 'client_assertion_type needs a client_assertion: a JWT signed by the client (RFC 7523 section 2.2).',
  malformed: 'client_assertion must be a signed JWT (RFC 7523 section 3).',
  algorithm: `The client assertion must be signed with one of ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}.`,
  issuer: 'The client assertion must have iss and sub, both the client id (RFC 7523 section 3).',
  unknown_client: 'The client assertion names no registered client in iss and sub.',
  client_id: "client_id must be the client assertion's iss and sub.",
  not_registered: 'This client does not authenticate with private_key_jwt.',
  signature: 'The client assertion is not signed by a key registered for this client.',
  claims_missing: 'The client assertion must carry aud, exp and jti (RFC 7523 section 3).',
  audience: "The client assertion's aud must name this server: its issuer or the endpoint's URL.",
  expired: 'The client assertion has expired.',
  lifetime: `The client assertion must expire within ${MAX_ASSERTION_LIFETIME_SECONDS} seconds of being used.`,
  not_yet_valid: 'The client assertion is not valid yet (nbf).',
  replayed: 'The client assertion was already used: its jti is single use (RFC 7523 section 3).',
};

/** Where a client authenticates: the endpoints whose URL an assertion's `aud` may name there. */
export type AuthenticatingEndpoint = 'token' | 'revocation';

/**
 * The endpoints' paths (lib/platform/routes.ts `ROUTES`; test/unit/oauth/client-assertions.test.ts
 * holds them equal). Written out rather than imported: the routes table would ship its functions'
 * descriptions in the token bundle, whose budget is tight (test/infra/bundle-contents.test.ts).
 */
const ENDPOINT_PATHS: Readonly<Record<AuthenticatingEndpoint, readonly string[]>> = {
  token: ['/idp/v1/account/token'],
  // RFC 7523 §3 asks for a value identifying the server: at revocation, its own URL too.
  revocation: ['/idp/v1/account/token', '/idp/v1/account/revoke'],
};

/**
 * What an assertion's `aud` may contain at `endpoint`: the issuer, or an endpoint's URL.
 * @example audiencesAt('https://id.example.com', 'token') // ['https://id.example.com', 'https://id.example.com/idp/v1/account/token']
 */
export function audiencesAt(issuer: string, endpoint: AuthenticatingEndpoint): string[] {
  return [issuer, ...ENDPOINT_PATHS[endpoint].map((path) => `${issuer}${path}`)];
}

/** A JSON object, from base64url text or bytes; undefined for anything else. */
function jsonObject(encoded: string | Uint8Array): Record<string, unknown> | undefined {
  try {
    const text = typeof encoded === 'string' ? Buffer.from(encoded, 'base64url').toString('utf8') : new TextDecoder().decode(encoded);
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The client an assertion claims to come from (its `iss`, equal to its `sub`), before any signature is checked. */
export type ClaimedClient = { readonly clientId: string } | { readonly refused: AssertionRefusal };

/** Steps 1 and 2, on the unverified assertion (a compact JWS: three parts): its algorithm, and the client it names. */
export function claimedClientOf(assertion: string): ClaimedClient {
  const [header, payload, signature, ...rest] = assertion.split('.');
  const alg = jsonObject(header ?? '')?.alg;
  const claims = jsonObject(payload ?? '');
  if (signature === undefined || rest.length > 0 || claims === undefined) return { refused: 'malformed' };
  if (!(CLIENT_ASSERTION_ALGORITHMS as readonly unknown[]).includes(alg)) return { refused: 'algorithm' };
  if (typeof claims.iss !== 'string' || claims.iss === '' || claims.sub !== claims.iss) return { refused: 'issuer' };
  return { clientId: claims.iss };
}

/** What the claims must match: the client, the audiences of the endpoint, and the time (epoch seconds). */
export interface AssertionExpectations {
  readonly clientId: string;
  readonly audiences: readonly string[];
  readonly now: number;
}

/** A verified assertion: what its single use is spent by. */
export type CheckedAssertion = { readonly jti: string; readonly exp: number } | { readonly refused: AssertionRefusal };

/** Steps 2 and 4-7 on the claims (pure: the tests in test/unit/oauth/client-assertions.test.ts hold each). */
export function checkAssertionClaims(claims: JWTPayload, expected: AssertionExpectations): CheckedAssertion {
  const skew = ASSERTION_CLOCK_SKEW_SECONDS;
  if (claims.iss !== expected.clientId || claims.sub !== expected.clientId) return { refused: 'issuer' };
  const { aud, exp, jti, nbf } = claims;
  if (aud === undefined || typeof exp !== 'number' || typeof jti !== 'string' || jti === '') return { refused: 'claims_missing' };
  const audiences: unknown[] = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.some((audience) => typeof audience === 'string' && expected.audiences.includes(audience))) return { refused: 'audience' };
  if (exp <= expected.now - skew) return { refused: 'expired' };
  if (exp > expected.now + MAX_ASSERTION_LIFETIME_SECONDS + skew) return { refused: 'lifetime' };
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > expected.now + skew)) return { refused: 'not_yet_valid' };
  return { jti, exp };
}

/** Each client's key set, imported once per container (the configuration is loaded once and frozen). */
const keySets = new WeakMap<NonNullable<ClientConfig['jwks']>, ReturnType<typeof createLocalJWKSet>>();

function keySetOf(jwks: NonNullable<ClientConfig['jwks']>) {
  let keySet = keySets.get(jwks);
  if (keySet === undefined) {
    // The stage file's schema admits public EC, RSA and OKP keys only (lib/platform/config.ts).
    keySet = createLocalJWKSet(jwks);
    keySets.set(jwks, keySet);
  }
  return keySet;
}

/**
 * Steps 3-7: the assertion's signature verified with the client's keys, then its claims checked
 * against `expected` (by checkAssertionClaims alone: jose's compactVerify checks no claim). No
 * `jwks` (a client of another method) finds no key.
 */
export async function verifyClientAssertion(
  assertion: string,
  client: ClientConfig,
  expected: AssertionExpectations,
): Promise<CheckedAssertion> {
  if (client.jwks === undefined) return { refused: 'signature' };
  const options = { algorithms: [...CLIENT_ASSERTION_ALGORITHMS] };
  let payload: Uint8Array | undefined;
  try {
    ({ payload } = await compactVerify(assertion, keySetOf(client.jwks), options));
  } catch (error) {
    if (codeOf(error) !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') return { refused: refusalOf(error) };
    // No `kid`, and several keys fit the algorithm (a rotation): the first whose signature verifies.
    for await (const key of error as AsyncIterable<CryptoKey>) {
      try {
        ({ payload } = await compactVerify(assertion, key, options));
        break;
      } catch (attempt) {
        if (codeOf(attempt) !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') return { refused: refusalOf(attempt) };
      }
    }
  }
  const claims = payload === undefined ? undefined : jsonObject(payload);
  if (claims === undefined) return { refused: payload === undefined ? 'signature' : 'malformed' };
  return checkAssertionClaims(claims, expected);
}

/** jose's errors' `code` (compared by code, not class: the classes would all ship in the bundle). */
function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** jose's reason, as ours: a header or algorithm it refuses, a malformed JWS, else no key that verifies. */
function refusalOf(error: unknown): AssertionRefusal {
  const code = codeOf(error);
  if (code === 'ERR_JOSE_ALG_NOT_ALLOWED' || code === 'ERR_JOSE_NOT_SUPPORTED') return 'algorithm';
  if (code === 'ERR_JWS_INVALID') return 'malformed';
  return 'signature';
}

/**
 * The `jti` as its single-use record is keyed: SHA-256, base64url. The client chooses the `jti`
 * (any length, any characters); its hash keeps the item key short and free of client text.
 */
export function assertionJtiHash(jti: string): string {
  return createHash('sha256').update(jti, 'utf8').digest('base64url');
}
