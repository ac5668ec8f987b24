/**
 * Counting attempts against the limits (docs/decisions/001-attempt-limit.md), for either
 * operation, and the token endpoint's failure cap (NIST SP 800-63B §5.2.2).
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
 * Records the attempt; throws 429 with Retry-After when the limit (or, for the token endpoint,
 * the failure cap) refuses it. Returns the user's failure run as it stood (token endpoint only).
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

function keyOf(operation: 'send' | 'token', environment: EnvironmentConfig, userKey: string): AttemptKey {
  return { operation, environmentId: environment.id, userKey };
}
