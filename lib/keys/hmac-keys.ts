/**
 * One master secret, several purposes. Each purpose gets its own key derived with HKDF-SHA256
 * (RFC 5869), so a digest made for one purpose can never be replayed as another's.
 *
 * - `user`: keys DynamoDB items on an HMAC of the normalised user id, never the id in clear;
 * - `code`: the digest a one-time code is stored as;
 * - `subject`: the `sub` of access tokens, stable for one user across logins (per environment);
 * - `authorizationCode`: the keyed hash an authorization code is stored under;
 * - `loginTransaction`: the key that encrypts the hosted login page's transaction cookie;
 * - `guard`: keys the SMS fraud guards' counters on an HMAC of the source network and of the
 *   destination prefix (an IP address is personal data too: never a key or a log field in clear).
 * - `refreshToken`: the keyed hash a refresh token is stored as, and its family's key;
 * - `refreshSuccessor`: derives a refresh token's successor from it (lib/oauth/refresh-tokens.ts).
 * - `session`: the keyed hash a single sign-on session is stored under (lib/sessions/sessions.ts).
 * - `testMessage`: encrypts the message kept for a stage's test recipient (lib/otp/test-outbox.ts).
 *
 * Rotating the master secret therefore changes every `sub` and resets every counter and code:
 * see docs/operations/key-rotation.md.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import type { UserIdentity } from '../identity/identity';

export interface HmacKeys {
  readonly user: Buffer;
  readonly code: Buffer;
  readonly subject: Buffer;
  /** The keyed hash authorization codes are stored under (lib/oauth/authorization-codes.ts). */
  readonly authorizationCode: Buffer;
  /** Encrypts the hosted login page's transaction cookie (lib/login/login-transaction.ts). */
  readonly loginTransaction: Buffer;
  /** Keys the fraud guards' counters (lib/guards/phone-guards.ts). */
  readonly guard: Buffer;
  /** The keyed hash refresh tokens are stored as, and the key of their family (lib/oauth/refresh-tokens.ts). */
  readonly refreshToken: Buffer;
  /** Derives a refresh token's successor from the token (lib/oauth/refresh-tokens.ts). */
  readonly refreshSuccessor: Buffer;
  /** The keyed hash a session's cookie reference is stored under (lib/sessions/sessions.ts). */
  readonly session: Buffer;
  /** Encrypts the message kept for a test recipient instead of delivering it (lib/otp/test-outbox.ts). */
  readonly testMessage: Buffer;
}

/** The master secret must carry at least 256 bits. */
export const MIN_SECRET_BYTES = 32;

/**
 * Derives the purpose keys from the master secret.
 * @example const keys = deriveHmacKeys(randomBytes(32));
 */
export function deriveHmacKeys(secret: Buffer): HmacKeys {
  if (secret.length < MIN_SECRET_BYTES) {
    throw new Error(`The HMAC secret must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `identity/${purpose}/v1`, 32));
  return Object.freeze({
    user: derive('user-key'),
    code: derive('code-digest'),
    subject: derive('subject'),
    authorizationCode: derive('authorization-code'),
    loginTransaction: derive('login-transaction'),
    guard: derive('guard-key'),
    refreshToken: derive('refresh-token'),
    refreshSuccessor: derive('refresh-successor'),
    session: derive('sso-session'),
    testMessage: derive('test-message'),
  });
}

/** HMAC-SHA256 of `parts` under `key`, base64url. Parts are JSON-encoded so no two inputs collide. */
export function hmac(key: Buffer, parts: readonly string[]): string {
  return createHmac('sha256', key).update(JSON.stringify(parts)).digest('base64url');
}

/** The key a user's counters and codes are stored under. */
export function userKeyOf(keys: HmacKeys, user: UserIdentity): string {
  return hmac(keys.user, [user.authType, user.value]);
}

/**
 * The `sub` of a user's tokens: opaque, stable, not the email or phone number, and different per
 * environment (environments are tenants: two of them must not be able to correlate their users by
 * `sub`). Without `sector`, the same for every client of an environment (OIDC Core §8 `public`);
 * with one, different per sector too (§8.1 `pairwise`: "a unique sub value to each Sector
 * Identifier", not reversible by anyone but the service: an HMAC under its secret key). The
 * pairwise input has four parts, the public one three, so no sector name can make one collide
 * with the other.
 */
export function subjectOf(keys: HmacKeys, environmentId: string, user: UserIdentity, sector?: string): string {
  if (sector === undefined) return hmac(keys.subject, [environmentId, user.authType, user.value]);
  return hmac(keys.subject, [environmentId, sector, user.authType, user.value]);
}

/**
 * The key a fraud guard's counter is stored under: the source network (`ip`) or the destination
 * prefix (`prefix`), each in its own namespace so that no value of one can name a counter of the other.
 */
export function guardKeyOf(keys: HmacKeys, guard: 'ip' | 'prefix', subject: string): string {
  return hmac(keys.guard, [guard, subject]);
}

/** A short, non-reversible handle for logs, so decisions about one user can be correlated. */
export function logHandleOf(userKey: string): string {
  return userKey.slice(0, 12);
}
