/**
 * The attempt limit (lib/limits/limits.ts) in DynamoDB: one conditional UpdateItem per attempt,
 * so it is race-safe without a read. Of 20 concurrent attempts, DynamoDB serialises the writes on
 * the one item and exactly `maxAttempts` pass the condition.
 *
 * The item keeps the times of the last N processed attempts in attributes `a0` (oldest) …
 * `a{N-1}` (newest). Processing an attempt shifts them down by one and writes `now` into the
 * newest slot; the condition that allows it is "not blocked, and the oldest slot is empty or at
 * least one window old". DynamoDB evaluates every operand of an update expression against the item
 * as it was before the update, which is what makes the shift one expression.
 *
 * The token endpoint's failure cap (NIST SP 800-63B §5.2.2) lives in the same item: `fail_count`
 * consecutive failed exchanges since `fail_since`. A capped user's attempt fails the same
 * condition, so the cap costs no request of its own on the way in; counting a failure is one more
 * write (a refused exchange: attempt, guess, failure), and clearing a run is one write, made only
 * by a success that follows failures.
 *
 * An operator's block (lib/admin/operator.ts) is one more attribute of the same item,
 * `operator_blocked` (when it was set, ISO 8601), so it costs no request either: the attempt's
 * write returns the item (ReturnValues ALL_NEW, or ALL_OLD when refused) and the block is read
 * from it. The attempt is still counted, so a blocked user meets the limit and the cap exactly as
 * anyone does, and no answer tells a block apart. A blocked item must outlive every TTL: while it
 * is set, `expires_at` holds the same string (`if_not_exists(operator_blocked, :expires)` in every
 * write that would renew it), and DynamoDB's TTL skips an item whose attribute is not a Number.
 * Unblocking puts a number back.
 *
 * Requests: an allowed attempt or one during a block is one write. The attempt that starts a
 * block is two (the refused write returns the old item with ReturnValuesOnConditionCheckFailure,
 * so no read is needed; the second write sets the block). The operator's block and unblock are
 * one write per item.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import '../../platform/zod';
import * as z from 'zod/mini';
import type { FailureCapConfig, LimitConfig } from '../../platform/config';
import { capRetryAfter, isCapped, retryAfterSeconds, runHasLapsed } from '../../limits/limits';
import type { AttemptDecision, AttemptKey, AttemptLimiter, FailureRun } from '../../limits/ports';
import { itemOfFailure, storageFailure } from './client';
import { attemptItemKey } from './item-keys';
import { TABLE_DEFINITION, ttlSeconds } from './table';

const BLOCKED_UNTIL = 'blocked_until';
const FAIL_COUNT = 'fail_count';
const FAIL_SINCE = 'fail_since';
const OPERATOR_BLOCKED = 'operator_blocked';
const slot = (index: number) => `a${index}`;

/** What this adapter reads back of an attempt item; anything else in it is the shifting slots. */
const attemptItemSchema = z.looseObject({
  [BLOCKED_UNTIL]: z.optional(z.number()),
  [FAIL_COUNT]: z.optional(z.int().check(z.gte(0))),
  [FAIL_SINCE]: z.optional(z.number()),
  [OPERATOR_BLOCKED]: z.optional(z.string()),
});
type AttemptItem = z.infer<typeof attemptItemSchema>;

export class DynamoDbAttemptLimiter implements AttemptLimiter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async recordAttempt(key: AttemptKey, limit: LimitConfig, now: number, cap?: FailureCapConfig): Promise<AttemptDecision> {
    const pk = attemptItemKey(key);
    const outcome = await this.tryProcess(pk, limit, now, cap);
    if (outcome.processed) {
      const failures = cap === undefined ? {} : { failures: runOf(outcome.item) };
      // Counted like any attempt; the caller answers it as it answers a user with no code.
      if (outcome.item[OPERATOR_BLOCKED] !== undefined) return { allowed: false, reason: 'operator_block', ...failures };
      return { allowed: true, ...failures };
    }

