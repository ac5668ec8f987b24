/**
 * The attempt limit, as a pure model. The DynamoDB adapter implements the same rule in one
 * conditional write; this model is the reference its tests compare against.
 *
 * The rule (the spec's "States and transitions", the brief's "Attempt limits"):
 * - the service remembers the times of the last `maxAttempts` processed attempts;
 * - an attempt is processed when the oldest of them is at least `windowSeconds` old (or there are
 *   fewer than `maxAttempts`): then at most `maxAttempts` are processed in any window that is
 *   `windowSeconds` long, sliding, not calendar-aligned;
 * - otherwise it is refused and starts a block of `blockSeconds`; the block lifts by itself (the
 *   spec: blocked → active, automatically);
 * - during a block every attempt is refused, not processed, and does not extend the block.
 *
 * The memory of processed attempts is kept through a block. With the spec's numbers (a 300 s block,
 * a 60 s window) it has slid out of the window by the time the block lifts, so counting starts
 * afresh; with a block shorter than the window, the first attempt after it meets a still-full
 * window and starts a new block, so "at most N in any window" holds for every configuration.
 */
import type { LimitConfig } from '../config';
import type { AttemptDecision } from '../ports';

export interface LimitState {
  /** Times (ms) of the last processed attempts, oldest first, at most maxAttempts. */
  readonly processed: readonly number[];
  /** The block lifts at this time (ms); undefined when not blocked. */
  readonly blockedUntil?: number | undefined;
}

export const EMPTY_LIMIT_STATE: LimitState = { processed: [] };

/** Whole seconds from `now` to `until`, at least 1 (RFC 9110 §10.2.3 delay-seconds). */
export function retryAfterSeconds(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}

/** Applies one attempt at `now` to `state`. */
export function applyAttempt(state: LimitState, limit: LimitConfig, now: number): { state: LimitState; decision: AttemptDecision } {
  if (state.blockedUntil !== undefined && state.blockedUntil > now) {
    return { state, decision: { allowed: false, retryAfterSeconds: retryAfterSeconds(state.blockedUntil, now), blockStarted: false } };
  }
  const full = state.processed.length >= limit.maxAttempts;
  const oldest = state.processed[state.processed.length - limit.maxAttempts];
  if (full && oldest !== undefined && oldest > now - limit.windowSeconds * 1000) {
    const blockedUntil = now + limit.blockSeconds * 1000;
    return {
      state: { processed: state.processed, blockedUntil },
      decision: { allowed: false, retryAfterSeconds: limit.blockSeconds, blockStarted: true },
    };
  }
  return {
    state: { processed: [...state.processed, now].slice(-limit.maxAttempts), blockedUntil: state.blockedUntil },
    decision: { allowed: true },
  };
}
