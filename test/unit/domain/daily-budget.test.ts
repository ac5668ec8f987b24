import fc from 'fast-check';
import { BUDGET_SHARDS, budgetRetryAfter, nextUtcDayStart, shardCapsOf, usedPercent, utcDayOf } from '../../../lib/domain/daily-budget';

const DAY = Date.UTC(2026, 10, 22);

describe('utcDayOf and nextUtcDayStart', () => {
  it.each([
    [DAY, '2026-11-22', DAY + 86_400_000],
    [DAY + 86_400_000 - 1, '2026-11-22', DAY + 86_400_000],
    [DAY + 86_400_000, '2026-11-23', DAY + 2 * 86_400_000],
    [Date.UTC(2028, 1, 29, 12), '2028-02-29', Date.UTC(2028, 2, 1)],
  ])('at %i the day is %s and the next begins at %i (UTC, whatever the local time zone)', (now, day, next) => {
    expect(utcDayOf(now)).toBe(day);
    expect(nextUtcDayStart(now)).toBe(next);
  });
});

describe('shardCapsOf', () => {
  it.each([
    [1000, [250, 250, 250, 250]],
    [10, [3, 3, 2, 2]],
    [5, [2, 1, 1, 1]],
    [3, [1, 1, 1]],
    [1, [1]],
  ])('splits %i messages as %j', (maxMessages, caps) => {
    expect(shardCapsOf(maxMessages)).toEqual(caps);
  });

  it('adds up to the budget exactly, never more than BUDGET_SHARDS shards, none empty, none more than one apart', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000 }), (maxMessages) => {
        const caps = shardCapsOf(maxMessages);
        expect(caps.reduce((sum, cap) => sum + cap, 0)).toBe(maxMessages);
        expect(caps.length).toBe(Math.min(BUDGET_SHARDS, maxMessages));
        expect(Math.min(...caps)).toBeGreaterThanOrEqual(1);
        expect(Math.max(...caps) - Math.min(...caps)).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('budgetRetryAfter', () => {
  it.each([
    [DAY, 86_400],
    [DAY + 1, 86_399],
    [DAY + 86_400_000 - 1_000, 1],
    [DAY + 86_400_000 - 500, 0],
  ])('at %i is the whole seconds to the next UTC day, rounded down: %i', (now, seconds) => {
    expect(budgetRetryAfter(now)).toBe(seconds);
  });

  it('never says more than the time left in the day', () => {
    fc.assert(
      fc.property(fc.integer({ min: DAY, max: DAY + 10 * 86_400_000 }), (now) => {
        expect(budgetRetryAfter(now) * 1000).toBeLessThanOrEqual(nextUtcDayStart(now) - now);
      }),
    );
  });
});

describe('usedPercent', () => {
  it.each([
    [1, 250, 0],
    [200, 250, 80],
    [199, 250, 79],
    [250, 250, 100],
    [2, 3, 66],
  ])('%i of %i is %i%% (rounded down)', (sent, cap, percent) => {
    expect(usedPercent(sent, cap)).toBe(percent);
  });
});
