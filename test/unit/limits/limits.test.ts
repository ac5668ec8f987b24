import fc from 'fast-check';
import type { LimitConfig } from '../../../lib/platform/config';
import { EMPTY_LIMIT_STATE, applyAttempt, retryAfterSeconds, type LimitState } from '../../../lib/limits/limits';
import type { LimitDecision } from '../../../lib/limits/ports';

const DEFAULT_LIMIT: LimitConfig = { maxAttempts: 5, windowSeconds: 60, blockSeconds: 300 };
/** An arbitrary, non-aligned start: nothing may depend on calendar minutes. */
const T0 = Date.UTC(2026, 10, 22, 12, 0, 17, 123);
const s = (seconds: number) => T0 + Math.round(seconds * 1000);

interface Step {
  readonly now: number;
  readonly before: LimitState;
  readonly after: LimitState;
  readonly decision: LimitDecision;
}

/** Applies attempts at `times`, in order, from `initial`. */
function run(limit: LimitConfig, times: readonly number[], initial: LimitState = EMPTY_LIMIT_STATE): Step[] {
  const steps: Step[] = [];
  let state = initial;
  for (const now of times) {
    const { state: after, decision } = applyAttempt(state, limit, now);
    steps.push({ now, before: state, after, decision });
    state = after;
  }
  return steps;
}

function last(steps: readonly Step[]): Step {
  const step = steps.at(-1);
  if (step === undefined) throw new Error('no steps');
  return step;
}

const allowedOf = (steps: readonly Step[]) => steps.map((step) => step.decision.allowed);
const FIVE_IN_FIVE_SECONDS = [s(0), s(1), s(2), s(3), s(4)];

describe('retryAfterSeconds', () => {
  it.each<[number, number]>([
    [300_000, 300],
    [299_999, 299],
    [1_001, 1],
    [1_000, 1],
    [999, 0],
    [0, 0],
    [-5_000, 0],
  ])('is the whole seconds left in %d ms, rounded down → %d', (remaining, expected) => {
    expect(retryAfterSeconds(T0 + remaining, T0, 300)).toBe(expected);
  });

  it('never exceeds the time left nor the refusal length (regression: 301 on a 300 s block another attempt had started a moment later)', () => {
    expect(retryAfterSeconds(T0 + 300_400, T0, 300)).toBe(300);
    fc.assert(
      fc.property(fc.integer({ min: -10_000, max: 400_000 }), fc.integer({ min: 1, max: 400 }), (remaining, max) => {
        const seconds = retryAfterSeconds(T0 + remaining, T0, max);
        expect(Number.isInteger(seconds)).toBe(true);
        expect(seconds * 1000).toBeLessThanOrEqual(Math.max(0, remaining));
        expect(seconds).toBeLessThanOrEqual(max);
      }),
    );
  });
});

