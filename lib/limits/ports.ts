/**
 * The attempt limit's port: the counters lib/limits/ decides on (in DynamoDB:
 * lib/adapters/dynamodb/attempt-limiter.ts).
 */
import type { FailureCapConfig, LimitConfig } from '../platform/config';

/** Whose attempts are counted: one counter per operation, environment and (hashed) user. */
export interface AttemptKey {
  readonly operation: 'token' | 'send';
  readonly environmentId: string;
  /** HMAC of the normalised user id, or of the recipient's mailbox for sends (lib/keys/hmac-keys.ts). */
  readonly userKey: string;
}

/**
 * A run of consecutive failed code exchanges for one user (NIST SP 800-63B §5.2.2), kept in the
 * user's token attempt item: how many, and when the run's first failure was (ms).
 */
export interface FailureRun {
  readonly count: number;
  readonly since: number;
}

/** What the attempt limit (and the failure cap) decide: lib/limits/limits.ts is its model. */
export type LimitDecision =
  | {
      readonly allowed: true;
      /** The user's failure run as it stood (token attempts with a cap only), so a success knows whether to clear it. */
      readonly failures?: FailureRun | undefined;
    }
  | {
      readonly allowed: false;
      /** Whole seconds until the refusal ends (Retry-After), never more than the time it has left. */
      readonly retryAfterSeconds: number;
      /** True for the attempt that started the block (useful for metrics and logs). */
      readonly blockStarted: boolean;
      /** `limit`: the per-window attempt limit and its block. `failure_cap`: too many consecutive failures. */
      readonly reason: 'limit' | 'failure_cap';
    };

/** The limit's decision, or an operator's block of a user the limit allowed. */
export type AttemptDecision =
  | LimitDecision
  | {
      /**
       * An operator blocked the user (lib/admin/operator.ts). The attempt was counted all the same,
       * so a blocked user meets the limit and the cap exactly as any other (their refusals come
       * first, as `limit` and `failure_cap`): the answers never tell a block apart.
       */
      readonly allowed: false;
      readonly reason: 'operator_block';
      /** The user's failure run as it stood (token attempts with a cap only): a blocked check counts its failure too. */
      readonly failures?: FailureRun | undefined;
    };

/**
 * The attempt limit: at most `maxAttempts` processed in any sliding window of
 * `windowSeconds`; the attempt that would exceed it starts a block of `blockSeconds`; attempts
 * during the block are refused without extending it. Must be race-safe.
 *
 * With a `cap` (the token endpoint), a user whose current failure run has reached
 * `cap.maxConsecutive` is refused too, until the run's window has passed.
 */
export interface AttemptLimiter {
  recordAttempt(key: AttemptKey, limit: LimitConfig, now: number, cap?: FailureCapConfig): Promise<AttemptDecision>;
  /**
   * Counts one failed exchange into the user's current run (or starts a new one); returns the run.
   * `known` is the run as this request's attempt saw it: a hint for which write to try first, so
   * that a failure after a run's window has passed is one write, not a refused one and a second.
   */
  recordFailure(key: AttemptKey, cap: FailureCapConfig, now: number, known?: FailureRun): Promise<FailureRun>;
  /** Ends the user's failure run (a successful exchange). */
  clearFailures(key: AttemptKey): Promise<void>;
  /**
   * Sets the operator block on the counter (`now`: when, ms): every later attempt that the limit
   * and the cap allow is answered `operator_block`, until `unblock`. The counter is kept for as
   * long as the block lasts (no expiry).
   */
  block(key: AttemptKey, now: number): Promise<void>;
  /**
   * Lifts the operator block; the counter then expires at `keepUntil` (ms) like any other, unless
   * an attempt renews it. Returns whether there was a block to lift.
   */
  unblock(key: AttemptKey, keepUntil: number): Promise<boolean>;
}
