/**
 * Known numbers against DynamoDB Local (docs/decisions/012-known-numbers.md): a number is known
 * from the write that remembers it until the time it names, by the application's clock; its own
 * allowance is a sliding window, exact under concurrency; a number never remembered creates no
 * item; a changed allowance reads the same item right; each call is one request.
 */
import { randomUUID } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DynamoDbKnownNumbers } from '../../../lib/adapters/dynamodb/known-numbers';
import { knownNumberItemKey } from '../../../lib/adapters/dynamodb/item-keys';
import type { KnownNumberKey } from '../../../lib/guards/ports';
import { futureBase } from '../../support/fake-clock';
import { storageUnavailable } from '../../support/failing-dynamodb-proxy';
import { createTestTable, faultyTestTable, type TestTable } from '../../support/table';

const DAY_MS = 86_400_000;
const FIVE_A_DAY = { maxSends: 5, windowMs: DAY_MS };
// In the future of the real clock: DynamoDB Local deletes items whose TTL has passed.
const T0 = futureBase();
const at = (seconds: number) => T0 + seconds * 1000;

let table: TestTable;
let known: DynamoDbKnownNumbers;
beforeAll(async () => {
  table = await createTestTable();
  known = new DynamoDbKnownNumbers(table.documents, table.name);
});
afterAll(async () => table.stop());

const newKey = (environmentId = 'local'): KnownNumberKey => ({ environmentId, userKey: randomUUID() });

async function rawItem(key: KnownNumberKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.client.send(
    new GetItemCommand({ TableName: table.name, Key: { pk: { S: knownNumberItemKey(key) } }, ConsistentRead: true }),
  );
  return Item === undefined ? undefined : unmarshall(Item);
}

async function spends(key: KnownNumberKey, times: readonly number[], allowance = FIVE_A_DAY): Promise<boolean[]> {
  const answers: boolean[] = [];
  for (const time of times) answers.push(await known.spendKnown(key, allowance, time));
  return answers;
}

describe('spendKnown', () => {
  it('is false for a number never remembered, and creates no item', async () => {
    const key = newKey();
    expect(await known.spendKnown(key, FIVE_A_DAY, at(0))).toBe(false);
    expect(await rawItem(key)).toBeUndefined();
  });

  it('lets a remembered number through until the moment it is known until, by the application’s clock (not the TTL)', async () => {
    const key = newKey();
    await known.remember(key, at(100));
    expect(await spends(key, [at(0), at(99.999)])).toEqual([true, true]);
    expect(await known.spendKnown(key, FIVE_A_DAY, at(100))).toBe(false);
    expect(await rawItem(key)).toMatchObject({ known_until: at(100), expires_at: Math.ceil(at(100) / 1000) });
  });

  it('counts the allowance in a sliding 24 hours, half-open: the 6th in a day is refused, and one day after the oldest it passes again', async () => {
    const key = newKey();
    await known.remember(key, at(10 * 86_400));
    expect(
      await spends(
        key,
        [0, 1, 2, 3, 4, 5].map((hour) => at(hour * 3600)),
      ),
    ).toEqual([true, true, true, true, true, false]);
    expect(await known.spendKnown(key, FIVE_A_DAY, at(86_400) - 1)).toBe(false);
    expect(await known.spendKnown(key, FIVE_A_DAY, at(86_400))).toBe(true);
  });

  it('keeps its window when the number logs in again, and a changed allowance reads the same item right', async () => {
    const key = newKey();
    await known.remember(key, at(86_400));
    expect(await spends(key, [at(0), at(1), at(2)])).toEqual([true, true, true]);
    await known.remember(key, at(2 * 86_400));
    expect(await known.spendKnown(key, { maxSends: 3, windowMs: DAY_MS }, at(3))).toBe(false);
    expect(await known.spendKnown(key, { maxSends: 4, windowMs: DAY_MS }, at(3))).toBe(true);
    expect(await known.spendKnown(key, { maxSends: 10, windowMs: DAY_MS }, at(4))).toBe(true);
  });

  it('lets exactly the allowance through of 20 concurrent sends', async () => {
    const key = newKey();
    await known.remember(key, at(86_400));
    const answers = await Promise.all(Array.from({ length: 20 }, () => known.spendKnown(key, FIVE_A_DAY, at(1))));
    expect(answers.filter(Boolean)).toHaveLength(5);
  });

  it('is per environment', async () => {
    const key = newKey('one');
    await known.remember(key, at(86_400));
    expect(await known.spendKnown({ ...key, environmentId: 'two' }, FIVE_A_DAY, at(1))).toBe(false);
  });

  it('costs one write, allowed or refused; remembering, one write', async () => {
    const key = newKey();
    table.proxy.reset();
    await known.remember(key, at(86_400));
    await known.spendKnown(key, FIVE_A_DAY, at(1));
    await known.spendKnown(newKey(), FIVE_A_DAY, at(1));
    expect(table.proxy.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
  });
});

describe('storage failures: a 503 that names the step, never a decision', () => {
  const faulty = faultyTestTable();
  it.each([
    ['remember', (store: DynamoDbKnownNumbers) => store.remember(newKey(), at(86_400)), 'remember known number'],
    ['spendKnown', (store: DynamoDbKnownNumbers) => store.spendKnown(newKey(), FIVE_A_DAY, at(0)), 'spend known number allowance'],
  ] as const)('%s', async (_name, call, step) => {
    faulty().faults.failWhen(() => true);
    await expect(call(new DynamoDbKnownNumbers(faulty().documents, faulty().name))).rejects.toMatchObject(storageUnavailable(step));
  });
});
