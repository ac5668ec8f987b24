/**
 * The SMS fraud guards' counters against DynamoDB Local (docs/decisions/008-sms-fraud-guards.md):
 * each window at its boundaries with injected times, exactly N of 50 concurrent sends, a sliding
 * window equal to its model over random sequences; the daily budget never above its cap under
 * concurrency, its shards, its day, its leases (sized by a container's recent sends, every
 * message either sent or held by a container); and the requests each costs, counted on the wire.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDbSendGuards, windowUpdateExpression } from '../../../lib/adapters/dynamodb/send-guards';
import { budgetShardItemKey, sendWindowItemKey } from '../../../lib/adapters/dynamodb/item-keys';
import { MAX_WINDOW_SENDS, type DailyBudgetConfig, type SendWindowConfig } from '../../../lib/platform/config';
import { LEASE_RATE_WINDOW_MS, maxLeaseOf, nextUtcDayStart, shardCapsOf, utcDayOf } from '../../../lib/guards/daily-budget';
import type { SendWindowKey, WindowDecision } from '../../../lib/guards/ports';
import { futureBase } from '../../support/fake-clock';
import { storageUnavailable } from '../../support/failing-dynamodb-proxy';
import { createTestTable, faultyTestTable, type TestTable } from '../../support/table';

const HOURLY_10: SendWindowConfig = { maxSends: 10, windowSeconds: 3600 };
// In the future of the real clock: DynamoDB Local deletes items whose TTL has passed.
const T0 = futureBase();
const at = (seconds: number) => T0 + seconds * 1000;

let table: TestTable;
let guards: DynamoDbSendGuards;
beforeAll(async () => {
  table = await createTestTable();
  guards = new DynamoDbSendGuards(table.documents, table.name);
});
afterAll(async () => table.stop());

const newKey = (guard: 'ip' | 'prefix' = 'ip', environmentId = 'local'): SendWindowKey => ({
  guard,
  environmentId,
  subjectKey: randomUUID(),
});
const newEnvironment = () => `env-${randomUUID().slice(0, 8)}`;

async function sends(key: SendWindowKey, times: readonly number[], window = HOURLY_10): Promise<WindowDecision[]> {
  const decisions: WindowDecision[] = [];
  for (const time of times) decisions.push(await guards.countSend(key, window, time));
  return decisions;
}

async function rawItem(pk: string) {
  const { Item } = await table.client.send(new GetItemCommand({ TableName: table.name, Key: { pk: { S: pk } }, ConsistentRead: true }));
  return Item;
}

describe('a guard’s window: at most N sends in any sliding window', () => {
  it('counts N sends and refuses the next, with Retry-After until the oldest leaves the window', async () => {
    const key = newKey();
    const decisions = await sends(key, [0, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600].map(at));
    expect(decisions.slice(0, 10)).toEqual(Array(10).fill({ allowed: true }));
    // The oldest counted send (0 s) leaves the window at 3600 s: 3000 s from 600 s.
    expect(decisions[10]).toEqual({ allowed: false, retryAfterSeconds: 3000 });
  });

  it('is half-open: a send exactly one window after the oldest is counted, one millisecond earlier is refused', async () => {
    const early = newKey();
    await sends(
      early,
      Array.from({ length: 10 }, (_, index) => at(index)),
    );
    expect(await guards.countSend(early, HOURLY_10, at(3600) - 1)).toEqual({ allowed: false, retryAfterSeconds: 0 });

    const onTime = newKey();
    await sends(
      onTime,
      Array.from({ length: 10 }, (_, index) => at(index)),
    );
    expect(await guards.countSend(onTime, HOURLY_10, at(3600))).toEqual({ allowed: true });
    // Now 1 … 9 s and 3600 s are in the window: the next before 3601 s is refused.
    expect(await guards.countSend(onTime, HOURLY_10, at(3600.5))).toEqual({ allowed: false, retryAfterSeconds: 0 });
    expect(await guards.countSend(onTime, HOURLY_10, at(3601))).toEqual({ allowed: true });
  });

  it('slides, not calendar hours: 10 sends at :59 and one at :01 of the next hour is the eleventh', async () => {
    const key = newKey();
    await sends(
      key,
      Array.from({ length: 10 }, (_, index) => at(3540 + index)),
    );
    expect(await guards.countSend(key, HOURLY_10, at(3660))).toEqual({ allowed: false, retryAfterSeconds: 3480 });
  });

  it('does not count a refused send: refusals never push the window’s end further away', async () => {
    const key = newKey();
    await sends(
      key,
      Array.from({ length: 10 }, () => at(0)),
    );
    for (const second of [10, 100, 1000, 3599]) expect((await guards.countSend(key, HOURLY_10, at(second))).allowed).toBe(false);
    expect(await guards.countSend(key, HOURLY_10, at(3600))).toEqual({ allowed: true });
  });

  it('keeps one window per guard, environment and subject', async () => {
    const key = newKey('ip');
    await sends(
      key,
      Array.from({ length: 10 }, () => at(0)),
    );
    expect((await guards.countSend(key, HOURLY_10, at(1))).allowed).toBe(false);
    expect(await guards.countSend({ ...key, guard: 'prefix' }, HOURLY_10, at(1))).toEqual({ allowed: true });
    expect(await guards.countSend({ ...key, environmentId: 'other' }, HOURLY_10, at(1))).toEqual({ allowed: true });
    expect(await guards.countSend({ ...key, subjectKey: randomUUID() }, HOURLY_10, at(1))).toEqual({ allowed: true });
  });

  it.each([1, MAX_WINDOW_SENDS])(
    'works with a window of %i (regression guard: the shift of the longest fits DynamoDB’s 4 KB expression limit)',
    async (maxSends) => {
      const window = { maxSends, windowSeconds: 60 };
      const key = newKey();
      const decisions = await sends(
        key,
        Array.from({ length: maxSends + 5 }, () => at(0)),
        window,
      );
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(maxSends);
      expect(await guards.countSend(key, window, at(60))).toEqual({ allowed: true });
    },
  );

  it('keeps the longest window’s update expression inside DynamoDB’s 4 KB (DynamoDB Local may not enforce it)', () => {
    expect(Buffer.byteLength(windowUpdateExpression(MAX_WINDOW_SENDS))).toBeLessThanOrEqual(4096);
  });

  it('stores the subject only as the key it was given, with a TTL one window after the newest send', async () => {
    const key = newKey('prefix');
    await guards.countSend(key, HOURLY_10, at(0));
    const item = await rawItem(sendWindowItemKey(key));
    expect(item?.pk?.S).toBe(`guard#prefix#local#${key.subjectKey}`);
    expect(Number(item?.expires_at?.N)).toBe(Math.ceil(at(3600) / 1000));
    expect(Number(item?.w9?.N)).toBe(at(0));
  });

  it('of 50 concurrent sends, counts exactly N', async () => {
    const key = newKey();
    const decisions = await Promise.all(Array.from({ length: 50 }, () => guards.countSend(key, HOURLY_10, at(0))));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
    expect(decisions.filter((decision) => !decision.allowed)).toEqual(Array(40).fill({ allowed: false, retryAfterSeconds: 3600 }));
  });

  it('decides every send of a random sequence as the model does: counted iff fewer than N counted in (now − window, now]', async () => {
    const windowArb = fc.record({ maxSends: fc.integer({ min: 1, max: 6 }), windowSeconds: fc.integer({ min: 1, max: 30 }) });
    const gapsArb = fc.array(fc.integer({ min: 0, max: 12_000 }), { minLength: 1, maxLength: 25 });
    await fc.assert(
      fc.asyncProperty(windowArb, gapsArb, async (window, gaps) => {
        const key = newKey();
        const counted: number[] = [];
        let now = T0;
        for (const gap of gaps) {
          now += gap;
          const inWindow = counted.filter((time) => time > now - window.windowSeconds * 1000);
          const allowed = inWindow.length < window.maxSends;
          const decision = await guards.countSend(key, window, now);
          expect(decision.allowed).toBe(allowed);
          if (allowed) counted.push(now);
          else
            expect(decision).toEqual({
              allowed: false,
              retryAfterSeconds: Math.floor(((inWindow[0] as number) + window.windowSeconds * 1000 - now) / 1000),
            });
        }
      }),
      { numRuns: 40 },
    );
  });

  it('costs one UpdateItem, counted or refused', async () => {
    const key = newKey();
    await sends(
      key,
      Array.from({ length: 9 }, () => at(0)),
    );
    table.proxy.reset();
    await guards.countSend(key, HOURLY_10, at(1));
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
    table.proxy.reset();
    await guards.countSend(key, HOURLY_10, at(2));
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
  });
});

describe('the daily budget: never more than maxMessages per UTC day', () => {
  const budget = (maxMessages: number): DailyBudgetConfig => ({ maxMessages });
  // Late in a UTC day, so that the day's end is near.
  const LATE = nextUtcDayStart(T0) - 60_000;

  async function spend(environmentId: string, count: number, now: number, adapter = guards) {
    return Promise.all(Array.from({ length: count }, () => adapter.spendBudget(environmentId, budget(10), now)));
  }

  it('spends maxMessages and refuses the next, telling the fill of the shard that paid', async () => {
    const environment = newEnvironment();
    const decisions = [];
    for (let index = 0; index < 11; index += 1) decisions.push(await guards.spendBudget(environment, budget(10), LATE));
    expect(decisions.slice(0, 10).every((decision) => decision.allowed)).toBe(true);
    expect(decisions[10]).toEqual({ allowed: false });
    for (const decision of decisions.slice(0, 10)) {
      if (!decision.allowed) throw new Error('refused');
      expect(decision.sentInShard).toBeGreaterThanOrEqual(1);
      expect(decision.sentInShard).toBeLessThanOrEqual(decision.shardCap);
    }
  });

  it('20 concurrent sends at the edge (7 of 10 spent): exactly 3 pass, and no shard is above its cap', async () => {
    const environment = newEnvironment();
    for (let index = 0; index < 7; index += 1) await guards.spendBudget(environment, budget(10), LATE);
    // Another container: it knows nothing of the shards this one met.
    const other = new DynamoDbSendGuards(table.documents, table.name);
    const decisions = await spend(environment, 20, LATE, other);
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(3);
    const day = utcDayOf(LATE);
    const counts = await Promise.all(
      shardCapsOf(10).map(async (_, shard) => Number((await rawItem(budgetShardItemKey(environment, day, shard)))?.sent?.N)),
    );
    expect(counts).toEqual(shardCapsOf(10));
  });

  it('never spends more than maxMessages, whatever the concurrency and however many containers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 3 }),
        async (max, count, containers) => {
          const environment = newEnvironment();
          const adapters = Array.from({ length: containers }, () => new DynamoDbSendGuards(table.documents, table.name));
          const decisions = await Promise.all(
            Array.from({ length: count }, (_, index) =>
              (adapters[index % containers] as DynamoDbSendGuards).spendBudget(environment, budget(max), LATE),
            ),
          );
          // Exactly: never above the cap, and no send refused while a message was left.
          expect(decisions.filter((decision) => decision.allowed)).toHaveLength(Math.min(max, count));
        },
      ),
      { numRuns: 15 },
    );
  });

  it('starts afresh on the next UTC day, and Retry-After’s day boundary is the one the counters use', async () => {
    const environment = newEnvironment();
    await spend(environment, 10, LATE);
    expect(await guards.spendBudget(environment, budget(10), nextUtcDayStart(LATE) - 1)).toEqual({ allowed: false });
    expect(await guards.spendBudget(environment, budget(10), nextUtcDayStart(LATE))).toMatchObject({ allowed: true, sentInShard: 1 });
  });

  it('keeps one budget per environment', async () => {
    const environment = newEnvironment();
    await spend(environment, 10, LATE);
    expect((await guards.spendBudget(environment, budget(10), LATE)).allowed).toBe(false);
    expect((await guards.spendBudget(newEnvironment(), budget(10), LATE)).allowed).toBe(true);
  });

  it('spreads the day over its shards (random picks: the point of sharding), each kept a day past its own', async () => {
    const environment = newEnvironment();
    // Under 200: leases of one message, so each send picks its shard.
    const max = 199;
    for (let index = 0; index < 100; index += 1) await guards.spendBudget(environment, budget(max), T0);
    const day = utcDayOf(T0);
    const items = await Promise.all(shardCapsOf(max).map((_, shard) => rawItem(budgetShardItemKey(environment, day, shard))));
    const counts = items.map((item) => Number(item?.sent?.N ?? 0));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(100);
    // 100 sends over 4 shards: each gets some (a shard with none has probability 4 × 0.75^100 ≈ 1e-12).
    expect(counts.every((count) => count > 0)).toBe(true);
    for (const item of items) expect(Number(item?.expires_at?.N)).toBe(Math.ceil((nextUtcDayStart(T0) + 86_400_000) / 1000));
  });

  it('costs one UpdateItem a send; a container meets each spent shard once, then refuses without a request', async () => {
    const environment = newEnvironment();
    table.proxy.reset();
    await guards.spendBudget(environment, budget(10), LATE);
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
    await spend(environment, 9, LATE);

    const container = new DynamoDbSendGuards(table.documents, table.name);
    expect(container.budgetKnownSpent(environment, budget(10), LATE)).toBe(false);
    table.proxy.reset();
    expect(await container.spendBudget(environment, budget(10), LATE)).toEqual({ allowed: false });
    expect(table.proxy.operations()).toEqual(Array(shardCapsOf(10).length).fill('UpdateItem'));
    expect(container.budgetKnownSpent(environment, budget(10), LATE)).toBe(true);
    table.proxy.reset();
    expect(await container.spendBudget(environment, budget(10), LATE)).toEqual({ allowed: false });
    expect(table.proxy.operations()).toEqual([]);
    // The next day is another budget.
    expect(container.budgetKnownSpent(environment, budget(10), nextUtcDayStart(LATE))).toBe(false);
  });
});

describe('the daily budget in leases: 4 requests for most SMS sends, never above the cap', () => {
  const budget = (maxMessages: number): DailyBudgetConfig => ({ maxMessages });
  const LATE = nextUtcDayStart(T0) - 60_000;
  const container = () => new DynamoDbSendGuards(table.documents, table.name);

  /** Sets every shard of `environment`'s day to `sent` messages (a day already under way). */
  async function fillShards(environment: string, maxMessages: number, sent: (cap: number, shard: number) => number, now = LATE) {
    const day = utcDayOf(now);
    await Promise.all(
      shardCapsOf(maxMessages).map((cap, shard) =>
        table.client.send(
          new PutItemCommand({
            TableName: table.name,
            Item: { pk: { S: budgetShardItemKey(environment, day, shard) }, sent: { N: String(sent(cap, shard)) } },
          }),
        ),
      ),
    );
  }

  async function shardCounts(environment: string, maxMessages: number, now = LATE): Promise<number[]> {
    const day = utcDayOf(now);
    return Promise.all(
      shardCapsOf(maxMessages).map(async (_, shard) => Number((await rawItem(budgetShardItemKey(environment, day, shard)))?.sent?.N ?? 0)),
    );
  }

  /** The requests each of `count` sends of one container costs, one after the other. */
  async function requestsPerSend(adapter: DynamoDbSendGuards, environment: string, maxMessages: number, times: readonly number[]) {
    const requests: number[] = [];
    for (const time of times) {
      table.proxy.reset();
      expect((await adapter.spendBudget(environment, budget(maxMessages), time)).allowed).toBe(true);
      requests.push(table.proxy.operations().length);
    }
    return requests;
  }

  it('a busy container leases 1, 2, 4, 8, then 10 messages: a write on sends 1, 2, 4, 8, 16, 26, 36 of 40, none on the others', async () => {
    const requests = await requestsPerSend(container(), newEnvironment(), 1000, Array(40).fill(T0));
    const writes = requests.flatMap((count, index) => (count === 1 ? [index + 1] : []));
    expect(writes).toEqual([1, 2, 4, 8, 16, 26, 36]);
    expect(requests.every((count) => count <= 1)).toBe(true);
  });

  it('a quiet container (a send every 5 minutes) leases one message at a time: nothing to lose when it ends', async () => {
    const adapter = container();
    const environment = newEnvironment();
    const times = Array.from({ length: 6 }, (_, index) => T0 + index * LEASE_RATE_WINDOW_MS);
    expect(await requestsPerSend(adapter, environment, 1000, times)).toEqual(Array(6).fill(1));
    expect(adapter.heldMessages(environment, times.at(-1) as number)).toBe(0);
  });

  it('a budget under 200 leases one message at a time, however busy: the exact counter', async () => {
    expect(await requestsPerSend(container(), newEnvironment(), 199, Array(12).fill(T0))).toEqual(Array(12).fill(1));
  });

  it('counts leased messages as spent in the shard, and holds them in the container until spent', async () => {
    const adapter = container();
    const environment = newEnvironment();
    await requestsPerSend(adapter, environment, 1000, Array(8).fill(T0)); // leases 1 + 2 + 4 + 8 = 15
    expect((await shardCounts(environment, 1000, T0)).reduce((sum, count) => sum + count, 0)).toBe(15);
    expect(adapter.heldMessages(environment, T0)).toBe(7);
  });

  it('takes what a shard has left when it has fewer than the lease asks: two writes, then the container spends them', async () => {
    const adapter = container();
    const environment = newEnvironment();
    await requestsPerSend(adapter, environment, 1000, Array(16).fill(LATE)); // warm: the next lease asks 10
    await fillShards(environment, 1000, (cap) => cap - 3);
    const before = adapter.heldMessages(environment, LATE);
    for (let index = 0; index < before; index += 1) await adapter.spendBudget(environment, budget(1000), LATE);

    table.proxy.reset();
    expect((await adapter.spendBudget(environment, budget(1000), LATE)).allowed).toBe(true);
    // The lease of 10 does not fit; the refusal says 3 are left; a lease of 3.
    expect(table.proxy.operations()).toEqual(['UpdateItem', 'UpdateItem']);
    expect(adapter.heldMessages(environment, LATE)).toBe(2);
  });

  it('is not known spent while the container holds leased messages, and spends them after every shard is spent', async () => {
    const adapter = container();
    const environment = newEnvironment();
    await requestsPerSend(adapter, environment, 1000, Array(8).fill(LATE)); // holds 7
    await fillShards(environment, 1000, (cap) => cap);
    expect(adapter.budgetKnownSpent(environment, budget(1000), LATE)).toBe(false);
    for (let index = 0; index < 7; index += 1) expect((await adapter.spendBudget(environment, budget(1000), LATE)).allowed).toBe(true);
    expect(await adapter.spendBudget(environment, budget(1000), LATE)).toEqual({ allowed: false });
    expect(adapter.budgetKnownSpent(environment, budget(1000), LATE)).toBe(true);
  });

  it('drops yesterday’s unspent lease at the UTC day’s end: that day’s undershoot, never today’s overshoot', async () => {
    const adapter = container();
    const environment = newEnvironment();
    await requestsPerSend(adapter, environment, 1000, Array(8).fill(LATE));
    expect(adapter.heldMessages(environment, LATE)).toBe(7);
    const tomorrow = nextUtcDayStart(LATE);
    expect(adapter.heldMessages(environment, tomorrow)).toBe(0);
    table.proxy.reset();
    expect(await adapter.spendBudget(environment, budget(1000), tomorrow)).toMatchObject({ allowed: true });
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
    expect((await shardCounts(environment, 1000, tomorrow)).reduce((sum, count) => sum + count, 0)).toBe(1);
  });

  it('20 concurrent sends at the edge over 3 busy containers: never more than the messages left, and every one either sent or held', async () => {
    const environment = newEnvironment();
    const adapters = [container(), container(), container()];
    // Each container busy (its next lease asks 10), then the day all but spent: 1, 2, 3 and 4 left.
    for (const adapter of adapters) await requestsPerSend(adapter, environment, 1000, Array(16).fill(LATE));
    const held = () => adapters.reduce((sum, adapter) => sum + adapter.heldMessages(environment, LATE), 0);
    for (const adapter of adapters)
      while (adapter.heldMessages(environment, LATE) > 0) await adapter.spendBudget(environment, budget(1000), LATE);
    await fillShards(environment, 1000, (cap, shard) => cap - (shard + 1));

    const decisions = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (adapters[index % 3] as DynamoDbSendGuards).spendBudget(environment, budget(1000), LATE)),
    );

    const sent = decisions.filter((decision) => decision.allowed).length;
    expect(await shardCounts(environment, 1000)).toEqual(shardCapsOf(1000));
    expect(sent).toBeLessThanOrEqual(10);
    expect(sent + held()).toBe(10);
  });

  it('lets concurrent sends in one container wait for a lease under way that has a message for each, instead of leasing their own', async () => {
    const adapter = container();
    const environment = newEnvironment();
    await requestsPerSend(adapter, environment, 1000, Array(16).fill(T0)); // busy: the next lease asks 10
    while (adapter.heldMessages(environment, T0) > 0) await adapter.spendBudget(environment, budget(1000), T0);

    table.proxy.reset();
    const decisions = await Promise.all(Array.from({ length: 10 }, () => adapter.spendBudget(environment, budget(1000), T0)));

    expect(decisions.every((decision) => decision.allowed)).toBe(true);
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
    expect(adapter.heldMessages(environment, T0)).toBe(0);

    // Every send that waited is done waiting: the next burst waits for one lease again.
    table.proxy.reset();
    const next = await Promise.all(Array.from({ length: 10 }, () => adapter.spendBudget(environment, budget(1000), T0)));
    expect(next.every((decision) => decision.allowed)).toBe(true);
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
  });

  it('sends every message left to a container’s concurrent sends, holding none: 10 sends, 10 messages left over 4 shards', async () => {
    for (let run = 0; run < 3; run += 1) {
      const adapter = container();
      const environment = newEnvironment();
      await requestsPerSend(adapter, environment, 1000, Array(16).fill(LATE));
      while (adapter.heldMessages(environment, LATE) > 0) await adapter.spendBudget(environment, budget(1000), LATE);
      await fillShards(environment, 1000, (cap, shard) => cap - [3, 3, 2, 2][shard]!);

      const decisions = await Promise.all(Array.from({ length: 10 }, () => adapter.spendBudget(environment, budget(1000), LATE)));

      expect({ run, sent: decisions.filter((decision) => decision.allowed).length, held: adapter.heldMessages(environment, LATE) }).toEqual(
        {
          run,
          sent: 10,
          held: 0,
        },
      );
      expect(await shardCounts(environment, 1000)).toEqual(shardCapsOf(1000));
    }
  });

  it('keeps each environment’s lease when another environment starts its day in the same container', async () => {
    const adapter = container();
    const [first, second] = [newEnvironment(), newEnvironment()];
    await requestsPerSend(adapter, first, 1000, Array(8).fill(LATE)); // holds 7
    await requestsPerSend(adapter, second, 1000, [LATE]);
    expect(adapter.heldMessages(first, LATE)).toBe(7);
    table.proxy.reset();
    await requestsPerSend(adapter, first, 1000, [LATE]);
    expect(table.proxy.operations()).toEqual([]);
  });

  it('never spends more than the budget, and every message taken from a shard is sent or held (random budgets, days under way, containers, concurrency)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3000 }),
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }),
        async (maxMessages, leftPerShard, containers, bursts) => {
          const environment = newEnvironment();
          const adapters = Array.from({ length: containers }, () => container());
          const caps = shardCapsOf(maxMessages);
          await fillShards(environment, maxMessages, (cap, shard) => Math.max(0, cap - (leftPerShard[shard] as number)));
          const left = (await shardCounts(environment, maxMessages)).reduce(
            (sum, count, shard) => sum + (caps[shard] as number) - count,
            0,
          );

          let sent = 0;
          let refused = 0;
          // Bursts of concurrent sends, spread over the containers.
          for (const burst of bursts) {
            const decisions = await Promise.all(
              Array.from({ length: burst }, (_, index) =>
                (adapters[index % containers] as DynamoDbSendGuards).spendBudget(environment, budget(maxMessages), LATE),
              ),
            );
            sent += decisions.filter((decision) => decision.allowed).length;
            refused += decisions.filter((decision) => !decision.allowed).length;
          }

          const counts = await shardCounts(environment, maxMessages);
          const held = adapters.reduce((sum, adapter) => sum + adapter.heldMessages(environment, LATE), 0);
          counts.forEach((count, shard) => expect(count).toBeLessThanOrEqual(caps[shard] as number));
          const taken = counts.reduce(
            (sum, count, shard) => sum + count - Math.max(0, (caps[shard] as number) - (leftPerShard[shard] as number)),
            0,
          );
          expect(sent).toBeLessThanOrEqual(left);
          expect(sent + held).toBe(taken);
          // A refusal only once every shard is spent (what is left is in other containers' leases).
          if (refused > 0) expect(taken).toBe(left);
          // A container never holds more than its largest lease less the message that took it.
          for (const adapter of adapters) expect(adapter.heldMessages(environment, LATE)).toBeLessThan(maxLeaseOf(maxMessages));
        },
      ),
      { numRuns: 20 },
    );
    // Up to 20 runs of 4 bursts of concurrent writes on a shared 2-core machine.
  }, 180_000);
});

