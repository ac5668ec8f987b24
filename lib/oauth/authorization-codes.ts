/**
 * Authorization codes (RFC 6749 §4.1.2): what the hosted login page hands the client in its
 * redirect once the user has proved possession of a one-time code, exchanged at the token
 * endpoint with the PKCE verifier (RFC 7636) for the tokens.
 *
 * 256 random bits (at least 128 are required: RFC 6749 §10.10, and guessing stays hopeless),
 * base64url; stored only as a keyed hash (HMAC under a key of their own), single use, and valid
 * for 60 s (RFC 6749 §4.1.2 recommends at most 10 minutes: the redirect and the exchange take
 * seconds).
 */
import { randomBytes } from 'node:crypto';
import { hmac, type HmacKeys } from '../keys/hmac-keys';

/** Seconds an authorization code can be exchanged for. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;

/** What an authorization code looks like (32 bytes, base64url): anything else is not one. */
export const AUTHORIZATION_CODE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new authorization code. */
export function mintAuthorizationCode(): string {
  return randomBytes(32).toString('base64url');
}

/** The keyed hash a code is stored and looked up by. */
export function authorizationCodeHash(keys: HmacKeys, code: string): string {
  return hmac(keys.authorizationCode, [code]);
}
