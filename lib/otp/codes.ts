/**
 * One-time codes: six digits from a CSPRNG, stored only as a digest bound to everything the
 * exchange must match, compared in constant time.
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { hmac } from '../keys/hmac-keys';
import type { AuthType } from '../platform/vocabulary';

export const CODE_LENGTH = 6;
const CODE_SPACE = 10 ** CODE_LENGTH;

/**
 * A uniformly random six-digit code, leading zeros kept. `crypto.randomInt` draws from the CSPRNG
 * with rejection sampling, so there is no modulo bias; its upper bound is exclusive, so
 * 0..999999 are all possible.
 * @example generateCode() // '042917'
 */
export function generateCode(draw: (max: number) => number = (max) => randomInt(max)): string {
  return draw(CODE_SPACE).toString().padStart(CODE_LENGTH, '0');
}

/** A presented code must be exactly six ASCII digits. */
export function isWellFormedCode(value: string): boolean {
  return /^[0-9]{6}$/.test(value);
}

/** Everything a code is bound to: a code is only good for the request that matches all of it. */
export interface CodeBinding {
  readonly environmentId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly authType: AuthType;
  /** The normalised user id. */
  readonly user: string;
}

/** The digest a code is stored and looked up as (HMAC under the `code` key). */
export function digestCode(codeKey: Buffer, binding: CodeBinding, code: string): string {
  return hmac(codeKey, [binding.environmentId, binding.clientId, binding.redirectUri, binding.authType, binding.user, code]);
}

/**
 * What one guess is, for the store's record of guesses made: the presented code's digest and the
 * PKCE challenge of the presented verifier (none: empty). A repeated guess is refused without
 * spending a try, and since only one pair matches a code, a code can be exchanged once.
 */
export function guessDigestOf(codeDigest: string, codeChallenge: string | undefined): string {
  return createHash('sha256')
    .update(`${codeDigest}.${codeChallenge ?? ''}`, 'ascii')
    .digest('base64url')
    .slice(0, 22);
}

/** Constant-time equality of two base64url digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'base64url');
  const right = Buffer.from(b, 'base64url');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** PKCE S256 (RFC 7636 §4.2): BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256Challenge(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier, 'ascii').digest('base64url');
}

/** RFC 7636 §4.1: 43-128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is the base64url of 32 bytes: 43 characters. */
export const S256_CHALLENGE_PATTERN = /^[A-Za-z0-9\-_]{43}$/;
