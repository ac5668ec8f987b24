import fc from 'fast-check';
import {
  BUDGET_SHARDS,
  budgetRetryAfter,
  leaseSizeOf,
  MAX_LEASE,
  maxLeaseOf,
  nextUtcDayStart,
  shardCapsOf,
  usedPercent,
  utcDayOf,
} from '../../../lib/guards/daily-budget';

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

describe('maxLeaseOf: the most one lease takes', () => {
  it.each([
    [1, 1],
    [199, 1],
    [200, 2],
    [999, 9],
    [1000, 10],
    [100_000_000, MAX_LEASE],
  ])('of a budget of %i is %i', (maxMessages, lease) => {
    expect(maxLeaseOf(maxMessages)).toBe(lease);
  });

  it('never lets a lease cost the day more than 1% of its budget when its container ends holding it (all but one unspent)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000 }), (maxMessages) => {
        const lease = maxLeaseOf(maxMessages);
        expect(lease).toBeGreaterThanOrEqual(1);
        expect(lease).toBeLessThanOrEqual(MAX_LEASE);
        // A budget under 200 leases 1 (exact); any other strands under 1% per container.
        if (maxMessages < 200) expect(lease).toBe(1);
        else expect((lease - 1) / maxMessages).toBeLessThan(0.01);
      }),
    );
  });
});

describe('leaseSizeOf: a container leases one more than it sent in the last 5 minutes', () => {
  it.each([
    [1000, 0, 1],
    [1000, 1, 2],
    [1000, 9, 10],
    [1000, 500, 10],
    [150, 500, 1],
    [300, 7, 3],
  ])('with a budget of %i after %i recent sends: %i', (maxMessages, recent, size) => {
    expect(leaseSizeOf(maxMessages, recent)).toBe(size);
  });

  it('never leases more than the container sent recently plus one, nor more than the budget allows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000 }), fc.nat(1000), (maxMessages, recent) => {
        const size = leaseSizeOf(maxMessages, recent);
        expect(size).toBeGreaterThanOrEqual(1);
        expect(size - 1).toBeLessThanOrEqual(recent);
        expect(size).toBeLessThanOrEqual(maxLeaseOf(maxMessages));
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
