import { getCountries } from 'libphonenumber-js/max';
import { destinationOf, destinationRefusal, NO_COUNTRY, prefixOf, rangeOf } from '../../../lib/phone/destinations';
import { normalisePhone } from '../../../lib/phone/phone-validation';
import { PHONE_COUNTRIES } from '../../../lib/phone/countries';

/** Every country, no kind of number refused but those refused everywhere. */
const EVERYWHERE = { allowedCountries: [...PHONE_COUNTRIES], refusedNumberTypes: [] };
/** config/local.json's countries, with the kinds of number an environment refuses by default (lib/platform/config.ts). */
const ALLOWED = {
  allowedCountries: ['US', 'CA', 'GB', 'DE', 'FR', 'ES', 'PT', 'BR', 'NL', 'IT', 'IN', 'AU'],
  refusedNumberTypes: ['PERSONAL_NUMBER', 'VOIP'],
} as const;

describe('destinationOf', () => {
  it.each([
    ['+14155552671', { country: 'US', callingCode: '1', nationalNumber: '4155552671', type: 'FIXED_LINE_OR_MOBILE' }],
    ['+16135550123', { country: 'CA', callingCode: '1', nationalNumber: '6135550123', type: 'FIXED_LINE_OR_MOBILE' }],
    ['+447624123456', { country: 'IM', callingCode: '44', nationalNumber: '7624123456', type: 'MOBILE' }],
    ['+33612345678', { country: 'FR', callingCode: '33', nationalNumber: '612345678', type: 'MOBILE' }],
    ['+8816311234567', { country: NO_COUNTRY, callingCode: '881', nationalNumber: '6311234567', type: 'MOBILE' }],
  ])('reads %s by libphonenumber’s metadata', (e164, destination) => {
    expect(destinationOf(e164)).toEqual(destination);
  });

  it('refuses to read what normalisePhone would not have accepted (a bug, not a client mistake)', () => {
    expect(() => destinationOf('not a number')).toThrow('A normalised phone number did not parse');
  });
});

describe('destinationRefusal', () => {
  it.each(['+14155552671', '+16135550123', '+447400123456', '+4915123456789', '+33612345678', '+5511987654321', '+61412345678'])(
    'allows %s, a person’s number in an allowed country',
    (e164) => {
      expect(destinationRefusal(destinationOf(e164), ALLOWED)).toBeUndefined();
    },
  );

  it.each([
    ['+447624123456', 'IM: the Isle of Man is not GB (a classic pumping range, +44 7624)'],
    ['+447911123456', 'GG: +44 7911 is Guernsey’s, not GB’s'],
    ['+380501234567', 'UA'],
    ['+2348031234567', 'NG'],
  ])('refuses %s for its country (%s)', (e164) => {
    expect(destinationRefusal(destinationOf(e164), ALLOWED)).toBe('country');
  });

  it('refuses every number when the environment allows no country (the default)', () => {
    expect(destinationRefusal(destinationOf('+14155552671'), { allowedCountries: [], refusedNumberTypes: [] })).toBe('country');
  });

  it.each([
    ['+19005550123', 'premium rate, US'],
    ['+448712345678', 'premium rate, GB'],
    ['+43821481997432', 'shared cost, AT'],
    ['+443001234567', 'UAN, GB'],
    ['+41860699695912', 'voicemail, CH'],
    ['+447640123456', 'pager, GB'],
    ['+611632576', 'pager, AU'],
    ['+8816311234567', 'international network +881 (satellite)'],
    ['+8825173687884', 'international network +882'],
    ['+883510012345', 'international network +883'],
  ])('refuses %s (%s) for its kind of number in every environment, even one that allows every country', (e164) => {
    expect(normalisePhone(e164)).toBe(e164);
    expect(destinationRefusal(destinationOf(e164), EVERYWHERE)).toBe('number_type');
    expect(destinationRefusal(destinationOf(e164), ALLOWED)).toBe('number_type');
  });

  it.each(['+18005550199', '+3197010123456'])('does not refuse %s for its kind (toll-free, M2M-ranged mobile): people use them', (e164) => {
    expect(destinationRefusal(destinationOf(e164), EVERYWHERE)).toBeUndefined();
    expect(destinationRefusal(destinationOf(e164), ALLOWED)).toBeUndefined();
  });
});

/**
 * libphonenumber's example numbers of each type (resources/PhoneNumberMetadata.xml), read with the
 * metadata the service carries (lib/phone/phone-metadata/validation.json).
 */
