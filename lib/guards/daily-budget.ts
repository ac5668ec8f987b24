/**
 * The daily budget of SMS and voice messages per environment, as a pure model the DynamoDB
 * adapter implements (docs/decisions/008-sms-fraud-guards.md).
 *
 * One counter for every send of an environment would be one hot item: DynamoDB serves at most
 * 1,000 write units a second on one partition, and one item never spans partitions. So the day's
 * budget is split across {@link BUDGET_SHARDS} items whose caps add up to the budget exactly. A
 * container takes messages from a shard picked at random in leases (one conditional write takes
 * up to {@link maxLeaseOf} messages, which the container then spends without a request), and
 * tries the others when its shard is spent. The shards never pass their caps, so the day never
 * sends more than the budget (no overshoot); what a container leased and did not spend before it
 * ended is lost to the day (a bounded undershoot: {@link maxLeaseOf}, {@link leaseSizeOf}).
 */
import { retryAfterSeconds } from '../limits/limits';

/**
 * Shards of a day's budget. At 1,000 sends a second in leases of 10 (a budget of at least 1,000,
 * which a service sending that many has many times over), the shards take 100 writes a second,
 * 25 each, each a 1-unit write: a fortieth of a partition's 1,000. Without leases (budgets under
 * 200: k = 1) four shards still take 250 each, a quarter. More shards would cost more requests
 * on the day's last messages (a container tries each spent shard once) for headroom nobody needs.
 */
export const BUDGET_SHARDS = 4;

/** The most messages one lease takes, whatever the budget. */
export const MAX_LEASE = 10;

/**
 * A container's lease is sized by its own sends in this window (ms): a container that sent fewer
 * than k − 1 messages in the last 5 minutes leases fewer than k, so the messages a container can
 * take with it when it ends are never more than it sent in the 5 minutes before its last lease.
 */
export const LEASE_RATE_WINDOW_MS = 300_000;

/**
 * The largest lease of a budget: 1% of it, at most {@link MAX_LEASE}, at least 1. A lease's
 * unspent messages are lost when its container ends, so each container that ends holding a lease
 * costs the day at most `maxLeaseOf − 1` messages: under 1% of the budget. Budgets under 200 get
 * leases of 1, which is the exact counter (a write per message).
 * @example maxLeaseOf(1000) // 10
 * @example maxLeaseOf(150) // 1
 */
export function maxLeaseOf(maxMessages: number): number {
  return Math.max(1, Math.min(MAX_LEASE, Math.floor(maxMessages / 100)));
}

/**
 * The size of a container's next lease: one more than the messages it spent in the last
 * {@link LEASE_RATE_WINDOW_MS}, at most {@link maxLeaseOf} the budget. A quiet container leases
 * one message at a time (nothing to lose when it ends); a busy one, the most.
 * @example leaseSizeOf(1000, 0) // 1
 * @example leaseSizeOf(1000, 30) // 10
 */
export function leaseSizeOf(maxMessages: number, recentSends: number): number {
  return Math.min(maxLeaseOf(maxMessages), 1 + recentSends);
}

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
 * How full a shard is, in whole percent (rounded down), leased messages counting as spent.
 * Leases pick shards at random, so every shard fills at about the same pace and one shard's fill
 * estimates the budget's: what the 80% alarm reads (it fires when the fullest shard reaches 80%:
 * early by the shards' random imbalance and by the leases not yet spent, never late;
 * docs/decisions/008-sms-fraud-guards.md).
 */
export function usedPercent(sentInShard: number, shardCap: number): number {
  return Math.floor((100 * sentInShard) / shardCap);
}
