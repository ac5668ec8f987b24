/**
 * Each locale's default texts as a user gets them, through the three renderers. A new locale adds
 * its row to the table.
 */
import { VoiceId } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { countSmsSegments } from '../../../../lib/messages/sms-segments';
import { MAX_SMS_SEGMENTS } from '../../../../lib/messages/messages';
import { renderEmail } from '../../../../lib/messages/render-email';
import { renderSms } from '../../../../lib/messages/render-sms';
import { renderVoice } from '../../../../lib/messages/render-voice';
import { SUPPORTED_LOCALES, type Locale } from '../../../../lib/messages/locales';
import { base, htmlEscapeOracle, originBoundEnding, spelled, spokenDigits } from '../../../support/rendering';

/**
 * The language each Amazon Polly voice of the SDK's `VoiceId` enum speaks (the Polly developer
 * guide's list of available voices). A locale's voice reads every word with its own language's
 * pronunciation, so a voice of another language (even a region's neighbour) garbles the call.
 */
const POLLY_VOICE_LANGUAGE: Readonly<Record<string, string>> = {
  ...voices('arb', 'ZEINA'),
  ...voices('cmn-CN', 'ZHIYU'),
  ...voices('cy-GB', 'GWYNETH'),
  ...voices('da-DK', 'MADS', 'NAJA'),
  ...voices('de-DE', 'HANS', 'MARLENE', 'VICKI'),
  ...voices('en-AU', 'NICOLE', 'RUSSELL'),
  ...voices('en-GB', 'AMY', 'BRIAN', 'EMMA'),
  ...voices('en-GB-WLS', 'GERAINT'),
  ...voices('en-IN', 'RAVEENA'),
  ...voices('en-US', 'IVY', 'JOANNA', 'JOEY', 'JUSTIN', 'KENDRA', 'KIMBERLY', 'MATTHEW', 'SALLI'),
  ...voices('es-ES', 'CONCHITA', 'ENRIQUE', 'LUCIA'),
  ...voices('es-MX', 'MIA'),
  ...voices('es-US', 'LUPE', 'MIGUEL', 'PENELOPE'),
  ...voices('fr-CA', 'CHANTAL'),
  ...voices('fr-FR', 'CELINE', 'LEA', 'MATHIEU'),
  ...voices('is-IS', 'DORA', 'KARL'),
  ...voices('it-IT', 'BIANCA', 'CARLA', 'GIORGIO'),
  ...voices('ja-JP', 'MIZUKI', 'TAKUMI'),
  ...voices('ko-KR', 'SEOYEON'),
  ...voices('nb-NO', 'LIV'),
  ...voices('nl-NL', 'LOTTE', 'RUBEN'),
  ...voices('pl-PL', 'EWA', 'JACEK', 'JAN', 'MAJA'),
  ...voices('pt-BR', 'CAMILA', 'RICARDO', 'VITORIA'),
  ...voices('pt-PT', 'CRISTIANO', 'INES'),
  ...voices('ro-RO', 'CARMEN'),
  ...voices('ru-RU', 'MAXIM', 'TATYANA'),
  ...voices('sv-SE', 'ASTRID'),
  ...voices('tr-TR', 'FILIZ'),
};

function voices(language: string, ...ids: string[]): Record<string, string> {
  return Object.fromEntries(ids.map((id) => [id, language]));
}

/**
 * The Polly language each locale's voice must speak: the locale's own, as Polly spells it (Mandarin
 * is cmn-CN). A locale without a voice of its own language does not belong in the registry.
 */
const VOICE_LANGUAGE: Readonly<Record<Locale, string>> = {
  'en-US': 'en-US',
  'de-DE': 'de-DE',
  'fr-FR': 'fr-FR',
  'es-ES': 'es-ES',
  'pt-BR': 'pt-BR',
  'en-GB': 'en-GB',
  'fr-CA': 'fr-CA',
  'es-MX': 'es-MX',
  'es-US': 'es-US',
  'pt-PT': 'pt-PT',
  'it-IT': 'it-IT',
  'nl-NL': 'nl-NL',
  'pl-PL': 'pl-PL',
  'sv-SE': 'sv-SE',
  'da-DK': 'da-DK',
  'nb-NO': 'nb-NO',
  'ro-RO': 'ro-RO',
  'tr-TR': 'tr-TR',
  'ru-RU': 'ru-RU',
  'ja-JP': 'ja-JP',
  'ko-KR': 'ko-KR',
  'zh-CN': 'cmn-CN',
};

