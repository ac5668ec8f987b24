/**
 * Phone numbers: the full validation otp/send and the hosted login page apply (`normalisePhone`),
 * and the E.164 form the token endpoint finds again (`canonicalisePhone`), each from its reduced
 * metadata (infra/phone-metadata.ts). The oracle is what the service did before the reduction:
 * libphonenumber-js with its own, unmodified full metadata (`libphonenumber-js/max`).
 *
 * The properties that matter: for every country's numbers, in the ways people write them,
 * `normalisePhone` accepts exactly what the oracle accepts and returns the same E.164 form; and on
 * every number it accepts, `canonicalisePhone` returns that same form, so the user key of an
 * exchange is always the user key of the send.
 */
import fc from 'fast-check';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { readFileSync } from 'node:fs';
import {
  fullMetadata,
  PARSING_METADATA_FILE,
  parsingMetadata,
  serialise,
  VALIDATION_METADATA_FILE,
  validationMetadata,
} from '../../../infra/phone-metadata';
import { canonicalisePhone } from '../../../lib/phone/phone-canonical';
import { countryCallingCodeOf, normalisePhone } from '../../../lib/phone/phone-validation';
import { MAX_PHONE_INPUT_LENGTH } from '../../../lib/phone/phone-numbers';

/** Known-valid numbers (libphonenumber's own examples and well-known fictional ones). */
const VALID_NUMBERS = ['+14155552671', '+442079460958', '+4930901820', '+33142685300', '+5511987654321'] as const;

/** The service's phone normalisation before the metadata was reduced, verbatim: the oracle. */
function fullMetadataNormalisation(raw: string): string | undefined {
  const trimmed = raw.trim();
  if (trimmed.length > 32) return undefined;
  const international = trimmed.startsWith('00') ? `+${trimmed.slice(2)}` : trimmed;
  if (!/^\+[0-9 ()\-.]+$/.test(international)) return undefined;
  const parsed = parsePhoneNumberFromString(international);
  if (parsed === undefined || !parsed.isValid()) return undefined;
  return parsed.number;
}

describe('normalisePhone', () => {
  it.each([
    ['+1 (415) 555-2671', '+14155552671'],
    ['+14155552671', '+14155552671'],
    ['+1-415-555-2671', '+14155552671'],
    ['  +1 415 555 2671  ', '+14155552671'],
    ['0049 30 901820', '+4930901820'],
    ['+49 (30) 901820', '+4930901820'],
    ['+49 (0)30 901820', '+4930901820'],
    ['+44 20 7946 0958', '+442079460958'],
    ['+33 1 42 68 53 00', '+33142685300'],
    ['+55 11 98765-4321', '+5511987654321'],
  ])('normalises %j to %j', (raw, expected) => {
    // Act
    const normalised = normalisePhone(raw);

    // Assert
    expect(normalised).toBe(expected);
  });

  it.each([
    ['a national number without +', '4155552671'],
    ['a national number with a trunk prefix', '030 901820'],
    ['letters (vanity number)', '+1 415 555 CALL'],
    ['letters only', 'not a number'],
    ['an invalid number', '+1 111 111 1111'],
    ['too short', '+1 415'],
    ['too long (digits)', '+1415555267112345678'],
    ['an empty string', ''],
    ['only "+"', '+'],
    ['text before the number', 'call +14155552671'],
    ['two numbers', '+1 415 5552671 +1'],
  ])('rejects %s (%j)', (_label, raw) => {
    expect(normalisePhone(raw)).toBeUndefined();
  });

  it.each([
    ['trailing letters', '+14155552671abc'],
    ['a trailing "x"', '+1 415 555 2671 x'],
    ['an extension', '+1 415 555 2671 ext. 5'],
  ])('rejects letters: %s (%j), rather than silently dropping them', (_label, raw) => {
    expect(normalisePhone(raw)).toBeUndefined();
  });

  it('accepts a 32-character input and rejects a 33-character one (the length cap), even when the number in it is valid', () => {
    // Arrange: a valid number followed by separators, which the parser would otherwise ignore.
    const at32 = `+1 415 555 2671${'-'.repeat(17)}`;
    const at33 = `+1 415 555 2671${'-'.repeat(18)}`;
    expect(at32).toHaveLength(32);
    expect(at33).toHaveLength(33);

    // Act / Assert
    expect(normalisePhone(at32)).toBe('+14155552671');
    expect(normalisePhone(at33)).toBeUndefined();
  });

  describe('properties', () => {
    const number = fc.constantFrom(...VALID_NUMBERS);
    const whitespace = fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 3 });

    /** The same number written the ways people write it: all international, all valid. */
    function formats(e164: string): string[] {
      const parsed = parsePhoneNumberFromString(e164)!;
      const international = parsed.formatInternational();
      const country = parsed.countryCallingCode;
      return [
        e164,
        international,
        international.replace(/ /g, '-'),
        international.replace(/ /g, '.'),
        international.replace(/ /g, ''),
        `+${country} ${parsed.formatNational()}`,
        `00${country}${parsed.nationalNumber}`,
        `00 ${international.slice(1)}`,
      ];
    }

    it('maps every format of one number, with any surrounding whitespace, to its E.164 form', () => {
      fc.assert(
        fc.property(number, fc.nat(), whitespace, whitespace, (e164, pick, before, after) => {
          // Arrange
          const variants = formats(e164);
          const variant = `${before}${variants[pick % variants.length]}${after}`;

          // Act
          const normalised = normalisePhone(variant);

          // Assert
          expect(normalised).toBe(e164);
        }),
      );
    });

    it('is idempotent', () => {
      fc.assert(
        fc.property(
          fc.oneof(
            number.chain((e164) => fc.constantFrom(...formats(e164))),
            fc.string(),
          ),
          (raw) => {
            const once = normalisePhone(raw);
            if (once !== undefined) expect(normalisePhone(once)).toBe(once);
          },
        ),
      );
    });

    it('returns only E.164 (a + and 8 to 15 digits) or undefined', () => {
      fc.assert(
        fc.property(fc.string({ unit: fc.constantFrom(...'+0123456789 -()'.split('')), maxLength: 24 }), (raw) => {
          const normalised = normalisePhone(raw);
          if (normalised !== undefined) expect(normalised).toMatch(/^\+[1-9]\d{7,14}$/);
        }),
      );
    });
  });
});

