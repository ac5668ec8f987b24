import fc from 'fast-check';
import { InvalidRequestError } from '../../../lib/platform/errors';
import {
  CODE_PLACEHOLDER,
  MAX_EMAIL_MESSAGE_LENGTH,
  MAX_SMS_SEGMENTS,
  MAX_VOICE_MESSAGE_LENGTH,
  substituteCode,
  validateMessage,
  voiceMessageSsml,
} from '../../../lib/messages/messages';
import { renderSms } from '../../../lib/messages/render-sms';
import { countSmsSegments } from '../../../lib/messages/sms-segments';
import { base, codeArbitrary, messageArbitrary, originBoundEnding, spelled, validationError } from '../../support/rendering';

describe('validateMessage', () => {
  function expectRejected(message: string, channel: 'email' | 'sms' | 'voice', mentions: string[]): void {
    const error = validationError(message, channel);
    expect(error).toBeInstanceOf(InvalidRequestError);
    const { description } = error as InvalidRequestError;
    expect(description).toMatch(/^message /);
    for (const mention of mentions) expect(description).toContain(mention);
    expect(description).not.toContain('000000');
  }

  it.each(['email', 'sms', 'voice'] as const)('rejects a %s message without %%code%%, naming the field', (channel) => {
    expectRejected('Your code is {code}', channel, ['%code%']);
  });

  it.each(['', '   ', '\n\t'])('rejects the empty message %j', (message) => {
    expectRejected(message, 'sms', ['empty']);
  });

  it('accepts a message that is only the placeholder', () => {
    expect(validationError('%code%', 'sms')).toBeUndefined();
  });

  describe('sms', () => {
    // Every SMS ends with a blank line and `@id.example.com #<code>` (base's host): 25 units of the
    // segments' total, GSM-7 or UCS-2 alike, which these lengths leave room for.
    it.each<[string, string]>([
      ['GSM-7, exactly one segment (160 units)', `${'a'.repeat(129)}%code%`],
      ['GSM-7, exactly 3 x 153 units', `${'a'.repeat(428)}%code%`],
      ['GSM-7 with extension characters, exactly 3 x 153 units', `%code%${'a'.repeat(145)}€${'a'.repeat(151)}€${'a'.repeat(126)}€`],
      ['UCS-2, exactly one segment (70 units)', `${'ó'.repeat(39)}%code%`],
      ['UCS-2, exactly 3 x 67 units', `${'ó'.repeat(170)}%code%`],
      ['UCS-2 with emoji, exactly 3 x 67 units', `%code%${'ó'.repeat(59)}😀${'ó'.repeat(65)}😀${'ó'.repeat(40)}😀`],
    ])('accepts %s with the origin-bound line', (_name, message) => {
      expect(validationError(message, 'sms')).toBeUndefined();
    });

    it.each<[string, string]>([
      ['GSM-7, one unit over 3 x 153', `${'a'.repeat(429)}%code%`],
      ['GSM-7, an extension character over 3 x 153', `${'a'.repeat(427)}€%code%`],
      ['UCS-2, one unit over 3 x 67', `${'ó'.repeat(171)}%code%`],
      ['UCS-2, 3 x 67 units but an emoji would straddle two segments', `%code%${'ó'.repeat(60)}😀${'ó'.repeat(65)}😀${'ó'.repeat(39)}😀`],
      // Regression guard: a message that fits alone, and not with the line every SMS gets.
      ['3 x 153 GSM-7 units before the origin-bound line', `${'a'.repeat(453)}%code%`],
    ])('rejects %s, naming the limit and the line', (_name, message) => {
      expectRejected(message, 'sms', ['3 SMS segments', '459', '201', '@id.example.com #<code>: 25 characters']);
    });

    it('measures the line with the host it names: a longer host leaves less room', () => {
      const message = `${'a'.repeat(428)}%code%`;
      expect(() => validateMessage(message, 'sms', 'id.example.com')).not.toThrow();
      expect(() => validateMessage(message, 'sms', 'login.example.com')).toThrow(InvalidRequestError);
    });

    it('refuses to measure an SMS without the host of its line (our bug, not the caller’s)', () => {
      expect(() => validateMessage('%code%', 'sms')).toThrow(RangeError);
    });
  });

  describe('email', () => {
    it('accepts exactly MAX_EMAIL_MESSAGE_LENGTH characters with the code substituted', () => {
      expect(MAX_EMAIL_MESSAGE_LENGTH).toBe(2000);
      expect(validationError(`${'a'.repeat(1994)}%code%`, 'email')).toBeUndefined();
    });

    it('counts an emoji as one character', () => {
      expect(validationError(`${'😀'.repeat(1994)}%code%`, 'email')).toBeUndefined();
    });

    it('rejects one character more, naming the limit', () => {
      expectRejected(`${'a'.repeat(1995)}%code%`, 'email', ['2000 characters']);
    });
  });

  describe('voice', () => {
    it('accepts exactly MAX_VOICE_MESSAGE_LENGTH characters with the code substituted', () => {
      expect(MAX_VOICE_MESSAGE_LENGTH).toBe(300);
      expect(validationError(`${'a'.repeat(294)}%code%`, 'voice')).toBeUndefined();
    });

    it('rejects one character more, naming the limit', () => {
      expectRejected(`${'a'.repeat(295)}%code%`, 'voice', ['300 characters']);
    });

    it('rejects a short message whose spelled-out codes would overflow the SSML limit', () => {
      expectRejected('%code%'.repeat(50), 'voice', ['%code%', '5000']);
    });
  });

  it('agrees with countSmsSegments and renderSms for any message (property)', () => {
    fc.assert(
      fc.property(messageArbitrary(), codeArbitrary(), (message, code) => {
        // Arrange
        const error = validationError(message, 'sms');
        const rendered = message.split(CODE_PLACEHOLDER).join(code) + originBoundEnding(code);

        // Act and assert
        if (error === undefined) {
          const { text } = renderSms({ ...base, code, message });
          expect(text).toBe(rendered);
          expect(text).toContain(code);
          expect(text).not.toContain(CODE_PLACEHOLDER);
          expect(countSmsSegments(text).segments).toBeLessThanOrEqual(MAX_SMS_SEGMENTS);
        } else {
          expect(error).toBeInstanceOf(InvalidRequestError);
          expect(countSmsSegments(rendered).segments).toBeGreaterThan(MAX_SMS_SEGMENTS);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('substituteCode', () => {
  it('replaces every %code%, left to right', () => {
    expect(substituteCode('%code% a %code%%code%', '012345')).toBe('012345 a 012345012345');
  });

  it('leaves $ patterns and a message without the placeholder as they are', () => {
    expect(substituteCode("$& $' $$ %code%", '012345')).toBe("$& $' $$ 012345");
    expect(substituteCode('no placeholder', '012345')).toBe('no placeholder');
  });
});

describe('voiceMessageSsml', () => {
  it('XML-escapes the text and spells out each %code%', () => {
    expect(voiceMessageSsml(`A&B <x> %code%, "%code%"`, '012345')).toBe(
      `A&amp;B &lt;x&gt; ${spelled('012345')}, &quot;${spelled('012345')}&quot;`,
    );
  });
});

describe('a refused message says in the private detail what was measured (the logs, never the text)', () => {
  it.each([
    // `%code% ` and the rest: with the code in, 7 characters more than the x's.
    ['email', `${CODE_PLACEHOLDER} ${'x'.repeat(MAX_EMAIL_MESSAGE_LENGTH - 6)}`, `email length=${MAX_EMAIL_MESSAGE_LENGTH + 1}`],
    ['voice', `${CODE_PLACEHOLDER} ${'x'.repeat(MAX_VOICE_MESSAGE_LENGTH - 6)}`, `voice length=${MAX_VOICE_MESSAGE_LENGTH + 1}`],
    ['sms', `${CODE_PLACEHOLDER} ${'x'.repeat(153 * MAX_SMS_SEGMENTS - 6)}`, `sms segments=${MAX_SMS_SEGMENTS + 1}`],
    ['voice', `${CODE_PLACEHOLDER} `.repeat(40), /^voice ssml length=\d+$/],
  ] as const)('%s', (channel, message, detail) => {
    const error = validationError(message, channel) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    if (typeof detail === 'string') expect(error.detail).toBe(detail);
    else expect(error.detail).toMatch(detail);
  });
});
