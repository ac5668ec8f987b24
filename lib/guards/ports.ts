/**
 * The ports of the fraud guards on SMS and voice sends (docs/decisions/008-sms-fraud-guards.md):
 * their counters, and the numbers known to have logged in (lib/adapters/dynamodb/).
 */
import type { DailyBudgetConfig, SendWindowConfig } from '../platform/config';

/**
 * Whose sends a guard's window counts, per environment: a source network's SMS and voice sends
 * (`ip`) or email sends (`email_ip`), or a destination prefix's.
 */
export interface SendWindowKey {
  readonly guard: 'ip' | 'email_ip' | 'prefix';
  readonly environmentId: string;
  /** HMAC of the network or the prefix (lib/keys/hmac-keys.ts `guardKeyOf`): never the value in clear. */
  readonly subjectKey: string;
}

export type WindowDecision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      /** Whole seconds until the window has room again, never more than the time it has left. */
      readonly retryAfterSeconds: number;
    };

export type BudgetDecision =
  | {
      readonly allowed: true;
      /**
       * Messages the shard this one was leased from had spent or leased when it was (this one's
       * lease included), and its cap: how full the budget is, as of the container's last lease.
       */
      readonly sentInShard: number;
      readonly shardCap: number;
    }
  | { readonly allowed: false };

/**
 * The counters of the fraud guards. Must be race-safe: of any number of concurrent sends, a window
 * counts at most `maxSends`, and a day's budget spends at most `maxMessages` (a container may
 * lease messages ahead, docs/decisions/008-sms-fraud-guards.md: never more than the budget).
 */
export interface SendGuards {
  /**
   * Counts a send into the sliding window of `key` if it has room (fewer than `maxSends` counted in
   * the last `windowSeconds`); a refused send is not counted.
   */
  countSend(key: SendWindowKey, window: SendWindowConfig, now: number): Promise<WindowDecision>;
  /**
   * Spends one message of the environment's budget for `now`'s UTC day, if any is left: from the
   * container's lease, else from a new lease.
   */
  spendBudget(environmentId: string, budget: DailyBudgetConfig, now: number): Promise<BudgetDecision>;
  /**
   * True when this container already knows `now`'s day's budget is spent (it has met every shard
   * spent and holds no leased message): a send can be refused without touching any counter.
   * False says nothing.
   */
  budgetKnownSpent(environmentId: string, budget: DailyBudgetConfig, now: number): boolean;
}

/** A phone number's record of logins, per environment: `userKey` is the HMAC of the E.164 number. */
export interface KnownNumberKey {
  readonly environmentId: string;
  readonly userKey: string;
}

/**
 * Numbers that completed a login recently (docs/decisions/012-known-numbers.md), exempt from the
 * prefix guard and the daily budget up to an allowance of their own.
 */
export interface KnownNumbers {
  /** The number completed a login: known until `until` (ms). One write. */
  remember(key: KnownNumberKey, until: number): Promise<void>;
  /**
   * Spends one send of the number's own allowance (fewer than `maxSends` in any `windowMs`) if it
   * is known at `now`: one conditional write. False when it is not known, or its allowance is spent.
   */
  spendKnown(key: KnownNumberKey, allowance: { readonly maxSends: number; readonly windowMs: number }, now: number): Promise<boolean>;
}
