import fc from 'fast-check';
import { escapeXml } from '../../../../lib/messages/markup';
import { spellDigits } from '../../../../lib/messages/spoken-code';
import { ssmlToText } from '../../../../local/capture/ssml-text';

describe('ssmlToText', () => {
  it('turns every tag into a space and collapses whitespace, so spelled digits stay apart', () => {
    expect(ssmlToText(`<speak>Your code is\n  ${spellDigits('012')}</speak>`)).toBe('Your code is 0 1 2');
  });

  it('leaves no space before punctuation', () => {
    expect(ssmlToText('<speak>Your code is <say-as interpret-as="digits">7</say-as>. Again: <break/>7 !</speak>')).toBe(
      'Your code is 7. Again: 7!',
    );
  });

  it('removes comments and processing instructions whole, even with a > inside', () => {
    expect(ssmlToText('<?xml version="1.0"?><speak>before<!-- 1 > 2 -->after</speak>')).toBe('beforeafter');
  });

  it('decodes the five predefined entities and numeric references', () => {
    expect(ssmlToText('&lt;&gt;&amp;&quot;&apos; &#x41;&#66; &#x1F600;')).toBe(`<>&"' AB 😀`);
  });

  it('decodes in one pass, so an escaped entity stays the literal entity the markup meant', () => {
    expect(ssmlToText('&amp;lt; &amp;amp;')).toBe('&lt; &amp;');
  });

  it('leaves unknown, miscased and out-of-range references as written', () => {
    expect(ssmlToText('&nbsp; &AMP; &#x110000; &#;')).toBe('&nbsp; &AMP; &#x110000; &#;');
  });

  it('gives back any text escaped with the service escaper, whitespace normalised (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const expected = text
          .replace(/\s+/g, ' ')
          .replace(/ ([.,;:!?])/g, '$1')
          .trim();

        expect(ssmlToText(`<speak>${escapeXml(text)}</speak>`)).toBe(expected);
      }),
    );
  });
});
