/** Counting an attempt against the limit (decisions/001-attempt-limit.md), for either operation. */
import type { EnvironmentConfig } from '../config';
import { TooManyRequestsError } from '../errors';
import { LOG_EVENTS } from '../log-events';
import type { AttemptLimiter, Log } from '../ports';
import { logHandleOf } from './hmac-keys';

/** Records the attempt; throws 429 with Retry-After when the limit refuses it. */
export async function countAttempt(
  deps: { readonly limiter: AttemptLimiter; readonly log: Log },
  operation: 'send' | 'token',
  environment: EnvironmentConfig,
  userKey: string,
  now: number,
): Promise<void> {
  const decision = await deps.limiter.recordAttempt({ operation, environmentId: environment.id, userKey }, environment.limits[operation], now);
  if (!decision.allowed) {
    deps.log.info(LOG_EVENTS.attemptRefused, { operation, environment: environment.id, user: logHandleOf(userKey), blockStarted: decision.blockStarted });
    throw new TooManyRequestsError(decision.retryAfterSeconds);
  }
}
