import { spellDigits } from '../../../lib/messages/spoken-code';
import { spelled } from '../../support/rendering';

describe('spellDigits', () => {
  it('puts each digit in its own say-as, with a pause between and none around', () => {
    expect(spellDigits('01')).toBe('<say-as interpret-as="digits">0</say-as><break time="400ms"/><say-as interpret-as="digits">1</say-as>');
  });

  it('keeps every digit, leading zeros included, in order', () => {
    expect(spellDigits('000123')).toBe(spelled('000123'));
  });
});
