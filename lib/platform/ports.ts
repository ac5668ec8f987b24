/**
 * The interfaces the domain talks to. Adapters in `lib/adapters/` implement them; only adapters
 * import the AWS SDK. Names say intent (record an attempt, consume a code), not storage verbs.
 */
import type { DailyBudgetConfig, FailureCapConfig, LimitConfig, SendWindowConfig } from './config';
import type { Channel } from './vocabulary';

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

// ---------------------------------------------------------------------------------------------
// Attempt limits

/** Whose attempts are counted: one counter per operation, environment and (hashed) user. */
export interface AttemptKey {
  readonly operation: 'token' | 'send';
  readonly environmentId: string;
  /** HMAC of the normalised user id, or of the recipient's mailbox for sends (lib/keys/hmac-keys.ts). */
  readonly userKey: string;
}

/**
 * A run of consecutive failed code exchanges for one user (NIST SP 800-63B §5.2.2), kept in the
 * user's token attempt item: how many, and when the run's first failure was (ms).
 */
export interface FailureRun {
  readonly count: number;
  readonly since: number;
}

export type AttemptDecision =
  | {
      readonly allowed: true;
      /** The user's failure run as it stood (token attempts with a cap only), so a success knows whether to clear it. */
      readonly failures?: FailureRun | undefined;
    }
  | {
      readonly allowed: false;
      /** Whole seconds until the refusal ends (Retry-After), never more than the time it has left. */
      readonly retryAfterSeconds: number;
      /** True for the attempt that started the block (useful for metrics and logs). */
      readonly blockStarted: boolean;
      /** `limit`: the per-window attempt limit and its block. `failure_cap`: too many consecutive failures. */
      readonly reason: 'limit' | 'failure_cap';
    };

/**
 * The attempt limit: at most `maxAttempts` processed in any sliding window of
 * `windowSeconds`; the attempt that would exceed it starts a block of `blockSeconds`; attempts
 * during the block are refused without extending it. Must be race-safe.
 *
 * With a `cap` (the token endpoint), a user whose current failure run has reached
 * `cap.maxConsecutive` is refused too, until the run's window has passed.
 */
export interface AttemptLimiter {
  recordAttempt(key: AttemptKey, limit: LimitConfig, now: number, cap?: FailureCapConfig): Promise<AttemptDecision>;
  /**
   * Counts one failed exchange into the user's current run (or starts a new one); returns the run.
   * `known` is the run as this request's attempt saw it: a hint for which write to try first, so
   * that a failure after a run's window has passed is one write, not a refused one and a second.
   */
  recordFailure(key: AttemptKey, cap: FailureCapConfig, now: number, known?: FailureRun): Promise<FailureRun>;
  /** Ends the user's failure run (a successful exchange). */
  clearFailures(key: AttemptKey): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Fraud guards on SMS and voice sends (docs/decisions/008-sms-fraud-guards.md)

/**
 * Whose sends a guard's window counts, per environment: a source network's SMS and voice sends
 * (`ip`) or email sends (`email_ip`), or a destination prefix's.
 */
export interface SendWindowKey {
  readonly guard: 'ip' | 'email_ip' | 'prefix';
  readonly environmentId: string;
  /** HMAC of the network or the prefix (lib/keys/hmac-keys.ts `guardKeyOf`): never the value in clear. */
  readonly subjectKey: string;
}

export type WindowDecision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      /** Whole seconds until the window has room again, never more than the time it has left. */
      readonly retryAfterSeconds: number;
    };

export type BudgetDecision =
  | {
      readonly allowed: true;
      /**
       * Messages the shard this one was leased from had spent or leased when it was (this one's
       * lease included), and its cap: how full the budget is, as of the container's last lease.
       */
      readonly sentInShard: number;
      readonly shardCap: number;
    }
  | { readonly allowed: false };

/**
 * The counters of the fraud guards. Must be race-safe: of any number of concurrent sends, a window
 * counts at most `maxSends`, and a day's budget spends at most `maxMessages` (a container may
 * lease messages ahead, docs/decisions/008-sms-fraud-guards.md: never more than the budget).
 */
export interface SendGuards {
  /**
   * Counts a send into the sliding window of `key` if it has room (fewer than `maxSends` counted in
   * the last `windowSeconds`); a refused send is not counted.
   */
  countSend(key: SendWindowKey, window: SendWindowConfig, now: number): Promise<WindowDecision>;
  /**
   * Spends one message of the environment's budget for `now`'s UTC day, if any is left: from the
   * container's lease, else from a new lease.
   */
  spendBudget(environmentId: string, budget: DailyBudgetConfig, now: number): Promise<BudgetDecision>;
  /**
   * True when this container already knows `now`'s day's budget is spent (it has met every shard
   * spent and holds no leased message): a send can be refused without touching any counter.
   * False says nothing.
   */
  budgetKnownSpent(environmentId: string, budget: DailyBudgetConfig, now: number): boolean;
}

