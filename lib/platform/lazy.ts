/**
 * Builds on first call, then returns the same value: what a Lambda container keeps for its life
 * (clients, configuration). A module of its own so that a function can use it without importing
 * the dependencies of every other function (lib/deps/, one module per function).
 */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
