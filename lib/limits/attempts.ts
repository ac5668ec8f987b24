/**
 * Counting attempts against the limits (docs/decisions/001-attempt-limit.md), for either
 * operation, and the token endpoint's failure cap (NIST SP 800-63B §5.2.2); an operator's block
 * of a user, which lives in the same counters (docs/operations/operator-controls.md).
 */
import type { EnvironmentConfig } from '../platform/config';
import { TooManyRequestsError } from '../platform/errors';
import { LOG_EVENTS } from '../platform/log-events';
import type { Log } from '../platform/ports';
import type { AttemptKey, AttemptLimiter, FailureRun } from './ports';
import { logHandleOf } from '../keys/hmac-keys';
import { runHasLapsed } from './limits';

interface AttemptDeps {
  readonly limiter: AttemptLimiter;
  readonly log: Log;
}

/**
 * An attempt of a user an operator blocked. Never a client's answer: the callers (lib/otp/issue.ts,
 * lib/otp/verify.ts) catch it and answer exactly as for a user who has no code, so a block cannot
 * be told apart from the outside. `failures`: the user's failure run as the attempt saw it.
 */
export class UserBlockedError extends Error {
  constructor(readonly failures: FailureRun | undefined) {
    super('The user is blocked by an operator');
    this.name = 'UserBlockedError';
  }
}

/**
 * Records the attempt; throws 429 with Retry-After when the limit (or, for the token endpoint,
 * the failure cap) refuses it, and UserBlockedError for a blocked user whose attempt they allow.
 * Returns the user's failure run as it stood (token endpoint only).
 */
export async function countAttempt(
  deps: AttemptDeps,
  operation: 'send' | 'token',
  environment: EnvironmentConfig,
  userKey: string,
  now: number,
): Promise<FailureRun | undefined> {
  const cap = operation === 'token' ? environment.limits.failures : undefined;
  const decision = await deps.limiter.recordAttempt(keyOf(operation, environment, userKey), environment.limits[operation], now, cap);
  if (!decision.allowed && decision.reason === 'operator_block') {
    deps.log.info(LOG_EVENTS.blockedUserAttempt, { operation, environment: environment.id, user: logHandleOf(userKey) });
    throw new UserBlockedError(decision.failures);
  }
  if (!decision.allowed) {
    deps.log.info(LOG_EVENTS.attemptRefused, {
      operation,
      environment: environment.id,
      user: logHandleOf(userKey),
      reason: decision.reason,
      blockStarted: decision.blockStarted,
    });
    throw new TooManyRequestsError(decision.retryAfterSeconds);
  }
  return decision.failures;
}

/**
 * Counts a failed exchange into the user's run (`known`: the run as the request's attempt saw it);
 * the failure that reaches the cap is logged (and so counted as a metric).
 */
export async function countFailure(
  deps: AttemptDeps,
  environment: EnvironmentConfig,
  userKey: string,
  now: number,
  known: FailureRun | undefined,
): Promise<void> {
  const cap = environment.limits.failures;
  const run = await deps.limiter.recordFailure(keyOf('token', environment, userKey), cap, now, known);
  if (run.count === cap.maxConsecutive) {
    deps.log.warn(LOG_EVENTS.failureCapReached, { environment: environment.id, user: logHandleOf(userKey), failures: run.count });
  }
}

/**
 * A successful exchange ends the user's failure run: one write, only when there is a run to end.
 * A run whose window has passed counts for nothing (the next failure starts a new one over it), so
 * it is left as it is and the success stays at its own requests.
 */
export async function endFailureRun(
  deps: AttemptDeps,
  environment: EnvironmentConfig,
  userKey: string,
  run: FailureRun | undefined,
  now: number,
): Promise<void> {
  if (run === undefined || runHasLapsed(run, environment.limits.failures, now)) return;
  await deps.limiter.clearFailures(keyOf('token', environment, userKey));
}

/**
 * A user's two counters: their sends are counted per mailbox (lib/identity/identity.ts
 * `mailboxOf`: every `+tag` of an address), their code checks per exact address.
 */
export interface UserCounters {
  readonly send: string;
  readonly token: string;
}

/** Blocks the user's sends and code checks in `environment` until unblocked: one write per counter. */
export async function blockUser(deps: AttemptDeps, environment: EnvironmentConfig, counters: UserCounters, now: number): Promise<void> {
  await deps.limiter.block(keyOf('send', environment, counters.send), now);
  await deps.limiter.block(keyOf('token', environment, counters.token), now);
}

/**
 * Lifts the block; returns whether either counter had one. Each counter is then kept as long as
 * anything in it can still matter: a limit block started just before, then its window (and the
 * failure cap's window for code checks). Longer is harmless; TTL is housekeeping only.
 */
export async function unblockUser(
  deps: AttemptDeps,
  environment: EnvironmentConfig,
  counters: UserCounters,
  now: number,
): Promise<boolean> {
  const { send, token, failures } = environment.limits;
  const keepSend = now + (send.blockSeconds + send.windowSeconds) * 1000;
  const keepToken = now + (token.blockSeconds + Math.max(token.windowSeconds, failures.windowSeconds)) * 1000;
  const sends = await deps.limiter.unblock(keyOf('send', environment, counters.send), keepSend);
  const checks = await deps.limiter.unblock(keyOf('token', environment, counters.token), keepToken);
  return sends || checks;
}

function keyOf(operation: 'send' | 'token', environment: EnvironmentConfig, userKey: string): AttemptKey {
  return { operation, environmentId: environment.id, userKey };
}
