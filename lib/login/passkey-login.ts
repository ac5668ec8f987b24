/**
 * Passkeys on the hosted login page (docs/decisions/016-passkeys.md): the ceremonies' steps as the
 * page takes them, each a typed result for lib/login/authorize.ts to answer with a page or a
 * redirect. The WebAuthn checks themselves are lib/passkeys/ceremonies.ts's; the sessions and
 * authorization codes the endpoint's.
 *
 * - **Sign-in** (`action=passkey`): the posted assertion's credential id names a stored credential
 *   (one GetItem), which must be this environment's; the assertion is verified against the
 *   transaction's challenge, the relying party and the stored key. A found credential whose
 *   assertion fails counts a failure into its user's cap (NIST SP 800-63B §5.2.2), as a wrong code
 *   does; an unknown one names nobody and counts nowhere. The refusal never says which check
 *   failed; the log does (a sign-count regression at warn: a cloned authenticator, WebAuthn L3
 *   §6.1.1).
 * - **Registration** (`action=passkey_register`): only on the passkeys page of a login by code,
 *   within {@link ENROLMENT_SECONDS} of it, for the user that code proved.
 * - **Removal** (`action=passkey_remove`): only the user's own.
 * - **"Not now"** (`action=later`): a cookie per environment that keeps the offer away from that
 *   browser for the environment's `passkeys.askAgainDays`.
 *
 * Logs name users by their log handle and passkeys by a short hash of the credential id, never
 * the id or the address.
 */
import { createHash } from 'node:crypto';
import type { ClientConfig, EnvironmentConfig, ServiceConfig } from '../platform/config';
import { LOG_EVENTS } from '../platform/log-events';
import type { Clock, Log } from '../platform/ports';
import type { AttemptLimiter } from '../limits/ports';
import { countFailure } from '../limits/attempts';
import { logHandleOf } from '../keys/hmac-keys';
import type { PasskeyRecord, PasskeyStore } from '../passkeys/ports';
import {
  authenticationOptions,
  credentialIdOf,
  registrationOptions,
  relyingPartyOf,
  verifyAuthentication,
  verifyRegistration,
  type RelyingParty,
} from '../passkeys/ceremonies';
import { passkeyNameOf } from '../passkeys/authenticators';
import type { LoginMethod } from '../platform/vocabulary';
import type { PasskeyListItem } from './login-page';

/** What the page's passkey steps need beside the endpoint's other dependencies. */
export interface PasskeyLoginDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly log: Log;
  /** A found credential's failed assertion counts into its user's failure cap. */
  readonly limiter: AttemptLimiter;
  readonly passkeys: PasskeyStore;
}

/**
 * Seconds after a login by code during which that login may create a passkey: the page offers
 * it at once, and a registration is a new way into the account, so it must follow a fresh proof
 * of the address, not a session days old.
 */
export const ENROLMENT_SECONDS = 300;

/**
 * The longest `credential` field the page takes: a registration response with attestation `none`
 * and an RS256 key is about 1.5 KB of JSON; ten times that bounds the parsing a post can ask for.
 */
export const MAX_CREDENTIAL_LENGTH = 16_384;

/** The relying party of `environment`'s ceremonies: the stage's RP ID (else the issuer's host), the issuer's origin. */
export function relyingPartyFor(config: ServiceConfig, issuer: string, environment: EnvironmentConfig): RelyingParty {
  return relyingPartyOf(config.passkeyRpId, issuer, environment.serviceName);
}

/** Whether the page offers (and accepts) passkeys for `client`. */
export function offersPasskeys(client: ClientConfig): boolean {
  return client.passkeys !== 'off';
}

/** The request options a page with a passkey sign-in carries (JSON for the page's script). */
export function signInOptions(rp: RelyingParty, challenge: string): string {
  return JSON.stringify(authenticationOptions(rp, challenge));
}

/** The login method of a passkey: a synced one (backup eligible) or one bound to its device. */
export function methodOf(passkey: Pick<PasskeyRecord, 'backupEligible'>): LoginMethod {
  return passkey.backupEligible ? 'synced_passkey' : 'passkey';
}

/** A passkey in the logs: a short hash of its credential id (it correlates, and names no credential). */
export function passkeyHandleOf(credentialId: string): string {
  return createHash('sha256').update(credentialId).digest('base64url').slice(0, 12);
}

