/**
 * The phone number metadata the functions carry, derived from libphonenumber-js's full ("max")
 * metadata by dropping what the code paths we call never read, so that a bundle holds only what
 * its function uses (docs/decisions/002-bundling.md). Both files are committed; a test fails when
 * they are stale (after an upgrade of libphonenumber-js). Regenerate with `npm run phone-metadata`.
 *
 * - `validation.json` (otp/send and the hosted login page, which accept a number and send to it):
 *   every numbering plan's rules, by type, as in the full metadata; only the formatting rules are
 *   dropped (read by format(), AsYouType and findNumbers, never by parsing or validation).
 * - `parsing.json` (the token endpoint, which only finds again the E.164 form of a number
 *   otp/send accepted): also without the per-type rules, except where parsing itself reads them:
 *   to tell apart the countries that share a calling code when none of them has leading digits
 *   (helpers/getCountryByNationalNumber.js), which decides whose lengths allow a national prefix
 *   to be stripped (helpers/extractNationalNumber.js).
 *
 * Fields of a numbering plan (libphonenumber-js es6/metadata.js, metadata version 4), by index:
 * 0 calling code, 1 IDD prefix, 2 national number pattern, 3 possible lengths, 4 formats,
 * 5 national prefix, 6 national prefix formatting rule, 7 national prefix for parsing,
 * 8 national prefix transform rule, 9 national prefix optional when formatting, 10 leading
 * digits, 11 types, 12 default IDD prefix, 13 extension prefix.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { MetadataJson } from 'libphonenumber-js/core';
import { PROJECT_ROOT } from './bundling';

export const PHONE_METADATA_DIR = resolve(PROJECT_ROOT, 'lib/phone/phone-metadata');
export const VALIDATION_METADATA_FILE = resolve(PHONE_METADATA_DIR, 'validation.json');
export const PARSING_METADATA_FILE = resolve(PHONE_METADATA_DIR, 'parsing.json');

type Plan = unknown[];
interface CompactMetadata {
  version: number;
  country_calling_codes: Record<string, string[]>;
  countries: Record<string, Plan>;
  nonGeographic?: Record<string, Plan>;
}

/** Read only when formatting: formats, the national prefix formatting rule and its "optional" flag, the extension prefix. */
const FORMATTING_FIELDS = [4, 6, 9, 13];
const LEADING_DIGITS = 10;
const TYPES = 11;

/** The full metadata of the installed libphonenumber-js. */
export function fullMetadata(): MetadataJson {
  return JSON.parse(readFileSync(require.resolve('libphonenumber-js/metadata.max.json'), 'utf8')) as MetadataJson;
}

/** `full` without the formatting rules: parsing and validation read exactly what they read in `full`. */
export function validationMetadata(full: MetadataJson): MetadataJson {
  return reduce(full, () => false);
}

/** `validationMetadata` without the per-type rules, except where parsing reads them (the header). */
export function parsingMetadata(full: MetadataJson): MetadataJson {
  const compact = full as unknown as CompactMetadata;
  const shared = new Set(Object.values(compact.country_calling_codes).flatMap((countries) => (countries.length > 1 ? countries : [])));
  return reduce(full, (country, plan) => !(shared.has(country) && !plan[LEADING_DIGITS]));
}

function reduce(full: MetadataJson, dropTypes: (country: string, plan: Plan) => boolean): MetadataJson {
  const compact = full as unknown as CompactMetadata;
  if (compact.version !== 4) throw new Error(`libphonenumber-js metadata version ${compact.version}: this reduction knows version 4`);
  const plans = (from: Record<string, Plan>) =>
    Object.fromEntries(
      Object.entries(from).map(([country, plan]) => [
        country,
        trimTrailingZeros(
          plan.map((field, index) => (FORMATTING_FIELDS.includes(index) || (index === TYPES && dropTypes(country, plan)) ? 0 : field)),
        ),
      ]),
    );
  const reduced: CompactMetadata = {
    version: compact.version,
    country_calling_codes: compact.country_calling_codes,
    countries: plans(compact.countries),
    ...(compact.nonGeographic === undefined ? {} : { nonGeographic: plans(compact.nonGeographic) }),
  };
  return reduced as unknown as MetadataJson;
}

/** Absent trailing fields read as `undefined`, which every accessor treats as it treats 0. */
function trimTrailingZeros(plan: Plan): Plan {
  let end = plan.length;
  while (end > 0 && plan[end - 1] === 0) end -= 1;
  return plan.slice(0, end);
}

/** A file's committed form: one line, as libphonenumber-js ships its own. */
export function serialise(metadata: MetadataJson): string {
  return `${JSON.stringify(metadata)}\n`;
}

if (require.main === module) {
  const full = fullMetadata();
  for (const [file, metadata] of [
    [VALIDATION_METADATA_FILE, validationMetadata(full)],
    [PARSING_METADATA_FILE, parsingMetadata(full)],
  ] as const) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, serialise(metadata));
    console.log(`wrote ${file} (${serialise(metadata).length} bytes)`);
  }
}
