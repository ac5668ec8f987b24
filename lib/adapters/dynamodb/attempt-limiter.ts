/**
 * The attempt limit (lib/domain/limits.ts) in DynamoDB: one conditional UpdateItem per attempt,
 * so it is race-safe without a read. Of 20 concurrent attempts, DynamoDB serialises the writes on
 * the one item and exactly `maxAttempts` pass the condition.
 *
 * The item keeps the times of the last N processed attempts in attributes `a0` (oldest) …
 * `a{N-1}` (newest). Processing an attempt shifts them down by one and writes `now` into the
 * newest slot; the condition that allows it is "not blocked, and the oldest slot is empty or at
 * least one window old". DynamoDB evaluates every operand of an update expression against the item
 * as it was before the update, which is what makes the shift one expression.
 *
 * Requests: an allowed attempt or one during a block is one write. The attempt that starts a
 * block is two (the refused write returns the old item with ReturnValuesOnConditionCheckFailure,
 * so no read is needed; the second write sets the block).
 */
import { UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LimitConfig } from '../../config';
import { retryAfterSeconds } from '../../domain/limits';
import type { AttemptDecision, AttemptKey, AttemptLimiter } from '../../ports';
import { isConditionalCheckFailure, storageFailure } from './client';
import { TABLE_DEFINITION, ttlSeconds } from './table';

const BLOCKED_UNTIL = 'blocked_until';
const slot = (index: number) => `a${index}`;

export function attemptItemKey(key: AttemptKey): string {
  return `limit#${key.operation}#${key.environmentId}#${key.userKey}`;
}

export class DynamoDbAttemptLimiter implements AttemptLimiter {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async recordAttempt(key: AttemptKey, limit: LimitConfig, now: number): Promise<AttemptDecision> {
    const pk = attemptItemKey(key);
    const refused = await this.tryProcess(pk, limit, now);
    if (refused === undefined) return { allowed: true };

    const blockedUntil = numberOf(refused[BLOCKED_UNTIL]);
    if (blockedUntil !== undefined && blockedUntil > now) {
      return { allowed: false, retryAfterSeconds: retryAfterSeconds(blockedUntil, now), blockStarted: false };
    }
    return this.startBlock(pk, limit, now);
  }

  /** Processes the attempt if the limit allows it; returns the item as it was when it did not. */
  private async tryProcess(pk: string, limit: LimitConfig, now: number): Promise<Record<string, AttributeValue> | undefined> {
    const n = limit.maxAttempts;
    const names: Record<string, string> = { '#b': BLOCKED_UNTIL, '#e': TABLE_DEFINITION.timeToLiveAttribute };
    const shifts: string[] = [];
    for (let index = 0; index < n; index += 1) {
      names[`#s${index}`] = slot(index);
      // Every operand reads the item as it was before this update, so this shifts all slots at once.
      shifts.push(index < n - 1 ? `#s${index} = if_not_exists(#s${index + 1}, :zero)` : `#s${index} = :now`);
    }
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: pk } },
          UpdateExpression: `SET ${shifts.join(', ')}, #e = :expires`,
          // Not blocked (a lapsed block counts as none), and the oldest remembered attempt is out of the window.
          ConditionExpression: '(attribute_not_exists(#b) OR #b <= :now) AND (attribute_not_exists(#s0) OR #s0 <= :windowStart)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: {
            ':now': { N: String(now) },
            // DynamoDB rejects unused values, and with one slot there is nothing to shift.
            ...(n > 1 ? { ':zero': { N: '0' } } : {}),
            ':windowStart': { N: String(now - limit.windowSeconds * 1000) },
            // Housekeeping: once a window has passed with no attempt, the item says nothing.
            ':expires': { N: String(ttlSeconds(now + limit.windowSeconds * 1000)) },
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return (error.Item as Record<string, AttributeValue> | undefined) ?? {};
      throw storageFailure(error, 'record attempt');
    }
  }

  /**
   * Starts the block, unless a concurrent attempt already did (the condition keeps a live block
   * from being extended). The slots are kept: see lib/domain/limits.ts for why.
   */
  private async startBlock(pk: string, limit: LimitConfig, now: number): Promise<AttemptDecision> {
    const blockedUntil = now + limit.blockSeconds * 1000;
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: pk } },
          UpdateExpression: 'SET #b = :until, #e = :expires',
          ConditionExpression: 'attribute_not_exists(#b) OR #b <= :now',
          ExpressionAttributeNames: { '#b': BLOCKED_UNTIL, '#e': TABLE_DEFINITION.timeToLiveAttribute },
          ExpressionAttributeValues: {
            ':until': { N: String(blockedUntil) },
            ':now': { N: String(now) },
            // The slots still matter after the block when it is shorter than the window.
            ':expires': { N: String(ttlSeconds(blockedUntil + limit.windowSeconds * 1000)) },
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { allowed: false, retryAfterSeconds: limit.blockSeconds, blockStarted: true };
    } catch (error) {
      if (isConditionalCheckFailure(error)) {
        const existing = numberOf((error.Item as Record<string, AttributeValue> | undefined)?.[BLOCKED_UNTIL]) ?? blockedUntil;
        return { allowed: false, retryAfterSeconds: retryAfterSeconds(existing, now), blockStarted: false };
      }
      throw storageFailure(error, 'start block');
    }
  }
}

function numberOf(value: AttributeValue | undefined): number | undefined {
  return value?.N === undefined ? undefined : Number(value.N);
}
