/**
 * The shift of a sliding window kept in one item (docs/decisions/001-attempt-limit.md): the item
 * keeps the times of the last N counted events in slots `<prefix>0` (oldest) … `<prefix>{N-1}`
 * (newest); counting one shifts every slot down by one and writes `:now` into the newest.
 * DynamoDB evaluates every operand of an update against the item as it was before the update, so
 * the shift is one expression, and an empty slot reads as `:zero`. The expression uses the values
 * `:now` and, with more than one slot, `:zero` (DynamoDB refuses values an expression does not use).
 *
 * Used by the fraud guards' windows (send-guards.ts) and a refresh family's own limit
 * (refresh-token-store.ts).
 */
export function slotShifts(slots: number, slotName: (index: number) => string): string[] {
  return Array.from(
    { length: slots },
    (_, index) => `${slotName(index)} = ${index < slots - 1 ? `if_not_exists(${slotName(index + 1)}, :zero)` : ':now'}`,
  );
}
