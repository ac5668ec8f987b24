/**
 * Logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.4): the JWT a relying party receives at
 * its back-channel logout URI when a session it was part of ends. Signed as the client's ID tokens
 * are (§2.4: with the keys ID tokens are signed with): its `idTokenSignedResponseAlg` and that
 * algorithm's current key (lib/oauth/id-tokens.ts), so the JWKS that verifies its ID tokens
 * verifies this too.
 *
 * Header: `typ: logout+jwt` (explicit typing, §2.4 and §4.1 "Cross-JWT Confusion": a logout token
 * can never pass for an ID token or an access token, nor they for it), `alg`, `kid`.
 * Claims: iss, aud (the client id), iat, exp (iat + 2 minutes: a relying party holds a logout
 * token for no longer than its delivery), jti (random: a relying party may refuse a replay by it,
 * §2.6), events (the back-channel logout event, an empty object), sub and sid (both: we always
 * know the session, and a client that registered `backchannelLogoutSessionRequired` needs its
 * `sid`, §2.2). Never a `nonce` (§2.4: "A nonce Claim MUST NOT be present", so that a logout token
 * can never be replayed as an ID token).
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ClientConfig } from '../platform/config';
import { signingKeyFor } from '../oauth/access-tokens';
import type { SigningKeys } from '../keys/signing-keys';
import type { LogoutNotice } from './ports';

/** §2.4: the media type of logout tokens, `application/logout+jwt`, as `typ`. */
export const LOGOUT_TOKEN_TYPE = 'logout+jwt';

/** §2.4 `events`: the member that declares the JWT a logout token. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/**
 * A logout token's lifetime in seconds. Each delivery attempt signs a new one (a retry comes
 * minutes later), so this covers one POST, its timeout and clock skew; two minutes is what the
 * OWASP ASVS (10.5.5) suggests for logout tokens.
 */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;

/**
 * Signs the logout token of `notice` for `client`, issued at `now` (ms).
 * @example
 * const token = await signLogoutToken(keys, client, { issuer, environmentId, clientId: client.id, subject, sid }, clock.now());
 */
export async function signLogoutToken(keys: SigningKeys, client: ClientConfig, notice: LogoutNotice, now: number): Promise<string> {
  const alg = client.idTokenSignedResponseAlg;
  const signer = signingKeyFor(keys, alg);
  const issuedAt = Math.floor(now / 1000);
  return new SignJWT({ events: { [BACKCHANNEL_LOGOUT_EVENT]: {} }, sid: notice.sid })
    .setProtectedHeader({ alg, typ: LOGOUT_TOKEN_TYPE, kid: signer.kid })
    .setIssuer(notice.issuer)
    .setSubject(notice.subject)
    .setAudience(client.id)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + LOGOUT_TOKEN_TTL_SECONDS)
    .setJti(randomUUID())
    .sign(signer.key);
}
