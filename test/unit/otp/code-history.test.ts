/**
 * The rule that puts back the last delivered code when a send fails (lib/otp/code-history.ts),
 * on the pure model: named scenarios, then every interleaving fast-check finds of concurrent sends
 * whose deliveries succeed or fail in any order.
 */
import fc from 'fast-check';
import { applyDiscardStep, discardStep, EMPTY_SLOT, saveIntoSlot } from '../../../lib/otp/code-history';
import type { CodeRecord, SlotState } from '../../../lib/otp/ports';

const NOW = 1_000_000;

function code(sendId: string, overrides: Partial<CodeRecord> = {}): CodeRecord {
  return {
    environmentId: 'local',
    clientId: 'web',
    userKey: 'user',
    channel: 'sms',
    codeDigest: `digest-${sendId}`,
    sendId,
    createdAt: NOW,
    notAfter: NOW + 300_000,
    tries: 0,
    maxTries: 3,
    ...overrides,
  };
}

/** Discards `sendId` as the adapter does: step after step until there is nothing left to do. */
function discard(state: SlotState, sendId: string, now = NOW): SlotState {
  let current = state;
  for (let round = 0; round < 100; round += 1) {
    const step = discardStep(current, sendId, now);
    if (step.kind === 'none') return current;
    current = applyDiscardStep(current, step);
  }
  throw new Error('discard did not settle');
}

const liveId = (state: SlotState) => state.live?.sendId;

describe('discardStep: one failed send', () => {
  it('puts back the code the failed send replaced', () => {
    const slot = saveIntoSlot(saveIntoSlot(EMPTY_SLOT, code('p'), 5), code('a'), 5);
    expect(discardStep(slot, 'a', NOW)).toEqual({ kind: 'restore', index: 4, sendId: 'p' });
    expect(liveId(discard(slot, 'a'))).toBe('p');
  });

  it('leaves no live code when the failed send replaced none', () => {
    const slot = saveIntoSlot(EMPTY_SLOT, code('a'), 5);
    expect(discardStep(slot, 'a', NOW)).toEqual({ kind: 'clear' });
    expect(discard(slot, 'a').live).toBeUndefined();
  });

  it('does not bring back an expired code, nor one with no tries left (and never an older one past it)', () => {
    const expired = saveIntoSlot(saveIntoSlot(saveIntoSlot(EMPTY_SLOT, code('old'), 5), code('p', { notAfter: NOW }), 5), code('a'), 5);
    expect(discardStep(expired, 'a', NOW)).toEqual({ kind: 'clear' });
    const spent = saveIntoSlot(saveIntoSlot(saveIntoSlot(EMPTY_SLOT, code('old'), 5), code('p', { tries: 3 }), 5), code('a'), 5);
    expect(discardStep(spent, 'a', NOW)).toEqual({ kind: 'clear' });
  });

  it('keeps the restored code’s tries: a failing send never hands an attacker fresh tries', () => {
    const slot = saveIntoSlot(saveIntoSlot(EMPTY_SLOT, code('p', { tries: 2 }), 5), code('a'), 5);
    expect(discard(slot, 'a').live).toMatchObject({ sendId: 'p', tries: 2 });
  });

  it('marks a failed send that is no longer live, and does nothing for one that left the slot', () => {
    const slot = saveIntoSlot(saveIntoSlot(saveIntoSlot(EMPTY_SLOT, code('p'), 5), code('a'), 5), code('b'), 5);
    expect(discardStep(slot, 'a', NOW)).toEqual({ kind: 'mark', index: 4 });
    const marked = discard(slot, 'a');
    expect(marked.history[4]).toMatchObject({ sendId: 'a', failed: true });
    expect(discardStep(marked, 'a', NOW)).toEqual({ kind: 'none' });
    expect(discardStep(marked, 'gone', NOW)).toEqual({ kind: 'none' });
    // Only that place is marked: the empty places stay empty, and the delivered code before it
    // still comes back when the live send fails too.
    expect(marked.history.slice(0, 4)).toEqual([undefined, undefined, undefined, { ...code('p'), failed: false }]);
    expect(liveId(discard(marked, 'b'))).toBe('p');
  });
});

