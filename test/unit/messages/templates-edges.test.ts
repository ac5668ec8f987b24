/**
 * The message templates' guards at their exact edges (found by mutants that survived the
 * rendering tests): which characters XML 1.0 §2.2 lets into the call's SSML, the SSML budget of a
 * caller's voice message, the footer and language of every locale's email and call, and the
 * guards on a request's locale tag.
 */
import { LOCALES, SUPPORTED_LOCALES } from '../../../lib/messages/locales';
import { formatMinutes, resolveLocale } from '../../../lib/messages/locale';
import { escapeHtml, escapeXml } from '../../../lib/messages/markup';
import { validateMessage, voiceMessageSsml } from '../../../lib/messages/messages';
import { renderEmail } from '../../../lib/messages/render-email';
import { renderVoice } from '../../../lib/messages/render-voice';
import { InvalidRequestError } from '../../../lib/platform/errors';

describe('escapeXml: XML 1.0 §2.2 Char, at every edge of every range', () => {
  const kept = [0x09, 0x0a, 0x0d, 0x20, 0x7e, 0xd7ff, 0xe000, 0xfffd, 0x10000, 0x10ffff];
  const dropped = [0x00, 0x08, 0x0b, 0x0c, 0x0e, 0x1f, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffe, 0xffff];

  it.each(kept.map((point) => [point.toString(16)]))('keeps U+%s', (hex) => {
    const character = String.fromCodePoint(Number.parseInt(hex, 16));
    expect(escapeXml(`a${character}b`)).toBe(`a${character}b`);
  });

  it.each(dropped.map((point) => [point.toString(16)]))('drops U+%s (alone, as a surrogate)', (hex) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    expect(escapeXml(`a${character}b`)).toBe('ab');
  });

  it('drops the forbidden characters before escaping, so a dropped one never splits an entity', () => {
    expect(escapeXml('&\u0000amp;<\uffff')).toBe('&amp;amp;&lt;');
  });

  it('drops only the forbidden characters from the service name in a call: the rest is still spoken', () => {
    const { ssml } = renderVoice({ code: '012345', locale: 'en-US', expiresInSeconds: 300, serviceName: 'Ac\u0000me\ufffe' });
    expect(ssml).toContain('Acme');
    expect(ssml).not.toMatch(/[\u0000\ufffe]/);
  });
});

describe('a caller’s voice message: the SSML budget (5000 characters of markup), exactly at and one over', () => {
  /** A message whose SSML is exactly `length` characters, with few enough characters to pass the 300 limit. */
  function messageWithSsmlLength(length: number): string {
    const perCode = voiceMessageSsml('%code%', '000000').length;
    const codes = Math.floor(length / perCode);
    const message = `${'%code%'.repeat(codes)}${'x'.repeat(length - codes * perCode)}`;
    expect(voiceMessageSsml(message, '000000')).toHaveLength(length);
    expect(Array.from(message.split('%code%').join('000000')).length).toBeLessThanOrEqual(300);
    return message;
  }

  it('accepts a message whose SSML is exactly 5000 characters', () => {
    expect(() => validateMessage(messageWithSsmlLength(5000), 'voice')).not.toThrow();
  });

  it('refuses one of 5001, naming the markup limit', () => {
    const attempt = () => validateMessage(messageWithSsmlLength(5001), 'voice');
    expect(attempt).toThrow(InvalidRequestError);
    expect(attempt).toThrow(/5000 characters of speech markup/);
  });

  it('counts the escaped form: an ampersand costs five characters of markup', () => {
    const perCode = voiceMessageSsml('%code%', '000000').length;
    const codes = Math.floor(4990 / perCode);
    const rest = 5000 - codes * perCode;
    const ampersands = Math.floor(rest / 5);
    const message = `${'%code%'.repeat(codes)}${'&'.repeat(ampersands)}${'x'.repeat(rest - ampersands * 5)}`;
    expect(voiceMessageSsml(message, '000000')).toHaveLength(5000);
    expect(() => validateMessage(message, 'voice')).not.toThrow();
    expect(() => validateMessage(`${message}&`, 'voice')).toThrow(InvalidRequestError);
  });
});

describe('every locale’s email and call: its own footer and language', () => {
  const input = (locale: (typeof SUPPORTED_LOCALES)[number]) => ({ code: '012345', locale, expiresInSeconds: 300, serviceName: 'Acme' });

  it.each(SUPPORTED_LOCALES.map((locale) => [locale]))('%s', (locale) => {
    const strings = LOCALES[locale];
    const email = renderEmail(input(locale));
    expect(email.subject).toBe(strings.emailSubject('Acme'));
    expect(email.text).toBe(
      `${strings.emailIntro('Acme')}\n\n012345\n\n${strings.expiry(formatMinutes(300, locale))}\n\n${strings.emailIgnore}\n`,
    );
    expect(email.html).toContain(`<html lang="${locale}">`);
    expect(email.html).toContain(`>${escapeHtml(strings.emailIgnore)}</p>`);

    const call = renderVoice(input(locale));
    expect(call).toMatchObject({ languageCode: locale, voiceId: strings.voiceId });
    expect(call.ssml).toContain(escapeXml(strings.voiceIntro('Acme')));
    expect(call.ssml).toContain(escapeXml(strings.expiry(formatMinutes(300, locale))));
    expect(call.ssml).toContain(escapeXml(strings.voiceAgain));
  });
});

describe('the guards on a request’s locale tag', () => {
  it('reads a tag of up to 35 characters (after trimming) and treats a longer one as garbage', () => {
    const longest = `de${'-abcdefgh'.repeat(3)}-abcde`;
    expect(longest).toHaveLength(35);
    expect(resolveLocale(longest, 'en-US')).toBe('de-DE');
    expect(resolveLocale(`   ${longest}   `, 'en-US')).toBe('de-DE');
    expect(resolveLocale(`${longest}f`, 'en-US')).toBe('en-US');
  });

  it.each<[string, string]>([
    ['a two-letter language', 'de'],
    ['a subtag of 8 characters', 'de-abcdefgh'],
    ['a subtag of 1 character', 'de-a'],
    ['an underscore', 'de_AT'],
  ])('accepts %s (%s)', (_name, tag) => {
    expect(resolveLocale(tag, 'en-US')).toBe('de-DE');
  });

  it('reads `_` as `-` for the exact match: en_GB is en-GB, not the first English locale (mutant: `_` dropped)', () => {
    expect(resolveLocale('en_GB', 'de-DE')).toBe('en-GB');
    expect(resolveLocale('pt_pt', 'de-DE')).toBe('pt-PT');
  });

  it.each<[string, string]>([
    ['a one-letter language', 'd-DE'],
    ['a four-letter language', 'deut-DE'],
    ['a subtag of 9 characters', 'de-abcdefghi'],
    ['an empty subtag', 'de-'],
    ['a digit in the language', 'd3-DE'],
    ['text before the tag', 'x de-DE'],
    ['text after the tag', 'de-DE x'],
  ])('falls back for %s (%s)', (_name, tag) => {
    expect(resolveLocale(tag, 'fr-FR')).toBe('fr-FR');
  });
});
