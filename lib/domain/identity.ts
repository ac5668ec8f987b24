/**
 * Who a request is about. The brief's rule: normalise before anything keys on it, so that case or
 * format variants of one address are one user for every limit and every code.
 *
 * - email: trimmed and lower-cased (the whole address: providers treat local parts
 *   case-insensitively in practice, and one person must not get two attempt counters);
 * - sms: parsed by libphonenumber-js (full metadata) and formatted as E.164. Only international
 *   input (a leading `+` or `00`) is accepted: there is no default country to guess from.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { InvalidRequestError } from '../errors';

/** How the user is identified: `user_id` is an email address or an E.164 phone number. */
export type AuthType = 'email' | 'sms';
export const AUTH_TYPES: readonly AuthType[] = ['email', 'sms'];

/** How a code travels. `voice` is a call to the phone number of an `sms` user. */
export type Channel = 'email' | 'sms' | 'voice';
export const CHANNELS: readonly Channel[] = ['email', 'sms', 'voice'];

/** A normalised user: the only form anything downstream sees. */
export interface UserIdentity {
  readonly authType: AuthType;
  /** Lower-cased email or E.164 number. Personal data: never logged, never a key in clear. */
  readonly value: string;
}

/** RFC 5321 caps a path at 256 octets, so an address is at most 254 characters. */
const MAX_EMAIL_LENGTH = 254;
/**
 * Deliberately plain: one `@`, a local part of RFC 5322 `atext` and dots, and a dotted domain of
 * letters, digits and hyphens (IDNs in their punycode form). Quoted local parts, IP literals and
 * non-ASCII local parts (RFC 6531) are legal somewhere but not addresses SES accepts: letting them
 * through would turn a client's mistake into a 502 from the provider.
 */
const EMAIL_PATTERN = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * Normalises an email address, or returns undefined when it is not one.
 * @example normaliseEmail('  Alice@Example.COM ') // 'alice@example.com'
 */
export function normaliseEmail(raw: string): string | undefined {
  const value = raw.trim().toLowerCase();
  if (value.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(value)) return undefined;
  const local = value.slice(0, value.lastIndexOf('@'));
  if (local.length > 64 || local.startsWith('.') || local.endsWith('.') || local.includes('..')) {
    return undefined;
  }
  return value;
}

/**
 * Normalises a phone number in international format to E.164, or returns undefined when it is
 * not a valid number.
 * @example normalisePhone('+49 (30) 901820') // '+4930901820'
 */
export function normalisePhone(raw: string): string | undefined {
  const trimmed = raw.trim();
  if (trimmed.length > 32) return undefined;
  const international = trimmed.startsWith('00') ? `+${trimmed.slice(2)}` : trimmed;
  // Digits and the usual separators only: libphonenumber-js would otherwise find a number inside
  // "+1 415 555 2671 ext. 5" or "+14155552671abc" and drop the rest without a word.
  if (!/^\+[0-9 ()\-.]+$/.test(international)) return undefined;
  const parsed = parsePhoneNumberFromString(international);
  if (parsed === undefined || !parsed.isValid()) return undefined;
  return parsed.number;
}

/**
 * Normalises `user_id` for `authType`, throwing a 400 that names the field when it is not valid.
 */
export function normaliseUser(authType: AuthType, rawUserId: string): UserIdentity {
  const value = authType === 'email' ? normaliseEmail(rawUserId) : normalisePhone(rawUserId);
  if (value === undefined) {
    throw new InvalidRequestError(
      authType === 'email'
        ? "user_id must be a valid email address when auth_type is 'email'."
        : "user_id must be a valid phone number in international format (for example +14155550100) when auth_type is 'sms'.",
    );
  }
  return { authType, value };
}

/**
 * The token endpoint lets `auth_type` be omitted: an `@` means email, anything else is tried as a
 * phone number.
 */
export function inferAuthType(rawUserId: string): AuthType {
  return rawUserId.includes('@') ? 'email' : 'sms';
}

/** Providers known to ignore dots in the local part (and the domain Gmail is also reachable at). */
const DOTLESS_DOMAINS: ReadonlyMap<string, string> = new Map([
  ['gmail.com', 'gmail.com'],
  ['googlemail.com', 'gmail.com'],
]);

/**
 * The mailbox a user's messages land in, for counting sends per recipient: `alice+x@` and
 * `alice@` are one mailbox for every domain (subaddressing, RFC 5233, is near universal), and for
 * Gmail `a.lice@gmail.com`, `alice@googlemail.com` and `alice@gmail.com` are one too. Only for
 * counting: a code stays bound to the exact address it was sent to. Phone numbers are their own
 * mailbox.
 * @example mailboxOf({ authType: 'email', value: 'a.lice+news@googlemail.com' }) // { authType: 'email', value: 'alice@gmail.com' }
 */
export function mailboxOf(user: UserIdentity): UserIdentity {
  if (user.authType !== 'email') return user;
  const at = user.value.lastIndexOf('@');
  const domain = user.value.slice(at + 1);
  let local = user.value.slice(0, at);
  const plus = local.indexOf('+');
  // A local part that is all tag ("+x@") stays as it is: it names no other mailbox.
  if (plus > 0) local = local.slice(0, plus);
  const canonical = DOTLESS_DOMAINS.get(domain);
  if (canonical === undefined) return { authType: 'email', value: `${local}@${domain}` };
  return { authType: 'email', value: `${local.replaceAll('.', '')}@${canonical}` };
}
