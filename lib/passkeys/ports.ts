/**
 * The passkeys' ports (docs: /work/design30.md "Storage"): a user's WebAuthn credentials per
 * environment, and what a passkey sign-in writes in the transaction that starts or renews its
 * session (in DynamoDB: lib/adapters/dynamodb/passkey-store.ts).
 */

/**
 * One passkey of one user in one environment: what the registration ceremony proved
 * (WebAuthn L3 §7.1 step 27: "create and store a new credential record").
 */
export interface PasskeyRecord {
  readonly environmentId: string;
  /** base64url, as WebAuthn gives it (the credential record's `id`). Stored only hashed in the key. */
  readonly credentialId: string;
  /** The user's key (lib/keys/hmac-keys.ts `userKeyOf`), as everywhere. */
  readonly userKey: string;
  /** The normalised user a passkey sign-in logs in: a value of the item, never its key. */
  readonly user: { readonly authType: 'email' | 'sms'; readonly value: string };
  /**
   * base64url WebAuthn `user.id`: 32 random bytes per user, reused for their later passkeys, so the
   * authenticator groups them, and never the email or phone (WebAuthn L3 §14.6.1: user handle contents).
   */
  readonly userHandle: string;
  /** The credential public key, COSE_Key encoded (WebAuthn L3 §6.5.1.1). */
  readonly publicKey: Uint8Array;
  readonly signCount: number;
  readonly transports: readonly string[];
  /** The BE flag at registration: a synced passkey (`synced_passkey`) when true, device-bound (`passkey`) when false. */
  readonly backupEligible: boolean;
  /** The BS flag as last seen. */
  readonly backupState: boolean;
  /** '00000000-0000-0000-0000-000000000000' when the authenticator gives none. */
  readonly aaguid: string;
  /** Ms. */
  readonly createdAt: number;
  /** Ms: the last sign-in with it. */
  readonly lastUsedAt?: number;
}

/** What a passkey sign-in writes beside its session and authorization code, in the same transaction. */
export interface PasskeySignIn {
  readonly environmentId: string;
  readonly credentialId: string;
  readonly userKey: string;
  /** The count as read: the update is conditional on it (no concurrent use, no regression). */
  readonly previousSignCount: number;
  readonly signCount: number;
  readonly backupState: boolean;
  /** Ms: the credential's `lastUsedAt`. */
  readonly now: number;
  /** Spent by this sign-in: an item `pkchallenge#<sha256>` put only if absent, so a challenge serves once. */
  readonly challenge: string;
  /** Epoch seconds: the spent challenge's TTL (the login transaction's expiry). */
  readonly challengeExpiresAt: number;
}

/**
 * Why the storage refused a passkey sign-in, as the transaction's cancellation reasons say:
 * `credential` — the credential is gone, is another user's, or its count moved since it was read
 * (a concurrent use or a cloned authenticator); `challenge` — the challenge was spent already;
 * `blocked` — an operator blocked the user. Nothing of the sign-in was written.
 */
export class PasskeySignInRefusedError extends Error {
  constructor(readonly reason: 'credential' | 'challenge' | 'blocked') {
    super(`The passkey sign-in was refused: ${reason}`);
    this.name = 'PasskeySignInRefusedError';
  }
}

export interface PasskeyStore {
  /** The credential (one GetItem, strongly consistent), or undefined. */
  find(environmentId: string, credentialId: string): Promise<PasskeyRecord | undefined>;
  /** The user's passkeys in the environment, oldest first (a Query on the user index, then their items). */
  listOf(environmentId: string, userKey: string): Promise<PasskeyRecord[]>;
  /** Whether the user has a passkey in the environment (the Query alone: no item is read). */
  hasAny(environmentId: string, userKey: string): Promise<boolean>;
  /** Stores a new passkey; false (and nothing written) when its credential id exists already. */
  add(record: PasskeyRecord): Promise<boolean>;
  /** Removes one of the user's own passkeys; false when it is not theirs or not there. */
  remove(environmentId: string, userKey: string, credentialId: string): Promise<boolean>;
  /** The operator's removal of every passkey of the user: how many were removed. */
  removeAll(environmentId: string, userKey: string): Promise<number>;
}
