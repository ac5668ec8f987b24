/**
 * ID tokens (OpenID Connect Core 1.0 §2, §3.1.3.6): issued beside the access token when the
 * granted scope includes `openid`, signed with the client's `idTokenSignedResponseAlg` (RS256 by
 * default, OIDC Registration §2, or ES256) by the same keys as access tokens, so the same JWKS
 * verifies them, and living `idTokenTtlSeconds` (their own lifetime, not the access token's).
 *
 * Claims: iss, sub (the same subject as the access token: public or pairwise per the client),
 * aud (the client id), exp, iat, auth_time, nonce (when the authorization request had one), amr,
 * acr (§2: a passkey login's `phr`, none for a code: lib/oauth/access-tokens.ts `acrOf`), sid (the login's session id, OIDC Front-Channel Logout §3, when known), at_hash (§3.1.3.6: the
 * left half of the hash of the access token, with the hash of the signing algorithm), and the
 * user's address claims where the scope asks for them (§5.4).
 */
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import type { SigningAlgorithm } from '../platform/vocabulary';
import { acrClaimOf, amrOf, signingKeyFor, type Grant } from './access-tokens';
import type { SigningKeys } from '../keys/signing-keys';

/** The hash each signing algorithm's `at_hash` is made with (OIDC Core §3.1.3.6: "the hash algorithm used in the alg"). */
const AT_HASH_DIGEST: Readonly<Record<SigningAlgorithm, string>> = { ES256: 'sha256', RS256: 'sha256' };

/**
 * `at_hash`: base64url of the left-most half of the hash of the access token's ASCII octets.
 * @example atHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y', 'RS256') // '77QmUPtjPfzWtF2AnpK9RQ' (OIDC Core §A.3 test vector)
 */
export function atHash(accessToken: string, alg: SigningAlgorithm): string {
  const digest = createHash(AT_HASH_DIGEST[alg]).update(accessToken, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** Signs the ID token of `grant`, bound to `accessToken` by `at_hash`. */
export async function signIdToken(keys: SigningKeys, grant: Grant, accessToken: string): Promise<string> {
  const alg = grant.client.idTokenSignedResponseAlg;
  const signer = signingKeyFor(keys, alg);
  return new SignJWT({
    auth_time: grant.authTime,
    amr: amrOf(grant.channel),
    ...acrClaimOf(grant.channel),
    at_hash: atHash(accessToken, alg),
    ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
    ...(grant.sessionId === undefined ? {} : { sid: grant.sessionId }),
    ...grant.claims,
  })
    .setProtectedHeader({ alg, typ: 'JWT', kid: signer.kid })
    .setIssuer(grant.issuer)
    .setSubject(grant.subject)
    .setAudience(grant.client.id)
    .setIssuedAt(grant.issuedAt)
    .setExpirationTime(grant.issuedAt + grant.client.idTokenTtlSeconds)
    .sign(signer.key);
}
