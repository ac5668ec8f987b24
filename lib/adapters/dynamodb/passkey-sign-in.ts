/**
 * What a passkey sign-in writes, and the credential's item key: apart from passkey-store.ts so
 * that the session store, which writes them in its transaction (and which every function that
 * ends sessions carries), does not bring the passkey store with it.
 */
import { createHash } from 'node:crypto';
import type { PasskeySignIn } from '../../passkeys/ports';
import { attemptItemKey, passkeyChallengeItemKey, passkeyItemKey } from './item-keys';
import { TABLE_DEFINITION } from './table';

/** The attempt limiter's attribute for an operator's block (attempt-limiter.ts): one block refuses every kind of login. */
const OPERATOR_BLOCKED = 'operator_blocked';

/** The key hash of a credential id: SHA-256 of its base64url text, base64url. */
export function credentialHashOf(credentialId: string): string {
  return createHash('sha256').update(credentialId).digest('base64url');
}

/**
 * What a passkey sign-in writes, as the first three entries of the TransactWriteItems that starts
 * or renews its session and stores its authorization code (session-store.ts), in this order:
 *
 * 0. the credential's new count, backup state and last use, on condition that it still exists, is
 *    still this user's, and its count is still the one the ceremony compared against: a
 *    concurrent sign-in with the same credential, or a removal since the read, cancels this one
 *    (the count's own rule, WebAuthn L3 §7.2 step 21, is the ceremony's);
 * 1. the spent challenge, put only if absent, so a replayed assertion (its challenge inside the
 *    signed client data) signs in at most once; it lives as long as the login transaction that
 *    issued it, after which the transaction, and so the challenge, is refused anyway;
 * 2. a check that no operator blocked the user (attempt-limiter.ts `operator_blocked` on the
 *    user's token attempt item), at no extra request.
 *
 * A cancellation whose reason is on entry i is `PasskeySignInRefusedError` 'credential',
 * 'challenge' or 'blocked' respectively (session-store.ts).
 */
export function passkeySignInItems(tableName: string, signIn: PasskeySignIn) {
  return [
    {
      Update: {
        TableName: tableName,
        Key: { pk: passkeyKeyOf(signIn.environmentId, signIn.credentialId) },
        UpdateExpression: 'SET sign_count = :count, last_used_at = :now, backup_state = :backupState',
        ConditionExpression: 'attribute_exists(pk) AND user_key = :userKey AND sign_count = :previous',
        ExpressionAttributeValues: {
          ':count': signIn.signCount,
          ':now': signIn.now,
          ':backupState': signIn.backupState,
          ':userKey': signIn.userKey,
          ':previous': signIn.previousSignCount,
        },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          pk: passkeyChallengeItemKey(challengeHashOf(signIn.challenge)),
          [TABLE_DEFINITION.timeToLiveAttribute]: signIn.challengeExpiresAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      ConditionCheck: {
        TableName: tableName,
        Key: { pk: attemptItemKey({ operation: 'token', environmentId: signIn.environmentId, userKey: signIn.userKey }) },
        ConditionExpression: 'attribute_not_exists(#blocked)',
        ExpressionAttributeNames: { '#blocked': OPERATOR_BLOCKED },
      },
    },
  ] as const;
}

/** The refusal of entry i of `passkeySignInItems`. */
export const PASSKEY_SIGN_IN_REFUSALS = ['credential', 'challenge', 'blocked'] as const;

/** The key hash of a challenge: SHA-256 of its base64url text, base64url (a spent one's item holds no challenge in clear). */
export function challengeHashOf(challenge: string): string {
  return createHash('sha256').update(challenge).digest('base64url');
}

/** A credential's item key in `environmentId`. */
export function passkeyKeyOf(environmentId: string, credentialId: string): string {
  return passkeyItemKey(environmentId, credentialHashOf(credentialId));
}
