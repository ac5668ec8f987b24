import type { Clock } from '../../lib/platform/ports';

/**
 * A time that stays in the future of the real clock: a day ahead, on a whole minute. DynamoDB
 * Local really deletes items whose TTL has passed (within about a second), so an injected clock
 * behind real time would see its counters and codes vanish (regression: a fixed date in the tests
 * started failing once the real clock passed it).
 */
export function futureBase(): number {
  return Math.ceil((Date.now() + 86_400_000) / 60_000) * 60_000;
}

/** A clock tests move by hand: time in tests is injected, never waited for. */
export class FakeClock implements Clock {
  constructor(private current = futureBase()) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  advanceSeconds(seconds: number): void {
    this.current += seconds * 1000;
  }
  set(ms: number): void {
    this.current = ms;
  }
  /**
   * From now on the clock moves with real time (from where it stands): for the few tests of races
   * whose outcome depends on each request reading its own time, as containers do on AWS.
   */
  runInRealTime(): void {
    const start = this.current;
    const realStart = Date.now();
    this.now = () => start + (Date.now() - realStart);
  }
}