describe('applyAttempt', () => {
  describe('under the limit', () => {
    it('processes the first maxAttempts attempts and remembers their times', () => {
      // Act
      const steps = run(DEFAULT_LIMIT, FIVE_IN_FIVE_SECONDS);

      // Assert
      expect(allowedOf(steps)).toEqual([true, true, true, true, true]);
      expect(last(steps).after.processed).toEqual(FIVE_IN_FIVE_SECONDS);
      expect(last(steps).after.blockedUntil).toBeUndefined();
    });

    it('processes five attempts in the same millisecond', () => {
      expect(allowedOf(run(DEFAULT_LIMIT, [T0, T0, T0, T0, T0]))).toEqual([true, true, true, true, true]);
    });

    it('does not mutate the state it is given', () => {
      // Arrange
      const state: LimitState = Object.freeze({ processed: Object.freeze([s(0)]) });

      // Act / Assert
      expect(() => applyAttempt(state, DEFAULT_LIMIT, s(1))).not.toThrow();
      expect(state.processed).toEqual([s(0)]);
    });
  });

  describe('the 6th attempt and the window edge (oldest remembered attempt + window ≤ now is processed)', () => {
    it('refuses the 6th attempt at 59.999 s after the first, starting a block of blockSeconds', () => {
      // Act
      const step = last(run(DEFAULT_LIMIT, [...FIVE_IN_FIVE_SECONDS, s(59.999)]));

      // Assert
      expect(step.decision).toEqual({ allowed: false, retryAfterSeconds: 300, blockStarted: true, reason: 'limit' });
      expect(step.after).toEqual({ processed: [s(0), s(1), s(2), s(3), s(4)], blockedUntil: s(59.999) + 300_000 });
    });

    it('processes the 6th attempt at exactly 60.000 s after the first (the window is half-open)', () => {
      // Act
      const step = last(run(DEFAULT_LIMIT, [...FIVE_IN_FIVE_SECONDS, s(60)]));

      // Assert
      expect(step.decision).toEqual({ allowed: true });
      expect(step.after.processed).toEqual([s(1), s(2), s(3), s(4), s(60)]);
    });

    it('then slides: the 7th at 60.999 s is refused (1, 2, 3, 4 and 60 are within 60 s) but at 61.000 s it is processed', () => {
      // Arrange
      const six = [...FIVE_IN_FIVE_SECONDS, s(60)];

      // Act
      const early = last(run(DEFAULT_LIMIT, [...six, s(60.999)]));
      const onTime = last(run(DEFAULT_LIMIT, [...six, s(61)]));

      // Assert
      expect(early.decision).toEqual({ allowed: false, retryAfterSeconds: 300, blockStarted: true, reason: 'limit' });
      expect(onTime.decision).toEqual({ allowed: true });
    });

    it('refuses a 6th attempt in the same millisecond as the 5th', () => {
      expect(last(run(DEFAULT_LIMIT, [T0, T0, T0, T0, T0, T0])).decision).toEqual({
        allowed: false,
        retryAfterSeconds: 300,
        blockStarted: true,
        reason: 'limit',
      });
    });
  });

  describe('a sliding window, not calendar minutes', () => {
    it('refuses across a minute boundary: 5 attempts at :55–:59 and one at :00 of the next minute', () => {
      // Arrange: a calendar-minute counter would reset at :00 and process the 6th.
      const minute = Date.UTC(2026, 10, 22, 12, 0, 0);
      const times = [55, 56, 57, 58, 59].map((second) => minute + second * 1000);

      // Act
      const step = last(run(DEFAULT_LIMIT, [...times, minute + 60_000]));

      // Assert
      expect(step.decision).toEqual({ allowed: false, retryAfterSeconds: 300, blockStarted: true, reason: 'limit' });
    });

    it('counts attempts spread over two calendar minutes: 3 at :58–:59 and 2 at :00–:01, then a 6th at :02 is refused', () => {
      // Arrange: no calendar minute holds more than 3, every 60-second window from :58 holds 5.
      const minute = Date.UTC(2026, 10, 22, 12, 0, 0);
      const times = [58, 58.5, 59, 60, 61].map((second) => minute + second * 1000);

      // Act
      const steps = run(DEFAULT_LIMIT, [...times, minute + 62_000]);

      // Assert
      expect(allowedOf(steps)).toEqual([true, true, true, true, true, false]);
    });

    it('processes attempts steadily at one per 12 s forever (exactly 5 per 60 s)', () => {
      // Arrange
      const times = Array.from({ length: 50 }, (_, index) => s(index * 12));

      // Act
      const steps = run(DEFAULT_LIMIT, times);

      // Assert
      expect(allowedOf(steps).every(Boolean)).toBe(true);
    });

    it('refuses the first attempt that makes 6 in 60 s when the rhythm is one per 11.999 s', () => {
      // Arrange
      const times = Array.from({ length: 6 }, (_, index) => T0 + index * 11_999);

      // Act
      const steps = run(DEFAULT_LIMIT, times);

      // Assert
      expect(allowedOf(steps)).toEqual([true, true, true, true, true, false]);
    });
  });

  describe('during a block', () => {
    const blockStart = s(59.999);
    const blockedUntil = blockStart + 300_000;
    const blocked = () => last(run(DEFAULT_LIMIT, [...FIVE_IN_FIVE_SECONDS, blockStart])).after;

    it.each<[string, number, number]>([
      ['immediately after', blockStart, 300],
      ['1 ms later', blockStart + 1, 299],
      ['at 60 s', s(60), 299],
      ['at 100 s', s(100), 259],
      ['1 s before the end', blockedUntil - 1_000, 1],
      ['999 ms before the end', blockedUntil - 999, 0],
      ['1 ms before the end', blockedUntil - 1, 0],
    ])('refuses every attempt %s, counting Retry-After down (whole seconds left, never more): %#', (_label, now, retryAfter) => {
      // Arrange
      const state = blocked();

      // Act
      const { state: after, decision } = applyAttempt(state, DEFAULT_LIMIT, now);

      // Assert
      expect(decision).toEqual({ allowed: false, retryAfterSeconds: retryAfter, blockStarted: false, reason: 'limit' });
      expect(after).toBe(state);
    });

    it('never extends the block, however many attempts arrive', () => {
      // Arrange
      const times = Array.from({ length: 300 }, (_, index) => blockStart + 1 + index * 1_000);

      // Act
      const steps = run(DEFAULT_LIMIT, times, blocked());

      // Assert
      expect(steps.every((step) => step.after.blockedUntil === blockedUntil)).toBe(true);
      expect(steps.every((step) => !step.decision.allowed && !step.decision.blockStarted)).toBe(true);
    });

    it('lifts by itself at blockedUntil: that attempt is processed and, the old ones having slid out of the window, counting starts afresh', () => {
      // Act
      const steps = run(
        DEFAULT_LIMIT,
        [blockedUntil, blockedUntil + 1, blockedUntil + 2, blockedUntil + 3, blockedUntil + 4, blockedUntil + 5],
        blocked(),
      );

      // Assert
      expect(allowedOf(steps)).toEqual([true, true, true, true, true, false]);
      expect(steps[0]!.after.processed.at(-1)).toBe(blockedUntil);
      expect(last(steps).decision).toEqual({ allowed: false, retryAfterSeconds: 300, blockStarted: true, reason: 'limit' });
      expect(last(steps).after.blockedUntil).toBe(blockedUntil + 5 + 300_000);
    });

    it('remembers the attempts that led to the block (regression: forgetting them let a block shorter than the window admit more than maxAttempts per window)', () => {
      expect(blocked().processed).toHaveLength(5);
      const limit = { maxAttempts: 2, windowSeconds: 60, blockSeconds: 10 };
      const steps = run(limit, [0, 1, 2, 12, 13].map(s));
      expect(allowedOf(steps)).toEqual([true, true, false, false, false]);
    });
  });

  describe('other limits', () => {
    it('with maxAttempts 1 refuses a second attempt inside the window', () => {
      // Arrange
      const limit: LimitConfig = { maxAttempts: 1, windowSeconds: 10, blockSeconds: 30 };

      // Act
      const steps = run(limit, [s(0), s(9.999), s(40), s(49.999), s(80)]);

      // Assert
      expect(steps.map((step) => step.decision)).toEqual([
        { allowed: true },
        { allowed: false, retryAfterSeconds: 30, blockStarted: true, reason: 'limit' },
        { allowed: true },
        { allowed: false, retryAfterSeconds: 30, blockStarted: true, reason: 'limit' },
        { allowed: true },
      ]);
    });

    it('regression: a block shorter than the window must not let more than maxAttempts through in one window', () => {
      // Arrange: a valid configuration (both 1..86400) with blockSeconds < windowSeconds.
      const limit: LimitConfig = { maxAttempts: 2, windowSeconds: 60, blockSeconds: 10 };
      const times = [s(0), s(1), s(2), s(12), s(13)];

      // Act
      const steps = run(limit, times);
      const processed = steps.filter((step) => step.decision.allowed).map((step) => step.now);

      // Assert: every processed attempt here lies within the one window [0 s, 60 s).
      expect(processed.filter((time) => time >= s(0) && time < s(60)).length).toBeLessThanOrEqual(limit.maxAttempts);
    });
  });

  describe('properties over random limits and non-decreasing attempt times', () => {
    const limitArb = fc.record({
      maxAttempts: fc.integer({ min: 1, max: 6 }),
      windowSeconds: fc.integer({ min: 1, max: 120 }),
      blockSeconds: fc.integer({ min: 1, max: 600 }),
    });
    /** Gaps between attempts: bursts, whole seconds (to hit the edges exactly) and long pauses. */
    const gap = fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: 2_000 }),
      fc.integer({ min: 0, max: 130 }).map((seconds) => seconds * 1_000),
      fc.integer({ min: 0, max: 700_000 }),
    );
    const timesArb = fc.array(gap, { minLength: 1, maxLength: 60 }).map((gaps) => {
      let now = T0;
      return gaps.map((delta) => (now += delta));
    });

    /** The times of processed attempts. */
    const processedTimes = (steps: readonly Step[]) => steps.filter((step) => step.decision.allowed).map((step) => step.now);

    /** The largest number of processed attempts in any half-open window [t, t + window). */
    function busiestWindow(times: readonly number[], windowMs: number): number {
      // The busiest window can always be taken to start at a processed attempt.
      return Math.max(0, ...times.map((start) => times.filter((time) => time >= start && time < start + windowMs).length));
    }

    it('(a) at most maxAttempts are processed in any window [t, t + window), when blockSeconds ≥ windowSeconds (as with the defaults 300 ≥ 60)', () => {
      fc.assert(
        fc.property(
          limitArb.filter((limit) => limit.blockSeconds >= limit.windowSeconds),
          timesArb,
          (limit, times) => {
            const processed = processedTimes(run(limit, times));
            expect(busiestWindow(processed, limit.windowSeconds * 1000)).toBeLessThanOrEqual(limit.maxAttempts);
          },
        ),
        { numRuns: 300 },
      );
    });

    it('(a) at most maxAttempts are processed in any window [t, t + window), for every valid limit (including blockSeconds < windowSeconds)', () => {
      fc.assert(
        fc.property(limitArb, timesArb, (limit, times) => {
          const processed = processedTimes(run(limit, times));
          expect(busiestWindow(processed, limit.windowSeconds * 1000)).toBeLessThanOrEqual(limit.maxAttempts);
        }),
        { numRuns: 300 },
      );
    });

    it('(b) no attempt is processed while a block is active; (c) a block’s end never changes while it is active; (d) Retry-After = floor((blockedUntil − now) / 1000), never more than the time left', () => {
      fc.assert(
        fc.property(limitArb, timesArb, (limit, times) => {
          // The oracle tracks blocks from the decisions alone, independently of the model's state.
          let blockEnd: number | undefined;
          for (const step of run(limit, times)) {
            const active = blockEnd !== undefined && step.now < blockEnd;
            if (active) {
              // (b)
              expect(step.decision).toEqual({
                allowed: false,
                retryAfterSeconds: expect.any(Number),
                blockStarted: false,
                reason: 'limit',
              });
              // (c)
              expect(step.after.blockedUntil).toBe(blockEnd);
            }
            if (!step.decision.allowed) {
              if (step.decision.blockStarted) {
                expect(active).toBe(false);
                blockEnd = step.now + limit.blockSeconds * 1000;
                expect(step.after.blockedUntil).toBe(blockEnd);
              }
              // (d)
              expect(step.decision.retryAfterSeconds * 1000).toBeLessThanOrEqual(blockEnd! - step.now);
              expect(step.decision.retryAfterSeconds).toBe(Math.floor((blockEnd! - step.now) / 1000));
            }
          }
        }),
        { numRuns: 500 },
      );
    });

    it('never refuses needlessly: a block starts only when maxAttempts were processed in the window before it', () => {
      fc.assert(
        fc.property(limitArb, timesArb, (limit, times) => {
          const processed: number[] = [];
          let blockEnd = -Infinity;
          for (const step of run(limit, times)) {
            if (step.now < blockEnd) continue;
            if (step.decision.allowed) {
              processed.push(step.now);
              continue;
            }
            const inWindow = processed.filter((time) => time > step.now - limit.windowSeconds * 1000).length;
            expect(step.decision.blockStarted).toBe(true);
            expect(inWindow).toBeGreaterThanOrEqual(limit.maxAttempts);
            blockEnd = step.now + limit.blockSeconds * 1000;
          }
        }),
        { numRuns: 500 },
      );
    });
  });
});
