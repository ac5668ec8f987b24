/**
 * Where an SMS or voice code would go, as the fraud guards see it
 * (docs/decisions/008-sms-fraud-guards.md): the number's country and type by libphonenumber's
 * metadata, and the block of numbers it belongs to.
 *
 * Only for numbers that `normalisePhone` (lib/identity/identity.ts) accepted: valid, E.164.
 */
import { parsePhoneNumberFromString, type MetadataJson, type NumberType } from 'libphonenumber-js/core';
// The validation metadata keeps every type's rules (only formatting is left out), so getType()
// answers as with libphonenumber-js/max, without a second copy of the metadata in the bundle.
import validation from './phone-metadata/validation.json';

const METADATA = validation as unknown as MetadataJson;

/**
 * The region libphonenumber gives a number that belongs to no country (the non-geographic calling
 * codes +800, +808, +870, +881, +882, +883, +888, +979): "001", as its metadata names them.
 */
export const NO_COUNTRY = '001';

/**
 * Number types that are never a person's phone, by libphonenumber's `PhoneNumberType`
 * (PhoneNumberUtil.java): premium rate and shared cost (the caller pays the callee's operator a
 * share: what SMS pumping earns from), UAN (a company's universal access number), voicemail
 * access, and pagers. Refused in every environment, whatever its allowed countries.
 */
export const NEVER_A_PERSON: ReadonlySet<NumberType> = new Set<NumberType>(['PREMIUM_RATE', 'SHARED_COST', 'UAN', 'VOICEMAIL', 'PAGER']);

/**
 * The international networks of ITU-T E.164: +881 (Global Mobile Satellite System) and +882/+883
 * (International Networks: satellite, maritime and carrier ranges, billed at the carriers' rates).
 * Classic destinations of inflated traffic; refused in every environment.
 */
export const INTERNATIONAL_NETWORKS: ReadonlySet<string> = new Set(['881', '882', '883']);

export interface Destination {
  /** ISO 3166-1 alpha-2 (as libphonenumber assigns the number), or {@link NO_COUNTRY}. */
  readonly country: string;
  /** The country calling code, without `+`. */
  readonly callingCode: string;
  /** The national significant number: the digits after the calling code. */
  readonly nationalNumber: string;
  /** libphonenumber's type of the number; undefined when its metadata cannot tell. */
  readonly type: NumberType | undefined;
}

/** Why a destination is refused: its kind of number, or its country. */
export type DestinationRefusal = 'number_type' | 'country';

/** What an environment allows (its `sms` settings, lib/platform/config.ts). */
export interface DestinationRules {
  /** ISO 3166-1 alpha-2 regions, as libphonenumber assigns numbers to them. */
  readonly allowedCountries: readonly string[];
  /** Kinds of number this environment refuses whatever their country (personal numbers, VoIP). */
  readonly refusedNumberTypes: readonly NumberType[];
}

/**
 * The destination of an E.164 number that `normalisePhone` accepted.
 * @example destinationOf('+447624123456') // { country: 'IM', callingCode: '44', nationalNumber: '7624123456', type: 'MOBILE' }
 */
export function destinationOf(e164: string): Destination {
  const parsed = parsePhoneNumberFromString(e164, METADATA);
  if (parsed === undefined) throw new Error('A normalised phone number did not parse');
  return {
    country: parsed.country ?? NO_COUNTRY,
    callingCode: parsed.countryCallingCode,
    nationalNumber: parsed.nationalNumber,
    type: parsed.getType(),
  };
}

/**
 * Whether codes may go to `destination` in an environment with `rules`: the reason it may not, or
 * undefined. The kind of number is checked first, so a premium-rate number (everywhere) or a
 * personal number (where the environment refuses them) is refused as such even in an allowed
 * country.
 * @example destinationRefusal(destinationOf('+447012345678'), { allowedCountries: ['GB'], refusedNumberTypes: ['PERSONAL_NUMBER'] }) // 'number_type'
 */
export function destinationRefusal(destination: Destination, rules: DestinationRules): DestinationRefusal | undefined {
  if (INTERNATIONAL_NETWORKS.has(destination.callingCode)) return 'number_type';
  if (destination.type !== undefined && NEVER_A_PERSON.has(destination.type)) return 'number_type';
  if (destination.type !== undefined && rules.refusedNumberTypes.includes(destination.type)) return 'number_type';
  if (!rules.allowedCountries.includes(destination.country)) return 'country';
  return undefined;
}

/**
 * The block of numbers the per-prefix guard counts: `+`, the calling code and the first `digits`
 * digits of the national number (all of it when it is shorter). Personal data in the making (with
 * enough digits it is a number): only ever stored as an HMAC, never logged.
 * @example prefixOf(destinationOf('+14155552671'), 6) // '+1415555'
 */
export function prefixOf(destination: Destination, digits: number): string {
  return `+${destination.callingCode}${destination.nationalNumber.slice(0, digits)}`;
}

/**
 * A coarse range for logs: the calling code and the first 3 digits of the national number, e.g.
 * `+44 762` (an area code or a mobile operator's range: a million numbers in a 10-digit plan).
 * Enough for an operator to see where a sweep goes, far from any person's number; the space keeps
 * it from reading as a phone number. docs/decisions/008-sms-fraud-guards.md.
 */
export function rangeOf(destination: Destination): string {
  return `+${destination.callingCode} ${destination.nationalNumber.slice(0, 3)}`;
}
