/**
 * The fraud guards' counters in DynamoDB (docs/decisions/008-sms-fraud-guards.md): one
 * conditional UpdateItem per counter taken, so they are race-safe without a read, as the attempt
 * limit is (attempt-limiter.ts).
 *
 * - A guard's window (`guard#ip#…`, `guard#prefix#…`) keeps the times of the last N sends it
 *   counted in `w0` (oldest) … `w{N-1}` (newest). Counting a send shifts them down by one and
 *   writes `now` into the newest slot, on the condition that the oldest is empty or at least one
 *   window old: exactly "fewer than N counted in (now − window, now]", a sliding window. DynamoDB
 *   evaluates every operand against the item as it was before the update, so the shift is one
 *   expression, and it serialises the writes on one item, so of 50 concurrent sends exactly N
 *   pass. A refused write returns the old item (ReturnValuesOnConditionCheckFailure), whose oldest
 *   slot says when the window has room again. No block: the window itself is the limit, and a
 *   block would need a second write.
 * - The day's budget is split over shards (`guard#budget#<environment>#<day>#<shard>`,
 *   lib/guards/daily-budget.ts), each a count `sent` under its own cap. A container leases
 *   messages: `ADD sent :take` on the condition `sent <= cap − take`, `take` sized by its own
 *   recent sends (`leaseSizeOf`), then spends them one send at a time without a request. A lease
 *   that does not fit returns the shard's count, and the container takes what is left of it; a
 *   spent shard sends it to the others, from a random one on. A shard spent for a day stays
 *   spent, so the adapter remembers the spent shards it has met (per container, per environment
 *   and day) and never asks them again.
 *
 * Requests: a window is one write, counted or refused. The budget is none for a send its
 * container's lease pays, else one write (the lease), plus one per shard met with less left than
 * the lease asked (at most one per shard) and one per spent shard this container had not yet met.
 */
import { randomInt } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import '../../platform/zod';
import * as z from 'zod/mini';
import type { DailyBudgetConfig, SendWindowConfig } from '../../platform/config';
import { LEASE_RATE_WINDOW_MS, leaseSizeOf, MAX_LEASE, nextUtcDayStart, shardCapsOf, utcDayOf } from '../../guards/daily-budget';
import { retryAfterSeconds } from '../../limits/limits';
import type { BudgetDecision, SendGuards, SendWindowKey, WindowDecision } from '../../guards/ports';
import { itemOfFailure, storageFailure } from './client';
import { slotShifts } from './sliding-window';
import { sendWindowItemKey, budgetShardItemKey } from './item-keys';
import { TABLE_DEFINITION, ttlSeconds } from './table';

const SENT = 'sent';
const slot = (index: number) => `w${index}`;

/** What this adapter reads back of a window item: its oldest slot (the others only shift). */
const windowItemSchema = z.looseObject({ w0: z.optional(z.number()) });
/** What it reads back of a budget shard. */
const shardItemSchema = z.looseObject({ [SENT]: z.int().check(z.gte(1)) });

/** This container's part of an environment's day of budget. */
interface DayBudget {
  /** Shards met spent: never asked again this day. */
  readonly spent: Set<number>;
  /** Messages leased and not yet spent. */
  left: number;
  /** The fill of the shard the last lease came from, as it answered (what each send logs). */
  fill: { sentInShard: number; shardCap: number };
  /** Times of this container's last sends (at most a lease's worth), which size its next lease. */
  recent: number[];
  /** Leases under way (locally, concurrent sends of one container), and what each resolves to. */
  readonly leases: Set<Promise<number>>;
  /** Messages the leases under way asked for beyond the send that asked, and the sends waiting for them. */
  unclaimed: number;
  waiting: number;
}

/**
 * The update that counts a send into a window of `maxSends`: every slot takes the next one's time
 * (DynamoDB reads every operand before the update), the newest takes `now`. Slot names need no
 * placeholders (none is a reserved word), which keeps the longest window's expression (MAX_WINDOW_SENDS)
 * well inside DynamoDB's 4 KB limit on expressions.
 */
