/**
 * Who a request is about. Normalise before anything keys on it, so that case or
 * format variants of one address are one user for every limit and every code.
 *
 * - email: trimmed and lower-cased (the whole address: providers treat local parts
 *   case-insensitively in practice, and one person must not get two attempt counters);
 * - sms: parsed by libphonenumber-js and formatted as E.164 (lib/phone/phone-numbers.ts). Only
 *   international input (a leading `+` or `00`) is accepted: there is no default country to guess
 *   from. The caller chooses how: full validation where a number is accepted and sent to
 *   (`normalisePhone`), the E.164 form alone where it was accepted before (`canonicalisePhone`,
 *   the token endpoint), identical on every number the first accepts.
 */
import { normaliseEmail } from '../platform/email-address';
import { InvalidRequestError } from '../platform/errors';
import type { AuthType } from '../platform/vocabulary';

/** A normalised user: the only form anything downstream sees. */
export interface UserIdentity {
  readonly authType: AuthType;
  /** Lower-cased email or E.164 number. Personal data: never logged, never a key in clear. */
  readonly value: string;
}

/** A phone number's E.164 form, or undefined when the number is refused. */
export type PhoneNormaliser = (raw: string) => string | undefined;

/**
 * Normalises `user_id` for `authType`, phone numbers with `normalisePhone`, throwing a 400 that
 * names the field when it is not valid.
 * @example normaliseUser('sms', '+1 (415) 555-2671', normalisePhone) // { authType: 'sms', value: '+14155552671' }
 */
export function normaliseUser(authType: AuthType, rawUserId: string, normalisePhone: PhoneNormaliser): UserIdentity {
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
