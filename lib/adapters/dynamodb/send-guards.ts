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
 *   lib/domain/daily-budget.ts), each a count `sent` under its own cap: `ADD sent 1` on the
 *   condition `sent < cap`. A send tries a shard picked at random and, when it is spent, the
 *   others. A shard spent for a day stays spent, so the adapter remembers the spent shards it has
 *   met (per container, per environment and day) and never asks them again.
 *
 * Requests: a window is one write, counted or refused. The budget is one write, plus one per spent
 * shard this container had not yet met.
 */
import { randomInt } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import '../../zod';
import * as z from 'zod/mini';
import type { DailyBudgetConfig, SendWindowConfig } from '../../config';
import { nextUtcDayStart, shardCapsOf, utcDayOf } from '../../domain/daily-budget';
import { retryAfterSeconds } from '../../domain/limits';
import type { BudgetDecision, SendGuards, SendWindowKey, WindowDecision } from '../../ports';
import { itemOfFailure, storageFailure } from './client';
import { TABLE_DEFINITION, ttlSeconds } from './table';

const SENT = 'sent';
const slot = (index: number) => `w${index}`;

/** What this adapter reads back of a window item: its oldest slot (the others only shift). */
const windowItemSchema = z.looseObject({ w0: z.optional(z.number()) });
/** What it reads back of a budget shard. */
const shardItemSchema = z.looseObject({ [SENT]: z.int().check(z.gte(1)) });

export function sendWindowItemKey(key: SendWindowKey): string {
  return `guard#${key.guard}#${key.environmentId}#${key.subjectKey}`;
}

export function budgetShardItemKey(environmentId: string, day: string, shard: number): string {
  return `guard#budget#${environmentId}#${day}#${shard}`;
}

/**
 * The update that counts a send into a window of `maxSends`: every slot takes the next one's time
 * (DynamoDB reads every operand before the update), the newest takes `now`. Slot names need no
 * placeholders (none is a reserved word), which keeps the longest window's expression (MAX_WINDOW_SENDS)
 * well inside DynamoDB's 4 KB limit on expressions.
 */
export function windowUpdateExpression(maxSends: number): string {
  const shifts = Array.from(
    { length: maxSends },
    (_, index) => `${slot(index)} = ${index < maxSends - 1 ? `if_not_exists(${slot(index + 1)}, :zero)` : ':now'}`,
  );
  return `SET ${shifts.join(', ')}, #e = :expires`;
}

export class DynamoDbSendGuards implements SendGuards {
  /** Shards this container has met spent, by `<environment>#<day>`: today's only. */
  private readonly spentShards = new Map<string, Set<number>>();

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
    const day = utcDayOf(now);
    const caps = shardCapsOf(budget.maxMessages);
    const spent = this.spentOn(environmentId, day);
    const open = caps.map((_, shard) => shard).filter((shard) => !spent.has(shard));
    // A random start spreads the writes over the shards (the point of having them); then the
    // others in turn, so that a send is refused only when every shard is spent.
    const start = open.length === 0 ? 0 : randomInt(open.length);
    for (const shard of [...open.slice(start), ...open.slice(0, start)]) {
      const cap = caps[shard] as number;
      try {
        const { Attributes } = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk: budgetShardItemKey(environmentId, day, shard) },
            UpdateExpression: 'ADD #sent :one SET #e = :expires',
            ConditionExpression: 'attribute_not_exists(#sent) OR #sent < :cap',
            ExpressionAttributeNames: { '#sent': SENT, '#e': TABLE_DEFINITION.timeToLiveAttribute },
            // Kept a day after its own for post-mortems; the day in the key is what decides.
            ExpressionAttributeValues: { ':one': 1, ':cap': cap, ':expires': ttlSeconds(nextUtcDayStart(now) + 86_400_000) },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return { allowed: true, sentInShard: parseItem(shardItemSchema, Attributes, 'budget shard')[SENT], shardCap: cap };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw storageFailure(error, 'spend budget');
        spent.add(shard);
      }
    }
    return { allowed: false };
  }

  budgetKnownSpent(environmentId: string, budget: DailyBudgetConfig, now: number): boolean {
    return this.spentOn(environmentId, utcDayOf(now)).size >= shardCapsOf(budget.maxMessages).length;
  }

  /** The spent shards met for an environment's day; other days' are forgotten. */
  private spentOn(environmentId: string, day: string): Set<number> {
    const key = `${environmentId}#${day}`;
    let spent = this.spentShards.get(key);
    if (spent === undefined) {
      for (const other of this.spentShards.keys()) if (!other.endsWith(`#${day}`)) this.spentShards.delete(other);
      spent = new Set();
      this.spentShards.set(key, spent);
    }
    return spent;
  }
}

/** Every item read back is parsed: a corrupt one is an error (a 500), never a decision. */
function parseItem<T extends z.ZodMiniType>(schema: T, item: Record<string, unknown> | undefined, what: string): z.infer<T> {
  const result = schema.safeParse(item ?? {});
  if (!result.success) throw new Error(`A malformed ${what} item: ${z.prettifyError(result.error)}`);
  return result.data;
}
