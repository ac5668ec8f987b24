/**
 * OAuth's ports: authorization codes, opaque access tokens, refresh token families and revoked
 * access tokens (lib/adapters/dynamodb/).
 */
import type { LoginMethod } from '../platform/vocabulary';

// ---------------------------------------------------------------------------------------------
// Authorization codes (the hosted login page)

/** An authorization code's grant, stored under its keyed hash until it is exchanged or expires. */
export interface AuthorizationCodeRecord {
  /** HMAC of the code (lib/oauth/authorization-codes.ts): the code itself is never stored. */
  readonly codeHash: string;
  readonly environmentId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  /**
   * PKCE (RFC 7636): the S256 challenge of the authorization request; the exchange proves the
   * verifier. Undefined only for a confidential client allowed to go without (`requirePkce`),
   * whose request had a `nonce` instead (RFC 9700 §2.1.1).
   */
  readonly codeChallenge: string | undefined;
  readonly nonce: string | undefined;
  /** The granted scope. */
  readonly scope: string | undefined;
  /** The user's key (for the token endpoint's per-user limit) and subject (per environment). */
  readonly userKey: string;
  readonly subject: string;
  /** How the user logged in: a code's channel or a passkey (`amr` and `acr`: lib/oauth/access-tokens.ts). */
  readonly channel: LoginMethod;
  /** The user's address claims, only where the scope asked for them. */
  readonly claims: UserClaims;
  /** Seconds since the epoch: when the user proved possession of the one-time code. */
  readonly authTime: number;
  /** The login's session id: the ID token's `sid` (OIDC Front-Channel Logout §3); undefined for a code saved before it was kept. */
  readonly sessionId: string | undefined;
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
  /** The login's `acr` (a passkey's `phr`, lib/oauth/access-tokens.ts `acrOf`); undefined for a code, or a token stored before it was kept. */
  readonly acr?: string | undefined;
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

/** Why a family was revoked: a spent token presented again, a revocation request (RFC 7009), its session's end, or an operator's. */
export type RevocationReason = 'reuse' | 'revoked' | 'session_ended' | 'operator';

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
  /** How the user logged in to the original login: a code's channel or a passkey (for `amr` and `acr`). */
  readonly channel: LoginMethod;
  /** The user's address claims the login granted. */
  readonly claims: UserClaims;
  /** The scope the login granted; a refresh may narrow it, never widen it (RFC 6749 §6). */
  readonly scope: string | undefined;
  /** Seconds since the epoch: the original login (`auth_time`), which every token of the family keeps. */
  readonly authTime: number;
  /** The login's session id (the ID token's `sid`); undefined for a family started before it was kept. */
  readonly sessionId: string | undefined;
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
// Client assertions (private_key_jwt)

/** One use of a client assertion (RFC 7523 §3: its `jti`), to be recorded while the assertion could be accepted. */
export interface AssertionUse {
  readonly clientId: string;
  /** SHA-256 of the assertion's `jti` (lib/oauth/client-assertions.ts `assertionJtiHash`): the `jti` itself is never stored. */
  readonly jtiHash: string;
  /** Epoch seconds: the last moment the assertion could be accepted (its `exp` plus the clock skew); kept until then. */
  readonly keepUntil: number;
  /** Epoch seconds now: a record past its `keepUntil` that TTL has not yet deleted counts as gone. */
  readonly now: number;
}

export interface ClientAssertionStore {
  /**
   * Records the use, one conditional write: true the first time, false when the client already
   * used that `jti` within its assertion's life (a replay). Of concurrent uses exactly one is first.
   */
  spend(use: AssertionUse): Promise<boolean>;
}
