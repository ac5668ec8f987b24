/**
 * The interfaces the domain talks to. Adapters in `lib/adapters/` implement them; only adapters
 * import the AWS SDK. Names say intent (record an attempt, consume a code), not storage verbs.
 */
import type { LimitConfig } from './config';
import type { Channel } from './domain/identity';

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
  /** HMAC of the normalised user id (see `lib/domain/hmac-keys.ts`). */
  readonly userKey: string;
}

export type AttemptDecision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      /** Whole seconds until the block lifts (Retry-After). */
      readonly retryAfterSeconds: number;
      /** True for the attempt that started the block (useful for metrics and logs). */
      readonly blockStarted: boolean;
    };

/**
 * The brief's attempt limit: at most `maxAttempts` processed in any sliding window of
 * `windowSeconds`; the attempt that would exceed it starts a block of `blockSeconds`; attempts
 * during the block are refused without extending it. Must be race-safe.
 */
export interface AttemptLimiter {
  recordAttempt(key: AttemptKey, limit: LimitConfig, now: number): Promise<AttemptDecision>;
}

// ---------------------------------------------------------------------------------------------
// One-time codes

/** Identifies the one live code of a (client, user) pair. */
export interface CodeSlot {
  readonly clientId: string;
  readonly userKey: string;
}

/** A stored code. The code itself is never stored: only its HMAC digest, bound to everything else. */
export interface CodeRecord extends CodeSlot {
  readonly environmentId: string;
  readonly channel: Channel;
  /** HMAC over (environment, client, redirect URI, auth type, user, code), base64url. */
  readonly codeDigest: string;
  /** Random id of this send, so clean-up and try-counting never touch a newer code. */
  readonly sendId: string;
  /** When the code was created, ms. */
  readonly createdAt: number;
  /** The code is valid while now < notAfter (ms). Checked by the application, not by TTL. */
  readonly notAfter: number;
  /** Wrong tries so far and the number that kills the code. */
  readonly tries: number;
  readonly maxTries: number;
  /** PKCE (RFC 7636): the S256 code_challenge sent with the code, if any. */
  readonly codeChallenge?: string | undefined;
}

export interface ConsumeQuery extends CodeSlot {
  readonly codeDigest: string;
  /** S256 of the presented code_verifier, or undefined when none was presented. */
  readonly codeChallenge: string | undefined;
  readonly now: number;
}

/**
 * `consumed`: the code was live, matched, and is now gone (one conditional write, so of two
 * concurrent exchanges only one can see this). `rejected`: nothing changed; `record` is the code
 * that was there, if any, so the caller can tell why.
 */
export type ConsumeResult =
  | { readonly outcome: 'consumed'; readonly record: CodeRecord }
  | { readonly outcome: 'rejected'; readonly record: CodeRecord | undefined };

export interface CodeStore {
  /** Stores the code of a (client, user) pair, replacing any earlier one, which it returns. */
  save(record: CodeRecord): Promise<CodeRecord | undefined>;
  /** Consumes the code if it is live, unexhausted and matches the digest and PKCE challenge. */
  consume(query: ConsumeQuery): Promise<ConsumeResult>;
  /** Counts a wrong try against the code of this send; a no-op if a newer send replaced it. */
  recordWrongTry(slot: CodeSlot, sendId: string): Promise<void>;
  /**
   * Undoes the save of `failedSendId` (its delivery failed): puts `previous` back, or removes the
   * slot's code when there was none. A no-op if a newer send replaced it meanwhile.
   */
  restore(slot: CodeSlot, failedSendId: string, previous: CodeRecord | undefined): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Opaque access tokens

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
}

export interface TokenStore {
  save(record: OpaqueTokenRecord): Promise<void>;
  find(tokenHash: string): Promise<OpaqueTokenRecord | undefined>;
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
  /** The signing key set, as stored (see `lib/domain/signing-keys.ts`): private keys. */
  signingKeySet(): Promise<unknown>;
  /** Its public half, the JWKS the verifying functions read: no private key. */
  verificationKeySet(): Promise<unknown>;
}
