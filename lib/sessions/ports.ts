/**
 * The single sign-on session's ports (docs/decisions/014-sso-sessions.md): the session items and
 * the index that finds a user's sessions and refresh token families (in DynamoDB:
 * lib/adapters/dynamodb/session-store.ts).
 */
import type { AuthorizationCodeRecord } from '../oauth/ports';
import type { PasskeySignIn } from '../passkeys/ports';
import type { LoginMethod } from '../platform/vocabulary';

/**
 * A session at the service: one browser's login to one environment, which later authorization
 * requests of that environment reuse instead of asking for a code. Stored under the keyed hash of
 * the cookie's reference, so neither the table nor the logs hold what the cookie holds.
 */
export interface SessionRecord {
  /** HMAC of the cookie's reference (lib/sessions/sessions.ts `sessionKeyOf`): the item's key. */
  readonly sessionKey: string;
  /**
   * The session's public id: the `sid` of its ID tokens and logout tokens (Back-Channel Logout
   * §2.4). Never the cookie's reference: a relying party knows the `sid`, and must not be able to
   * become the user with it.
   */
  readonly sid: string;
  readonly environmentId: string;
  /** The user's key (lib/keys/hmac-keys.ts `userKeyOf`): the operator controls find sessions by it. */
  readonly userKey: string;
  /**
   * The normalised user, as the code proved it: every client's `sub` (public or pairwise) and
   * address claims are derived from it, as from a code. A value of the item, never its key.
   */
  readonly user: { readonly authType: 'email' | 'sms'; readonly value: string };
  /** How the user logged in: a code's channel or a passkey (the ID token's `amr` and `acr`). */
  readonly channel: LoginMethod;
  /** Seconds since the epoch: when the code was checked (`auth_time`, OIDC Core §2). */
  readonly authTime: number;
  /** Ms: when the session started (the absolute lifetime runs from it) and was last used (the idle lifetime). */
  readonly createdAt: number;
  readonly lastSeenAt: number;
  /** Clients it logged the user in to: each with a back-channel logout URI is told when it ends. */
  readonly clients: readonly string[];
}

/** One use of a live session: it logs the user in to `clientId` now. */
export interface SessionUse {
  readonly sessionKey: string;
  readonly environmentId: string;
  readonly clientId: string;
  readonly now: number;
  /** The session must have been used after this (ms): the idle lifetime. */
  readonly seenAfter: number;
  /** The session must have started after this (ms): the absolute lifetime. */
  readonly startedAfter: number;
  /** Its new TTL (epoch seconds). */
  readonly keepUntil: number;
}

/** A re-authentication of a live session by a new code of its user: a use that also restarts its `auth_time` and absolute lifetime. */
export interface SessionRenewal extends SessionUse {
  /** The session must still be this user's. */
  readonly userKey: string;
  readonly channel: LoginMethod;
  /** Epoch seconds: the new code's check. */
  readonly authTime: number;
}

export interface SessionStore {
  /** The session under `sessionKey` (a strongly consistent read), or undefined. Expiry is the caller's to judge. */
  find(sessionKey: string): Promise<SessionRecord | undefined>;
  /**
   * Stores a new session and, in the same transaction, the authorization code its login issued
   * (none when the login goes on to the passkeys page first) and a passkey sign-in's writes.
   * @throws PasskeySignInRefusedError when the passkey sign-in's conditions refuse it: nothing is written.
   */
  start(session: SessionRecord, keepUntil: number, code?: AuthorizationCodeRecord, passkey?: PasskeySignIn): Promise<void>;
  /**
   * Uses a live session: touches it (idle lifetime), adds the client, and stores the
   * authorization code, in one transaction; false (and nothing written) when the session ended,
   * lapsed or is another environment's since it was read.
   */
  use(use: SessionUse, code: AuthorizationCodeRecord): Promise<boolean>;
  /**
   * Re-authenticates a live session and stores the authorization code (and a passkey sign-in's
   * writes), in one transaction; false (and nothing written) when it ended, lapsed or is no longer
   * that user's since it was read.
   * @throws PasskeySignInRefusedError when the passkey sign-in's conditions refuse it: nothing is written.
   */
  renew(renewal: SessionRenewal, code: AuthorizationCodeRecord, passkey?: PasskeySignIn): Promise<boolean>;
  /** Deletes the session; returns it as it was, or undefined when there was none. */
  end(sessionKey: string): Promise<SessionRecord | undefined>;
}

/** What the user index holds of one user in one environment: the keys of their sessions and refresh families. */
export interface UserItems {
  readonly sessionKeys: readonly string[];
  /** Each family with the `sid` of the login that started it and whether it outlives its session (offline_access). */
  readonly families: ReadonlyArray<{ readonly familyKey: string; readonly sid: string | undefined; readonly offline: boolean }>;
}

/** Finds a user's sessions and refresh token families (a sparse index: only those items are in it). */
export interface UserIndex {
  itemsOf(environmentId: string, userKey: string): Promise<UserItems>;
}
