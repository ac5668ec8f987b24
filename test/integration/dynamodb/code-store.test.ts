/**
 * The code store against DynamoDB Local: the guess's exact boundaries (the rules the condition
 * expression enforces, each at its edge), its race-safety, the slot's history under concurrent
 * failing sends, equivalence with the reference model (lib/domain/code-history.ts), and corrupt
 * items.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { DeleteItemCommand, GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { codeItemKey, DynamoDbCodeStore } from '../../../lib/adapters/dynamodb/code-store';
import { applyDiscardStep, discardStep, EMPTY_SLOT, saveIntoSlot } from '../../../lib/domain/code-history';
import type { CodeGuess, CodeRecord, CodeSlot, SlotState } from '../../../lib/ports';
import { futureBase } from '../../support/fake-clock';
import { storageUnavailable, type DynamoDbRequest } from '../../support/failing-dynamodb-proxy';
import { createTestTable, faultyTestTable, type TestTable } from '../../support/table';

const T0 = futureBase();

let table: TestTable;
let store: DynamoDbCodeStore;
beforeAll(async () => {
  table = await createTestTable();
  store = new DynamoDbCodeStore(table.documents, table.name);
});
afterAll(async () => table.stop());

const newSlot = (): CodeSlot => ({ environmentId: 'local', clientId: 'web', userKey: randomUUID() });

function code(slot: CodeSlot, overrides: Partial<CodeRecord> = {}): CodeRecord {
  const sendId = randomUUID();
  return {
    ...slot,
    channel: 'email',
    codeDigest: `digest-${sendId}`,
    sendId,
    createdAt: T0,
    notAfter: T0 + 300_000,
    tries: 0,
    maxTries: 3,
    ...overrides,
  };
}

const guessOf = (record: CodeRecord, guessDigest: string, now = T0): CodeGuess => ({
  environmentId: record.environmentId,
  clientId: record.clientId,
  userKey: record.userKey,
  guessDigest,
  now,
});

/** The slot as stored, read back through a save-free path: a guess that cannot match anything refused. */
async function liveOf(slot: CodeSlot): Promise<CodeRecord | undefined> {
  const result = await store.guess({ ...slot, guessDigest: 'probe', now: Number.MAX_SAFE_INTEGER });
  return result.record;
}

describe('guess: each rule at its exact edge', () => {
  it('spends a try and returns the code while now < not_after; at not_after it is refused without a write', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    expect(await store.guess(guessOf(record, 'g1', record.notAfter - 1))).toMatchObject({ outcome: 'compared', record: { tries: 1 } });
    expect(await store.guess(guessOf(record, 'g2', record.notAfter))).toMatchObject({
      outcome: 'refused',
      record: { tries: 1 },
      repeated: false,
    });
  });

  it('compares the max_tries-th guess and refuses the one after it', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    expect(await store.guess(guessOf(record, 'g1'))).toMatchObject({ outcome: 'compared', record: { tries: 1 } });
    expect(await store.guess(guessOf(record, 'g2'))).toMatchObject({ outcome: 'compared', record: { tries: 2 } });
    expect(await store.guess(guessOf(record, 'g3'))).toMatchObject({ outcome: 'compared', record: { tries: 3 } });
    expect(await store.guess(guessOf(record, 'g4'))).toMatchObject({ outcome: 'refused', record: { tries: 3 } });
  });

  it('refuses a guess already made without spending a try (so the matching guess succeeds once)', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    expect(await store.guess(guessOf(record, 'right'))).toMatchObject({ outcome: 'compared' });
    expect(await store.guess(guessOf(record, 'right'))).toMatchObject({ outcome: 'refused', repeated: true, record: { tries: 1 } });
  });

  it('refuses when the slot has no code, and keeps slots of different environments apart', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    expect(await store.guess({ ...guessOf(record, 'g'), environmentId: 'other' })).toEqual({
      outcome: 'refused',
      record: undefined,
      repeated: false,
    });
    expect(await store.guess(guessOf(code(newSlot()), 'g'))).toEqual({ outcome: 'refused', record: undefined, repeated: false });
  });

  it('of 50 concurrent guesses at one code, exactly max_tries are compared (regression: 5 compared and then the right code accepted)', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    const results = await Promise.all(Array.from({ length: 50 }, (_, index) => store.guess(guessOf(record, `g${index}`))));
    expect(results.filter((result) => result.outcome === 'compared')).toHaveLength(3);
    expect(new Set(results.flatMap((result) => (result.outcome === 'compared' ? [result.record.tries] : [])))).toEqual(new Set([1, 2, 3]));
  });

  it('is one UpdateItem, compared or refused', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    table.proxy.reset();
    await store.guess(guessOf(record, 'g'));
    await store.guess(guessOf(record, 'g'));
    expect(table.proxy.operations()).toEqual(['UpdateItem', 'UpdateItem']);
  });
});