describe('discardStep: a save that landed twice (the SDK retried a write whose answer was lost)', () => {
  it('never puts back the copy of the failed send: the code before it comes back, and the copy is marked failed', () => {
    const slot = saveIntoSlot(saveIntoSlot(saveIntoSlot(EMPTY_SLOT, code('p'), 5), code('a'), 5), code('a'), 5);
    expect(discardStep(slot, 'a', NOW)).toEqual({ kind: 'restore', index: 3, sendId: 'p' });
    const settled = discard(slot, 'a');
    expect(liveId(settled)).toBe('p');
    expect(settled.history.filter((kept) => kept !== undefined)).toEqual([{ ...code('a'), failed: true }]);
    expect(discard(settled, 'p').live).toBeUndefined();
  });

  it('clears the slot when the copy is all the history holds', () => {
    const slot = saveIntoSlot(saveIntoSlot(EMPTY_SLOT, code('a'), 5), code('a'), 5);
    expect(discardStep(slot, 'a', NOW)).toEqual({ kind: 'clear' });
  });
});

describe('saveIntoSlot', () => {
  it('keeps the newest places when the history is longer than `keep` (the setting was lowered since the slot was written)', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].reduce((slot, id) => saveIntoSlot(slot, code(id), 5), EMPTY_SLOT);

    const saved = saveIntoSlot(five, code('f'), 3);

    expect(saved.live?.sendId).toBe('f');
    expect(saved.history.map((kept) => kept?.sendId)).toEqual(['c', 'd', 'e']);
  });
});

describe('discardStep: four sends in flight, all failing (regression: the last to fail restored a code nobody received, 6 of 6 users)', () => {
  const inFlight = ['a', 'b', 'c', 'd'].reduce((slot, id) => saveIntoSlot(slot, code(id), 5), saveIntoSlot(EMPTY_SLOT, code('p'), 5));

  it.each([
    ['in the order they were sent', ['a', 'b', 'c', 'd']],
    ['in reverse order', ['d', 'c', 'b', 'a']],
    ['interleaved', ['b', 'd', 'a', 'c']],
  ])('puts back the delivered code when they fail %s', (_name, order) => {
    const after = order.reduce(discard, inFlight);
    expect(liveId(after)).toBe('p');
  });

  it('restores an in-flight code that then succeeds, and keeps it when the others fail', () => {
    let slot = discard(inFlight, 'd'); // c is still in flight: it comes back for now
    expect(liveId(slot)).toBe('c');
    slot = discard(discard(slot, 'a'), 'b'); // c is delivered after all (no write); a and b fail
    expect(liveId(slot)).toBe('c');
  });
});

describe('saveIntoSlot', () => {
  it('keeps the `keep` most recent replaced codes, oldest first', () => {
    const slot = ['a', 'b', 'c', 'd'].reduce((state, id) => saveIntoSlot(state, code(id), 2), EMPTY_SLOT);
    expect(liveId(slot)).toBe('d');
    expect(slot.history.map((kept) => kept?.sendId)).toEqual(['b', 'c']);
  });
});

describe('the invariant, over every interleaving of concurrent sends', () => {
  /**
   * N sends are saved in some order, interleaved with the outcomes of their deliveries (success:
   * no write; failure: a discard), in any order consistent with each send being saved before its
   * delivery ends. At most `keep` sends are in flight, as the send limit guarantees.
   */
  const scenario = fc
    .record({
      sends: fc.integer({ min: 1, max: 20 }),
      delivered: fc.boolean(),
      seed: fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
      outcomes: fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
    })
    .map(({ sends, delivered, seed, outcomes }) => ({ sends, previous: delivered, seed, succeeds: outcomes.slice(0, sends) }));

  it('leaves live exactly the newest sent code whose delivery succeeded, else the previous delivered code, never a failed one', () => {
    fc.assert(
      fc.property(scenario, ({ sends, previous, seed, succeeds }) => {
        const keep = sends;
        let slot = previous ? saveIntoSlot(EMPTY_SLOT, code('p'), keep) : EMPTY_SLOT;
        const pending: number[] = [];
        let saved = 0;
        let draw = 0;
        const next = () => seed[draw++ % seed.length] as number;
        while (saved < sends || pending.length > 0) {
          const save = saved < sends && (pending.length === 0 || next() % 2 === 0);
          if (save) {
            slot = saveIntoSlot(slot, code(`s${saved}`), keep);
            pending.push(saved);
            saved += 1;
          } else {
            const [finished] = pending.splice(next() % pending.length, 1);
            if (!succeeds[finished as number]) slot = discard(slot, `s${finished}`);
          }
        }
        const newestDelivered = succeeds.lastIndexOf(true);
        const expected = newestDelivered >= 0 ? `s${newestDelivered}` : previous ? 'p' : undefined;
        expect(liveId(slot)).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});
