/**
 * The one-time codes' port: the slot of each (client, user) pair
 * (lib/adapters/dynamodb/code-store.ts).
 */
import type { Channel } from '../platform/vocabulary';

/** Identifies the one live code of a (client, user) pair in one environment. */
export interface CodeSlot {
  readonly environmentId: string;
  readonly clientId: string;
  readonly userKey: string;
}

/** A stored code. The code itself is never stored: only its HMAC digest, bound to everything else. */
export interface CodeRecord extends CodeSlot {
  readonly channel: Channel;
  /** HMAC over (environment, client, redirect URI, auth type, user, code), base64url. */
  readonly codeDigest: string;
  /** Random id of this send, so clean-up never touches another send's code. */
  readonly sendId: string;
  /** When the code was created, ms. */
  readonly createdAt: number;
  /** The code is valid while now < notAfter (ms). Checked by the application, not by TTL. */
  readonly notAfter: number;
  /** Tries spent on it so far (each guess spends one before it is compared) and the number it may have. */
  readonly tries: number;
  readonly maxTries: number;
  /** PKCE (RFC 7636): the S256 code_challenge sent with the code, if any. */
  readonly codeChallenge?: string | undefined;
}

/** A code the slot keeps, and whether its delivery is known to have failed (it must never come back). */
export interface KeptCode extends CodeRecord {
  readonly failed: boolean;
}

/**
 * Everything a slot holds: the live code (the only one a guess can reach) and the codes it
 * replaced, oldest first, so that a failed delivery can put back the last one that reached the
 * user (lib/otp/code-history.ts). `undefined`: an empty place.
 */
export interface SlotState {
  readonly live: KeptCode | undefined;
  readonly history: readonly (KeptCode | undefined)[];
}

export interface CodeGuess extends CodeSlot {
  /**
   * What this guess is, as a digest of the presented code and PKCE challenge: a guess already
   * made is refused without spending a try, so the one matching pair can succeed only once.
   */
  readonly guessDigest: string;
  /**
   * Random id of this presentation (one request), recorded with the guess: a retry of the same
   * guess by the SDK finds its own id, and a presentation that answered 503 can be abandoned
   * (`CodeStore.abandon`) so that the user's retry of the same code takes its place.
   */
  readonly presentationId: string;
  readonly now: number;
}

/** A presentation of a code whose request failed before the user got an answer (a 503). */
export interface AbandonedPresentation extends CodeSlot {
  readonly presentationId: string;
}

/**
 * `compared`: a try was spent on the live code (atomically, before anyone compares), which is
 * returned for the caller to compare. `refused`: no try could be spent (no live code, expired,
 * out of tries, or this exact guess was made before); `record` is the live code, if any.
 */
export type GuessResult =
  | { readonly outcome: 'compared'; readonly record: CodeRecord }
  | { readonly outcome: 'refused'; readonly record: CodeRecord | undefined; readonly repeated: boolean };

export interface CodeStore {
  /**
   * Makes `record` the slot's live code; the one it replaces joins the slot's history, which keeps
   * the `keep` most recent. Returns the slot as written, for `discard`.
   */
  save(record: CodeRecord, keep: number): Promise<SlotState>;
  /** Spends one try of the slot's live code on a guess, if it has one left (one conditional write). */
  guess(guess: CodeGuess): Promise<GuessResult>;
  /**
   * The delivery of `failed` failed: it is never to be live again. If it is live, the newest code
   * of the history that did not fail comes back (or none); `known` is the slot as last seen.
   */
  discard(failed: CodeRecord, known: SlotState, now: number): Promise<void>;
  /**
   * The save of `record` failed without saying whether it landed (a timeout: the write may still
   * land later): it must never be live. Records it as cancelled, so a late write of it is refused,
   * and discards it if it landed already, as for a failed delivery.
   */
  cancel(record: CodeRecord, now: number): Promise<void>;
  /**
   * The request of this presentation answers 503 and gives the user nothing: if its guess landed
   * (now or later), the same guess presented again may take its place instead of being refused as
   * repeated. Never called for a presentation that issued anything.
   */
  abandon(presentation: AbandonedPresentation): Promise<void>;
}