describe('the Polly voice table', () => {
  it('names only voices the SDK knows', () => {
    expect(Object.keys(POLLY_VOICE_LANGUAGE).filter((id) => !Object.values<string>(VoiceId).includes(id))).toEqual([]);
  });
});

/**
 * The host of a stage without a custom domain: API Gateway's own (an API id, the longest region
 * names are 14 characters), 51 characters, which the SMS's origin-bound line names.
 */
const LONG_DEFAULT_HOST = 'a1b2c3d4e5.execute-api.ap-southeast-2.amazonaws.com';

describe('default texts in every locale', () => {
  const expected: Record<
    Locale,
    {
      sms5: string;
      sms1: string;
      /**
       * What the 5-minute SMS for "Acme" costs with its origin-bound line for id.example.com: a
       * reworded translation that changes it shows here. The line (25 units here) took the UCS-2
       * locales whose text was over 45 units from one segment to two.
       */
      smsCost: { encoding: 'GSM-7' | 'UCS-2'; segments: number };
      subject: string;
      emailIntro: string;
      expiry: string;
      voiceIntro: string;
      voiceAgain: string;
      voiceId: string;
    }
  > = {
    'en-US': {
      sms5: "Your Acme code is 012345. It expires in 5 minutes. Don't share it with anyone.",
      sms1: "Your Acme code is 012345. It expires in 1 minute. Don't share it with anyone.",
      smsCost: { encoding: 'GSM-7', segments: 1 },
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
      smsCost: { encoding: 'GSM-7', segments: 1 },
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
      smsCost: { encoding: 'GSM-7', segments: 1 },
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
      smsCost: { encoding: 'UCS-2', segments: 2 },
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
      smsCost: { encoding: 'UCS-2', segments: 2 },
      subject: 'Acme: seu código de acesso',
      emailIntro: 'Use este código para entrar na sua conta Acme:',
      expiry: 'Ele expira em 5 minutos.',
      voiceIntro: 'Acme: seu código de acesso é',
      voiceAgain: 'Repetindo, seu código é',
      voiceId: 'CAMILA',
    },
    'en-GB': {
      sms5: "Your Acme code is 012345. It expires in 5 minutes. Don't share it with anyone.",
      sms1: "Your Acme code is 012345. It expires in 1 minute. Don't share it with anyone.",
      smsCost: { encoding: 'GSM-7', segments: 1 },
      subject: 'Your Acme sign-in code',
      emailIntro: 'Use this code to sign in to Acme:',
      expiry: 'It expires in 5 minutes.',
      voiceIntro: 'Your Acme code is',
      voiceAgain: 'Again, your code is',
      voiceId: 'AMY',
    },
    'fr-CA': {
      sms5: 'Votre code Acme est 012345. Il expire dans 5 minutes. Ne le communiquez à personne.',
      sms1: 'Votre code Acme est 012345. Il expire dans 1 minute. Ne le communiquez à personne.',
      smsCost: { encoding: 'GSM-7', segments: 1 },
      subject: 'Votre code de connexion Acme',
      emailIntro: 'Utilisez ce code pour vous connecter à Acme\u00a0:',
      expiry: 'Il expire dans 5 minutes.',
      voiceIntro: 'Votre code Acme est',
      voiceAgain: 'Je répète, votre code est',
      voiceId: 'CHANTAL',
    },
    'es-MX': {
      sms5: 'Tu código de Acme es 012345. Vence en 5 minutos. No lo compartas.',
      sms1: 'Tu código de Acme es 012345. Vence en 1 minuto. No lo compartas.',
      smsCost: { encoding: 'UCS-2', segments: 2 },
      subject: 'Tu código para iniciar sesión en Acme',
      emailIntro: 'Usa este código para iniciar sesión en Acme:',
      expiry: 'Vence en 5 minutos.',
      voiceIntro: 'Tu código de Acme es',
      voiceAgain: 'Repito, tu código es',
      voiceId: 'MIA',
    },
    'es-US': {
      sms5: 'Tu código de Acme es 012345. Vence en 5 minutos. No lo compartas.',
      sms1: 'Tu código de Acme es 012345. Vence en 1 minuto. No lo compartas.',
      smsCost: { encoding: 'UCS-2', segments: 2 },
      subject: 'Tu código para iniciar sesión en Acme',
      emailIntro: 'Usa este código para iniciar sesión en Acme:',
      expiry: 'Vence en 5 minutos.',
      voiceIntro: 'Tu código de Acme es',
      voiceAgain: 'Repito, tu código es',
      voiceId: 'LUPE',
    },
    'pt-PT': {
      sms5: 'Acme: o seu código é 012345. Expira em 5 minutos. Não o partilhe.',
      sms1: 'Acme: o seu código é 012345. Expira em 1 minuto. Não o partilhe.',
      smsCost: { encoding: 'UCS-2', segments: 2 },
      subject: 'Acme: o seu código de acesso',
      emailIntro: 'Utilize este código para iniciar sessão na sua conta Acme:',
      expiry: 'Expira em 5 minutos.',
      voiceIntro: 'Acme: o seu código de acesso é',
      voiceAgain: 'Repito, o seu código é',
      voiceId: 'INES',
    },
    'it-IT': {
      sms5: 'Il tuo codice Acme è 012345. Scade tra 5 minuti. Non condividerlo con nessuno.',
      sms1: 'Il tuo codice Acme è 012345. Scade tra 1 minuto. Non condividerlo con nessuno.',
      smsCost: { encoding: 'GSM-7', segments: 1 },
      subject: 'Il tuo codice di accesso per Acme',
      emailIntro: 'Usa questo codice per accedere al tuo account Acme:',
      expiry: 'Scade tra 5 minuti.',
      voiceIntro: 'Il tuo codice Acme è',
      voiceAgain: 'Ripeto, il tuo codice è',
      voiceId: 'BIANCA',
    },
    'nl-NL': {
      sms5: 'Je code voor Acme is 012345. Deze verloopt over 5 minuten. Deel de code met niemand.',
      sms1: 'Je code voor Acme is 012345. Deze verloopt over 1 minuut. Deel de code met niemand.',
      smsCost: { encoding: 'GSM-7', segments: 1 },
      subject: 'Je inlogcode voor Acme',
      emailIntro: 'Gebruik deze code om in te loggen bij Acme:',
      expiry: 'De code verloopt over 5 minuten.',
      voiceIntro: 'Je code voor Acme is',
      voiceAgain: 'Nogmaals, je code is',
      voiceId: 'LOTTE',
    },
    'pl-PL': {
      sms5: 'Acme: Twój kod to 012345. Wygasa za 5 minut. Nie podawaj go nikomu.',
      sms1: 'Acme: Twój kod to 012345. Wygasa za 1 minutę. Nie podawaj go nikomu.',
      smsCost: { encoding: 'UCS-2', segments: 2 },
      subject: 'Acme: Twój kod logowania',
      emailIntro: 'Użyj tego kodu, aby zalogować się do serwisu Acme:',
      expiry: 'Kod wygasa za 5 minut.',
      voiceIntro: 'Acme: Twój kod to',
      voiceAgain: 'Powtarzam, Twój kod to',
      voiceId: 'EWA',
    },
    'sv-SE': {
      sms5: 'Din kod för Acme är 012345. Den gäller i 5 minuter. Dela den inte med någon.',
      sms1: 'Din kod för Acme är 012345. Den gäller i 1 minut. Dela den inte med någon.',
      smsCost: { encoding: 'GSM-7', segments: 1 },
      subject: 'Din inloggningskod för Acme',
      emailIntro: 'Använd den här koden för att logga in på Acme:',
      expiry: 'Den gäller i 5 minuter.',
      voiceIntro: 'Din kod för Acme är',
      voiceAgain: 'Jag upprepar, din kod är',
      voiceId: 'ASTRID',
    },
    'da-DK': {
      sms5: 'Din kode til Acme er 012345. Den udløber om 5 minutter. Del den ikke med nogen.',
      sms1: 'Din kode til Acme er 012345. Den udløber om 1 minut. Del den ikke med nogen.',
      smsCost: { encoding: 'GSM-7', segments: 1 },
      subject: 'Din loginkode til Acme',
      emailIntro: 'Brug denne kode til at logge ind på Acme:',
      expiry: 'Den udløber om 5 minutter.',
      voiceIntro: 'Din kode til Acme er',
      voiceAgain: 'Jeg gentager, din kode er',
      voiceId: 'NAJA',
    },
    'nb-NO': {
      sms5: 'Koden din for Acme er 012345. Den utløper om 5 minutter. Ikke del den med noen.',
      sms1: 'Koden din for Acme er 012345. Den utløper om 1 minutt. Ikke del den med noen.',
      smsCost: { encoding: 'GSM-7', segments: 1 },
      subject: 'Påloggingskoden din for Acme',
      emailIntro: 'Bruk denne koden for å logge inn på Acme:',
      expiry: 'Den utløper om 5 minutter.',
      voiceIntro: 'Koden din for Acme er',
      voiceAgain: 'Jeg gjentar, koden din er',
      voiceId: 'LIV',
    },
    'ro-RO': {
      sms5: 'Codul dvs. Acme este 012345. Expiră în 5 minute. Nu-l dați nimănui.',
      sms1: 'Codul dvs. Acme este 012345. Expiră în 1 minut. Nu-l dați nimănui.',
      smsCost: { encoding: 'UCS-2', segments: 2 },
      subject: 'Codul dvs. de conectare la Acme',
      emailIntro: 'Folosiți acest cod pentru a vă conecta la Acme:',
      expiry: 'Codul expiră în 5 minute.',
      voiceIntro: 'Codul dumneavoastră Acme este',
      voiceAgain: 'Repet, codul dumneavoastră este',
      voiceId: 'CARMEN',
    },
    'tr-TR': {
      sms5: 'Acme kodunuz: 012345. 5 dakika geçerlidir. Kimseyle paylaşmayın.',
      sms1: 'Acme kodunuz: 012345. 1 dakika geçerlidir. Kimseyle paylaşmayın.',
      smsCost: { encoding: 'UCS-2', segments: 2 },
      subject: 'Acme giriş kodunuz',
      emailIntro: 'Acme hesabınıza giriş yapmak için bu kodu kullanın:',
      expiry: 'Kod 5 dakika geçerlidir.',
      voiceIntro: 'Acme giriş kodunuz',
      voiceAgain: 'Tekrar ediyorum, kodunuz',
      voiceId: 'FILIZ',
    },
    'ru-RU': {
      sms5: 'Acme: ваш код 012345. Действует 5 минут. Никому его не сообщайте.',
      sms1: 'Acme: ваш код 012345. Действует 1 минуту. Никому его не сообщайте.',
      smsCost: { encoding: 'UCS-2', segments: 2 },
      subject: 'Acme: ваш код для входа',
      emailIntro: 'Используйте этот код для входа в сервис Acme:',
      expiry: 'Код действует 5 минут.',
      voiceIntro: 'Acme: ваш код',
      voiceAgain: 'Повторяю, ваш код',
      voiceId: 'TATYANA',
    },
    'ja-JP': {
      sms5: 'Acmeの確認コードは012345です。5 分間有効です。このコードは誰にも教えないでください。',
      sms1: 'Acmeの確認コードは012345です。1 分間有効です。このコードは誰にも教えないでください。',
      smsCost: { encoding: 'UCS-2', segments: 2 },
      subject: 'Acmeのログイン用確認コード',
      emailIntro: '次のコードを使って、Acmeにログインしてください。',
      expiry: 'このコードは5 分間有効です。',
      voiceIntro: 'Acmeの確認コードは',
      voiceAgain: 'もう一度お伝えします。確認コードは',
      voiceId: 'MIZUKI',
    },
    'ko-KR': {
      sms5: '[Acme] 인증번호는 012345입니다. 5 분 동안 유효합니다. 다른 사람에게 알려 주지 마세요.',
      sms1: '[Acme] 인증번호는 012345입니다. 1 분 동안 유효합니다. 다른 사람에게 알려 주지 마세요.',
      smsCost: { encoding: 'UCS-2', segments: 2 },
      subject: '[Acme] 로그인 인증번호',
      emailIntro: 'Acme에 로그인하려면 다음 인증번호를 입력하세요.',
      expiry: '이 인증번호는 5 분 동안 유효합니다.',
      voiceIntro: 'Acme 인증번호는',
      voiceAgain: '다시 한번 말씀드립니다. 인증번호는',
      voiceId: 'SEOYEON',
    },
    'zh-CN': {
      sms5: '【Acme】您的验证码是012345，5 分钟内有效，请勿告诉他人。',
      sms1: '【Acme】您的验证码是012345，1 分钟内有效，请勿告诉他人。',
      smsCost: { encoding: 'UCS-2', segments: 1 },
      subject: '您的Acme登录验证码',
      emailIntro: '请使用以下验证码登录Acme：',
      expiry: '验证码5 分钟内有效。',
      voiceIntro: '您的Acme验证码是',
      voiceAgain: '重复一遍，您的验证码是',
      voiceId: 'ZHIYU',
    },
  };

  describe.each(SUPPORTED_LOCALES)('%s', (locale) => {
    const want = expected[locale];

    it('renders the SMS with the plural for 300 s and the singular for 60 s', () => {
      // Act
      const plural = renderSms({ ...base, locale, expiresInSeconds: 300 });
      const singular = renderSms({ ...base, locale, expiresInSeconds: 60 });

      // Assert
      expect(plural).toEqual({ text: want.sms5 + originBoundEnding('012345') });
      expect(singular).toEqual({ text: want.sms1 + originBoundEnding('012345') });
    });

    it.each([
      ['id.example.com', '012345'],
      ['localhost', '999999'],
      ['login.example.co.uk', '000000'],
    ])('ends the SMS with the origin-bound line, exactly @%s #<code>, after a blank line', (originHost, code) => {
      // Act
      const lines = renderSms({ ...base, locale, originHost, code }).text.split('\n');

      // Assert: the last line is what browsers parse (https://wicg.github.io/sms-one-time-codes/).
      expect(lines.at(-1)).toBe(`@${originHost} #${code}`);
      expect(lines.at(-2)).toBe('');
      expect(lines.slice(0, -2).join('\n')).toContain(code);
    });

    it('keeps the default SMS within the segment limit, with the line for the longest default host', () => {
      for (const originHost of [base.originHost, LONG_DEFAULT_HOST]) {
        expect(countSmsSegments(renderSms({ ...base, locale, originHost }).text).segments).toBeLessThanOrEqual(MAX_SMS_SEGMENTS);
      }
    });

    it('leaves the email and the voice call without the line', () => {
      // Act
      const email = renderEmail({ ...base, locale });
      const voice = renderVoice({ ...base, locale });

      // Assert
      for (const text of [email.subject, email.text, email.html, voice.ssml]) {
        expect(text).not.toContain('@id.example.com');
        expect(text).not.toContain('#012345');
      }
    });

    it('costs what the table says: GSM-7 where the language allows, one segment where it fits', () => {
      // Act
      const { encoding, segments } = countSmsSegments(renderSms({ ...base, locale, expiresInSeconds: 300 }).text);

      // Assert
      expect({ encoding, segments }).toEqual(want.smsCost);
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

    it('is spoken by a voice of its language', () => {
      // Act
      const { voiceId } = renderVoice({ ...base, locale });

      // Assert
      expect({ voiceId, language: POLLY_VOICE_LANGUAGE[voiceId] }).toEqual({ voiceId, language: VOICE_LANGUAGE[locale] });
    });

    if (!locale.startsWith('en-')) {
      it('is not the English text', () => {
        expect(renderSms({ ...base, locale }).text).not.toBe(expected['en-US'].sms5 + originBoundEnding('012345'));
        expect(renderEmail({ ...base, locale }).subject).not.toBe(expected['en-US'].subject);
        expect(renderVoice({ ...base, locale }).ssml).not.toContain('Your ');
      });
    }
  });
});
