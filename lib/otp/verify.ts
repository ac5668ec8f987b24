/**
 * Verifying a one-time code: the one place a presented code is checked. Its callers are thin: the
 * token endpoint's OTP grant (lib/oauth/grants/one-time-code-grant.ts) and the hosted login page
 * (lib/login/authorize.ts) parse their own requests, then call the two steps here:
 *
 *   1. `beginVerify`: the user's attempt is counted, across all clients, with the cap on their
 *      consecutive failed checks: 429 before anything else is checked;
 *   2. `verifyCode`: one conditional write spends a try of this user's live code for this client
 *      and environment (unexpired, a try left, this exact guess not made before) and returns it;
 *      the digests and the PKCE challenge are then compared here. A match ends the user's failure
 *      run and `redeem` issues what the code was presented for; anything else counts into the run
 *      and comes back as a `Verification` with its reason, which the caller never tells a client
 *      (the grant answers `invalid_grant`; the page picks one of three messages).
 *
 * A user an operator blocked (docs/operations/operator-controls.md) gets the answer of a user
 * who has no code: the attempt, the try and the failure are counted as for any check (the same
 * requests, so the same time), and the check is refused as `user_blocked`, which the grant
 * answers as `invalid_grant` and the page as a dead code.
 *
 * The DynamoDB requests of each outcome are counted on the wire in test/http/token.test.ts,
 * test/http/guessing.test.ts and test/faults/storage-faults.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { ClientConfig, EnvironmentConfig, ServiceConfig } from '../platform/config';
import { TemporarilyUnavailableError } from '../platform/errors';
import { LOG_EVENTS } from '../platform/log-events';
import type { Clock, Log } from '../platform/ports';
import type { AttemptLimiter, FailureRun } from '../limits/ports';
import type { KnownNumbers } from '../guards/ports';
import type { AbandonedPresentation, CodeRecord, CodeStore, GuessResult } from './ports';
import { countAttempt, countFailure, endFailureRun, UserBlockedError } from '../limits/attempts';
import { digestCode, digestsEqual, guessDigestOf, isWellFormedCode } from './codes';
import { logHandleOf, userKeyOf, type HmacKeys } from '../keys/hmac-keys';
import type { UserIdentity } from '../identity/identity';

/** What verifying a one-time code needs (the token endpoint's OTP grant, the hosted login page). */
export interface VerifyCodeDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly limiter: AttemptLimiter;
  readonly codes: CodeStore;
  /** A phone number's successful check makes it known (docs/decisions/012-known-numbers.md). */
  readonly knownNumbers: KnownNumbers;
  readonly hmacKeys: () => Promise<HmacKeys>;
  readonly log: Log;
}

/** A check whose attempt was counted: what `verifyCode` needs of it. */
export interface CountedCheck {
  readonly keys: HmacKeys;
  readonly userKey: string;
  readonly now: number;
  /** The user's failure run as it stood, so a success knows whether to end it. */
  readonly failures: FailureRun | undefined;
  /** An operator blocked the user: `verifyCode` refuses the code whatever it is. */
  readonly blocked: boolean;
}

/** Step 1: the user's attempt is counted, with the cap on consecutive failures; 429 when refused. */
export async function beginVerify(deps: VerifyCodeDeps, environment: EnvironmentConfig, user: UserIdentity): Promise<CountedCheck> {
  const keys = await deps.hmacKeys();
  const userKey = userKeyOf(keys, user);
  const now = deps.clock.now();
  try {
    const failures = await countAttempt(deps, 'token', environment, userKey, now);
    return { keys, userKey, now, failures, blocked: false };
  } catch (error) {
    // Never the caller's to see: the check goes on as any other and is refused at the code.
    if (!(error instanceof UserBlockedError)) throw error;
    return { keys, userKey, now, failures: error.failures, blocked: true };
  }
}

/** The code a user presents, and everything it must be bound to. */
export interface PresentedCode {
  readonly environment: EnvironmentConfig;
  readonly client: ClientConfig;
  readonly user: UserIdentity;
  readonly redirectUri: string;
  readonly code: string;
  /** S256 of the presented code_verifier, or undefined when none was presented. */
  readonly codeChallenge: string | undefined;
}

/** The outcome of a verification: what `redeem` returned, or why the code was refused. */
export type Verification<T> =
  { readonly verified: true; readonly value: T } | { readonly verified: false; readonly reason: RejectionReason };

/**
 * Step 2: the code is checked against the user's live code (one conditional write spends a try;
 * the digests and the PKCE challenge are compared here). When it matches, the user's failure run
 * ends and `redeem` issues what the code was presented for; otherwise the failure is counted and
 * logged, and the reason returned for the caller to keep to itself.
 *
 * A presentation that fails with a 503 once its guess may have been recorded (the guess's own
 * write timed out, or a later step failed) gives the user nothing, and is abandoned so that the
 * same code presented again succeeds (lib/adapters/dynamodb/code-store.ts).
 */
