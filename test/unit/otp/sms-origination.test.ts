/**
 * Which number an SMS leaves from (lib/otp/issue.ts `smsOriginationOf`): the destination country's
 * entry in `sms.originationNumbers` (the United States and Canada accept no sender id, so their
 * messages need a number of their own), else `sms.originationNumber`, else none (the sender id).
 */
import { smsOriginationOf } from '../../../lib/otp/issue';
import type { EnvironmentConfig } from '../../../lib/platform/config';

const sms = (extra: Partial<EnvironmentConfig['sms']> = {}): EnvironmentConfig['sms'] => ({
  senderId: 'Example',
  allowedCountries: ['US', 'CA', 'GB'],
  refusedNumberTypes: [],
  ...extra,
});
const NUMBERS = { US: '+12024570143', CA: '+16134570143' };

describe('smsOriginationOf', () => {
  it.each([
    ['a US number', '+14155552671', NUMBERS.US],
    ['a Canadian number (same calling code +1, another country)', '+16135550123', NUMBERS.CA],
  ])('sends to %s from its country’s number', (_name, to, from) => {
    expect(smsOriginationOf(sms({ originationNumbers: NUMBERS }), to)).toBe(from);
  });

  it('sends to a country without an entry from the single origination number, or from none (the sender id)', () => {
    expect(smsOriginationOf(sms({ originationNumbers: NUMBERS, originationNumber: '+447700900123' }), '+447911123456')).toBe(
      '+447700900123',
    );
    expect(smsOriginationOf(sms({ originationNumbers: NUMBERS }), '+447911123456')).toBeUndefined();
    expect(smsOriginationOf(sms(), '+14155552671')).toBeUndefined();
  });

  it('prefers the country’s entry to the single origination number', () => {
    expect(smsOriginationOf(sms({ originationNumbers: { US: NUMBERS.US }, originationNumber: '+447700900123' }), '+14155552671')).toBe(
      NUMBERS.US,
    );
  });
});
