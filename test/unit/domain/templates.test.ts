import fc from 'fast-check';
import { InvalidRequestError } from '../../../lib/errors';
import {
  CODE_PLACEHOLDER,
  MAX_EMAIL_MESSAGE_LENGTH,
  MAX_SMS_SEGMENTS,
  MAX_VOICE_MESSAGE_LENGTH,
  SUPPORTED_LOCALES,
  countSmsSegments,
  isSupportedLocale,
  renderEmail,
  renderSms,
  renderVoice,
  resolveLocale,
  validateMessage,
  type Locale,
  type RenderInput,
} from '../../../lib/domain/templates';

/** The SSML the renderer should produce for a code: one say-as per digit, 400 ms between. */
function spelled(code: string): string {
  return Array.from(code, (digit) => `<say-as interpret-as="digits">${digit}</say-as>`).join('<break time="400ms"/>');
}

/** Every digit spoken, in order, across the whole document. */
function spokenDigits(ssml: string): string {
  return Array.from(ssml.matchAll(/<say-as interpret-as="digits">(\d)<\/say-as>/g), (match) => match[1]).join('');
}

/** Test oracle for HTML escaping, written independently of the implementation. */
function htmlEscapeOracle(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

/** Whatever `validateMessage` throws, or undefined. */
function validationError(message: string, channel: 'email' | 'sms' | 'voice'): unknown {
  try {
    validateMessage(message, channel);
    return undefined;
  } catch (error) {
    return error;
  }
}

const base: RenderInput = { code: '012345', locale: 'en-US', expiresInSeconds: 300, serviceName: 'Acme' };

describe('isSupportedLocale', () => {
  it.each(SUPPORTED_LOCALES)('accepts %s', (locale) => {
    expect(isSupportedLocale(locale)).toBe(true);
  });

  it.each(['de-de', 'de', 'en-GB', '', 'xx-XX'])('rejects %j (exact spelling only)', (value) => {
    expect(isSupportedLocale(value)).toBe(false);
  });
});

describe('resolveLocale', () => {
  it.each<[string | undefined, Locale, Locale]>([
    ['de-DE', 'en-US', 'de-DE'],
    ['fr-FR', 'en-US', 'fr-FR'],
    ['de-de', 'en-US', 'de-DE'],
    ['PT-br', 'en-US', 'pt-BR'],
    [' es-ES ', 'en-US', 'es-ES'],
    ['de_DE', 'en-US', 'de-DE'],
    ['de-AT', 'en-US', 'de-DE'],
    ['pt-PT', 'en-US', 'pt-BR'],
    ['en-GB', 'de-DE', 'en-US'],
    ['es-MX', 'en-US', 'es-ES'],
    ['fr-CA', 'en-US', 'fr-FR'],
    ['fr', 'en-US', 'fr-FR'],
    ['ja-JP', 'fr-FR', 'fr-FR'],
    ['zh-Hant-TW', 'es-ES', 'es-ES'],
    ['', 'pt-BR', 'pt-BR'],
    ['<script>', 'de-DE', 'de-DE'],
    ['de-DE; DROP TABLE', 'en-US', 'en-US'],
    ['d'.repeat(100), 'en-US', 'en-US'],
    [undefined, 'fr-FR', 'fr-FR'],
  ])('resolves %j with fallback %s to %s', (requested, fallback, expected) => {
    // Act
    const resolved = resolveLocale(requested, fallback);

    // Assert
    expect(resolved).toBe(expected);
  });

  it('always returns a supported locale (property)', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ unit: 'binary', maxLength: 40 }), { nil: undefined }), fc.constantFrom(...SUPPORTED_LOCALES), (requested, fallback) => {
        expect(isSupportedLocale(resolveLocale(requested, fallback))).toBe(true);
      }),
    );
  });
});

