/**
 * The locale registry against the folder it lists: a locale file that is not registered, or
 * registered under another tag, or missing a text, a plural form or its voice, fails here rather
 * than in a user's inbox. The voice adapter passes `voiceId` to the SDK as is, so an id Polly does
 * not know would otherwise surface as a failed call (a 502).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VoiceId } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { LOCALES, LOGIN_PAGES, SUPPORTED_LOCALES, type LocaleStrings } from '../../../../lib/messages/locales';

const LOCALES_DIR = join(__dirname, '../../../../lib/messages/locales');
/** The folder's two files that are not a locale. */
const NOT_A_LOCALE = new Set(['index.ts', 'types.ts']);
const localeFiles = readdirSync(LOCALES_DIR).filter((file) => !NOT_A_LOCALE.has(file));

describe('the locale files', () => {
  it('are each registered, under their file name, and nothing else is', () => {
    // Act
    const tags = localeFiles.map((file) => file.replace(/\.ts$/, ''));

    // Assert
    expect(localeFiles.every((file) => file.endsWith('.ts'))).toBe(true);
    expect([...tags].sort()).toEqual([...SUPPORTED_LOCALES].sort());
  });

  it.each(localeFiles)('%s is named by a canonical BCP 47 tag', (file) => {
    const tag = file.replace(/\.ts$/, '');
    expect(Intl.getCanonicalLocales(tag)).toEqual([tag]);
  });

  it.each(SUPPORTED_LOCALES)('%s exports its texts and its login page texts, each registered, and nothing else', async (locale) => {
    // Act
    const exported = Object.values((await import(`../../../../lib/messages/locales/${locale}`)) as Record<string, unknown>);

    // Assert
    expect(exported).toHaveLength(2);
    expect(exported).toContain(LOCALES[locale]);
    expect(exported).toContain(LOGIN_PAGES[locale]);
  });

  it.each([...NOT_A_LOCALE, ...localeFiles])(
    '%s imports nothing from outside lib/messages/locales/ but the leaf vocabulary (config and domain depend on it)',
    (file) => {
      // Arrange
      const source = readFileSync(join(LOCALES_DIR, file), 'utf8');

      // Act
      const specifiers = Array.from(
        source.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]|\brequire\s*\(\s*['"]([^'"]+)['"]/g),
        (match) => match[1] ?? match[2] ?? match[3],
      );

      // Assert
      for (const specifier of specifiers) expect(specifier).toMatch(/^(\.\/[^/]+|\.\.\/\.\.\/platform\/vocabulary)$/);
    },
  );
});

describe.each(SUPPORTED_LOCALES)('the %s texts', (locale) => {
  const strings: LocaleStrings = LOCALES[locale];
  const service = 'Acme';
  const code = '012345';
  const minutes = '5 m';

  /** One check per field: adding a field to LocaleStrings does not compile until it is checked here. */
  const checks: { [Field in keyof LocaleStrings]-?: (value: LocaleStrings[Field]) => void } = {
    minute: (forms) => {
      for (const form of Object.values(forms)) expect(form?.trim()).toBeTruthy();
    },
    sms: (sms) => {
      const text = sms(service, code, minutes);
      for (const part of [service, code, minutes]) expect(text).toContain(part);
    },
    emailSubject: (subject) => expect(subject(service)).toContain(service),
    emailIntro: (intro) => expect(intro(service)).toContain(service),
    expiry: (expiry) => expect(expiry(minutes)).toContain(minutes),
    emailIgnore: (text) => expect(text.trim()).not.toBe(''),
    voiceIntro: (intro) => expect(intro(service)).toContain(service),
    voiceAgain: (text) => expect(text.trim()).not.toBe(''),
    voiceId: (voiceId) => expect(Object.values<string>(VoiceId)).toContain(voiceId),
  };

  it.each(Object.keys(checks) as Array<keyof LocaleStrings>)('has %s', (field) => {
    // Arrange
    const check = checks[field] as (value: unknown) => void;

    // Act and assert
    expect(strings[field]).toBeDefined();
    check(strings[field]);
  });

  it('has every text of the hosted login page, each placing its value', () => {
    // Arrange: an interface has no index signature, so Object.entries would type each text as `any`.
    const placeholder = '\u2063value\u2063';
    const texts = Object.entries(LOGIN_PAGES[locale]) as Array<[string, string | ((value: string) => string)]>;

    // Act and assert: every text present; every sentence that takes a value places it.
    for (const [name, text] of texts) {
      const rendered = typeof text === 'function' ? text(placeholder) : text;
      expect({ name, empty: rendered.replace(placeholder, '').trim() === '' }).toEqual({ name, empty: false });
      if (typeof text === 'function') expect({ name, placed: rendered.includes(placeholder) }).toEqual({ name, placed: true });
      // Plain text: the page escapes it, so markup here would show as text.
      expect({ name, markup: /[<>]/.test(rendered) }).toEqual({ name, markup: false });
    }
    expect(Object.keys(LOGIN_PAGES[locale]).sort()).toEqual(Object.keys(LOGIN_PAGES['en-US']).sort());
  });

  it("words the fraud guards' three refusals apart from each other and from the page's other errors", () => {
    // Arrange
    const login = LOGIN_PAGES[locale];
    const retryIn = new Intl.RelativeTimeFormat(locale, { numeric: 'always' }).format(12, 'minute');

    // Act
    const texts = [
      login.destinationNotAllowed,
      login.tooManySends(retryIn),
      login.phoneUnavailable,
      login.invalidUserId,
      login.blocked(retryIn),
      login.unavailable,
      login.deliveryFailed,
    ];

    // Assert: seven different sentences, the 429's with its retry time.
    expect(new Set(texts).size).toBe(texts.length);
    expect(login.tooManySends(retryIn)).toContain(retryIn);
  });

  it('has a form of "minute" for exactly the CLDR plural categories of its language', () => {
    // Arrange
    const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;

    // Assert
    expect(Object.keys(strings.minute).sort()).toEqual([...categories].sort());
  });
});
