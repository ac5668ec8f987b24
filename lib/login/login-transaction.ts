/**
 * The hosted login page's transaction: which client is asking, where to send the user back, the
 * client's PKCE challenge, nonce, state and scope, the locale, and after step 1 the user and the
 * channel; a page with passkey parts adds its WebAuthn challenge, and the passkeys page the session
 * the code login started. It lives in a cookie, encrypted and integrity-protected (JWE, `dir` with A256GCM, RFC
 * 7516, under a key of its own derived from the service's secret), so the page keeps no server
 * state and costs no DynamoDB request of its own: docs/decisions/007-hosted-login.md says why.
 *
 * Every form the page shows carries the transaction's CSRF token (128 random bits), which must
 * equal the one sealed in the cookie: another site can make a browser post to the page, but
 * cannot read the cookie nor the page, so it cannot know the token (OWASP's "double submit" with
 * an encrypted cookie). A tampered cookie does not decrypt; an expired one (10 minutes) is refused.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { EncryptJWT, jwtDecrypt } from 'jose';
import '../platform/zod';
import * as z from 'zod/mini';
import { CHANNELS, SUPPORTED_LOCALES } from '../platform/vocabulary';
import type { HmacKeys } from '../keys/hmac-keys';

/** Seconds a login transaction lasts: long enough to fetch a code from a phone, short enough to be stale soon. */
export const LOGIN_TRANSACTION_TTL_SECONDS = 600;

/** The cookie's name and path: sent only to the authorization endpoint. */
export const LOGIN_COOKIE = 'idp_login';

/**
 * The longest sealed transaction the page sets. RFC 6265 §6.1 asks browsers to keep cookies of at
 * least 4,096 bytes, name, value and attributes together, and Chromium drops a longer one silently
 * (the user then saw "expired"); the cookie's name (9), `=`, and its attributes (`Path` of the stage's
 * authorize path, `HttpOnly`, `SameSite=Lax`, `Secure`: under 120 bytes with a stage name of 30)
 * leave 3,900 for the value with room to spare.
 */
export const MAX_SEALED_TRANSACTION_LENGTH = 3900;

/**
 * The largest a transaction can grow in its flow, of its two largest states: step 2 (the user, an
 * address of up to 320 characters, the page's cap; the channel; every send's count) and the
 * passkeys page (the user and the channel, the code login's time, and the page's challenge).
 */
export function largestFormOf(transaction: LoginTransaction): LoginTransaction {
  const user = { authType: 'email', value: 'x'.repeat(320) } as const;
  const codeStep: LoginTransaction = { ...transaction, user, channel: 'voice', sends: 99 };
  const passkeysPage: LoginTransaction = {
    ...transaction,
    user,
    channel: 'voice',
    passkeyChallenge: 'x'.repeat(43),
    signedIn: { authTime: 9_999_999_999, renew: true },
  };
  return JSON.stringify(passkeysPage).length > JSON.stringify(codeStep).length ? passkeysPage : codeStep;
}

const transactionSchema = z.strictObject({
  environmentId: z.string(),
  clientId: z.string(),
  redirectUri: z.string(),
  /** Absent only for a confidential client that may go without PKCE and sent a nonce (config.ts `requirePkce`). */
  codeChallenge: z.optional(z.string()),
  /** How the response goes back: absent for the default (the query of a 302), or `form_post`. */
  responseMode: z.optional(z.literal('form_post')),
  state: z.optional(z.string()),
  nonce: z.optional(z.string()),
  scope: z.optional(z.string()),
  locale: z.enum(SUPPORTED_LOCALES),
  loginHint: z.optional(z.string()),
  csrf: z.string(),
  /** Set by step 1: the normalised user and how the code travels. */
  user: z.optional(z.strictObject({ authType: z.enum(['email', 'sms']), value: z.string() })),
  channel: z.optional(z.enum(CHANNELS)),
  /** The `sid` of the session the account page offered (`prompt=select_account`): "continue" logs in with it only. */
  sessionSid: z.optional(z.string()),
  /** Codes this transaction has sent (its own cap: `limits.sendsPerTransaction`). */
  sends: z.optional(z.int().check(z.gte(1))),
  /**
   * The WebAuthn challenge of the page last shown, when it had a passkey sign-in or a
   * registration: a fresh one for every such page, so it lives exactly as long as the one cookie
   * that carries it (a passkey sign-in also spends it in the table: lib/login/passkey-login.ts).
   */
  passkeyChallenge: z.optional(z.string()),
  /**
   * The user logged in by a code and the page shows their passkeys (lib/login/passkey-login.ts):
   * the code's check (`authTime`, epoch s: a passkey may be created only shortly after it), and
   * `renew`: the browser's session of this user is yet to be re-authenticated by the code (by
   * `channel`), which "continue" does in the transaction that writes the authorization code.
   * "Continue" logs in with the browser's session if it is still this user's. Every field here
   * costs cookie space (MAX_SEALED_TRANSACTION_LENGTH: a nonce of 2,048 characters must still
   * fit), so neither the session's `sid` nor the WebAuthn user handle is kept: the user stands for
   * the one, the page's challenge derives the other.
   */
  signedIn: z.optional(z.strictObject({ authTime: z.int(), renew: z.optional(z.literal(true)) })),
  /** `acr_values` asked for `phr`: only a passkey logs the user in (no code form, no code session). */
  requirePasskey: z.optional(z.literal(true)),
});

export type LoginTransaction = z.infer<typeof transactionSchema>;

/** A fresh CSRF token for a new transaction. */
export function newCsrfToken(): string {
  return randomBytes(16).toString('base64url');
}

/** The cookie value for `transaction`, valid for LOGIN_TRANSACTION_TTL_SECONDS from `now` (ms). */
export async function sealTransaction(keys: HmacKeys, transaction: LoginTransaction, now: number): Promise<string> {
  const issuedAt = Math.floor(now / 1000);
  return new EncryptJWT({ tx: transaction })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + LOGIN_TRANSACTION_TTL_SECONDS)
    .encrypt(keys.loginTransaction);
}

/** The transaction sealed in `cookie`, or undefined when it is missing, tampered with, expired or malformed. */
export async function openTransaction(keys: HmacKeys, cookie: string | undefined, now: number): Promise<LoginTransaction | undefined> {
  return (await openSealedTransaction(keys, cookie, now))?.transaction;
}

/**
 * The transaction sealed in `cookie` and when that sealing expires (epoch s): a passkey sign-in's
 * challenge, sealed with it, lives no longer, and the record of its use in the table not either.
 */
export async function openSealedTransaction(
  keys: HmacKeys,
  cookie: string | undefined,
  now: number,
): Promise<{ readonly transaction: LoginTransaction; readonly expiresAt: number } | undefined> {
  if (cookie === undefined || cookie === '') return undefined;
  try {
    const { payload } = await jwtDecrypt(cookie, keys.loginTransaction, {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
      currentDate: new Date(now),
      clockTolerance: 0,
    });
    const parsed = transactionSchema.safeParse(payload.tx);
    if (!parsed.success || typeof payload.exp !== 'number') return undefined;
    return { transaction: parsed.data, expiresAt: payload.exp };
  } catch {
    return undefined;
  }
}

/** Whether a form's CSRF token is the transaction's (constant time). */
export function csrfMatches(transaction: LoginTransaction, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(transaction.csrf);
  const actual = Buffer.from(presented);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
