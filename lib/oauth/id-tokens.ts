/**
 * ID tokens (OpenID Connect Core 1.0 §2, §3.1.3.6): issued beside the access token when the
 * granted scope includes `openid`, signed like the client's access tokens (ES256 or RS256) with
 * the same keys, so the same JWKS verifies them.
 *
 * Claims: iss, sub (the same subject as the access token), aud (the client id), exp, iat,
 * auth_time, nonce (when the authorization request had one), amr, at_hash (§3.1.3.6: the left half
 * of the hash of the access token, with the hash of the signing algorithm), and the user's
 * address claims where the scope asks for them (§5.4).
 */
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import type { SigningAlgorithm } from '../platform/vocabulary';
import { amrOf, signingKeyFor, type Grant } from './access-tokens';
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
  const alg = grant.client.accessToken.signingAlgorithm;
  const signer = signingKeyFor(keys, alg);
  return (
    new SignJWT({
      auth_time: grant.authTime,
      amr: amrOf(grant.channel),
      at_hash: atHash(accessToken, alg),
      ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
      ...grant.claims,
    })
      .setProtectedHeader({ alg, typ: 'JWT', kid: signer.kid })
      .setIssuer(grant.issuer)
      .setSubject(grant.subject)
      .setAudience(grant.client.id)
      .setIssuedAt(grant.issuedAt)
      // As long as the access token it comes with: the client's configured lifetime.
      .setExpirationTime(grant.issuedAt + grant.client.accessToken.ttlSeconds)
      .sign(signer.key)
  );
}
