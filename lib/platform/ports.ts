/**
 * The two ports every layer talks to: the clock and the log. Each capability declares its own
 * beside its rules (lib/<capability>/ports.ts); adapters in `lib/adapters/` implement them, and
 * only adapters import the AWS SDK. Names say intent (record an attempt, consume a code), not
 * storage verbs.
 */

/** Milliseconds since the epoch. Injected everywhere time matters, so tests never wait. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Structured logger (Powertools Logger satisfies it). Never pass personal data, codes or tokens. */
export type LogFields = Record<string, unknown>;
export interface Log {
  debug(message: string, ...extra: LogFields[]): void;
  info(message: string, ...extra: LogFields[]): void;
  warn(message: string, ...extra: LogFields[]): void;
  error(message: string, ...extra: LogFields[]): void;
}
