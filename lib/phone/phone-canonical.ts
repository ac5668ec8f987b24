/**
 * The E.164 form of a phone number that otp/send accepted, for the token endpoint: the same
 * parsing as `normalisePhone` (lib/phone/phone-validation.ts), from the parsing rules alone
 * (infra/phone-metadata.ts), so the token function does not carry every numbering plan's rules.
 *
 * On every number `normalisePhone` accepts, `canonicalisePhone` returns the same string: one user
 * is one key from the send to the exchange. A number it accepts that `normalisePhone` would not
 * (possible by length, invalid by type) can never have had a code sent to it, so its exchange
 * fails as any wrong code does (`invalid_grant`), counted like any other attempt.
 */
import type { MetadataJson } from 'libphonenumber-js/core';
import parsing from './phone-metadata/parsing.json';
import { parseInternational } from './phone-numbers';

const METADATA = parsing as unknown as MetadataJson;

/**
 * The E.164 form of a phone number in international format, or undefined when it cannot be one
 * (not a number, or not a possible length for its country).
 * @example canonicalisePhone('+44 (0)20 7946 0958') // '+442079460958'
 */
export function canonicalisePhone(raw: string): string | undefined {
  const parsed = parseInternational(raw, METADATA);
  return parsed?.isPossible() === true ? parsed.number : undefined;
}
