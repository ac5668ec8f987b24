/**
 * Phone numbers as users type them: international format only (a leading `+` or `00`; there is
 * no default country to guess from), digits and the usual separators, parsed by libphonenumber-js
 * with the metadata the caller brings. Two callers, two sets of metadata (infra/phone-metadata.ts):
 *
 * - `normalisePhone` (lib/phone/phone-validation.ts): otp/send and the hosted login page, which
 *   accept a number and send a code to it: every numbering plan's rules, by type;
 * - `canonicalisePhone` (lib/phone/phone-canonical.ts): the token endpoint, which only needs the
 *   E.164 form of a number otp/send already accepted, from a seventh of the data. On every number
 *   `normalisePhone` accepts it returns the same E.164 form, so one user is one key from the send
 *   to the exchange (test/unit/phone/phone-numbers.test.ts checks it for every country).
 */
import { parsePhoneNumberFromString, type MetadataJson, type PhoneNumber } from 'libphonenumber-js/core';

/** Longer input is refused before parsing: no number in international format needs more. */
export const MAX_PHONE_INPUT_LENGTH = 32;

/**
 * Parses `raw` as one number in international format with `metadata`, or returns undefined.
 * @example parseInternational('0049 (30) 901820', metadata)?.number // '+4930901820'
 */
export function parseInternational(raw: string, metadata: MetadataJson): PhoneNumber | undefined {
  const trimmed = raw.trim();
  if (trimmed.length > MAX_PHONE_INPUT_LENGTH) return undefined;
  const international = trimmed.startsWith('00') ? `+${trimmed.slice(2)}` : trimmed;
  // Digits and the usual separators only: libphonenumber-js would otherwise find a number inside
  // "+1 415 555 2671 ext. 5" or "+14155552671abc" and drop the rest without a word.
  if (!/^\+[0-9 ()\-.]+$/.test(international)) return undefined;
  return parsePhoneNumberFromString(international, metadata);
}
