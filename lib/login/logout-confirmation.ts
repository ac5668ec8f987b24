/**
 * The end-session endpoint's confirmation (OpenID Connect RP-Initiated Logout 1.0 §2): the logout
 * request as the endpoint validated it, sealed into the confirmation page's form, so that the
 * answer ("Sign out" or "Stay signed in") needs no server state and costs no DynamoDB request of
 * its own. Sealed as the login page's transaction is (lib/login/login-transaction.ts: JWE, `dir`
 * with A256GCM, under the same derived key), with a `typ` of its own, so neither can be presented
 * as the other (a login transaction also lacks this one's members, and this one lacks `tx`).
 *
 * What it holds: the environment, the post-logout redirect URI only once validated (§3.1), the
 * relying party's `state`, the page's locale, and the key of the session the browser's cookie
 * named when the page was shown (or none). The last is what makes the confirmation unforgeable
 * across sites: another site can have a browser post a confirmation it obtained itself, but that
 * one is bound to the other site's cookie (or to none), and the endpoint ends a session only when
 * the confirmation's session is the one the posting browser's cookie names. It lives 10 minutes.
 */
import { EncryptJWT, jwtDecrypt } from 'jose';
import '../platform/zod';
import * as z from 'zod/mini';
import { SUPPORTED_LOCALES } from '../platform/vocabulary';
import type { HmacKeys } from '../keys/hmac-keys';

/** Seconds a confirmation page can be answered: as long as a login page's transaction lives. */
export const LOGOUT_CONFIRMATION_TTL_SECONDS = 600;

/** The JWE `typ` of a confirmation: what sets it apart from a login transaction under the same key. */
const CONFIRMATION_TYPE = 'logout-confirmation';

const confirmationSchema = z.strictObject({
  environmentId: z.string(),
  /** The key of the session the cookie named when the page was shown; absent when it named none. */
  sessionKey: z.optional(z.string()),
  /** The client the request named (its hint's `aud` or `client_id`), for the logs. */
  clientId: z.optional(z.string()),
  /** A registered post-logout redirect URI of that client (§3.1): the only one ever redirected to. */
  redirectUri: z.optional(z.string()),
  state: z.optional(z.string()),
  locale: z.enum(SUPPORTED_LOCALES),
});

export type LogoutConfirmation = z.infer<typeof confirmationSchema>;

/** The sealed form of `confirmation`, answerable for LOGOUT_CONFIRMATION_TTL_SECONDS from `now` (ms). */
export async function sealConfirmation(keys: HmacKeys, confirmation: LogoutConfirmation, now: number): Promise<string> {
  const issuedAt = Math.floor(now / 1000);
  return new EncryptJWT({ logout: confirmation })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: CONFIRMATION_TYPE })
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + LOGOUT_CONFIRMATION_TTL_SECONDS)
    .encrypt(keys.loginTransaction);
}

/** The confirmation sealed in `sealed`, or undefined when it is missing, altered, expired, malformed or not a confirmation. */
export async function openConfirmation(keys: HmacKeys, sealed: unknown, now: number): Promise<LogoutConfirmation | undefined> {
  if (typeof sealed !== 'string' || sealed === '') return undefined;
  try {
    const { payload } = await jwtDecrypt(sealed, keys.loginTransaction, {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
      typ: CONFIRMATION_TYPE,
      currentDate: new Date(now),
      clockTolerance: 0,
    });
    const parsed = confirmationSchema.safeParse(payload.logout);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