/** A phone number's record of logins, per environment: `userKey` is the HMAC of the E.164 number. */
export interface KnownNumberKey {
  readonly environmentId: string;
  readonly userKey: string;
}

/**
 * Numbers that completed a login recently (docs/decisions/012-known-numbers.md), exempt from the
 * prefix guard and the daily budget up to an allowance of their own.
 */
export interface KnownNumbers {
  /** The number completed a login: known until `until` (ms). One write. */
  remember(key: KnownNumberKey, until: number): Promise<void>;
  /**
   * Spends one send of the number's own allowance (fewer than `maxSends` in any `windowMs`) if it
   * is known at `now`: one conditional write. False when it is not known, or its allowance is spent.
   */
  spendKnown(key: KnownNumberKey, allowance: { readonly maxSends: number; readonly windowMs: number }, now: number): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// One-time codes

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

// ---------------------------------------------------------------------------------------------
// Authorization codes (the hosted login page)

/** An authorization code's grant, stored under its keyed hash until it is exchanged or expires. */
export interface AuthorizationCodeRecord {
  /** HMAC of the code (lib/oauth/authorization-codes.ts): the code itself is never stored. */
  readonly codeHash: string;
  readonly environmentId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  /** PKCE (RFC 7636): the S256 challenge of the authorization request; the exchange proves the verifier. */
  readonly codeChallenge: string;
  readonly nonce: string | undefined;
  /** The granted scope. */
  readonly scope: string | undefined;
  /** The user's key (for the token endpoint's per-user limit) and subject (per environment). */
  readonly userKey: string;
  readonly subject: string;
  readonly channel: Channel;
  /** The user's address claims, only where the scope asked for them. */
  readonly claims: UserClaims;
  /** Seconds since the epoch: when the user proved possession of the one-time code. */
  readonly authTime: number;
  /** The code is valid while now < notAfter (ms). */
  readonly notAfter: number;
}

export interface AuthorizationCodeStore {
  save(record: AuthorizationCodeRecord): Promise<void>;
  /** Removes and returns the code's record if it is unexpired (one conditional write: single use); undefined otherwise. */
  consume(codeHash: string, now: number): Promise<AuthorizationCodeRecord | undefined>;
}

// ---------------------------------------------------------------------------------------------
// Opaque access tokens

/**
 * The user's address as OpenID Connect claims (OIDC Core §5.1), where a grant carries it:
 * `email` and `email_verified`, or `phone_number` and `phone_number_verified`.
 */
export type UserClaims = Readonly<Record<string, string | boolean>>;

export interface OpaqueTokenRecord {
  /** SHA-256 of the token, base64url: the token itself is never stored. */
  readonly tokenHash: string;
  readonly subject: string;
  readonly clientId: string;
  readonly environmentId: string;
  readonly audience: string;
  readonly scope?: string | undefined;
  readonly jti: string;
  readonly amr: readonly string[];
  /** Seconds since the epoch. */
  readonly issuedAt: number;
  readonly authTime: number;
  readonly expiresAt: number;
  /** The user's address claims the grant carried, for UserInfo (OIDC Core §5.3); none when not asked for. */
  readonly claims: UserClaims;
  /** The refresh token family it was issued with, if any: revoking the family revokes it (RFC 7009 §2.1). */
  readonly familyKey?: string | undefined;
}

export interface TokenStore {
  save(record: OpaqueTokenRecord): Promise<void>;
  find(tokenHash: string): Promise<OpaqueTokenRecord | undefined>;
  /** Deletes the token if it is `clientId`'s (one conditional write); true when it did. */
  revoke(tokenHash: string, clientId: string): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// Refresh tokens and revocation

/** Why a family was revoked: a spent token presented again, or a revocation request (RFC 7009). */
export type RevocationReason = 'reuse' | 'revoked';

/**
 * A family of refresh tokens: every token descended from one login, of which only the newest is
 * live (docs/decisions/009-refresh-token-families.md). Tokens are never stored, only their keyed
 * hashes.
 */
export interface RefreshFamily {
  /** The keyed hash of the family id the tokens carry: the family's key (the id itself is never stored). */
  readonly familyKey: string;
  readonly environmentId: string;
  readonly clientId: string;
  /** The user's key, for the token endpoint's per-user attempt limit. */
  readonly userKey: string;
  readonly subject: string;
  /** How the code of the original login travelled (for `amr`). */
  readonly channel: Channel;
  /** The user's address claims the login granted. */
  readonly claims: UserClaims;
  /** The scope the login granted; a refresh may narrow it, never widen it (RFC 6749 §6). */
  readonly scope: string | undefined;
  /** Seconds since the epoch: the original login (`auth_time`), which every token of the family keeps. */
  readonly authTime: number;
  /** When the login started the family, ms: the absolute lifetime runs from it. */
  readonly createdAt: number;
  /** When the live token was issued, ms: the idle lifetime and the reuse interval run from it. */
  readonly rotatedAt: number;
  /** Rotations so far: 0 while the login's own token is live. */
  readonly generation: number;
  /** Keyed hash of the live token. */
  readonly currentHash: string;
  /** Keyed hash of the token the last rotation spent (the reuse interval's), if any. */
  readonly previousHash: string | undefined;
  /**
   * Times (ms) of the family's last rotations, oldest first, for its own limit: as many as the
   * item keeps (`MAX_REFRESH_WINDOW`, 0 for a slot not yet used), none before the first rotation.
   */
  readonly recentRotations: readonly number[];
  /** When the family was revoked, ms, and why; undefined while it lives. */
  readonly revokedAt: number | undefined;
  readonly revokedReason: RevocationReason | undefined;
  /** Epoch seconds after which DynamoDB may delete it: housekeeping only, every expiry is checked in code. */
  readonly keepUntil: number;
}

/** One rotation: the live token (`presentedHash`) is spent and `successorHash` becomes live. */
export interface Rotation {
  readonly familyKey: string;
  readonly presentedHash: string;
  readonly successorHash: string;
  readonly now: number;
  /** The live token must have been issued after this (ms): the idle lifetime. */
  readonly issuedAfter: number;
  /** The family must have started after this (ms): the absolute lifetime. */
  readonly startedAfter: number;
  /** The family's new `keepUntil`. */
  readonly keepUntil: number;
  /** The family's own limit: fewer than `maxRefreshes` rotations may have been made after `windowStart` (ms). */
  readonly limit: { readonly maxRefreshes: number; readonly windowStart: number };
}

/** `rotated`, or not, with the family as the refused write found it (undefined: no such family). */
export type RotationResult = { readonly rotated: true } | { readonly rotated: false; readonly family: RefreshFamily | undefined };

export interface RefreshTokenStore {
  /** Stores a new family, and in the same write the opaque access token issued with its first token. */
  start(family: RefreshFamily, accessToken: OpaqueTokenRecord | undefined): Promise<void>;
  /** The family, read strongly consistent; undefined when there is none. */
  find(familyKey: string): Promise<RefreshFamily | undefined>;
  /**
   * Rotates the family if `presentedHash` is its live token, it is not revoked, neither lifetime
   * has run out and its own limit has room: one conditional write (with the opaque access token, a
   * transaction), so of concurrent rotations of one token exactly one succeeds.
   */
  rotate(rotation: Rotation, accessToken: OpaqueTokenRecord | undefined): Promise<RotationResult>;
  /**
   * Revokes the family (idempotent: the first revocation's time and reason stay); with `clientId`,
   * only if it is that client's. One conditional write; true when the family exists (and is the client's).
   */
  revoke(familyKey: string, reason: RevocationReason, now: number, clientId?: string): Promise<boolean>;
}

/** Revoked access tokens (RFC 7009): JWTs by `jti` until they expire, and every token of a revoked family. */
export interface RevocationStore {
  /**
   * Records a JWT access token of `clientId`'s as revoked until `expiresAt` (epoch seconds), when
   * it dies anyway; with its family, in the family (if it is still there, and `clientId`'s).
   */
  revokeAccessToken(token: {
    readonly jti: string;
    readonly clientId: string;
    readonly expiresAt: number;
    readonly familyKey?: string | undefined;
  }): Promise<void>;
  /** Whether an access token was revoked, by its `jti` or with its family: one read, of its family if it has one. */
  isRevoked(token: { readonly jti?: string | undefined; readonly familyKey?: string | undefined }): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// Delivery

export interface EmailMessage {
  readonly to: string;
  /** RFC 5322 mailbox, e.g. `"Acme" <no-reply@acme.example>`. */
  readonly from: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly configurationSet?: string | undefined;
}

export interface SmsMessage {
  readonly to: string;
  readonly text: string;
  readonly senderId?: string | undefined;
  readonly originationNumber?: string | undefined;
}

export interface VoiceMessage {
  readonly to: string;
  readonly ssml: string;
  /** Amazon Polly voice; it implies the language (SendVoiceMessage has no language field). */
  readonly voiceId: string;
  readonly originationIdentity: string;
  readonly configurationSet?: string | undefined;
}

/** Each throws `DeliveryFailedError` when the provider refuses or cannot be reached. */
export interface EmailSender {
  sendEmail(message: EmailMessage): Promise<void>;
}
export interface SmsSender {
  sendSms(message: SmsMessage): Promise<void>;
}
export interface VoiceCaller {
  sendVoiceMessage(message: VoiceMessage): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Secrets

/** Where the service's secrets come from: a git-ignored folder locally, Secrets Manager on AWS. */
export interface SecretSource {
  /** The master HMAC secret (at least 32 bytes). */
  hmacSecret(): Promise<Buffer>;
  /** The signing key set, as stored (see `lib/keys/signing-keys.ts`): private keys. */
  signingKeySet(): Promise<unknown>;
  /** Its public half, the JWKS the verifying functions read: no private key. */
  verificationKeySet(): Promise<unknown>;
}