describe('canonicalisePhone (the token endpoint)', () => {
  it.each([
    ['+1 (415) 555-2671', '+14155552671'],
    ['0049 30 901820', '+4930901820'],
    ['+49 (0)30 901820', '+4930901820'],
    ['+44 (0)20 7946 0958', '+442079460958'],
    ['+54 9 11 2345 6789', '+5491123456789'],
    ['  +55 11 98765-4321 ', '+5511987654321'],
  ])('finds %j as %j, as otp/send does', (raw, expected) => {
    expect(canonicalisePhone(raw)).toBe(expected);
    expect(normalisePhone(raw)).toBe(expected);
  });

  it.each([
    ['a national number without +', '4155552671'],
    ['letters', '+1 415 555 CALL'],
    ['an extension', '+1 415 555 2671 ext. 5'],
    ['too short for its country', '+1 415'],
    ['too long (digits)', '+1415555267112345678'],
    ['an unknown calling code', '+999 123 456 789'],
    ['only "+"', '+'],
    ['over the length cap', `+1 415 555 2671${'-'.repeat(MAX_PHONE_INPUT_LENGTH - 14)}`],
  ])('refuses %s (%j), as otp/send does', (_label, raw) => {
    expect(canonicalisePhone(raw)).toBeUndefined();
    expect(normalisePhone(raw)).toBeUndefined();
  });

  it('gives a number of a possible length but no valid type its E.164 form (no code can exist for it: the exchange is invalid_grant)', () => {
    expect(normalisePhone('+1 111 111 1111')).toBeUndefined();
    expect(canonicalisePhone('+1 111 111 1111')).toMatch(/^\+1\d{9,10}$/);
  });
});

