/**
 * The daily budget of SMS and voice messages per environment, as a pure model the DynamoDB
 * adapter implements (docs/decisions/008-sms-fraud-guards.md).
 *
 * One counter for every send of an environment would be one hot item: DynamoDB serves at most
 * 1,000 write units a second on one partition, and one item never spans partitions. So the day's
 * budget is split across {@link BUDGET_SHARDS} items whose caps add up to the budget exactly; a
 * send spends one message from a shard picked at random, and tries the others when its shard is
 * spent. The sum of the shards never exceeds the budget (each shard's conditional write keeps its
 * own cap), and no send is refused while any shard has a message left.
 */
import { retryAfterSeconds } from './limits';

/**
 * Shards of a day's budget. At 1,000 sends a second, each one a 1-unit write (an item under
 * 1 KB), four shards take about 250 write units a second each: a quarter of a partition's
 * 1,000, so four times that rate still fits. More shards would cost more requests on the day's
 * last messages (a send tries each spent shard once per container) for headroom nobody needs.
 */
export const BUDGET_SHARDS = 4;

const DAY_MS = 86_400_000;

/** The UTC day of `now`, as the budget's items name it: `YYYY-MM-DD`. */
export function utcDayOf(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** When the UTC day after `now`'s begins (ms). */
export function nextUtcDayStart(now: number): number {
  return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
}

/**
 * Each shard's cap: `maxMessages` split as evenly as whole messages allow over at most
 * {@link BUDGET_SHARDS} shards, never a shard of zero, adding up to `maxMessages` exactly.
 * @example shardCapsOf(10) // [3, 3, 2, 2]
 */
export function shardCapsOf(maxMessages: number): number[] {
  const shards = Math.min(BUDGET_SHARDS, maxMessages);
  const base = Math.floor(maxMessages / shards);
  const extra = maxMessages % shards;
  return Array.from({ length: shards }, (_, index) => base + (index < extra ? 1 : 0));
}

/**
 * Retry-After for a spent budget: the whole seconds until the next UTC day, rounded down so that it
 * never says more than the time left (as every Retry-After of the service).
 */
export function budgetRetryAfter(now: number): number {
  return retryAfterSeconds(nextUtcDayStart(now), now, DAY_MS / 1000);
}

/**
 * How full a shard is, in whole percent (rounded down). Sends pick shards at random, so every
 * shard fills at about the same pace and one shard's fill estimates the budget's: what the 80%
 * alarm reads (it fires when the fullest shard reaches 80%: early by the shards' random
 * imbalance, never late; docs/decisions/008-sms-fraud-guards.md).
 */
export function usedPercent(sentInShard: number, shardCap: number): number {
  return Math.floor((100 * sentInShard) / shardCap);
}