describe('save and discard', () => {
  it('refuses to keep fewer than one replaced code (the history holds as many as sends can be in flight)', async () => {
    for (const keep of [0, 1.5]) {
      await expect(store.save(code(newSlot()), keep)).rejects.toThrow(`A slot keeps at least one replaced code, not ${keep}`);
    }
  });

  it('ends a discard whose slot is gone meanwhile (its TTL passed): one refused write, nothing put back', async () => {
    const slot = newSlot();
    await store.save(code(slot), 5);
    const failing = code(slot);
    const state = await store.save(failing, 5);
    await table.client.send(new DeleteItemCommand({ TableName: table.name, Key: { pk: { S: codeItemKey(slot) } } }));
    table.proxy.reset();
    await store.discard(failing, state, T0);
    expect(table.proxy.operations()).toEqual(['UpdateItem']);
    const { Item } = await table.client.send(new GetItemCommand({ TableName: table.name, Key: { pk: { S: codeItemKey(slot) } } }));
    expect(Item).toBeUndefined();
  });

  it('is one UpdateItem to save and one to put back the previous code', async () => {
    const slot = newSlot();
    await store.save(code(slot), 5);
    const failing = code(slot);
    table.proxy.reset();
    const state = await store.save(failing, 5);
    await store.discard(failing, state, T0);
    expect(table.proxy.operations()).toEqual(['UpdateItem', 'UpdateItem']);
  });

  it('keeps the tries the restored code had (a failing send never resets an attacker’s count)', async () => {
    const slot = newSlot();
    const previous = code(slot);
    await store.save(previous, 5);
    await store.guess(guessOf(previous, 'wrong-1'));
    await store.guess(guessOf(previous, 'wrong-2'));
    const failing = code(slot);
    await store.discard(failing, await store.save(failing, 5), T0);
    expect(await liveOf(slot)).toMatchObject({ sendId: previous.sendId, tries: 2 });
  });

  it.each([4, 20])(
    'puts back the delivered code when %i concurrent sends all fail (regression: an intermediate code nobody received came back)',
    async (count) => {
      for (let user = 0; user < 6; user += 1) {
        const slot = newSlot();
        const delivered = code(slot);
        await store.save(delivered, count);
        const sends = Array.from({ length: count }, () => code(slot));
        // Every send saves, then fails at a random moment while the others save and fail.
        await Promise.all(
          sends.map(async (send) => {
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
            const state = await store.save(send, count);
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
            await store.discard(send, state, T0);
          }),
        );
        expect((await liveOf(slot))?.sendId).toBe(delivered.sendId);
      }
    },
  );

  it('keeps a concurrent send whose delivery succeeded, whatever order the others fail in', async () => {
    const slot = newSlot();
    await store.save(code(slot), 4);
    const sends = Array.from({ length: 4 }, () => code(slot));
    const succeeding = sends[2] as CodeRecord;
    const states = new Map<string, SlotState>();
    for (const send of sends) states.set(send.sendId, await store.save(send, 4));
    await Promise.all(
      sends.filter((send) => send !== succeeding).map((send) => store.discard(send, states.get(send.sendId) as SlotState, T0)),
    );
    expect((await liveOf(slot))?.sendId).toBe(succeeding.sendId);
  });

  it('behaves as the reference model over random sequences of saves and failures', async () => {
    const opArb = fc.oneof(fc.constant({ kind: 'save' as const }), fc.record({ kind: fc.constant('fail' as const), pick: fc.nat() }));
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 4 }), async (ops, keep) => {
        const slot = newSlot();
        let model: SlotState = EMPTY_SLOT;
        let stored: SlotState = EMPTY_SLOT;
        const sent: CodeRecord[] = [];
        for (const op of ops) {
          if (op.kind === 'save' || sent.length === 0) {
            const record = code(slot);
            sent.push(record);
            model = saveIntoSlot(model, record, keep);
            stored = await store.save(record, keep);
          } else {
            const failed = sent[op.pick % sent.length] as CodeRecord;
            for (let step = discardStep(model, failed.sendId, T0); step.kind !== 'none'; step = discardStep(model, failed.sendId, T0)) {
              model = applyDiscardStep(model, step);
            }
            await store.discard(failed, stored, T0);
          }
          expect((await liveOf(slot))?.sendId).toBe(model.live?.sendId);
        }
      }),
      { numRuns: 30 },
    );
  });
});