describe('the reduced metadata, against the full metadata (the oracle), for every numbering plan', () => {
  type Plan = [callingCode: string, ...fields: unknown[]];
  const full = fullMetadata() as unknown as { countries: Record<string, Plan>; nonGeographic: Record<string, Plan> };
  const NATIONAL_PREFIX = 5;
  const TYPES = 11;
  const plans = [...Object.entries(full.countries), ...Object.entries(full.nonGeographic)];

  /** A national significant number of one of the plan's types, from the type's own pattern (an empty pattern: no such numbers). */
  function nationalNumbers(plan: Plan): fc.Arbitrary<string> {
    const types = ((plan[TYPES] ?? []) as Array<[string?] | 0>).flatMap((type) => (type !== 0 && type[0] ? [type[0]] : []));
    return fc.constantFrom(...types).chain((pattern) => fc.stringMatching(new RegExp(`^(?:${pattern})$`)));
  }

  /**
   * The inputs of `writings` on which the reduced metadata differs from the oracle, empty when
   * none does (compared without `expect` per input: a quarter of a million of them).
   */
  function differences(
    inputs: readonly string[],
  ): Array<{ raw: string; expected: string | undefined; normalised?: string; canonical?: string }> {
    const found = [];
    for (const raw of inputs) {
      const expected = fullMetadataNormalisation(raw);
      const normalised = normalisePhone(raw);
      const canonical = expected === undefined ? expected : canonicalisePhone(raw);
      if (normalised !== expected || canonical !== expected) found.push({ raw, expected, normalised, canonical });
    }
    return found;
  }

  /** The number written the ways people write it, right or slightly wrong (a digit lost or added). */
  function writings(callingCode: string, nsn: string, nationalPrefix: string | undefined): string[] {
    const [head, middle, tail] = [nsn.slice(0, 3), nsn.slice(3, 6), nsn.slice(6)];
    const written = [
      `+${callingCode}${nsn}`,
      `+${callingCode} ${head} ${middle} ${tail}`,
      `+${callingCode}-${head}-${middle}-${tail}`,
      `+${callingCode}.${head}.${middle}.${tail}`,
      `+${callingCode} (${head}) ${middle}-${tail}`,
      `00${callingCode}${nsn}`,
      `00 ${callingCode} ${head} ${middle}${tail}`,
      `  +${callingCode} ${nsn}\t`,
      `+${callingCode}${nsn.slice(1)}`,
      `+${callingCode}${nsn}0`,
    ];
    if (nationalPrefix !== undefined) written.push(`+${callingCode} (${nationalPrefix}) ${nsn}`, `+${callingCode} ${nationalPrefix}${nsn}`);
    return written;
  }

  it.each(plans.map(([country, plan]) => [country, plan] as const))(
    '%s: normalisePhone accepts what the full metadata accepts, and canonicalisePhone finds the same E.164 form',
    (_country, plan) => {
      const nationalPrefix = typeof plan[NATIONAL_PREFIX] === 'string' ? plan[NATIONAL_PREFIX] : undefined;
      fc.assert(
        fc.property(nationalNumbers(plan), (nsn) => {
          expect(differences(writings(plan[0], nsn, nationalPrefix))).toEqual([]);
        }),
        { numRuns: 40 },
      );
    },
  );

  it('the same holds for arbitrary international input (digits and separators, any calling code)', () => {
    const digits = fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: 4, maxLength: 17 });
    const separators = fc.string({ unit: fc.constantFrom(...'0123456789 -.()'.split('')), maxLength: 6 });
    fc.assert(
      fc.property(fc.constantFrom('+', '00', '+0', ' +'), digits, separators, (prefix, number, noise) => {
        expect(differences([`${prefix}${number.slice(0, 3)}${noise}${number.slice(3)}`])).toEqual([]);
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ['validation', VALIDATION_METADATA_FILE, validationMetadata],
    ['parsing', PARSING_METADATA_FILE, parsingMetadata],
  ])('%s.json is current: regenerate with npm run phone-metadata after upgrading libphonenumber-js', (_name, file, derive) => {
    expect(readFileSync(file, 'utf8')).toBe(serialise(derive(fullMetadata())));
  });
});

describe('countryCallingCodeOf (the masked number on the hosted login page)', () => {
  it.each([
    ['+14155552671', '1'],
    ['+442079460958', '44'],
    ['+5511987654321', '55'],
  ])('is the calling code of %s: %s', (e164, code) => {
    expect(countryCallingCodeOf(e164)).toBe(code);
  });

  it.each(['', '+', 'not a number', '+0123'])('is undefined, not an error, for %j', (text) => {
    expect(countryCallingCodeOf(text)).toBeUndefined();
  });
});
