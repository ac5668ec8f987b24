/**
 * Every item's key in the one table (lib/adapters/dynamodb/table.ts): the table's map, one
 * function per kind of item, each used by the adapter that owns the item and by the tests that
 * read items back. Users appear only as HMACs (the `userKey`s and `subjectKey`s of lib/keys/),
 * never in clear. A module of its own, with no schema, so that an adapter reaching another's item
 * (revocation reaches the refresh token family) does not ship that adapter.
 */
import type { KnownNumberKey, SendWindowKey } from '../../guards/ports';
import type { AttemptKey } from '../../limits/ports';
import type { CodeSlot } from '../../otp/ports';
import type { TestMessageKey } from '../../otp/test-outbox';

/** An attempt counter of an operation (`send`, `token`) for a user (attempt-limiter.ts). */
export function attemptItemKey(key: AttemptKey): string {
  return `limit#${key.operation}#${key.environmentId}#${key.userKey}`;
}

/** A phone number that completed a login recently, with its own send allowance (known-numbers.ts). */
export function knownNumberItemKey(key: KnownNumberKey): string {
  return `known#${key.environmentId}#${key.userKey}`;
}

/** A fraud guard's sliding window of sends: per source network (`ip`, `email_ip`) or destination prefix (send-guards.ts). */
export function sendWindowItemKey(key: SendWindowKey): string {
  return `guard#${key.guard}#${key.environmentId}#${key.subjectKey}`;
}

/** A shard of an environment's SMS and voice budget for one UTC day (send-guards.ts). */
export function budgetShardItemKey(environmentId: string, day: string, shard: number): string {
  return `guard#budget#${environmentId}#${day}#${shard}`;
}

/** The one live code of a client and user in an environment, with the codes it replaced (code-store.ts). */
export function codeItemKey(slot: CodeSlot): string {
  return `code#${slot.environmentId}#${slot.clientId}#${slot.userKey}`;
}

/** An authorization code of the hosted login, by the keyed hash of the code (authorization-code-store.ts). */
export function authorizationCodeItemKey(codeHash: string): string {
  return `authcode#${codeHash}`;
}

/** An opaque access token, by the SHA-256 of the token (token-store.ts). */
export function tokenItemKey(tokenHash: string): string {
  return `token#${tokenHash}`;
}

/** A refresh token family, by the keyed hash of its id (refresh-token-store.ts). */
export function familyItemKey(familyKey: string): string {
  return `refresh#${familyKey}`;
}

/** A revoked JWT access token, until it expires (revocation-store.ts). */
export function revokedItemKey(jti: string): string {
  return `revoked#${jti}`;
}

/** A client assertion's `jti`, used once by its client, until the assertion expires (client-assertion-store.ts). */
export function clientAssertionItemKey(clientId: string, jtiHash: string): string {
  return `assertion#${clientId}#${jtiHash}`;
}

/** A single sign-on session, by the keyed hash of its cookie's reference (session-store.ts). */
export function sessionItemKey(sessionKey: string): string {
  return `session#${sessionKey}`;
}

/**
 * A passkey of an environment, by the SHA-256 (base64url) of its credential id (passkey-store.ts
 * `credentialHashOf`): the id is chosen by the authenticator (up to 1023 bytes), the hash is short
 * and of one shape.
 */
export function passkeyItemKey(environmentId: string, credentialHash: string): string {
  return `passkey#${environmentId}#${credentialHash}`;
}

/** A passkey challenge spent by a sign-in, by its SHA-256, until its login transaction expires (passkey-store.ts). */
export function passkeyChallengeItemKey(challengeHash: string): string {
  return `pkchallenge#${challengeHash}`;
}

/** The message kept for a test recipient of an environment instead of delivered (test-outbox.ts). */
export function testMessageItemKey(key: TestMessageKey): string {
  return `testmsg#${key.environmentId}#${key.userKey}`;
}

/** The user index's partition (table.ts `userIndex`): one user in one environment. */
export function userIndexKey(environmentId: string, userKey: string): string {
  return `${environmentId}#${userKey}`;
}

/** The user index's sort key of a session (`session#<sid>`). */
export function sessionSortKey(sid: string): string {
  return `session#${sid}`;
}

/** The user index's sort key of a passkey (`passkey#<credential hash>`). */
export function passkeySortKey(credentialHash: string): string {
  return `passkey#${credentialHash}`;
}

/** The user index's sort key of a refresh token family: `family#<sid>`, or `offline#<sid>` for one that outlives its session. */
export function familySortKey(sid: string | undefined, offline: boolean): string {
  return `${offline ? 'offline' : 'family'}#${sid ?? ''}`;
}