export function windowUpdateExpression(maxSends: number): string {
  return `SET ${slotShifts(maxSends, slot).join(', ')}, #e = :expires`;
}

export class DynamoDbSendGuards implements SendGuards {
  /** This container's budget, by `<environment>#<day>`: today's only. */
  private readonly days = new Map<string, DayBudget>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async countSend(key: SendWindowKey, window: SendWindowConfig, now: number): Promise<WindowDecision> {
    const n = window.maxSends;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: sendWindowItemKey(key) },
          UpdateExpression: windowUpdateExpression(n),
          ConditionExpression: 'attribute_not_exists(w0) OR w0 <= :windowStart',
          ExpressionAttributeNames: { '#e': TABLE_DEFINITION.timeToLiveAttribute },
          ExpressionAttributeValues: {
            ':now': now,
            // DynamoDB rejects unused values, and with one slot there is nothing to shift.
            ...(n > 1 ? { ':zero': 0 } : {}),
            ':windowStart': now - window.windowSeconds * 1000,
            // Housekeeping: a window after the newest send, the item says nothing.
            ':expires': ttlSeconds(now + window.windowSeconds * 1000),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { allowed: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw storageFailure(error, `count send (${key.guard})`);
      const oldest = parseItem(windowItemSchema, itemOfFailure(error), 'guard window').w0;
      if (oldest === undefined) throw new Error('A guard window refused a send without an oldest slot');
      return { allowed: false, retryAfterSeconds: retryAfterSeconds(oldest + window.windowSeconds * 1000, now, window.windowSeconds) };
    }
  }

  async spendBudget(environmentId: string, budget: DailyBudgetConfig, now: number): Promise<BudgetDecision> {
    const day = this.dayOf(environmentId, now);
    // Concurrent sends in one container happen only locally (Lambda gives a container one request
    // at a time): a send that finds nothing leased waits for a lease under way that has a message
    // no other send waits for, else takes a lease of its own. So leases run side by side under a
    // burst, and at most one of them is ever left with messages nobody waits for: a container
    // never holds more than one lease's worth.
    const shards = shardCapsOf(budget.maxMessages).length;
    for (;;) {
      if (day.left > 0) return this.spendLeased(day, now);
      // Every shard is spent (this container met each one empty): no new lease can bring a message,
      // only one under way may. Never start another: two sends whose leases came back empty would
      // each wait for the other's next empty lease, for ever, without a request in between (a
      // livelock of microtasks, which starved the process's timers: issue 26's hung CI run).
      if (day.spent.size >= shards) {
        if (day.leases.size === 0) return { allowed: false };
        await Promise.race(day.leases);
        continue;
      }
      if (day.waiting < day.unclaimed) {
        day.waiting += 1;
        try {
          await Promise.race(day.leases);
        } finally {
          day.waiting -= 1;
        }
        continue;
      }
      const size = leaseSizeOf(budget.maxMessages, day.recent.filter((time) => time > now - LEASE_RATE_WINDOW_MS).length);
      const lease = this.leaseFor(day, environmentId, budget, now, size);
      day.leases.add(lease);
      day.unclaimed += size - 1;
      try {
        await lease;
      } finally {
        day.leases.delete(lease);
        day.unclaimed -= size - 1;
      }
      // What it took is in `left`; an empty lease has marked every shard spent (the check above).
    }
  }

  budgetKnownSpent(environmentId: string, budget: DailyBudgetConfig, now: number): boolean {
    const day = this.dayOf(environmentId, now);
    return day.left === 0 && day.spent.size >= shardCapsOf(budget.maxMessages).length;
  }

  /**
   * Messages this container has leased for an environment's day and not yet spent: what it would
   * take with it if it ended now (tests, and the ADR's undershoot).
   */
  heldMessages(environmentId: string, now: number): number {
    return this.dayOf(environmentId, now).left;
  }

