/**
 * The attempt limit, as a pure model. The DynamoDB adapter implements the same rule in one
 * conditional write; this model is the reference its tests compare against.
 *
 * The rule:
 * - the service remembers the times of the last `maxAttempts` processed attempts;
 * - an attempt is processed when the oldest of them is at least `windowSeconds` old (or there are
 *   fewer than `maxAttempts`): then at most `maxAttempts` are processed in any window that is
 *   `windowSeconds` long, sliding, not calendar-aligned;
 * - otherwise it is refused and starts a block of `blockSeconds`; the block lifts by itself (the
 *   state goes blocked → active by itself, with no request needed);
 * - during a block every attempt is refused, not processed, and does not extend the block.
 *
 * The memory of processed attempts is kept through a block. With the default numbers (a 300 s block,
 * a 60 s window) it has slid out of the window by the time the block lifts, so counting starts
 * afresh; with a block shorter than the window, the first attempt after it meets a still-full
 * window and starts a new block, so "at most N in any window" holds for every configuration.
 */
import type { FailureCapConfig, LimitConfig } from '../platform/config';
import type { FailureRun, LimitDecision } from './ports';

export interface LimitState {
  /** Times (ms) of the last processed attempts, oldest first, at most maxAttempts. */
  readonly processed: readonly number[];
  /** The block lifts at this time (ms); undefined when not blocked. */
  readonly blockedUntil?: number | undefined;
}

export const EMPTY_LIMIT_STATE: LimitState = { processed: [] };

/**
 * Retry-After (RFC 9110 §10.2.3 delay-seconds) for a refusal that ends at `until`: the whole
 * seconds left, rounded down so it never exceeds the time the refusal really has left, and never
 * more than `maxSeconds` (the refusal's full length). Rounding up would answer 301 on a 300 s
 * block when a concurrent attempt started it a moment after this one read the clock.
 */
export function retryAfterSeconds(until: number, now: number, maxSeconds: number): number {
  return Math.min(maxSeconds, Math.max(0, Math.floor((until - now) / 1000)));
}

/** Applies one attempt at `now` to `state`. */
export function applyAttempt(state: LimitState, limit: LimitConfig, now: number): { state: LimitState; decision: LimitDecision } {
  if (state.blockedUntil !== undefined && state.blockedUntil > now) {
    return {
      state,
      decision: {
        allowed: false,
        retryAfterSeconds: retryAfterSeconds(state.blockedUntil, now, limit.blockSeconds),
        blockStarted: false,
        reason: 'limit',
      },
    };
  }
  const full = state.processed.length >= limit.maxAttempts;
  const oldest = state.processed[state.processed.length - limit.maxAttempts];
  if (full && oldest !== undefined && oldest > now - limit.windowSeconds * 1000) {
    const blockedUntil = now + limit.blockSeconds * 1000;
    return {
      state: { processed: state.processed, blockedUntil },
      decision: { allowed: false, retryAfterSeconds: limit.blockSeconds, blockStarted: true, reason: 'limit' },
    };
  }
  return {
    state: { processed: [...state.processed, now].slice(-limit.maxAttempts), blockedUntil: state.blockedUntil },
    decision: { allowed: true },
  };
}

/**
 * The failure cap (NIST SP 800-63B §5.2.2), as a pure model the DynamoDB adapter mirrors.
 *
 * A run counts consecutive failed code exchanges for one user from its first failure (`since`).
 * A failure more than `windowSeconds` after `since` starts a new run; a success ends the run. A
 * user whose run has reached `maxConsecutive` is refused at the token endpoint until
 * `since + windowSeconds`, so at most `maxConsecutive` failures fit in any window. Only a success
 * clears a run early, and a success needs the code, which is what the attacker does not have.
 */
export function isCapped(run: FailureRun, cap: FailureCapConfig, now: number): boolean {
  return run.count >= cap.maxConsecutive && !runHasLapsed(run, cap, now);
}

/** Retry-After for a capped user: until the run's window has passed. */
export function capRetryAfter(run: FailureRun, cap: FailureCapConfig, now: number): number {
  return retryAfterSeconds(run.since + cap.windowSeconds * 1000, now, cap.windowSeconds);
}

/** The run after one more failure at `now`. */
export function applyFailure(run: FailureRun | undefined, cap: FailureCapConfig, now: number): FailureRun {
  if (run === undefined || runHasLapsed(run, cap, now)) return { count: 1, since: now };
  return { count: run.count + 1, since: run.since };
}

/** Whether `run`'s window has passed at `now`: it counts for nothing, and the next failure starts a new run. */
export function runHasLapsed(run: FailureRun, cap: FailureCapConfig, now: number): boolean {
  return run.since <= now - cap.windowSeconds * 1000;
}
