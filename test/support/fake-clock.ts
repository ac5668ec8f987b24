import type { Clock } from '../../lib/ports';

/** A clock tests move by hand: time in tests is injected, never waited for. */
export class FakeClock implements Clock {
  constructor(private current = Date.UTC(2026, 10, 22, 12, 0, 0)) {}
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
}