/** The posted JSON of a ceremony's response, or undefined when it is none (absent, too long, not JSON). */
export function postedCredential(raw: unknown): unknown {
  if (typeof raw !== 'string' || raw === '' || raw.length > MAX_CREDENTIAL_LENGTH) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** Where a ceremony ran: for the logs and the failure count. */
export interface CeremonyScope {
  readonly environment: EnvironmentConfig;
  readonly client: ClientConfig;
  readonly rp: RelyingParty;
}

/** A checked assertion: the credential it signed with, and what the sign-in writes of it. */
export type AssertionCheck =
  | { readonly ok: true; readonly passkey: PasskeyRecord; readonly signCount: number; readonly backupState: boolean }
  | { readonly ok: false };

/**
 * Checks a posted assertion (WebAuthn L3 §7.2) against `challenge`: the credential it names must
 * be stored for this environment, and the assertion must verify against it. A refusal is logged
 * with its reason and, for a credential found, counted into its user's failure cap; the caller
 * learns only that it failed.
 */
export async function checkAssertion(
  deps: PasskeyLoginDeps,
  scope: CeremonyScope,
  challenge: string,
  rawCredential: unknown,
): Promise<AssertionCheck> {
  const response = postedCredential(rawCredential);
  const credentialId = response === undefined ? undefined : credentialIdOf(response);
  if (credentialId === undefined) {
    refuseSignIn(deps, scope, 'malformed', undefined);
    return { ok: false };
  }
  const passkey = await deps.passkeys.find(scope.environment.id, credentialId);
  // The store keys credentials by environment; a record of another names nobody here all the same.
  if (passkey === undefined || passkey.environmentId !== scope.environment.id) {
    refuseSignIn(deps, scope, 'unknown_credential', { credentialId });
    return { ok: false };
  }
  const result = await verifyAuthentication(scope.rp, challenge, response, passkey);
  if (!result.ok) {
    await refuseFound(deps, scope, result.reason, passkey);
    return { ok: false };
  }
  return { ok: true, passkey, signCount: result.signCount, backupState: result.backupState };
}

/**
 * A sign-in with a found credential refused, after its assertion or by the storage (a spent
 * challenge, a count that moved, an operator's block): logged, and counted into the user's failure
 * cap as a wrong code is.
 */
export async function refuseFound(deps: PasskeyLoginDeps, scope: CeremonyScope, reason: string, passkey: PasskeyRecord): Promise<void> {
  refuseSignIn(deps, scope, reason, passkey);
  await countFailure(deps, scope.environment, passkey.userKey, deps.clock.now(), undefined);
}

function refuseSignIn(
  deps: PasskeyLoginDeps,
  scope: CeremonyScope,
  reason: string,
  passkey: { readonly credentialId: string; readonly userKey?: string } | undefined,
): void {
  const fields = {
    reason,
    environment: scope.environment.id,
    client: scope.client.id,
    ...(passkey?.userKey === undefined ? {} : { user: logHandleOf(passkey.userKey) }),
    ...(passkey === undefined ? {} : { passkey: passkeyHandleOf(passkey.credentialId) }),
  };
  // A count that went backwards is a cloned authenticator or a replay: someone should look.
  if (reason === 'counter') deps.log.warn(LOG_EVENTS.passkeyRefused, fields);
  else deps.log.info(LOG_EVENTS.passkeyRefused, fields);
}

/** The user a passkeys page is for: whom the code proved, and the handle a new passkey of theirs gets. */
export interface SignedInUser {
  readonly userKey: string;
  readonly user: { readonly authType: 'email' | 'sms'; readonly value: string };
  readonly userHandle: string;
}

/**
 * The WebAuthn user handle a new passkey of a user gets: the one of their passkeys (the oldest: all
 * share it, so an authenticator replaces rather than duplicates), else, for a user who has none,
 * 32 bytes derived from the page's challenge: as random as the challenge (WebAuthn L3 §14.6.1:
 * never the address or a hash of it), and found again from the challenge the registration
 * answers, so the transaction cookie need not carry it.
 */
export function userHandleOf(passkeys: readonly PasskeyRecord[], challenge: string): string {
  return passkeys[0]?.userHandle ?? createHash('sha256').update('passkey user handle\0').update(challenge).digest('base64url');
}

/** The creation options the passkeys page carries (JSON for the page's script), excluding the user's passkeys. */
export function creationOptions(rp: RelyingParty, user: SignedInUser, challenge: string, existing: readonly PasskeyRecord[]): string {
  // user.name is what the user's passkey manager lists: their own address, on their own device.
  const name = user.user.value;
  return JSON.stringify(registrationOptions(rp, { handle: user.userHandle, name, displayName: name }, challenge, existing));
}

/** The user's passkeys as the passkeys page lists them. */
export function listItemsOf(passkeys: readonly PasskeyRecord[]): PasskeyListItem[] {
  return passkeys.map((passkey) => ({
    id: passkey.credentialId,
    name: passkeyNameOf(passkey.aaguid),
    createdAt: passkey.createdAt,
    lastUsedAt: passkey.lastUsedAt,
  }));
}

/** What a registration came to: the new passkey, or a refusal the page shows as "could not create". */
export type Registration = { readonly ok: true; readonly passkey: PasskeyRecord } | { readonly ok: false };

/**
 * Verifies and stores a posted registration response (WebAuthn L3 §7.1) for the signed-in user.
 * `failure`: the name of the error the browser's ceremony ended with (the script posts it with no
 * credential), logged from a closed list.
 */
export async function registerPasskey(
  deps: PasskeyLoginDeps,
  scope: CeremonyScope,
  owner: SignedInUser,
  challenge: string,
  rawCredential: unknown,
  failure: unknown,
): Promise<Registration> {
  const refused = (reason: string, credentialId?: string): Registration => {
    deps.log.info(LOG_EVENTS.passkeyRefused, {
      reason,
      ceremony: 'registration',
      environment: scope.environment.id,
      client: scope.client.id,
      user: logHandleOf(owner.userKey),
      ...(credentialId === undefined ? {} : { passkey: passkeyHandleOf(credentialId) }),
    });
    return { ok: false };
  };
  const response = postedCredential(rawCredential);
  if (response === undefined) return refused(browserFailureOf(failure));
  const result = await verifyRegistration(scope.rp, challenge, response);
  if (!result.ok) return refused(result.reason);
  const { credential } = result;
  const passkey: PasskeyRecord = {
    environmentId: scope.environment.id,
    credentialId: credential.credentialId,
    userKey: owner.userKey,
    user: { authType: owner.user.authType, value: owner.user.value },
    userHandle: owner.userHandle,
    publicKey: credential.publicKey,
    signCount: credential.signCount,
    transports: [...credential.transports],
    backupEligible: credential.backupEligible,
    backupState: credential.backupState,
    aaguid: credential.aaguid,
    createdAt: deps.clock.now(),
  };
  // An id that exists already is another registration's (this user's or, impossibly, another's): never replaced.
  if (!(await deps.passkeys.add(passkey))) return refused('credential_exists', credential.credentialId);
  deps.log.info(LOG_EVENTS.passkeyRegistered, {
    environment: scope.environment.id,
    client: scope.client.id,
    user: logHandleOf(owner.userKey),
    passkey: passkeyHandleOf(passkey.credentialId),
    method: methodOf(passkey),
  });
  return { ok: true, passkey };
}

/** The errors a browser's WebAuthn ceremony ends with (WebAuthn L3 §5.1.3): logged by name; anything else as `other`. */
const BROWSER_FAILURES = new Set([
  'NotAllowedError',
  'InvalidStateError',
  'AbortError',
  'SecurityError',
  'NotSupportedError',
  'ConstraintError',
  'UnknownError',
]);

function browserFailureOf(failure: unknown): string {
  if (typeof failure !== 'string' || failure === '') return 'malformed';
  return `browser:${BROWSER_FAILURES.has(failure) ? failure : 'other'}`;
}

/** Removes one of the signed-in user's passkeys (only their own); whether it was removed. */
export async function removePasskey(deps: PasskeyLoginDeps, scope: CeremonyScope, userKey: string, rawId: unknown): Promise<boolean> {
  if (typeof rawId !== 'string' || rawId === '' || rawId.length > MAX_CREDENTIAL_LENGTH) return false;
  if (!(await deps.passkeys.remove(scope.environment.id, userKey, rawId))) return false;
  deps.log.info(LOG_EVENTS.passkeyRemoved, {
    by: 'user',
    count: 1,
    environment: scope.environment.id,
    client: scope.client.id,
    user: logHandleOf(userKey),
    passkey: passkeyHandleOf(rawId),
  });
  return true;
}

/**
 * The "Not now" cookie of `environmentId`: `1` while the passkey offer should not be made in this
 * browser. A cookie, not a table item: the question is about the device, not the user.
 */
export function passkeyLaterCookieName(environmentId: string): string {
  return `idp_passkey_later_${environmentId}`;
}

/**
 * `Set-Cookie` for "Not now": for `days`, on the transaction cookie's path (only the
 * authorization endpoint reads it), never readable by script, sent with the page's own posts
 * (`SameSite=Lax`), `Secure` over https.
 */
export function passkeyLaterSetCookie(environmentId: string, days: number, path: string, secure: boolean): string {
  return `${passkeyLaterCookieName(environmentId)}=1; Max-Age=${days * 86_400}; Path=${path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
