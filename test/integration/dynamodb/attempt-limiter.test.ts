/**
 * The attempt limit against DynamoDB Local: the rule's boundaries with an injected clock, its
 * race-safety, its request budget, and its equivalence with the pure model (lib/limits/limits.ts).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDbAttemptLimiter } from '../../../lib/adapters/dynamodb/attempt-limiter';
import { attemptItemKey } from '../../../lib/adapters/dynamodb/item-keys';
import type { LimitConfig } from '../../../lib/platform/config';
import { applyAttempt, applyFailure, EMPTY_LIMIT_STATE, isCapped, type LimitState } from '../../../lib/limits/limits';
import type { AttemptKey, FailureRun } from '../../../lib/limits/ports';
import { futureBase } from '../../support/fake-clock';
import { storageUnavailable, type DynamoDbRequest } from '../../support/failing-dynamodb-proxy';
import { createTestTable, faultyTestTable, type TestTable } from '../../support/table';

const DEFAULT_LIMIT: LimitConfig = { maxAttempts: 5, windowSeconds: 60, blockSeconds: 300 };
// In the future of the real clock: DynamoDB Local deletes items whose TTL has passed.
const T0 = futureBase();

let table: TestTable;
let limiter: DynamoDbAttemptLimiter;
beforeAll(async () => {
  table = await createTestTable();
  limiter = new DynamoDbAttemptLimiter(table.documents, table.name);
});
afterAll(async () => table.stop());

const newKey = (operation: 'token' | 'send' = 'token'): AttemptKey => ({ operation, environmentId: 'local', userKey: randomUUID() });
const at = (seconds: number) => T0 + seconds * 1000;

async function attempts(key: AttemptKey, times: number[], limit = DEFAULT_LIMIT) {
  const decisions = [];
  for (const time of times) decisions.push(await limiter.recordAttempt(key, limit, time));
  return decisions;
}

describe('the default limit: 5 attempts per sliding minute, then a 5-minute block', () => {
  it('processes five attempts within a minute and refuses the sixth, which starts a 300 s block', async () => {
    const key = newKey();
    const decisions = await attempts(key, [0, 1, 2, 3, 4, 5].map(at));
    expect(decisions.slice(0, 5)).toEqual(Array(5).fill({ allowed: true }));
    expect(decisions[5]).toEqual({ allowed: false, retryAfterSeconds: 300, blockStarted: true, reason: 'limit' });
  });

  it('answers every attempt during the block with the remaining time, without extending it', async () => {
    const key = newKey();
    await attempts(key, [0, 1, 2, 3, 4].map(at));
    await limiter.recordAttempt(key, DEFAULT_LIMIT, at(10)); // starts the block: lifts at 310 s
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(11))).toEqual({
      allowed: false,
      retryAfterSeconds: 299,
      blockStarted: false,
      reason: 'limit',
    });
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(200))).toEqual({
      allowed: false,
      retryAfterSeconds: 110,
      blockStarted: false,
      reason: 'limit',
    });
    // Half a second left: Retry-After never says more than the block has left.
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(309.5))).toEqual({
      allowed: false,
      retryAfterSeconds: 0,
      blockStarted: false,
      reason: 'limit',
    });
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(310))).toEqual({ allowed: true });
  });

  it('lifts the block by itself and counts afresh: five more, then a new block', async () => {
    const key = newKey();
    await attempts(key, [0, 1, 2, 3, 4, 5].map(at));
    const after = await attempts(key, [305, 306, 307, 308, 309, 310].map(at));
    expect(after.slice(0, 5)).toEqual(Array(5).fill({ allowed: true }));
    expect(after[5]).toEqual({ allowed: false, retryAfterSeconds: 300, blockStarted: true, reason: 'limit' });
  });

  it('slides: an attempt exactly one window after the oldest is processed, one millisecond earlier is not', async () => {
    const early = newKey();
    await attempts(early, [0, 10, 20, 30, 40].map(at));
    expect(await limiter.recordAttempt(early, DEFAULT_LIMIT, at(60) - 1)).toMatchObject({
      allowed: false,
      blockStarted: true,
      reason: 'limit',
    });

    const onTime = newKey();
    await attempts(onTime, [0, 10, 20, 30, 40].map(at));
    expect(await limiter.recordAttempt(onTime, DEFAULT_LIMIT, at(60))).toEqual({ allowed: true });
    // Now 10, 20, 30, 40, 60 are in the window: the next before 70 s is refused.
    expect(await limiter.recordAttempt(onTime, DEFAULT_LIMIT, at(69))).toMatchObject({
      allowed: false,
      blockStarted: true,
      reason: 'limit',
    });
  });

  it('is a sliding window, not calendar minutes: 5 at :55-:59 and 1 at :01 of the next minute is a sixth', async () => {
    const key = newKey();
    await attempts(key, [55, 56, 57, 58, 59].map(at));
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(61))).toMatchObject({ allowed: false, blockStarted: true, reason: 'limit' });
  });

  it('keeps one counter per operation, environment and user', async () => {
    const token = newKey('token');
    await attempts(token, [0, 1, 2, 3, 4, 5].map(at));
    expect(await limiter.recordAttempt({ ...token, operation: 'send' }, DEFAULT_LIMIT, at(6))).toEqual({ allowed: true });
    expect(await limiter.recordAttempt({ ...token, environmentId: 'other' }, DEFAULT_LIMIT, at(6))).toEqual({ allowed: true });
    expect(await limiter.recordAttempt({ ...token, userKey: randomUUID() }, DEFAULT_LIMIT, at(6))).toEqual({ allowed: true });
  });

  it('honours other limits (the configuration can change every number)', async () => {
    const limit = { maxAttempts: 2, windowSeconds: 10, blockSeconds: 30 };
    const key = newKey();
    const decisions = await attempts(key, [0, 1, 2].map(at), limit);
    expect(decisions).toEqual([
      { allowed: true },
      { allowed: true },
      { allowed: false, retryAfterSeconds: 30, blockStarted: true, reason: 'limit' },
    ]);
    expect(await limiter.recordAttempt(key, limit, at(32))).toEqual({ allowed: true });
  });

  it('works with a limit of one attempt (regression: an unused :zero value made DynamoDB reject the update)', async () => {
    const limit = { maxAttempts: 1, windowSeconds: 10, blockSeconds: 20 };
    const key = newKey();
    expect(await attempts(key, [0, 1].map(at), limit)).toEqual([
      { allowed: true },
      { allowed: false, retryAfterSeconds: 20, blockStarted: true, reason: 'limit' },
    ]);
  });

  it('stores the user only as the key it was given, with a TTL attribute for housekeeping', async () => {
    const key = newKey();
    await limiter.recordAttempt(key, DEFAULT_LIMIT, at(0));
    const { Item } = await table.client.send(new GetItemCommand({ TableName: table.name, Key: { pk: { S: attemptItemKey(key) } } }));
    expect(Item?.pk?.S).toBe(`limit#token#local#${key.userKey}`);
    expect(Number(Item?.expires_at?.N)).toBe(Math.ceil(at(60) / 1000));
    // The last maxAttempts attempts' times, oldest first (empty places 0), and nothing else.
    expect(Object.keys(Item ?? {}).sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'expires_at', 'pk']);
    expect(['a0', 'a1', 'a2', 'a3', 'a4'].map((slot) => Number(Item?.[slot]?.N))).toEqual([0, 0, 0, 0, at(0)]);
  });

  it('starts a new block at the exact end of one shorter than the window, while the window is still full', async () => {
    // Two attempts in a minute, a 10 s block: the block started at 2 s ends at 12 s, when the
    // attempts at 0 s and 1 s are still in the window.
    const limit = { maxAttempts: 2, windowSeconds: 60, blockSeconds: 10 };
    const key = newKey();
    await attempts(key, [0, 1, 2].map(at), limit);
    expect(await limiter.recordAttempt(key, limit, at(12) - 1)).toEqual({
      allowed: false,
      retryAfterSeconds: 0,
      blockStarted: false,
      reason: 'limit',
    });
    // At its end the block has lapsed (a lapsed block counts as none): a new one, never "retry in 0 s".
    expect(await limiter.recordAttempt(key, limit, at(12))).toEqual({
      allowed: false,
      retryAfterSeconds: 10,
      blockStarted: true,
      reason: 'limit',
    });
    // The window has slid past the attempt at 0 s.
    expect(await limiter.recordAttempt(key, limit, at(60))).toEqual({ allowed: true });
  });
});

describe('an operator’s block (lib/admin/operator.ts): in the same item, read by the same write', () => {
  const CAP = { maxConsecutive: 3, windowSeconds: 3600 };
  const itemOf = async (key: AttemptKey) =>
    (await table.client.send(new GetItemCommand({ TableName: table.name, Key: { pk: { S: attemptItemKey(key) } } }))).Item;

  it('answers every attempt the limit allows with operator_block, in the one UpdateItem an attempt always costs', async () => {
    const send = newKey('send');
    const token = newKey('token');
    await limiter.block(send, at(0));
    await limiter.block(token, at(0));
    table.proxy.reset();
    expect(await limiter.recordAttempt(send, DEFAULT_LIMIT, at(1))).toEqual({ allowed: false, reason: 'operator_block' });
    expect(await limiter.recordAttempt(token, DEFAULT_LIMIT, at(1), CAP)).toEqual({
      allowed: false,
      reason: 'operator_block',
      failures: undefined,
    });
    // No read, no second write: the block comes back with the attempt's own write.
    expect(table.proxy.operations()).toEqual(['UpdateItem', 'UpdateItem']);
  });

  it('still counts a blocked user’s attempts: the sixth in a minute is refused by the limit, as anyone’s is (the answers never tell a block apart)', async () => {
    const key = newKey('send');
    await limiter.block(key, at(0));
    const decisions = await attempts(key, [1, 2, 3, 4, 5, 6, 7].map(at));
    expect(decisions).toEqual([
      ...Array(5).fill({ allowed: false, reason: 'operator_block' }),
      { allowed: false, retryAfterSeconds: 300, blockStarted: true, reason: 'limit' },
      { allowed: false, retryAfterSeconds: 299, blockStarted: false, reason: 'limit' },
    ]);
  });

  it('lets the failure cap refuse a blocked user as any other, and passes on the run to count the blocked check’s failure', async () => {
    const key = newKey('token');
    await limiter.block(key, at(0));
    await limiter.recordFailure(key, CAP, at(0));
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(1), CAP)).toEqual({
      allowed: false,
      reason: 'operator_block',
      failures: { count: 1, since: at(0) },
    });
    await limiter.recordFailure(key, CAP, at(1));
    await limiter.recordFailure(key, CAP, at(2));
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(3), CAP)).toMatchObject({ allowed: false, reason: 'failure_cap' });
  });

  it('keeps the item while blocked: its TTL attribute is no Number (DynamoDB’s TTL skips it), whatever attempts and limit blocks renew', async () => {
    const key = newKey('send');
    await attempts(key, [0].map(at));
    await limiter.block(key, at(1));
    await attempts(key, [2, 3, 4, 5, 6].map(at)); // the last one starts a limit block
    const item = await itemOf(key);
    expect(item?.operator_blocked).toEqual({ S: new Date(at(1)).toISOString() });
    expect(item?.expires_at).toEqual({ S: new Date(at(1)).toISOString() });
    expect(item?.blocked_until).toEqual({ N: String(at(306)) });
  });

  it('unblock lifts it in one UpdateItem and puts back a numeric TTL; the next attempt is processed', async () => {
    const key = newKey('token');
    await limiter.block(key, at(0));
    table.proxy.reset();
    expect(await limiter.unblock(key, at(3600))).toBe(true);
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
    const item = await itemOf(key);
    expect(item?.operator_blocked).toBeUndefined();
    expect(item?.expires_at).toEqual({ N: String(Math.ceil(at(3600) / 1000)) });
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(1), CAP)).toEqual({ allowed: true, failures: undefined });
  });

  it('unblocking a user who was never blocked says so, and creates no item', async () => {
    const key = newKey('send');
    expect(await limiter.unblock(key, at(60))).toBe(false);
    expect(await itemOf(key)).toBeUndefined();
  });

  it('blocks one counter only: the same user’s other operation, environment and other users are untouched', async () => {
    const key = newKey('token');
    await limiter.block(key, at(0));
    expect(await limiter.recordAttempt({ ...key, operation: 'send' }, DEFAULT_LIMIT, at(1))).toEqual({ allowed: true });
    expect(await limiter.recordAttempt({ ...key, environmentId: 'other' }, DEFAULT_LIMIT, at(1))).toEqual({ allowed: true });
    expect(await limiter.recordAttempt({ ...key, userKey: randomUUID() }, DEFAULT_LIMIT, at(1))).toEqual({ allowed: true });
  });
});

describe('race safety', () => {
  it('of 20 concurrent attempts for one user, exactly 5 are processed and 15 refused', async () => {
    const key = newKey();
    const decisions = await Promise.all(Array.from({ length: 20 }, () => limiter.recordAttempt(key, DEFAULT_LIMIT, at(0))));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
    const refused = decisions.filter((decision) => !decision.allowed);
    expect(refused).toHaveLength(15);
    expect(refused.every((decision) => !decision.allowed && decision.reason === 'limit' && decision.retryAfterSeconds === 300)).toBe(true);
    // Exactly one of them started the block; the others saw it.
    expect(refused.filter((decision) => !decision.allowed && decision.reason === 'limit' && decision.blockStarted)).toHaveLength(1);
  });
});

describe('request budget (counted on the wire)', () => {
  it('a processed attempt is one UpdateItem; a refused one during a block is one; the one that starts a block is two', async () => {
    const key = newKey();
    await attempts(key, [0, 1, 2, 3].map(at));
    table.proxy.reset();
    await limiter.recordAttempt(key, DEFAULT_LIMIT, at(4));
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
    table.proxy.reset();
    await limiter.recordAttempt(key, DEFAULT_LIMIT, at(5));
    expect(table.proxy.operations()).toEqual(['UpdateItem', 'UpdateItem']);
    table.proxy.reset();
    await limiter.recordAttempt(key, DEFAULT_LIMIT, at(6));
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
  });

  it('asks for the item back with every attempt (the failure run, an operator’s block): ALL_NEW, and ALL_OLD when refused', async () => {
    // DynamoDB Local takes any ReturnValues; DynamoDB refuses a value outside its enum.
    table.proxy.reset();
    await limiter.recordAttempt(newKey('send'), DEFAULT_LIMIT, at(0));
    await limiter.recordAttempt(newKey(), DEFAULT_LIMIT, at(0), { maxConsecutive: 3, windowSeconds: 3600 });
    expect(table.proxy.requests().map(({ body }) => [body.ReturnValues, body.ReturnValuesOnConditionCheckFailure])).toEqual([
      ['ALL_NEW', 'ALL_OLD'],
      ['ALL_NEW', 'ALL_OLD'],
    ]);
  });
});

describe('equivalence with the pure model', () => {
  it('decides every attempt of a random sequence exactly as lib/limits/limits.ts does', async () => {
    const limitArb = fc.record({
      maxAttempts: fc.integer({ min: 1, max: 6 }),
      windowSeconds: fc.integer({ min: 1, max: 30 }),
      blockSeconds: fc.integer({ min: 1, max: 60 }),
    });
    const gapsArb = fc.array(fc.integer({ min: 0, max: 15_000 }), { minLength: 1, maxLength: 25 });
    await fc.assert(
      fc.asyncProperty(limitArb, gapsArb, async (limit, gaps) => {
        const key = newKey();
        let state: LimitState = EMPTY_LIMIT_STATE;
        let now = T0;
        for (const gap of gaps) {
          now += gap;
          const expected = applyAttempt(state, limit, now);
          state = expected.state;
          expect(await limiter.recordAttempt(key, limit, now)).toEqual(expected.decision);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('the failure cap (NIST SP 800-63B §5.2.2): consecutive failed exchanges per user', () => {
  const CAP = { maxConsecutive: 3, windowSeconds: 3600 };
  /** A limit that never gets in the way, so only the cap decides. */
  const ROOMY: LimitConfig = { maxAttempts: 50, windowSeconds: 1, blockSeconds: 1 };

  it('counts failures into a run, and refuses the user once the run reaches the cap, with Retry-After until the run’s window ends', async () => {
    const key = newKey();
    expect(await limiter.recordAttempt(key, ROOMY, at(0), CAP)).toEqual({ allowed: true, failures: undefined });
    expect(await limiter.recordFailure(key, CAP, at(0))).toEqual({ count: 1, since: at(0) });
    expect(await limiter.recordAttempt(key, ROOMY, at(10), CAP)).toEqual({ allowed: true, failures: { count: 1, since: at(0) } });
    await limiter.recordFailure(key, CAP, at(10));
    expect(await limiter.recordFailure(key, CAP, at(20))).toEqual({ count: 3, since: at(0) });

    expect(await limiter.recordAttempt(key, ROOMY, at(30), CAP)).toEqual({
      allowed: false,
      retryAfterSeconds: 3570,
      blockStarted: false,
      reason: 'failure_cap',
    });
    // Capped until exactly one window after the run's first failure, never a moment longer.
    expect(await limiter.recordAttempt(key, ROOMY, at(3600) - 1, CAP)).toEqual({
      allowed: false,
      retryAfterSeconds: 0,
      blockStarted: false,
      reason: 'failure_cap',
    });
    expect(await limiter.recordAttempt(key, ROOMY, at(3600), CAP)).toEqual({ allowed: true, failures: { count: 3, since: at(0) } });
    // A failure after the window starts a new run.
    expect(await limiter.recordFailure(key, CAP, at(3600))).toEqual({ count: 1, since: at(3600) });
  });

  it('is ended by clearFailures (a successful exchange)', async () => {
    const key = newKey();
    for (const second of [0, 1]) await limiter.recordFailure(key, CAP, at(second));
    await limiter.clearFailures(key);
    expect(await limiter.recordAttempt(key, ROOMY, at(2), CAP)).toEqual({ allowed: true, failures: undefined });
    expect(await limiter.recordFailure(key, CAP, at(3))).toEqual({ count: 1, since: at(3) });
  });

  it('does not apply to an attempt recorded without a cap (the send operation)', async () => {
    const key = newKey();
    for (const second of [0, 1, 2, 3]) await limiter.recordFailure(key, CAP, at(second));
    expect(await limiter.recordAttempt(key, ROOMY, at(4))).toEqual({ allowed: true });
    expect(await limiter.recordAttempt(key, ROOMY, at(5), CAP)).toMatchObject({ allowed: false, reason: 'failure_cap' });
    // A full window without a cap starts the attempt block, whatever run the item holds.
    const single = { maxAttempts: 1, windowSeconds: 60, blockSeconds: 10 };
    expect(await limiter.recordAttempt(key, single, at(6))).toEqual({ allowed: true });
    expect(await limiter.recordAttempt(key, single, at(7))).toEqual({
      allowed: false,
      retryAfterSeconds: 10,
      blockStarted: true,
      reason: 'limit',
    });
  });

  it('loses no failure under concurrency: 20 concurrent failures count 20', async () => {
    const key = newKey();
    await Promise.all(Array.from({ length: 20 }, () => limiter.recordFailure(key, { maxConsecutive: 100, windowSeconds: 3600 }, at(0))));
    expect(await limiter.recordAttempt(key, ROOMY, at(1), { maxConsecutive: 100, windowSeconds: 3600 })).toEqual({
      allowed: true,
      failures: { count: 20, since: at(0) },
    });
  });

  it('costs one UpdateItem to count a failure, one to refuse a capped user, one to clear a run', async () => {
    const key = newKey();
    table.proxy.reset();
    for (const second of [0, 1, 2]) await limiter.recordFailure(key, CAP, at(second));
    expect(table.proxy.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
    table.proxy.reset();
    await limiter.recordAttempt(key, ROOMY, at(3), CAP);
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
    table.proxy.reset();
    await limiter.clearFailures(key);
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
  });

  it('starts a new run over one whose window has passed in one UpdateItem when told the run it saw, and still counts right on a stale hint', async () => {
    const key = newKey();
    for (const second of [0, 1]) await limiter.recordFailure(key, CAP, at(second));
    const seen = { count: 2, since: at(0) };
    table.proxy.reset();
    expect(await limiter.recordFailure(key, CAP, at(3600), seen)).toEqual({ count: 1, since: at(3600) });
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
    // A hint another request has made stale (the run restarted meanwhile): the second write counts it.
    table.proxy.reset();
    expect(await limiter.recordFailure(key, CAP, at(3601), seen)).toEqual({ count: 2, since: at(3600) });
    expect(table.proxy.operations()).toEqual(['UpdateItem', 'UpdateItem']);
  });

  it('keeps the item at least as long as the cap’s window (TTL is housekeeping, but must not lift a cap early)', async () => {
    const key = newKey();
    await limiter.recordAttempt(key, ROOMY, at(0), CAP);
    const { Item } = await table.client.send(new GetItemCommand({ TableName: table.name, Key: { pk: { S: attemptItemKey(key) } } }));
    expect(Number(Item?.expires_at?.N)).toBe(Math.ceil(at(3600) / 1000));
  });

  it('decides as the pure model does over random sequences of attempts, failures and successes', async () => {
    const eventArb = fc.record({
      gap: fc.integer({ min: 0, max: 2_000_000 }),
      kind: fc.constantFrom('failure', 'failure', 'failure', 'success'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { minLength: 1, maxLength: 15 }), async (events) => {
        const key = newKey();
        let run: FailureRun | undefined;
        let now = T0;
        for (const event of events) {
          now += event.gap;
          const decision = await limiter.recordAttempt(key, ROOMY, now, CAP);
          if (run !== undefined && isCapped(run, CAP, now)) {
            expect(decision).toMatchObject({ allowed: false, reason: 'failure_cap' });
            continue;
          }
          expect(decision).toEqual({ allowed: true, failures: run });
          if (event.kind === 'failure') {
            run = applyFailure(run, CAP, now);
            expect(await limiter.recordFailure(key, CAP, now)).toEqual(run);
          } else if (run !== undefined) {
            await limiter.clearFailures(key);
            run = undefined;
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('storage failures: a 503 that names the step, never a decision (a proxy fails the write a test names)', () => {
  const CAP = { maxConsecutive: 3, windowSeconds: 3600 };
  const isAttempt = ({ body }: DynamoDbRequest) => body.UpdateExpression?.startsWith('SET #s0 = ') === true;
  const isBlock = ({ body }: DynamoDbRequest) => body.UpdateExpression === 'SET #b = :until, #e = if_not_exists(#o, :expires)';
  const isOperatorBlock = ({ body }: DynamoDbRequest) => body.UpdateExpression === 'SET #o = :since, #e = :since';
  const isOperatorUnblock = ({ body }: DynamoDbRequest) => body.UpdateExpression === 'REMOVE #o SET #e = :expires';
  const isFailureCount = ({ body }: DynamoDbRequest) => body.UpdateExpression?.startsWith('SET #c = ') === true;
  const isClear = ({ body }: DynamoDbRequest) => body.UpdateExpression === 'REMOVE #c, #s';
  const faulty = faultyTestTable();
  const faults = () => faulty().faults;
  let faultyLimiter: DynamoDbAttemptLimiter;
  beforeAll(() => {
    faultyLimiter = new DynamoDbAttemptLimiter(faulty().documents, faulty().name);
  });

  it('recording an attempt', async () => {
    faults().failWhen(isAttempt);
    await expect(faultyLimiter.recordAttempt(newKey(), DEFAULT_LIMIT, at(0))).rejects.toMatchObject(storageUnavailable('record attempt'));
  });

  it('starting a block: no 429 for a block that was never stored, and the next attempt starts it', async () => {
    const key = newKey();
    for (const second of [0, 1, 2, 3, 4]) await faultyLimiter.recordAttempt(key, DEFAULT_LIMIT, at(second));
    faults().failWhen(isBlock);
    await expect(faultyLimiter.recordAttempt(key, DEFAULT_LIMIT, at(5))).rejects.toMatchObject(storageUnavailable('start block'));
    faults().heal();
    expect(await faultyLimiter.recordAttempt(key, DEFAULT_LIMIT, at(6))).toEqual({
      allowed: false,
      retryAfterSeconds: 300,
      blockStarted: true,
      reason: 'limit',
    });
  });

  it('an operator’s block and unblock', async () => {
    faults().failWhen(isOperatorBlock);
    await expect(faultyLimiter.block(newKey(), at(0))).rejects.toMatchObject(storageUnavailable('block user'));
    faults().failWhen(isOperatorUnblock);
    await expect(faultyLimiter.unblock(newKey(), at(0))).rejects.toMatchObject(storageUnavailable('unblock user'));
  });

  it('counting a failure, and clearing a run', async () => {
    const key = newKey();
    faults().failWhen(isFailureCount);
    await expect(faultyLimiter.recordFailure(key, CAP, at(0))).rejects.toMatchObject(storageUnavailable('record failure'));
    faults().failWhen(isClear);
    await expect(faultyLimiter.clearFailures(key)).rejects.toMatchObject(storageUnavailable('clear failures'));
  });

  it('gives up counting a failure after four refused writes: an error, never a hung function', async () => {
    // Each write's condition fails, as if other writers moved the run across its window's start
    // between every two of ours (the two writes' conditions are complementary).
    faults().failWhen(isFailureCount, 'conditional');
    const before = faults().failed().length;
    await expect(faultyLimiter.recordFailure(newKey(), CAP, at(0))).rejects.toThrow(
      'The failure run kept changing under concurrent writes',
    );
    expect(faults().failed().slice(before)).toHaveLength(4);
  });
});
