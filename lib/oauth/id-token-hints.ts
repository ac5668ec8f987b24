/**
 * ID token hints: an ID token of ours that a relying party sends back to say which login it means,
 * as `id_token_hint` at the end-session endpoint (OpenID Connect RP-Initiated Logout 1.0 §2) and
 * at the authorization endpoint (OIDC Core §3.1.2.1). It proves the relying party once received
 * the token; it says nothing about the user being present now, so its use is the caller's to
 * decide (the end-session endpoint logs out without asking only when the hint's `sid` is the
 * session the browser holds).
 *
 * A hint verifies when:
 * - it is signed by one of the service's published keys, with the algorithm that key was
 *   published for (lib/keys/signing-keys.ts `verificationKeyFor`): ID tokens are signed with the
 *   same keys as access tokens (lib/oauth/id-tokens.ts);
 * - its `iss` is the issuer the request came to;
 * - its header says `typ: JWT`, as every ID token of ours does. Access tokens (`at+jwt`, RFC 9068
 *   §2.1) and logout tokens (`logout+jwt`, Back-Channel Logout §2.4) are signed with the same
 *   keys and carry a `sub` and an `aud` too; explicit typing keeps either from passing for an ID
 *   token (RFC 8725 §3.11, "Use Explicit Typing");
 * - it has a `sub` and an `aud`, as OIDC Core §2 requires of an ID token.
 *
 * Not its time: an expired hint is accepted. RP-Initiated Logout §2 asks the OP to accept ID
 * tokens "when the RP identified by the ID Token's aud claim and/or sid claim has a current
 * session or had a recent session at the OP, even when the exp time has passed", and a relying
 * party logs out with the ID token it got at login, usually long expired (ours live
 * `idTokenTtlSeconds`, minutes; a session lives days). Freshness is the caller's check, against
 * the session the hint's `sid` names, which is what "has a current session" means. jose always
 * checks `exp`, so the verification runs with a clock tolerance no `exp` can fall outside of:
 * the hint is verified as if time did not matter, and the function needs no clock.
 */
import { jwtVerify, type JWTPayload } from 'jose';
import { verificationKeyFor, type VerificationKeys } from '../keys/signing-keys';
import { SIGNING_ALGORITHMS } from '../platform/vocabulary';

/** What a verified hint says: whose login it was, for which client, in which session. */
export interface IdTokenHint {
  /** The user's `sub` for the hint's client (public or pairwise). */
  readonly sub: string;
  /** The `aud`: the client ids the token was issued to (ours name one). */
  readonly aud: readonly string[];
  /** The login's session id (Front-Channel Logout §3), when the token carries one. */
  readonly sid?: string;
  /** Seconds since the epoch: when the user authenticated (`auth_time`), when the token carries it. */
  readonly authTime?: number;
}

/** OIDC Core §2 via RFC 7515 §4.1.9: the `typ` our ID tokens carry (lib/oauth/id-tokens.ts). */
const ID_TOKEN_TYPE = 'JWT';

/**
 * A tolerance past which no `exp` lies: jose refuses an infinite one, and the largest safe
 * integer of seconds is millions of years. It turns off the expiry check and nothing else (our ID
 * tokens carry no `nbf`; jose checks `iat` only with a maximum age, and none is asked).
 */
const ANY_AGE_SECONDS = Number.MAX_SAFE_INTEGER;

/**
 * The hint's claims if `hint` is an ID token this service issued as `issuer`, expired or not;
 * undefined for anything else (a forged or altered token, another issuer's, an access or logout
 * token, not a JWT at all). Never throws for what a client sent.
 * @example
 * const hint = await verifyIdTokenHint(await deps.verificationKeys(), issuer, idTokenHint);
 * if (hint?.sid !== undefined && hint.sid === session.sid) { ... } // the relying party's own login
 */
export async function verifyIdTokenHint(keys: VerificationKeys, issuer: string, hint: string): Promise<IdTokenHint | undefined> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(hint, (header) => verificationKeyFor(keys, header.kid, header.alg), {
      issuer,
      typ: ID_TOKEN_TYPE,
      algorithms: [...SIGNING_ALGORITHMS],
      requiredClaims: ['sub', 'aud'],
      clockTolerance: ANY_AGE_SECONDS,
    }));
  } catch {
    return undefined;
  }
  const { sub, aud, sid, auth_time: authTime } = payload as JWTPayload & { sid?: unknown; auth_time?: unknown };
  const audience = typeof aud === 'string' ? [aud] : (aud ?? []);
  if (typeof sub !== 'string' || sub === '' || audience.length === 0 || !audience.every((entry) => typeof entry === 'string'))
    return undefined;
  return {
    sub,
    aud: audience,
    ...(typeof sid === 'string' && sid !== '' ? { sid } : {}),
    ...(typeof authTime === 'number' && Number.isFinite(authTime) ? { authTime } : {}),
  };
}