describe('items that cannot be silently wrong', () => {
  it('refuses a corrupt code item with an error (a 500), never a plausible code', async () => {
    const slot = newSlot();
    // A live code without its digest or try count, as a bad migration or a hand edit might leave.
    await table.client.send(
      new PutItemCommand({
        TableName: table.name,
        Item: {
          pk: { S: codeItemKey(slot) },
          live: { M: { send_id: { S: 'x' }, channel: { S: 'email' }, not_after: { N: String(T0 + 1000) } } },
        },
      }),
    );
    await expect(store.guess({ ...slot, guessDigest: 'g', now: T0 })).rejects.toThrow(/malformed code item/);
  });

  it('a guess reads only the live code; a corrupt history place is refused by the next save that reads it', async () => {
    // Arrange: a live code, and a history place a hand edit broke.
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 2);
    await table.client.send(
      new UpdateItemCommand({
        TableName: table.name,
        Key: { pk: { S: codeItemKey(slot) } },
        UpdateExpression: 'SET h1 = :broken',
        ExpressionAttributeValues: { ':broken': { M: { send_id: { S: 'x' } } } },
      }),
    );

    // Act / Assert (the save shifts the broken place from h1 to h0, and returns it)
    await expect(store.guess(guessOf(record, 'g'))).resolves.toEqual(expect.objectContaining({ outcome: 'compared' }));
    await expect(store.save(code(slot), 2)).rejects.toThrow(/malformed code item \(h0\)/);
  });
});

describe('storage failures: a 503 that names the step (a proxy fails the write a test names)', () => {
  const isWrite = ({ operation }: DynamoDbRequest) => operation === 'UpdateItem';
  const faulty = faultyTestTable();
  const faults = () => faulty().faults;
  let faultyStore: DynamoDbCodeStore;
  beforeAll(() => {
    faultyStore = new DynamoDbCodeStore(faulty().documents, faulty().name);
  });

  it('saving, guessing and discarding a code', async () => {
    const slot = newSlot();
    faults().failWhen(isWrite);
    await expect(faultyStore.save(code(slot), 5)).rejects.toMatchObject(storageUnavailable('save code'));
    faults().heal();
    const record = code(slot);
    const state = await faultyStore.save(record, 5);
    faults().failWhen(isWrite);
    await expect(faultyStore.guess(guessOf(record, 'g'))).rejects.toMatchObject(storageUnavailable('guess code'));
    await expect(faultyStore.discard(record, state, T0)).rejects.toMatchObject(storageUnavailable('discard code'));
  });
});