export async function verifyCode<T>(
  deps: VerifyCodeDeps,
  counted: CountedCheck,
  presented: PresentedCode,
  redeem: (record: CodeRecord) => Promise<T>,
): Promise<Verification<T>> {
  const { keys, userKey, now } = counted;
  const { environment, client, user } = presented;
  const refusal = {
    deps,
    environment,
    userKey,
    now,
    failures: counted.failures,
    logFields: { environment: environment.id, client: client.id, user: logHandleOf(userKey) },
  };

  // A redirect URI the client never registered, or a string that is not a code, cannot match any
  // stored code: refuse it without spending a try of the user's live code.
  if (!client.redirectUris.includes(presented.redirectUri) || !isWellFormedCode(presented.code)) {
    return refuse(refusal, 'malformed');
  }

  const codeDigest = digestCode(
    keys.code,
    { environmentId: environment.id, clientId: client.id, redirectUri: presented.redirectUri, authType: user.authType, user: user.value },
    presented.code,
  );
  const presentation = { environmentId: environment.id, clientId: client.id, userKey, presentationId: randomUUID() };
  let result: GuessResult;
  try {
    result = await deps.codes.guess({ ...presentation, guessDigest: guessDigestOf(codeDigest, presented.codeChallenge), now });
  } catch (error) {
    throw await abandonedBy(deps, presentation, error);
  }
  // A blocked user's check spends its try like anyone's (the same requests), then fails as a code that is not there.
  if (counted.blocked) return refuse(refusal, 'user_blocked');
  if (result.outcome === 'refused') return refuse(refusal, refusedReason(result.record, result.repeated, now));
  const mismatch = comparedReason(result.record, codeDigest, presented.codeChallenge);
  // The record is the code after this try: a wrong code that spent the last one killed it.
  if (mismatch === 'wrong_code' && result.record.tries >= result.record.maxTries) return refuse(refusal, 'wrong_code_last_try');
  if (mismatch !== undefined) return refuse(refusal, mismatch);

  try {
    await endFailureRun(deps, environment, userKey, counted.failures, now);
    if (user.authType === 'sms') await rememberNumber(deps, environment, userKey, now);
    return { verified: true, value: await redeem(result.record) };
  } catch (error) {
    throw await abandonedBy(deps, presentation, error);
  }
}

/**
 * The error to rethrow, once a presentation that answers 503 is abandoned. Only a 503: any other
 * failure is a bug whose effects are unknown, and the code stays used. An abandon that fails is
 * logged; the user's retry is then refused as a repetition, as before abandons existed.
 */
async function abandonedBy(deps: VerifyCodeDeps, presentation: AbandonedPresentation, error: unknown): Promise<unknown> {
  if (!(error instanceof TemporarilyUnavailableError)) return error;
  try {
    await deps.codes.abandon(presentation);
  } catch (abandonError) {
    deps.log.error(LOG_EVENTS.presentationNotAbandoned, {
      environment: presentation.environmentId,
      client: presentation.clientId,
      error: (abandonError as Error).name,
    });
  }
  return error;
}

/**
 * A phone number that proved it receives its codes is known for `rememberDays`: one write, which
 * never fails the login it follows (the code is spent by now; a 503 would cost the user their
 * sign-in for a record that only saves them from a spent budget). A failure is logged.
 */
async function rememberNumber(deps: VerifyCodeDeps, environment: EnvironmentConfig, userKey: string, now: number): Promise<void> {
  const days = environment.limits.knownNumbers.rememberDays;
  if (days === 0) return;
  try {
    await deps.knownNumbers.remember({ environmentId: environment.id, userKey }, now + days * 86_400_000);
  } catch (error) {
    deps.log.error(LOG_EVENTS.knownNumberNotRecorded, { environment: environment.id, error: (error as Error).name });
  }
}

/** Why a code was refused: logged, never told to the client. */
export type RejectionReason =
  | 'malformed'
  | 'not_found'
  | 'expired'
  | 'exhausted'
  | 'repeated'
  | 'wrong_code'
  /** A wrong code on the code's last try: the code is dead (the hosted page says so at once). */
  | 'wrong_code_last_try'
  | 'wrong_verifier'
  | 'inconsistent'
  /** An operator blocked the user: answered as a code that does not exist (the page: a dead code). */
  | 'user_blocked';

/** Why no try could be spent on the live code. The order mirrors the store's condition. */
export function refusedReason(record: CodeRecord | undefined, repeated: boolean, now: number): RejectionReason {
  if (record === undefined) return 'not_found';
  if (record.notAfter <= now) return 'expired';
  if (record.tries >= record.maxTries) return 'exhausted';
  // Refused with a try left and unexpired: it was this guess again, or (with another clock's
  // `now` in between) something no single clock value explains.
  return repeated ? 'repeated' : 'inconsistent';
}

/**
 * After a try was spent: undefined when the code matches (digests compared in constant time) and
 * so does the PKCE challenge, the reason otherwise. A code sent without a challenge matches only
 * an exchange without a verifier (a verifier there would be a downgrade attempt).
 */
export function comparedReason(record: CodeRecord, codeDigest: string, codeChallenge: string | undefined): RejectionReason | undefined {
  if (!digestsEqual(record.codeDigest, codeDigest)) return 'wrong_code';
  if (record.codeChallenge !== codeChallenge) return 'wrong_verifier';
  return undefined;
}

interface Refusal {
  readonly deps: VerifyCodeDeps;
  readonly environment: EnvironmentConfig;
  readonly userKey: string;
  readonly now: number;
  /** The user's failure run as the attempt saw it. */
  readonly failures: FailureRun | undefined;
  readonly logFields: Record<string, unknown>;
}

/** A refusal, after counting the failure into the user's run (the cap's input). */
async function refuse(refusal: Refusal, reason: RejectionReason): Promise<{ verified: false; reason: RejectionReason }> {
  await countFailure(refusal.deps, refusal.environment, refusal.userKey, refusal.now, refusal.failures);
  refusal.deps.log.info(LOG_EVENTS.grantRefused, { ...refusal.logFields, reason });
  return { verified: false, reason };
}