  /**
   * Leases `size` messages (or what a shard has left) for this container's day: from a shard
   * picked at random, then from the others in turn, so that a send is refused only when every
   * shard is spent. Adds what it took to the day's `left`, and returns it: 0 when every shard is
   * spent.
   */
  private async leaseFor(day: DayBudget, environmentId: string, budget: DailyBudgetConfig, now: number, size: number): Promise<number> {
    const caps = shardCapsOf(budget.maxMessages);
    const open = caps.map((_, shard) => shard).filter((shard) => !day.spent.has(shard));
    // A random start spreads the leases over the shards: the point of having them.
    const start = open.length === 0 ? 0 : randomInt(open.length);
    for (const shard of [...open.slice(start), ...open.slice(0, start)]) {
      const cap = caps[shard] as number;
      const leased = await this.lease(environmentId, now, shard, cap, Math.min(size, cap));
      if (leased === undefined) {
        day.spent.add(shard);
        continue;
      }
      day.left += leased.take;
      day.fill = { sentInShard: leased.sent, shardCap: cap };
      return leased.take;
    }
    return 0;
  }

  /**
   * Takes `take` messages from a shard, or what it has left when that is fewer; undefined when it
   * has none. Each write either takes messages or learns the shard's count, which only grows: at
   * most two writes, unless other containers spend the same last messages at the same moment.
   */
  private async lease(
    environmentId: string,
    now: number,
    shard: number,
    cap: number,
    take: number,
  ): Promise<{ take: number; sent: number } | undefined> {
    for (let asked = take; asked >= 1;) {
      try {
        const { Attributes } = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk: budgetShardItemKey(environmentId, utcDayOf(now), shard) },
            UpdateExpression: 'ADD #sent :take SET #e = :expires',
            ConditionExpression: 'attribute_not_exists(#sent) OR #sent <= :most',
            ExpressionAttributeNames: { '#sent': SENT, '#e': TABLE_DEFINITION.timeToLiveAttribute },
            // Kept a day after its own for post-mortems; the day in the key is what decides.
            ExpressionAttributeValues: { ':take': asked, ':most': cap - asked, ':expires': ttlSeconds(nextUtcDayStart(now) + 86_400_000) },
            ReturnValues: 'UPDATED_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { take: asked, sent: parseItem(shardItemSchema, Attributes, 'budget shard')[SENT] };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw storageFailure(error, 'spend budget');
        const sent = parseItem(shardItemSchema, itemOfFailure(error), 'budget shard')[SENT];
        // Fewer left than asked (never more: the condition failed): ask for what is left.
        asked = Math.min(asked - 1, cap - sent);
      }
    }
    return undefined;
  }

  private spendLeased(day: DayBudget, now: number): BudgetDecision {
    day.left -= 1;
    day.recent.push(now);
    // A lease never counts more than the largest lease's worth of sends.
    if (day.recent.length > MAX_LEASE) day.recent.shift();
    return { allowed: true, ...day.fill };
  }

  /** This container's budget for an environment's day; other days' are forgotten. */
  private dayOf(environmentId: string, now: number): DayBudget {
    const today = utcDayOf(now);
    const key = `${environmentId}#${today}`;
    let day = this.days.get(key);
    if (day === undefined) {
      for (const other of this.days.keys()) if (!other.endsWith(`#${today}`)) this.days.delete(other);
      day = { spent: new Set(), left: 0, fill: { sentInShard: 0, shardCap: 1 }, recent: [], leases: new Set(), unclaimed: 0, waiting: 0 };
      this.days.set(key, day);
    }
    return day;
  }
}

/** Every item read back is parsed: a corrupt one is an error (a 500), never a decision. */
function parseItem<T extends z.ZodMiniType>(schema: T, item: Record<string, unknown> | undefined, what: string): z.infer<T> {
  const result = schema.safeParse(item ?? {});
  if (!result.success) throw new Error(`A malformed ${what} item: ${z.prettifyError(result.error)}`);
  return result.data;
}