describe('default texts in every locale', () => {
  const expected: Record<
    Locale,
    { sms5: string; sms1: string; subject: string; emailIntro: string; expiry: string; voiceIntro: string; voiceAgain: string; voiceId: string }
  > = {
    'en-US': {
      sms5: "Your Acme code is 012345. It expires in 5 minutes. Don't share it with anyone.",
      sms1: "Your Acme code is 012345. It expires in 1 minute. Don't share it with anyone.",
      subject: 'Your Acme sign-in code',
      emailIntro: 'Use this code to sign in to Acme:',
      expiry: 'It expires in 5 minutes.',
      voiceIntro: 'Your Acme code is',
      voiceAgain: 'Again, your code is',
      voiceId: 'JOANNA',
    },
    'de-DE': {
      sms5: 'Ihr Code für Acme lautet 012345. Er ist 5 Minuten gültig. Geben Sie ihn an niemanden weiter.',
      sms1: 'Ihr Code für Acme lautet 012345. Er ist 1 Minute gültig. Geben Sie ihn an niemanden weiter.',
      subject: 'Ihr Anmeldecode für Acme',
      emailIntro: 'Mit diesem Code melden Sie sich bei Acme an:',
      expiry: 'Er ist 5 Minuten gültig.',
      voiceIntro: 'Ihr Code für Acme lautet',
      voiceAgain: 'Ich wiederhole, Ihr Code lautet',
      voiceId: 'VICKI',
    },
    'fr-FR': {
      sms5: 'Votre code Acme est 012345. Il expire dans 5 minutes. Ne le communiquez à personne.',
      sms1: 'Votre code Acme est 012345. Il expire dans 1 minute. Ne le communiquez à personne.',
      subject: 'Votre code de connexion Acme',
      emailIntro: 'Utilisez ce code pour vous connecter à Acme\u00a0:',
      expiry: 'Il expire dans 5 minutes.',
      voiceIntro: 'Votre code Acme est',
      voiceAgain: 'Je répète, votre code est',
      voiceId: 'LEA',
    },
    'es-ES': {
      sms5: 'Tu código de Acme es 012345. Caduca en 5 minutos. No lo compartas con nadie.',
      sms1: 'Tu código de Acme es 012345. Caduca en 1 minuto. No lo compartas con nadie.',
      subject: 'Tu código para iniciar sesión en Acme',
      emailIntro: 'Usa este código para iniciar sesión en Acme:',
      expiry: 'Caduca en 5 minutos.',
      voiceIntro: 'Tu código de Acme es',
      voiceAgain: 'Repito, tu código es',
      voiceId: 'LUCIA',
    },
    'pt-BR': {
      sms5: 'Acme: seu código de acesso é 012345. Ele expira em 5 minutos. Não compartilhe com ninguém.',
      sms1: 'Acme: seu código de acesso é 012345. Ele expira em 1 minuto. Não compartilhe com ninguém.',
      subject: 'Acme: seu código de acesso',
      emailIntro: 'Use este código para entrar na sua conta Acme:',
      expiry: 'Ele expira em 5 minutos.',
      voiceIntro: 'Acme: seu código de acesso é',
      voiceAgain: 'Repetindo, seu código é',
      voiceId: 'CAMILA',
    },
  };

  describe.each(SUPPORTED_LOCALES)('%s', (locale) => {
    const want = expected[locale];

    it('renders the SMS with the plural for 300 s and the singular for 60 s', () => {
      // Act
      const plural = renderSms({ ...base, locale, expiresInSeconds: 300 });
      const singular = renderSms({ ...base, locale, expiresInSeconds: 60 });

      // Assert
      expect(plural).toEqual({ text: want.sms5 });
      expect(singular).toEqual({ text: want.sms1 });
    });

    it('keeps the default SMS within the segment limit', () => {
      expect(countSmsSegments(renderSms({ ...base, locale }).text).segments).toBeLessThanOrEqual(MAX_SMS_SEGMENTS);
    });

    it('renders the email with a localised subject, text and HTML', () => {
      // Act
      const email = renderEmail({ ...base, locale });

      // Assert
      expect(email.subject).toBe(want.subject);
      expect(email.text.startsWith(`${want.emailIntro}\n\n012345\n\n`)).toBe(true);
      expect(email.text).toContain(`\n\n${want.expiry}\n\n`);
      expect(email.html).toContain(`<html lang="${locale}">`);
      expect(email.html).toContain('>012345</p>');
      expect(email.html).toContain(htmlEscapeOracle(want.emailIntro));
    });

    it('renders the voice call in the language, with the code spoken twice', () => {
      // Act
      const voice = renderVoice({ ...base, locale });

      // Assert
      expect(voice.languageCode).toBe(locale);
      expect(voice.voiceId).toBe(want.voiceId);
      expect(voice.ssml.startsWith(`<speak>${want.voiceIntro} ${spelled('012345')}.`)).toBe(true);
      expect(voice.ssml.endsWith(`${want.voiceAgain} ${spelled('012345')}.</speak>`)).toBe(true);
      expect(spokenDigits(voice.ssml)).toBe('012345012345');
    });

    if (locale !== 'en-US') {
      it('is not the English text', () => {
        expect(renderSms({ ...base, locale }).text).not.toBe(expected['en-US'].sms5);
        expect(renderEmail({ ...base, locale }).subject).not.toBe(expected['en-US'].subject);
        expect(renderVoice({ ...base, locale }).ssml).not.toContain('Your ');
      });
    }
  });
});

