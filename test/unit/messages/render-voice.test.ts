import fc from 'fast-check';
import { renderVoice } from '../../../lib/messages/render-voice';
import { base, messageArbitrary, spelled, spokenDigits, validationError } from '../../support/rendering';

describe('renderVoice', () => {
  it('renders the whole default call in en-US', () => {
    // Act
    const voice = renderVoice(base);

    // Assert
    expect(voice).toEqual({
      ssml:
        `<speak>Your Acme code is ${spelled('012345')}.<break time="800ms"/>` +
        `It expires in 5 minutes.<break time="800ms"/>` +
        `Again, your code is ${spelled('012345')}.</speak>`,
      languageCode: 'en-US',
      voiceId: 'JOANNA',
    });
  });

  it('speaks each digit separately and the sequence twice, leading zeros included', () => {
    // Act
    const { ssml } = renderVoice({ ...base, code: '000123' });

    // Assert
    expect(spokenDigits(ssml)).toBe('000123000123');
    expect(ssml.split(spelled('000123'))).toHaveLength(3);
    // No two digits in a row outside the markup, so Polly never reads "123" as a number.
    expect(ssml.replace(/<[^>]*>/g, '|')).not.toMatch(/\d\d/);
  });

  it('speaks a caller message with each %code% spelled out, then repeats the code', () => {
    // Act
    const voice = renderVoice({ ...base, locale: 'de-DE', message: 'Hallo! Dein Code: %code%. Nochmal: %code%.' });

    // Assert
    expect(voice).toEqual({
      ssml:
        `<speak>Hallo! Dein Code: ${spelled('012345')}. Nochmal: ${spelled('012345')}.<break time="800ms"/>` +
        `Ich wiederhole, Ihr Code lautet ${spelled('012345')}.</speak>`,
      languageCode: 'de-DE',
      voiceId: 'VICKI',
    });
  });

  it('XML-escapes the caller message and drops characters XML forbids', () => {
    // Act
    const { ssml } = renderVoice({ ...base, message: `Tom & Jerry <break time="10s"/> "q" 'a'\u0000\u0007 %code%` });

    // Assert
    expect(ssml).toBe(
      `<speak>Tom &amp; Jerry &lt;break time=&quot;10s&quot;/&gt; &quot;q&quot; &apos;a&apos; ${spelled('012345')}` +
        `<break time="800ms"/>Again, your code is ${spelled('012345')}.</speak>`,
    );
  });

  it('XML-escapes the service name', () => {
    const { ssml } = renderVoice({ ...base, serviceName: 'A&B <Bank>' });
    expect(ssml.startsWith(`<speak>Your A&amp;B &lt;Bank&gt; code is ${spelled('012345')}.`)).toBe(true);
  });

  it('never lets caller text add markup (property)', () => {
    fc.assert(
      fc.property(messageArbitrary(), (message) => {
        fc.pre(validationError(message, 'voice') === undefined);
        const { ssml } = renderVoice({ ...base, message });
        const withoutOurTags = ssml.replace(/<say-as interpret-as="digits">\d<\/say-as>|<break time="\d+ms"\/>|<\/?speak>/g, '');
        expect(withoutOurTags).not.toMatch(/[<>]/);
        expect(ssml.length).toBeLessThanOrEqual(6000);
      }),
      { numRuns: 300 },
    );
  });
});
