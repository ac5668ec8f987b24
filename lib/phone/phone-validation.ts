/**
 * Full validation of a phone number, for the operations that accept a number and send a code to
 * it (otp/send, the hosted login page): the number must be valid under its numbering plan's rules
 * for some type of line (Google's libphonenumber metadata as libphonenumber-js ships it in full,
 * less the formatting rules nothing here uses: infra/phone-metadata.ts).
 */
import { parsePhoneNumberFromString, type MetadataJson } from 'libphonenumber-js/core';
import validation from './phone-metadata/validation.json';
import { parseInternational } from './phone-numbers';

const METADATA = validation as unknown as MetadataJson;

/**
 * Normalises a phone number in international format to E.164, or returns undefined when it is
 * not a valid number.
 * @example normalisePhone('+49 (30) 901820') // '+4930901820'
 */
export function normalisePhone(raw: string): string | undefined {
  const parsed = parseInternational(raw, METADATA);
  return parsed?.isValid() === true ? parsed.number : undefined;
}

/**
 * The calling code of a number in E.164 form (for showing it masked), or undefined.
 * @example countryCallingCodeOf('+442079460958') // '44'
 */
export function countryCallingCodeOf(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164, METADATA)?.countryCallingCode;
}