describe('renderSms', () => {
  it('rounds the lifetime up to whole minutes', () => {
    expect(renderSms({ ...base, expiresInSeconds: 61 }).text).toBe("Your Acme code is 012345. It expires in 2 minutes. Don't share it with anyone.");
  });

  it('replaces every %code% in a caller message', () => {
    // Arrange
    const message = 'Code %code%. Again: %code%.%code%';

    // Act
    const sms = renderSms({ ...base, message });

    // Assert
    expect(sms).toEqual({ text: 'Code 012345. Again: 012345.012345' });
  });

  it('keeps leading zeros', () => {
    expect(renderSms({ ...base, code: '000123' }).text).toBe("Your Acme code is 000123. It expires in 5 minutes. Don't share it with anyone.");
  });

  it('does not treat $ patterns in the message as replacement patterns', () => {
    expect(renderSms({ ...base, message: "$& $' %code% $$" }).text).toBe("$& $' 012345 $$");
  });

  it('rejects an invalid caller message with InvalidRequestError', () => {
    expect(() => renderSms({ ...base, message: 'no placeholder' })).toThrow(InvalidRequestError);
  });

  it.each(['12345', '1234567', '12345a', '１２３４５６', ''])('refuses a malformed code %j without echoing it', (code) => {
    expect(() => renderSms({ ...base, code })).toThrow(new RangeError('code must be exactly six ASCII digits'));
  });

  it.each([0, -60, Number.NaN, Number.POSITIVE_INFINITY])('refuses a lifetime of %p seconds', (expiresInSeconds) => {
    expect(() => renderSms({ ...base, expiresInSeconds })).toThrow(RangeError);
  });
});

