/**
 * The code store against DynamoDB Local: the guess's exact boundaries (the rules the condition
 * expression enforces, each at its edge), its race-safety, the slot's history under concurrent
 * failing sends, equivalence with the reference model (lib/otp/code-history.ts), and corrupt
 * items.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { DeleteItemCommand, GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDbCodeStore } from '../../../lib/adapters/dynamodb/code-store';
import { codeItemKey } from '../../../lib/adapters/dynamodb/item-keys';
import { applyDiscardStep, discardStep, EMPTY_SLOT, saveIntoSlot } from '../../../lib/otp/code-history';
import type { CodeGuess, CodeRecord, CodeSlot, SlotState } from '../../../lib/otp/ports';
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

const guessOf = (record: CodeRecord, guessDigest: string, now = T0, presentationId: string = randomUUID()): CodeGuess => ({
  environmentId: record.environmentId,
  clientId: record.clientId,
  userKey: record.userKey,
  guessDigest,
  presentationId,
  now,
});

/** The slot as stored, read back through a save-free path: a guess that cannot match anything refused. */
async function liveOf(slot: CodeSlot): Promise<CodeRecord | undefined> {
  const result = await store.guess({ ...slot, guessDigest: 'probe', presentationId: 'probe', now: Number.MAX_SAFE_INTEGER });
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

describe('writes whose outcome was never learned (a timeout: DynamoDB may apply them later)', () => {
  it('the SDK’s retry of a guess that landed finds its own presentation: compared, no second try spent', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    const guess = guessOf(record, 'right');
    expect(await store.guess(guess)).toMatchObject({ outcome: 'compared', record: { tries: 1 } });
    expect(await store.guess(guess)).toMatchObject({ outcome: 'compared', record: { tries: 1 } });
    // Any other presentation of it is a repetition (single use).
    expect(await store.guess(guessOf(record, 'right'))).toMatchObject({ outcome: 'refused', repeated: true, record: { tries: 1 } });
  });

  it('an abandoned presentation’s guess is taken over once by the same guess again; every later one is refused', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    const first = guessOf(record, 'right');
    await store.guess(first);
    await store.guess(guessOf(record, 'other'));
    table.proxy.reset();
    await store.abandon(first);
    const retry = guessOf(record, 'right');
    expect(await store.guess(retry)).toMatchObject({ outcome: 'compared', record: { tries: 2 } });
    // The abandon, then the refused guess and the take-over: one UpdateItem each.
    expect(table.proxy.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
    // The retry's own SDK retry still finds itself; anyone else is refused.
    expect(await store.guess(retry)).toMatchObject({ outcome: 'compared', record: { tries: 2 } });
    expect(await store.guess(guessOf(record, 'right'))).toMatchObject({ outcome: 'refused', repeated: true });
    // Abandoning a presentation that never guessed takes nothing over.
    await store.abandon({ ...slot, presentationId: randomUUID() });
    expect(await store.guess(guessOf(record, 'right'))).toMatchObject({ outcome: 'refused', repeated: true });
  });

  it('of 20 concurrent retries of an abandoned guess, exactly one takes it over', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    const first = guessOf(record, 'right');
    await store.guess(first);
    await store.abandon(first);
    const results = await Promise.all(Array.from({ length: 20 }, () => store.guess(guessOf(record, 'right'))));
    expect(results.filter((result) => result.outcome === 'compared')).toHaveLength(1);
    expect(results.filter((result) => result.outcome === 'refused' && result.repeated)).toHaveLength(19);
  });

  it('a guess that lands after its presentation was abandoned is refused and spends no try', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    const late = guessOf(record, 'right');
    await store.abandon(late);
    expect(await store.guess(late)).toMatchObject({ outcome: 'refused', repeated: false, record: { tries: 0 } });
    expect(await store.guess(guessOf(record, 'right'))).toMatchObject({ outcome: 'compared', record: { tries: 1 } });
  });

  it('takes nothing over once the code expired, nor on a code stored before presentations were recorded', async () => {
    const slot = newSlot();
    const record = code(slot);
    await store.save(record, 5);
    const first = guessOf(record, 'right');
    await store.guess(first);
    await store.abandon(first);
    expect(await store.guess(guessOf(record, 'right', record.notAfter))).toMatchObject({ outcome: 'refused', repeated: true });

    // A code as stored before: guesses without presentations.
    const legacy = newSlot();
    const old = code(legacy);
    await store.save(old, 5);
    await table.client.send(
      new UpdateItemCommand({
        TableName: table.name,
        Key: { pk: { S: codeItemKey(legacy) } },
        UpdateExpression: 'SET live.guesses = :guesses, live.tries = :one REMOVE live.presentations',
        ExpressionAttributeValues: { ':guesses': { L: [{ S: 'right' }] }, ':one': { N: '1' } },
      }),
    );
    const next = guessOf(old, 'other');
    expect(await store.guess(next)).toMatchObject({ outcome: 'compared', record: { tries: 2 } });
    await store.abandon(next);
    // `next` is recorded at index 0 of presentations, against guess 1: never taken as the owner of guess 0.
    expect(await store.guess(guessOf(old, 'right'))).toMatchObject({ outcome: 'refused', repeated: true });
  });

  it('abandoning in an empty slot writes nothing', async () => {
    const slot = newSlot();
    await store.abandon({ ...slot, presentationId: randomUUID() });
    const item = await table.client.send(new GetItemCommand({ TableName: table.name, Key: { pk: { S: codeItemKey(slot) } } }));
    expect(item.Item).toBeUndefined();
  });

  it('a cancelled save that had landed is discarded: the code it replaced is live again', async () => {
    const slot = newSlot();
    const held = code(slot);
    await store.save(held, 5);
    const failed = code(slot);
    await store.save(failed, 5);
    await store.cancel(failed, T0);
    expect(await liveOf(slot)).toMatchObject({ sendId: held.sendId });
  });

  it('a cancelled save that landed twice (the SDK retried it) is discarded, its copy in the history marked failed', async () => {
    const slot = newSlot();
    const held = code(slot);
    await store.save(held, 5);
    const failed = code(slot);
    await store.save(failed, 5);
    await store.save(failed, 5);
    table.proxy.reset();
    await store.cancel(failed, T0);
    // The cancel, the restore of the held code, the mark of the copy.
    expect(table.proxy.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
    expect(await liveOf(slot)).toMatchObject({ sendId: held.sendId });
    // A failed delivery of the held code now clears the slot: the copy never comes back.
    await store.discard(held, { live: { ...held, failed: false }, history: [] }, T0);
    expect(await liveOf(slot)).toBeUndefined();
  });

  it('a cancelled save that lands afterwards is refused, and the slot is left as it was', async () => {
    const slot = newSlot();
    const held = code(slot);
    await store.save(held, 5);
    const late = code(slot);
    await store.cancel(late, T0);
    await expect(store.save(late, 5)).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(await liveOf(slot)).toMatchObject({ sendId: held.sendId });
    // Other sends are saved as usual.
    const next = code(slot);
    await store.save(next, 5);
    expect(await liveOf(slot)).toMatchObject({ sendId: next.sendId });
  });

  it('a cancel in an empty slot leaves an item that expires with the code, and no live code', async () => {
    const slot = newSlot();
    const late = code(slot);
    await store.cancel(late, T0);
    const item = await table.client.send(new GetItemCommand({ TableName: table.name, Key: { pk: { S: codeItemKey(slot) } } }));
    expect(item.Item).toEqual({
      pk: { S: codeItemKey(slot) },
      cancelled: { L: [{ S: late.sendId }] },
      expires_at: { N: String(Math.ceil(late.notAfter / 1000)) },
    });
    await expect(store.save(late, 5)).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(await liveOf(slot)).toBeUndefined();
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
    await expect(store.guess({ ...slot, guessDigest: 'g', presentationId: 'p', now: T0 })).rejects.toThrow(/malformed code item/);
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
    await expect(faultyStore.abandon({ ...slot, presentationId: 'p' })).rejects.toMatchObject(storageUnavailable('abandon presentation'));
    await expect(faultyStore.cancel(record, T0)).rejects.toMatchObject(storageUnavailable('cancel code'));
  });

  it('taking over an abandoned guess', async () => {
    const slot = newSlot();
    const record = code(slot);
    await faultyStore.save(record, 5);
    const first = guessOf(record, 'right');
    await faultyStore.guess(first);
    await faultyStore.abandon(first);
    faults().failWhen(({ body }) => body.UpdateExpression?.startsWith('SET #live.#presentations[') === true);
    await expect(faultyStore.guess(guessOf(record, 'right'))).rejects.toMatchObject(storageUnavailable('take over guess'));
  });
});