describe('personal numbers and VoIP (regression: accepted in every allowed country, though revenue-share fraud uses them)', () => {
  const PERSONAL_AND_VOIP = [
    ['+447012345678', { country: 'GB', callingCode: '44', nationalNumber: '7012345678', type: 'PERSONAL_NUMBER' }],
    ['+34704123456', { country: 'ES', callingCode: '34', nationalNumber: '704123456', type: 'PERSONAL_NUMBER' }],
    ['+4970012345678', { country: 'DE', callingCode: '49', nationalNumber: '70012345678', type: 'PERSONAL_NUMBER' }],
    ['+445612345678', { country: 'GB', callingCode: '44', nationalNumber: '5612345678', type: 'VOIP' }],
    // All of France's 09 numbers (internet boxes' lines): refused by default too, see the ADR.
    ['+33912345678', { country: 'FR', callingCode: '33', nationalNumber: '912345678', type: 'VOIP' }],
  ] as const;

  it.each(PERSONAL_AND_VOIP)('reads %s as libphonenumber types it', (e164, destination) => {
    expect(normalisePhone(e164)).toBe(e164);
    expect(destinationOf(e164)).toEqual(destination);
  });

  it.each(PERSONAL_AND_VOIP)('refuses %s for its kind where the environment refuses it (the default), its country allowed', (e164) => {
    expect(destinationRefusal(destinationOf(e164), ALLOWED)).toBe('number_type');
    expect(destinationRefusal(destinationOf(e164), { ...EVERYWHERE, refusedNumberTypes: ['PERSONAL_NUMBER', 'VOIP'] })).toBe('number_type');
  });

  it.each(PERSONAL_AND_VOIP)('allows %s where the environment refuses neither (its users have them)', (e164) => {
    expect(destinationRefusal(destinationOf(e164), { ...ALLOWED, refusedNumberTypes: [] })).toBeUndefined();
  });

  it('refuses only the kinds listed', () => {
    const personalOnly = { ...ALLOWED, refusedNumberTypes: ['PERSONAL_NUMBER'] } as const;
    expect(destinationRefusal(destinationOf('+447012345678'), personalOnly)).toBe('number_type');
    expect(destinationRefusal(destinationOf('+445612345678'), personalOnly)).toBeUndefined();
    const voipOnly = { ...ALLOWED, refusedNumberTypes: ['VOIP'] } as const;
    expect(destinationRefusal(destinationOf('+447012345678'), voipOnly)).toBeUndefined();
    expect(destinationRefusal(destinationOf('+445612345678'), voipOnly)).toBe('number_type');
  });

  it('still refuses a personal number outside the allowed countries, for its country where its kind is allowed', () => {
    expect(destinationRefusal(destinationOf('+4970012345678'), { allowedCountries: ['GB'], refusedNumberTypes: [] })).toBe('country');
  });
});

describe('prefixOf and rangeOf', () => {
  it.each([
    ['+14155552671', 6, '+1415555'],
    ['+14155552671', 3, '+1415'],
    ['+447624123456', 6, '+44762412'],
    ['+33612345678', 12, '+33612345678'],
  ])('the block of %s with %i national digits is %s', (e164, digits, prefix) => {
    expect(prefixOf(destinationOf(e164), digits)).toBe(prefix);
  });

  it('puts numbers of one block together and numbers of the next block apart', () => {
    const block = (e164: string) => prefixOf(destinationOf(e164), 6);
    expect(block('+14155550000')).toBe(block('+14155559999'));
    expect(block('+14155550000')).not.toBe(block('+14155560000'));
  });

  it.each([
    ['+14155552671', '+1 415'],
    ['+447624123456', '+44 762'],
    ['+8816311234567', '+881 631'],
  ])('the coarse range of %s for logs is %s: no more than 3 national digits, spaced so it never reads as a number', (e164, range) => {
    expect(rangeOf(destinationOf(e164))).toBe(range);
    expect(rangeOf(destinationOf(e164))).not.toMatch(/\+[1-9]\d{6,14}\b/);
  });
});

describe('PHONE_COUNTRIES', () => {
  it('is exactly the regions libphonenumber-js knows (so the configuration cannot name one it would never match)', () => {
    expect([...PHONE_COUNTRIES].sort()).toEqual([...getCountries()].sort());
  });

  it('does not know UK (ISO 3166-1 calls it GB)', () => {
    expect(PHONE_COUNTRIES).not.toContain('UK');
    expect(PHONE_COUNTRIES).toContain('GB');
  });
});