describe('items that no write of this adapter produces: an error (a 500), never a decision', () => {
  const put = (pk: string, fields: Record<string, { N: string } | { S: string }>) =>
    table.client.send(new PutItemCommand({ TableName: table.name, Item: { pk: { S: pk }, ...fields } }));

  it('a window whose oldest send is not a time', async () => {
    const key = newKey();
    const slots = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`w${index}`, { N: String(at(index)) }]));
    await put(sendWindowItemKey(key), { ...slots, w0: { S: 'soon' } });
    await expect(guards.countSend(key, HOURLY_10, at(20))).rejects.toThrow(/^A malformed guard window item/);
  });

  it.each([
    ['a negative count, which a lease takes from', { N: '-5' }],
    ['a count that is not whole, over the cap', { N: '100000.5' }],
  ])('a budget shard with %s', async (_case, sent) => {
    const environment = newEnvironment();
    await Promise.all(shardCapsOf(1000).map((_, shard) => put(budgetShardItemKey(environment, utcDayOf(T0), shard), { sent })));
    await expect(new DynamoDbSendGuards(table.documents, table.name).spendBudget(environment, { maxMessages: 1000 }, T0)).rejects.toThrow(
      /^A malformed budget shard item/,
    );
  });
});

describe('storage failures: a 503 that names the step (a proxy fails the write a test names)', () => {
  const faulty = faultyTestTable();

  it('counting a send in a guard’s window, and leasing from the daily budget', async () => {
    const adapter = new DynamoDbSendGuards(faulty().documents, faulty().name);
    faulty().faults.failWhen(({ operation }) => operation === 'UpdateItem');
    await expect(adapter.countSend(newKey('prefix'), HOURLY_10, at(0))).rejects.toMatchObject(storageUnavailable('count send (prefix)'));
    await expect(adapter.spendBudget(newEnvironment(), { maxMessages: 1000 }, T0)).rejects.toMatchObject(
      storageUnavailable('spend budget'),
    );
  });
});