describe('renderEmail', () => {
  it('renders the whole default email in en-US', () => {
    // Act
    const email = renderEmail(base);

    // Assert
    expect(email.subject).toBe('Your Acme sign-in code');
    expect(email.text).toBe(
      'Use this code to sign in to Acme:\n\n012345\n\nIt expires in 5 minutes.\n\n' +
        "If you didn't request this code, you can safely ignore this email. Don't share it with anyone.\n",
    );
    expect(email.html).toBe(
      [
        '<!DOCTYPE html>',
        '<html lang="en-US">',
        '<head>',
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<title>Your Acme sign-in code</title>',
        '</head>',
        `<body style="margin:0;padding:24px;background-color:#f4f4f5;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#18181b;">`,
        '<div style="max-width:480px;margin:0 auto;padding:32px;background-color:#ffffff;border-radius:8px;">',
        '<p style="margin:0 0 16px;font-size:16px;line-height:24px;">Use this code to sign in to Acme:</p>',
        '<p style="margin:0 0 16px;font-family:Menlo,Consolas,monospace;font-size:32px;line-height:40px;font-weight:700;letter-spacing:8px;">012345</p>',
        '<p style="margin:0 0 16px;font-size:16px;line-height:24px;">It expires in 5 minutes.</p>',
        '<p style="margin:0;font-size:13px;line-height:20px;color:#71717a;">If you didn&#39;t request this code, you can safely ignore this email. Don&#39;t share it with anyone.</p>',
        '</div>',
        '</body>',
        '</html>',
        '',
      ].join('\n'),
    );
  });

  it('escapes a hostile caller message in HTML and keeps it verbatim in the text part', () => {
    // Arrange
    const message = `<script>alert("x")</script> & 'q' %code%\nline two %code%`;

    // Act
    const email = renderEmail({ ...base, message });

    // Assert
    expect(email.subject).toBe('Your Acme sign-in code');
    expect(email.text).toBe(`<script>alert("x")</script> & 'q' 012345\nline two 012345`);
    expect(email.html).not.toContain('<script');
    const code = '<strong style="font-family:Menlo,Consolas,monospace;font-size:18px;letter-spacing:2px;">012345</strong>';
    expect(email.html).toContain(
      `<p style="margin:0 0 16px;font-size:16px;line-height:24px;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; ${code}<br>line two ${code}</p>`,
    );
  });

  it('turns every kind of line break into <br>', () => {
    const html = renderEmail({ ...base, message: 'a\r\nb\rc\nd %code%' }).html;
    expect(html).toContain('>a<br>b<br>c<br>d <strong');
  });

  it('escapes the service name in the subject, title and body', () => {
    // Arrange
    const serviceName = `<img src=x onerror="alert('x')"> & Co`;

    // Act
    const email = renderEmail({ ...base, serviceName });

    // Assert
    expect(email.subject).toBe(`Your ${serviceName} sign-in code`);
    expect(email.html).not.toContain('<img');
    expect(email.html).toContain('<title>Your &lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; Co sign-in code</title>');
    expect(email.html).toContain('>Use this code to sign in to &lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; Co:</p>');
  });

  it('keeps leading zeros', () => {
    const email = renderEmail({ ...base, code: '000123' });
    expect(email.text).toContain('\n000123\n');
    expect(email.html).toContain('>000123</p>');
  });

  it('shows the caller message escaped, whatever it contains (property)', () => {
    fc.assert(
      fc.property(messageArbitrary(), codeArbitrary(), (message, code) => {
        fc.pre(validationError(message, 'email') === undefined);
        const html = renderEmail({ ...base, code, message }).html;
        const strong = `<strong style="font-family:Menlo,Consolas,monospace;font-size:18px;letter-spacing:2px;">${code}</strong>`;
        const expected = message
          .split(CODE_PLACEHOLDER)
          .map((part) => htmlEscapeOracle(part).replace(/\r\n|\r|\n/g, '<br>'))
          .join(strong);
        expect(html).toContain(`<p style="margin:0 0 16px;font-size:16px;line-height:24px;">${expected}</p>\n</div>`);
        expect(expected.replaceAll('<br>', '').replaceAll(strong, '')).not.toMatch(/[<>"']/);
      }),
      { numRuns: 300 },
    );
  });
});

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

describe('countSmsSegments', () => {
  it.each<[string, string, ReturnType<typeof countSmsSegments>]>([
    ['empty text: still one message', '', { encoding: 'GSM-7', units: 0, segments: 1 }],
    ['plain ASCII', 'Your code is 012345', { encoding: 'GSM-7', units: 19, segments: 1 }],
    ['GSM-7 accented letters', 'äöüßéèÄÖÜÑ£¥§¿¡', { encoding: 'GSM-7', units: 15, segments: 1 }],
    ['extension characters cost 2', '^{}\\[~]|€\f', { encoding: 'GSM-7', units: 20, segments: 1 }],
    ['160 GSM-7 units: one message', 'a'.repeat(160), { encoding: 'GSM-7', units: 160, segments: 1 }],
    ['161 GSM-7 units: two segments', 'a'.repeat(161), { encoding: 'GSM-7', units: 161, segments: 2 }],
    ['80 euro signs are 160 units', '€'.repeat(80), { encoding: 'GSM-7', units: 160, segments: 1 }],
    ['80 euro signs and a letter', `${'€'.repeat(80)}a`, { encoding: 'GSM-7', units: 161, segments: 2 }],
    ['3 x 153 GSM-7 units', 'a'.repeat(459), { encoding: 'GSM-7', units: 459, segments: 3 }],
    ['3 x 153 + 1 GSM-7 units', 'a'.repeat(460), { encoding: 'GSM-7', units: 460, segments: 4 }],
    [
      'an escape sequence is never split across segments',
      `${'a'.repeat(152)}€${'a'.repeat(152)}€${'a'.repeat(151)}`,
      { encoding: 'GSM-7', units: 459, segments: 4 },
    ],
    ['one non-GSM character makes it UCS-2', 'Your code is 012345 ç', { encoding: 'UCS-2', units: 21, segments: 1 }],
    ['70 UCS-2 units: one message', 'ó'.repeat(70), { encoding: 'UCS-2', units: 70, segments: 1 }],
    ['71 UCS-2 units: two segments', 'ó'.repeat(71), { encoding: 'UCS-2', units: 71, segments: 2 }],
    ['3 x 67 UCS-2 units', 'ó'.repeat(201), { encoding: 'UCS-2', units: 201, segments: 3 }],
    ['3 x 67 + 1 UCS-2 units', 'ó'.repeat(202), { encoding: 'UCS-2', units: 202, segments: 4 }],
    ['an emoji is two UTF-16 units', '😀'.repeat(35), { encoding: 'UCS-2', units: 70, segments: 1 }],
    [
      'a surrogate pair is never split across segments',
      `${'ó'.repeat(66)}😀${'ó'.repeat(5)}`,
      { encoding: 'UCS-2', units: 73, segments: 2 },
    ],
    ['the typographic apostrophe is not GSM-7', 'Don’t', { encoding: 'UCS-2', units: 5, segments: 1 }],
  ])('%s', (_name, text, expected) => {
    expect(countSmsSegments(text)).toEqual(expected);
  });

  it('counts units and packs segments within their bounds (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        // Act
        const { encoding, units, segments } = countSmsSegments(text);

        // Assert
        if (encoding === 'UCS-2') expect(units).toBe(text.length);
        else expect(units).toBeGreaterThanOrEqual(Array.from(text).length);
        const [single, multipart] = encoding === 'GSM-7' ? [160, 153] : [70, 67];
        if (units <= single) {
          expect(segments).toBe(1);
        } else {
          // An indivisible character costs at most 2, so a segment wastes at most one unit.
          expect(segments).toBeGreaterThanOrEqual(Math.ceil(units / multipart));
          expect(segments).toBeLessThanOrEqual(Math.ceil(units / (multipart - 1)));
        }
      }),
    );
  });
});

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
    it.each<[string, string]>([
      ['GSM-7, exactly one segment (160 units)', `${'a'.repeat(154)}%code%`],
      ['GSM-7, exactly 3 x 153 units', `${'a'.repeat(453)}%code%`],
      ['GSM-7 with extension characters, exactly 3 x 153 units', `%code%${'a'.repeat(145)}€${'a'.repeat(151)}€${'a'.repeat(151)}€`],
      ['UCS-2, exactly one segment (70 units)', `${'ó'.repeat(64)}%code%`],
      ['UCS-2, exactly 3 x 67 units', `${'ó'.repeat(195)}%code%`],
      ['UCS-2 with emoji, exactly 3 x 67 units', `%code%${'ó'.repeat(59)}😀${'ó'.repeat(65)}😀${'ó'.repeat(65)}😀`],
    ])('accepts %s', (_name, message) => {
      expect(validationError(message, 'sms')).toBeUndefined();
    });

    it.each<[string, string]>([
      ['GSM-7, one unit over 3 x 153', `${'a'.repeat(454)}%code%`],
      ['GSM-7, an extension character over 3 x 153', `${'a'.repeat(452)}€%code%`],
      ['UCS-2, one unit over 3 x 67', `${'ó'.repeat(196)}%code%`],
      ['UCS-2, 3 x 67 units but an emoji would straddle two segments', `%code%${'ó'.repeat(60)}😀${'ó'.repeat(65)}😀${'ó'.repeat(64)}😀`],
    ])('rejects %s, naming the limit', (_name, message) => {
      expectRejected(message, 'sms', ['3 SMS segments', '459', '201']);
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
        const rendered = message.split(CODE_PLACEHOLDER).join(code);

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

/** Six digits, leading zeros as likely as any. */
function codeArbitrary(): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 6, maxLength: 6 });
}

/**
 * Messages with at least one %code%: pieces from plain ASCII, GSM-7 extension characters, non-GSM
 * letters, emoji, markup characters and arbitrary UTF-16 (lone surrogates included), at lengths
 * around the limits.
 */
function messageArbitrary(): fc.Arbitrary<string> {
  const piece = fc.oneof(
    fc.string({ maxLength: 250 }),
    fc.string({ unit: fc.constantFrom(...'aZ €{}^\\~ó😀<>&"\'\n\r'), maxLength: 250 }),
    fc.string({ unit: 'binary', maxLength: 120 }),
  );
  return fc.array(piece, { minLength: 2, maxLength: 4 }).map((pieces) => pieces.join(CODE_PLACEHOLDER));
}