    const refused = outcome.item;
    const blockedUntil = refused[BLOCKED_UNTIL];
    if (blockedUntil !== undefined && blockedUntil > now) {
      return {
        allowed: false,
        retryAfterSeconds: retryAfterSeconds(blockedUntil, now, limit.blockSeconds),
        blockStarted: false,
        reason: 'limit',
      };
    }
    const run = runOf(refused);
    if (cap !== undefined && run !== undefined && isCapped(run, cap, now)) {
      return { allowed: false, retryAfterSeconds: capRetryAfter(run, cap, now), blockStarted: false, reason: 'failure_cap' };
    }
    return this.startBlock(pk, limit, now, cap);
  }

  async recordFailure(key: AttemptKey, cap: FailureCapConfig, now: number, known?: FailureRun): Promise<FailureRun> {
    const pk = attemptItemKey(key);
    const runStart = now - cap.windowSeconds * 1000;
    // Two writes with complementary conditions: count into a run that is still within its window,
    // or start a new run over one that is not. The run the attempt saw says which applies, so the
    // first write normally holds (a wrong guess stays at 3 requests); a concurrent failure can
    // make it miss, and the loop then takes the other, so the count is never lost.
    const first = known !== undefined && runHasLapsed(known, cap, now) ? 1 : 0;
    for (let round = first; round < first + 4; round += 1) {
      const extend = round % 2 === 0;
      let written: Record<string, unknown> | undefined;
      try {
        ({ Attributes: written } = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk },
            UpdateExpression: extend
              ? 'SET #c = if_not_exists(#c, :zero) + :one, #s = if_not_exists(#s, :now)'
              : 'SET #c = :one, #s = :now',
            ConditionExpression: extend ? 'attribute_not_exists(#s) OR #s > :runStart' : '#s <= :runStart',
            ExpressionAttributeNames: { '#c': FAIL_COUNT, '#s': FAIL_SINCE },
            ExpressionAttributeValues: { ':one': 1, ':now': now, ':runStart': runStart, ...(extend ? { ':zero': 0 } : {}) },
            ReturnValues: 'ALL_NEW',
          }),
        ));
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) continue;
        throw storageFailure(error, 'record failure');
      }
      const run = runOf(parseAttemptItem(written));
      if (run === undefined) throw new Error('The failure count was written but not returned');
      return run;
    }
    throw new Error('The failure run kept changing under concurrent writes');
  }

  async clearFailures(key: AttemptKey): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: attemptItemKey(key) },
          UpdateExpression: 'REMOVE #c, #s',
          ExpressionAttributeNames: { '#c': FAIL_COUNT, '#s': FAIL_SINCE },
        }),
      );
    } catch (error) {
      throw storageFailure(error, 'clear failures');
    }
  }

  async block(key: AttemptKey, now: number): Promise<void> {
    const since = new Date(now).toISOString();
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: attemptItemKey(key) },
          // Not a Number: DynamoDB's TTL never deletes the item while the block is on.
          UpdateExpression: 'SET #o = :since, #e = :since',
          ExpressionAttributeNames: { '#o': OPERATOR_BLOCKED, '#e': TABLE_DEFINITION.timeToLiveAttribute },
          ExpressionAttributeValues: { ':since': since },
        }),
      );
    } catch (error) {
      throw storageFailure(error, 'block user');
    }
  }

  async unblock(key: AttemptKey, keepUntil: number): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: attemptItemKey(key) },
          UpdateExpression: 'REMOVE #o SET #e = :expires',
          // Only a blocked item: unblocking a user never creates one.
          ConditionExpression: 'attribute_exists(#o)',
          ExpressionAttributeNames: { '#o': OPERATOR_BLOCKED, '#e': TABLE_DEFINITION.timeToLiveAttribute },
          ExpressionAttributeValues: { ':expires': ttlSeconds(keepUntil) },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw storageFailure(error, 'unblock user');
    }
  }

  /** Processes the attempt if the limit (and the cap) allow it; returns the item either way. */
  private async tryProcess(
    pk: string,
    limit: LimitConfig,
    now: number,
    cap: FailureCapConfig | undefined,
  ): Promise<{ processed: boolean; item: AttemptItem }> {
    const n = limit.maxAttempts;
    const names: Record<string, string> = { '#b': BLOCKED_UNTIL, '#e': TABLE_DEFINITION.timeToLiveAttribute, '#o': OPERATOR_BLOCKED };
    const shifts: string[] = [];
    for (let index = 0; index < n; index += 1) {
      names[`#s${index}`] = slot(index);
      // Every operand reads the item as it was before this update, so this shifts all slots at once.
      shifts.push(index < n - 1 ? `#s${index} = if_not_exists(#s${index + 1}, :zero)` : `#s${index} = :now`);
    }
    // Not blocked (a lapsed block counts as none), and the oldest remembered attempt is out of the window.
    let condition = '(attribute_not_exists(#b) OR #b <= :now) AND (attribute_not_exists(#s0) OR #s0 <= :windowStart)';
    const values: Record<string, unknown> = {
      ':now': now,
      // DynamoDB rejects unused values, and with one slot there is nothing to shift.
      ...(n > 1 ? { ':zero': 0 } : {}),
      ':windowStart': now - limit.windowSeconds * 1000,
      ':expires': expiresAt(now, limit.windowSeconds, cap),
    };
    if (cap !== undefined) {
      // …and the user's failure run has not reached the cap, or its window has passed.
      names['#fc'] = FAIL_COUNT;
      names['#fs'] = FAIL_SINCE;
      condition += ' AND (attribute_not_exists(#fc) OR #fc < :cap OR #fs <= :runStart)';
      values[':cap'] = cap.maxConsecutive;
      values[':runStart'] = now - cap.windowSeconds * 1000;
    }
    let written: Record<string, unknown> | undefined;
    try {
      ({ Attributes: written } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk },
          // An operator's block keeps its item: the TTL stays the block's string (see the header).
          UpdateExpression: `SET ${shifts.join(', ')}, #e = if_not_exists(#o, :expires)`,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          // The item comes back with the same request: the failure run, so a success knows whether
          // to clear it, and an operator's block. Returned values cost no capacity.
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw storageFailure(error, 'record attempt');
      return { processed: false, item: parseAttemptItem(itemOfFailure(error)) };
    }
    return { processed: true, item: parseAttemptItem(written) };
  }

  /**
   * Starts the block, unless a concurrent attempt already did (the condition keeps a live block
   * from being extended). The slots are kept: see lib/limits/limits.ts for why.
   */
  private async startBlock(pk: string, limit: LimitConfig, now: number, cap: FailureCapConfig | undefined): Promise<AttemptDecision> {
    const blockedUntil = now + limit.blockSeconds * 1000;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk },
          UpdateExpression: 'SET #b = :until, #e = if_not_exists(#o, :expires)',
          ConditionExpression: 'attribute_not_exists(#b) OR #b <= :now',
          ExpressionAttributeNames: { '#b': BLOCKED_UNTIL, '#e': TABLE_DEFINITION.timeToLiveAttribute, '#o': OPERATOR_BLOCKED },
          ExpressionAttributeValues: {
            ':until': blockedUntil,
            ':now': now,
            // The slots still matter after the block when it is shorter than the window.
            ':expires': Math.max(ttlSeconds(blockedUntil + limit.windowSeconds * 1000), expiresAt(now, limit.windowSeconds, cap)),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { allowed: false, retryAfterSeconds: limit.blockSeconds, blockStarted: true, reason: 'limit' };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        // Another attempt started the block first: its end, never more than a block from now.
        const existing = parseAttemptItem(itemOfFailure(error))[BLOCKED_UNTIL] ?? blockedUntil;
        return {
          allowed: false,
          retryAfterSeconds: retryAfterSeconds(existing, now, limit.blockSeconds),
          blockStarted: false,
          reason: 'limit',
        };
      }
      throw storageFailure(error, 'start block');
    }
  }
}

/**
 * Housekeeping TTL: once a window has passed with no attempt, the item says nothing; with a
 * failure cap, the run it may hold matters for the cap's window.
 */
function expiresAt(now: number, windowSeconds: number, cap: FailureCapConfig | undefined): number {
  return ttlSeconds(now + Math.max(windowSeconds, cap?.windowSeconds ?? 0) * 1000);
}

function runOf(item: AttemptItem): FailureRun | undefined {
  const count = item[FAIL_COUNT];
  const since = item[FAIL_SINCE];
  return count === undefined || since === undefined || count === 0 ? undefined : { count, since };
}

/** Every attempt item read back is parsed: a corrupt one is an error (a 500), never a decision. */
function parseAttemptItem(item: Record<string, unknown> | undefined): AttemptItem {
  const result = attemptItemSchema.safeParse(item ?? {});
  if (!result.success) throw new Error(`A malformed attempt item: ${z.prettifyError(result.error)}`);
  return result.data;
}
