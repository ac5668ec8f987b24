/**
 * What the service accepts as an email address: the one validator for users' addresses, senders
 * and operators' addresses alike. A leaf module, so the configuration and the domain share it.
 *
 * Deliberately plain: one `@`, a local part of RFC 5322 `atext` and dots, and a dotted domain of
 * letters, digits and hyphens (IDNs in their punycode form). Quoted local parts, IP literals and
 * non-ASCII local parts (RFC 6531) are legal somewhere but not addresses SES accepts: letting them
 * through would turn a client's mistake into a 502 from the provider.
 */

/** RFC 5321 caps a path at 256 octets, so an address is at most 254 characters. */
const MAX_EMAIL_LENGTH = 254;
/** RFC 5321 §4.5.3.1.1: a local part is at most 64 octets. */
const MAX_LOCAL_PART_LENGTH = 64;
const EMAIL_PATTERN = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * Normalises an email address (trimmed, lower-cased), or returns undefined when it is not one.
 * @example normaliseEmail('  Alice@Example.COM ') // 'alice@example.com'
 */
export function normaliseEmail(raw: string): string | undefined {
  const value = raw.trim().toLowerCase();
  if (value.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(value)) return undefined;
  const local = value.slice(0, value.lastIndexOf('@'));
  if (local.length > MAX_LOCAL_PART_LENGTH || local.startsWith('.') || local.endsWith('.') || local.includes('..')) {
    return undefined;
  }
  return value;
}

/**
 * True when `value` is an email address as the service accepts one, written as it would be
 * stored (no surrounding space).
 * @example isEmailAddress('no-reply@example.com') // true
 */
export function isEmailAddress(value: string): boolean {
  return normaliseEmail(value) !== undefined && value.trim() === value;
}
