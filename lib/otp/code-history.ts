/**
 * What a slot puts back when a delivery fails: "a failed send leaves the previous code usable",
 * also when several sends for one user are in flight at once.
 *
 * A send makes its code live before delivering it (the code must be exchangeable the moment the
 * user reads it), so a failed delivery has to undo that. Putting back "the code this send
 * replaced" is wrong under concurrency: with sends A, B, C, D in flight, D replaced C, which was
 * never delivered either, and restoring it leaves a live code nobody received while the code the
 * user holds is dead (the red team saw this for 6 of 6 users).
 *
 * So a slot keeps, beside its live code, the codes it replaced (its history, oldest first), and
 * a failed send:
 * - when it is the live code: puts back the newest code of the history whose delivery did not
 *   fail. That is the last one delivered, or one still in flight, which its own send will discard
 *   in turn if it fails too. If that code has expired or has no tries left, nothing comes back.
 * - when it is in the history: marks itself failed there, so that it never comes back.
 * A save that landed twice (the SDK's retry of a write whose answer was lost) leaves a copy of
 * its code in the history: the copy is never put back, and is marked failed in turn.
 * No write is needed when a delivery succeeds. The history keeps as many codes as the send limit
 * lets be in flight at once for one user, so the last delivered code is always among them.
 *
 * The functions below are the rule, pure; `lib/adapters/dynamodb/code-store.ts` applies each step
 * with one conditional write and recomputes it from the slot it finds when another write won.
 * `saveIntoSlot` and `applyDiscardStep` are the reference model its tests compare against.
 */
import type { CodeRecord, KeptCode, SlotState } from './ports';

export const EMPTY_SLOT: SlotState = Object.freeze({ live: undefined, history: Object.freeze([]) });

/** One write of a discard. */
export type DiscardStep =
  /** The failed send is live: `history[index]` (send `sendId`) becomes live again. */
  | { readonly kind: 'restore'; readonly index: number; readonly sendId: string }
  /** The failed send is live and no code may come back: the slot has no live code. */
  | { readonly kind: 'clear' }
  /** The failed send is `history[index]`: mark it failed. */
  | { readonly kind: 'mark'; readonly index: number }
  /** The failed send is no longer in the slot (or already marked): nothing to do. */
  | { readonly kind: 'none' };

/** The next write that discards `failedSendId` from `state`. */
export function discardStep(state: SlotState, failedSendId: string, now: number): DiscardStep {
  if (state.live?.sendId === failedSendId) {
    const index = newestNotFailed(state.history, failedSendId);
    if (index === undefined) return { kind: 'clear' };
    const candidate = state.history[index] as KeptCode;
    if (candidate.notAfter <= now || candidate.tries >= candidate.maxTries) return { kind: 'clear' };
    return { kind: 'restore', index, sendId: candidate.sendId };
  }
  const index = state.history.findIndex((kept) => kept?.sendId === failedSendId && !kept.failed);
  return index === -1 ? { kind: 'none' } : { kind: 'mark', index };
}

/** The newest place holding a code that did not fail: never a copy of the failed send itself. */
function newestNotFailed(history: SlotState['history'], failedSendId: string): number | undefined {
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const kept = history[index];
    if (kept !== undefined && !kept.failed && kept.sendId !== failedSendId) return index;
  }
  return undefined;
}

/** Reference model of a save: `record` becomes live, the live code joins the history, which keeps the `keep` newest places. */
export function saveIntoSlot(state: SlotState, record: CodeRecord, keep: number): SlotState {
  const history = [...padded(state.history, keep), state.live].slice(-keep);
  return { live: { ...record, failed: false }, history };
}

/** Reference model of a discard step. */
export function applyDiscardStep(state: SlotState, step: DiscardStep): SlotState {
  switch (step.kind) {
    case 'restore':
      return { live: state.history[step.index], history: state.history.map((kept, index) => (index === step.index ? undefined : kept)) };
    case 'clear':
      return { live: undefined, history: state.history };
    case 'mark':
      return {
        live: state.live,
        history: state.history.map((kept, index) => (index === step.index && kept !== undefined ? { ...kept, failed: true } : kept)),
      };
    case 'none':
      return state;
  }
}

/** The history as `keep` places: a shorter one (a new slot) is padded with empty places in front. */
function padded(history: SlotState['history'], keep: number): SlotState['history'] {
  return history.length >= keep ? history : [...Array<undefined>(keep - history.length).fill(undefined), ...history];
}
