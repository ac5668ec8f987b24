/**
 * Bursts of concurrent sends in one container against a day's budget that runs out mid-burst,
 * run in a process of its own by test/unit/adapters/budget-livelock.test.ts: the livelock it looks
 * for (issue 26) is a loop of microtasks that never yields to the event loop, so no timer of the
 * test's own process could end it (it hung a whole CI run). The parent kills this process instead.
 *
 * The table is an in-memory stand-in that keeps the one write the budget makes (a conditional
 * `ADD`, and the old item on a refused condition), answering within the same turn of the event
 * loop: the interleaving that caused the livelock depends on the order answers arrive in, which
 * DynamoDB Local's timing makes rare (once in a few full suites) but this order makes frequent.
 *
 * Usage: tsx test/support/budget-burst.ts <runs>. Prints one line per run: the sends allowed in
 * each burst, as JSON.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { budgetShardItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { DynamoDbSendGuards } from '../../lib/adapters/dynamodb/send-guards';
import { nextUtcDayStart, shardCapsOf, utcDayOf } from '../../lib/guards/daily-budget';

/** A budget whose leases hold 3 messages (300–399), a day under way with 24 messages left, 35 sends. */
const MAX_MESSAGES = 339;
const LEFT = [11, 9, 3, 1];
const BURSTS = [5, 11, 7, 12];
const LATE = nextUtcDayStart(Date.UTC(2031, 0, 1, 12)) - 60_000;

const sent = new Map<string, number>();
/** `ADD sent :take` if `sent <= :most` (or absent), as lib/adapters/dynamodb/send-guards.ts writes it. */
const table = {
  send(command: UpdateCommand): Promise<unknown> {
    const { Key, ExpressionAttributeValues: values } = command.input as unknown as {
      Key: { pk: string };
      ExpressionAttributeValues: Record<string, number>;
    };
    const before = sent.get(Key.pk);
    if (before !== undefined && before > (values[':most'] as number)) {
      return Promise.reject(
        new ConditionalCheckFailedException({
          message: 'The conditional request failed',
          $metadata: {},
          Item: marshall({ pk: Key.pk, sent: before }),
        }),
      );
    }
    sent.set(Key.pk, (before ?? 0) + (values[':take'] as number));
    return Promise.resolve({ Attributes: { sent: sent.get(Key.pk) } });
  },
} as unknown as DynamoDBDocumentClient;

async function run(index: number): Promise<number[]> {
  const environment = `burst-${index}`;
  shardCapsOf(MAX_MESSAGES).forEach((cap, shard) =>
    sent.set(budgetShardItemKey(environment, utcDayOf(LATE), shard), cap - (LEFT[shard] as number)),
  );
  const container = new DynamoDbSendGuards(table, 'budget');
  const allowed: number[] = [];
  for (const burst of BURSTS) {
    const decisions = await Promise.all(
      Array.from({ length: burst }, () => container.spendBudget(environment, { maxMessages: MAX_MESSAGES }, LATE)),
    );
    allowed.push(decisions.filter((decision) => decision.allowed).length);
  }
  return allowed;
}

void (async () => {
  const runs = Number(process.argv[2]);
  for (let index = 0; index < runs; index += 1) process.stdout.write(`${JSON.stringify(await run(index))}\n`);
})();
