/**
 * A stored passkey of a user, for tests that need one in the table without the ceremony that
 * creates it (the operator's remove-passkeys, its audit events): written through the service's own
 * store, so the item is the one the hosted page would write.
 */
import { randomBytes } from 'node:crypto';
import type { PasskeyRecord } from '../../lib/passkeys/ports';

/** A synced passkey of the email user `email` (user key `userKey`) in the environment `local`, created at `now`. */
export function storedPasskey(credentialId: string, userKey: string, email: string, now: number): PasskeyRecord {
  return {
    environmentId: 'local',
    credentialId,
    userKey,
    user: { authType: 'email', value: email },
    userHandle: randomBytes(32).toString('base64url'),
    // Never checked here: no sign-in uses it.
    publicKey: new Uint8Array(randomBytes(77)),
    signCount: 0,
    transports: ['internal'],
    backupEligible: true,
    backupState: true,
    aaguid: '00000000-0000-0000-0000-000000000000',
    createdAt: now,
  };
}
