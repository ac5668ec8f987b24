/**
 * What the user reads or hears: the email, SMS and voice messages that carry a one-time code, in
 * the request's locale, or the caller's own `message` with `%code%` replaced by the code.
 *
 * Pure: no AWS SDK, no I/O, no clock. The adapters only deliver what these functions return.
 *
 * Three kinds of text meet here, and each is treated as what it is:
 * - our own per-locale strings (lib/locales/);
 * - caller-controlled text: the request's `message` and the environment's `serviceName`. They are
 *   escaped for every markup language they land in (HTML in the email, SSML in the call);
 * - the code: always six ASCII digits (checked), so it is safe in every format as is.
 */
import { InvalidRequestError } from '../errors';
import { LOCALES, SUPPORTED_LOCALES, type Locale } from '../locales';
import type { Channel } from './identity';

// ---------------------------------------------------------------------------------------------
// Locales
// ---------------------------------------------------------------------------------------------

export { SUPPORTED_LOCALES, type Locale };

/**
 * True when `value` is a supported locale spelled exactly (case-sensitive); use
 * {@link resolveLocale} for what a request sends.
 * @example isSupportedLocale('de-DE') // true
 * @example isSupportedLocale('de-de') // false
 */
export function isSupportedLocale(value: string): value is Locale {
  return (SUPPORTED_LOCALES as readonly string[]).includes(value);
}

/** Longer than any language-REGION tag worth reading (BCP 47 tags are short); treated as garbage. */
const MAX_LOCALE_TAG_LENGTH = 35;
/** An ISO 639 language subtag, then optional further subtags (BCP 47, RFC 5646 §2.1). */
const LOCALE_TAG_PATTERN = /^([a-z]{2,3})(?:[-_][a-z0-9]{1,8})*$/i;

/**
 * Picks the locale to render in. The spec's `locale` is "language-REGION", and a user who asked
 * for Austrian German is better served by German than by the environment's default, so:
 * 1. the full tag, case-insensitively (`_` accepted for `-`, as some clients send `de_DE`);
 * 2. else a supported locale with the same language (`de-AT` → `de-DE`, `pt-PT` → `pt-BR`);
 * 3. else `fallback`, the environment's default. Missing or malformed input never fails a
 *    request: it only changes the language.
 * @example resolveLocale('de-de', 'en-US') // 'de-DE'
 * @example resolveLocale('en-GB', 'de-DE') // 'en-US'
 * @example resolveLocale('xx', 'fr-FR')    // 'fr-FR'
 */
export function resolveLocale(requested: string | undefined, fallback: Locale): Locale {
  if (requested === undefined) return fallback;
  const tag = requested.trim();
  if (tag.length > MAX_LOCALE_TAG_LENGTH) return fallback;
  const match = LOCALE_TAG_PATTERN.exec(tag);
  if (match === null) return fallback;
  const wanted = tag.replaceAll('_', '-').toLowerCase();
  const exact = SUPPORTED_LOCALES.find((locale) => locale.toLowerCase() === wanted);
  if (exact !== undefined) return exact;
  const language = (match[1] ?? '').toLowerCase();
  const sameLanguage = SUPPORTED_LOCALES.find((locale) => locale.slice(0, locale.indexOf('-')) === language);
  return sameLanguage ?? fallback;
}

// ---------------------------------------------------------------------------------------------
// Caller messages and their limits
// ---------------------------------------------------------------------------------------------

/** Stands for the code in a caller-supplied `message` (the spec's request field). */
export const CODE_PLACEHOLDER = '%code%';

/**
 * Longest SMS we send for a caller `message`: three segments. Carriers bill per segment and some
 * reassemble long concatenations badly; three is plenty for a code and a sentence or two.
 */
export const MAX_SMS_SEGMENTS = 3;
/** Characters (Unicode code points) of caller `message` for email, with the code substituted. */
export const MAX_EMAIL_MESSAGE_LENGTH = 2000;
/** Characters (Unicode code points) of caller `message` for voice: about a minute of speech. */
export const MAX_VOICE_MESSAGE_LENGTH = 300;

/**
 * Any six digits measure the same in every encoding (digits are one GSM-7 septet and one UTF-16
 * unit each), so validation before a code exists is exact.
 */
const PLACEHOLDER_CODE = '000000';

/**
 * SendVoiceMessage takes at most 6000 characters of SSML, tags included. Spelling a code digit by
 * digit costs a few hundred characters of markup, so a message of 300 characters made of many
 * `%code%` (or of characters that escape to entities) could still overflow. The caller's part
 * gets this budget; the rest is ours (`<speak>`, the repeat lead-in, the repeated code).
 */
const MAX_VOICE_MESSAGE_SSML_LENGTH = 5000;

/**
 * Rejects a caller `message` that cannot be delivered on `channel`: empty or blank, without
 * `%code%`, or too long once the code is substituted (SMS: more than {@link MAX_SMS_SEGMENTS}
 * segments; email: more than {@link MAX_EMAIL_MESSAGE_LENGTH} characters; voice: more than
 * {@link MAX_VOICE_MESSAGE_LENGTH} characters). Call it before generating a code, so a bad request
 * changes nothing; the render functions call it again. The description names the field and the
 * limit and never echoes the message (which would contain the code once one exists).
 * @throws {InvalidRequestError}
 * @example validateMessage('Your code: %code%', 'sms') // returns
 * @example validateMessage('Hello', 'email')           // throws: message must contain %code%
 */
export function validateMessage(message: string, channel: Channel): void {
  if (message.trim() === '') {
    throw new InvalidRequestError('message must not be empty.');
  }
  if (!message.includes(CODE_PLACEHOLDER)) {
    throw new InvalidRequestError(`message must contain the placeholder ${CODE_PLACEHOLDER}, which is replaced by the code.`);
  }
  const rendered = substituteCode(message, PLACEHOLDER_CODE);
  switch (channel) {
    case 'sms': {
      const { segments } = countSmsSegments(rendered);
      if (segments > MAX_SMS_SEGMENTS) {
        throw new InvalidRequestError(
          `message is too long for SMS: with ${CODE_PLACEHOLDER} replaced by the 6-digit code it must fit in ` +
            `${MAX_SMS_SEGMENTS} SMS segments (${MAX_SMS_SEGMENTS * GSM7_MULTIPART_UNITS} GSM-7 characters, where ^{}\\[~]|€ count twice, ` +
            `or ${MAX_SMS_SEGMENTS * UCS2_MULTIPART_UNITS} characters when the text uses any other character).`,
          { detail: `sms segments=${segments}` },
        );
      }
      return;
    }
    case 'email': {
      const length = countCharacters(rendered);
      if (length > MAX_EMAIL_MESSAGE_LENGTH) {
        throw new InvalidRequestError(
          `message is too long for email: with ${CODE_PLACEHOLDER} replaced by the 6-digit code it must be at most ${MAX_EMAIL_MESSAGE_LENGTH} characters.`,
          { detail: `email length=${length}` },
        );
      }
      return;
    }
    case 'voice': {
      const length = countCharacters(rendered);
      if (length > MAX_VOICE_MESSAGE_LENGTH) {
        throw new InvalidRequestError(
          `message is too long for a voice call: with ${CODE_PLACEHOLDER} replaced by the 6-digit code it must be at most ${MAX_VOICE_MESSAGE_LENGTH} characters.`,
          { detail: `voice length=${length}` },
        );
      }
      const ssmlLength = voiceMessageSsml(message, PLACEHOLDER_CODE).length;
      if (ssmlLength > MAX_VOICE_MESSAGE_SSML_LENGTH) {
        throw new InvalidRequestError(
          `message is too long for a voice call once each ${CODE_PLACEHOLDER} is spelled out digit by digit: ` +
            `use fewer ${CODE_PLACEHOLDER} placeholders (the limit is ${MAX_VOICE_MESSAGE_SSML_LENGTH} characters of speech markup).`,
          { detail: `voice ssml length=${ssmlLength}` },
        );
      }
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// SMS segments (GSM 03.38 = 3GPP TS 23.038; concatenation per 3GPP TS 23.040 §9.2.3.24.1)
// ---------------------------------------------------------------------------------------------

/**
 * The GSM 7-bit default alphabet (3GPP TS 23.038 §6.2.1), 127 characters: the 128-entry table
 * without 0x1B, which is the escape to the extension table. Only `Ç` sits at 0x09 (the spec's
 * character; some handsets show `ç`, which therefore forces UCS-2).
 */
const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
    '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
/**
 * The default extension table (3GPP TS 23.038 §6.2.1.1): each is sent as ESC + character, so it
 * costs two septets.
 */
const GSM7_EXTENSION = new Set('\f^{}\\[~]|€');

/** 140 octets of user data hold 160 septets. */
const GSM7_SINGLE_UNITS = 160;
/** A 6-octet concatenation header (UDH) leaves 134 octets: 153 septets. */
const GSM7_MULTIPART_UNITS = 153;
/** 140 octets hold 70 UCS-2 (UTF-16) code units. */
const UCS2_SINGLE_UNITS = 70;
/** 134 octets after the header hold 67 code units. */
const UCS2_MULTIPART_UNITS = 67;

/**
 * How many SMS segments `text` takes, per GSM 03.38 (3GPP TS 23.038) and the concatenation rules
 * of 3GPP TS 23.040:
 * - if every character is in the GSM 7-bit alphabet, the text is GSM-7: basic characters cost one
 *   unit (septet), extension characters (`^{}\[~]|€` and form feed) two; one message holds 160
 *   units, a multipart message 153 per segment;
 * - otherwise the whole text is UCS-2: `units` counts UTF-16 code units (an emoji is two); one
 *   message holds 70, a multipart message 67 per segment.
 *
 * Segments are packed greedily and an escape sequence or a surrogate pair is never split across
 * two segments (senders move it whole to the next one, as a split one would arrive garbled), so a
 * long text can need one segment more than `units / 153` suggests. An empty text still costs one
 * message.
 * @example countSmsSegments('Your code is 012345') // { encoding: 'GSM-7', units: 19, segments: 1 }
 * @example countSmsSegments('€'.repeat(80))        // { encoding: 'GSM-7', units: 160, segments: 1 }
 * @example countSmsSegments('código '.repeat(10))  // { encoding: 'UCS-2', units: 70, segments: 1 }
 */
export function countSmsSegments(text: string): { encoding: 'GSM-7' | 'UCS-2'; units: number; segments: number } {
  const characters = Array.from(text);
  const isGsm7 = characters.every((character) => GSM7_BASIC.has(character) || GSM7_EXTENSION.has(character));
  if (isGsm7) {
    const costs = characters.map((character) => (GSM7_EXTENSION.has(character) ? 2 : 1));
    return { encoding: 'GSM-7', ...packSegments(costs, GSM7_SINGLE_UNITS, GSM7_MULTIPART_UNITS) };
  }
  // Array.from iterates code points: a surrogate pair is one element of length 2, a lone
  // surrogate one element of length 1.
  const costs = characters.map((character) => character.length);
  return { encoding: 'UCS-2', ...packSegments(costs, UCS2_SINGLE_UNITS, UCS2_MULTIPART_UNITS) };
}

/** Fills segments greedily with indivisible characters of the given costs. */
function packSegments(costs: readonly number[], singleUnits: number, multipartUnits: number): { units: number; segments: number } {
  const units = costs.reduce((sum, cost) => sum + cost, 0);
  if (units <= singleUnits) return { units, segments: 1 };
  let segments = 1;
  let used = 0;
  for (const cost of costs) {
    if (used + cost > multipartUnits) {
      segments += 1;
      used = 0;
    }
    used += cost;
  }
  return { units, segments };
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/** What every render function takes. */
export interface RenderInput {
  /** The code: exactly six ASCII digits, leading zeros kept (e.g. "012345"). */
  code: string;
  locale: Locale;
  /** Lifetime of the code; the default texts show it as whole minutes, rounded up. */
  expiresInSeconds: number;
  /** Caller-supplied text with `%code%` (the request's `message`); replaces the default body. */
  message?: string;
  /** The environment's name for the service, shown in the default texts and the email subject. */
  serviceName: string;
}

const CODE_PATTERN = /^[0-9]{6}$/;

/**
 * The email: a localised subject, a text part and a small self-contained HTML part with inline
 * styles (mail clients drop `<style>` blocks and external CSS). A caller `message` replaces the
 * body in both parts; in HTML it is escaped, its line breaks become `<br>`, and each code in it is
 * set in bold.
 * @example renderEmail({ code: '012345', locale: 'en-US', expiresInSeconds: 300, serviceName: 'Acme' }).subject
 * // 'Your Acme sign-in code'
 */
export function renderEmail(input: RenderInput): { subject: string; text: string; html: string } {
  checkInput(input, 'email');
  const strings = LOCALES[input.locale];
  const subject = strings.emailSubject(input.serviceName);
  if (input.message !== undefined) {
    const text = substituteCode(input.message, input.code);
    const body = input.message
      .split(CODE_PLACEHOLDER)
      .map((part) => escapeHtml(part).replace(/\r\n|\r|\n/g, '<br>'))
      .join(`<strong style="${HTML_STYLE.inlineCode}">${input.code}</strong>`);
    return { subject, text, html: htmlDocument(input.locale, subject, `<p style="${HTML_STYLE.paragraph}">${body}</p>`) };
  }
  const minutes = formatMinutes(input.expiresInSeconds, input.locale);
  const intro = strings.emailIntro(input.serviceName);
  const expiry = strings.expiry(minutes);
  const text = `${intro}\n\n${input.code}\n\n${expiry}\n\n${strings.emailIgnore}\n`;
  const html = htmlDocument(
    input.locale,
    subject,
    [
      `<p style="${HTML_STYLE.paragraph}">${escapeHtml(intro)}</p>`,
      `<p style="${HTML_STYLE.code}">${input.code}</p>`,
      `<p style="${HTML_STYLE.paragraph}">${escapeHtml(expiry)}</p>`,
      `<p style="${HTML_STYLE.note}">${escapeHtml(strings.emailIgnore)}</p>`,
    ].join('\n'),
  );
  return { subject, text, html };
}

/**
 * The SMS text: the localised default, or the caller's `message` with every `%code%` replaced.
 * @example renderSms({ code: '012345', locale: 'en-US', expiresInSeconds: 300, serviceName: 'Acme' }).text
 * // "Your Acme code is 012345. It expires in 5 minutes. Don't share it with anyone."
 */
export function renderSms(input: RenderInput): { text: string } {
  checkInput(input, 'sms');
  if (input.message !== undefined) return { text: substituteCode(input.message, input.code) };
  const minutes = formatMinutes(input.expiresInSeconds, input.locale);
  return { text: LOCALES[input.locale].sms(input.serviceName, input.code, minutes) };
}

/**
 * The voice call as SSML for Amazon Polly (SendVoiceMessage with `MessageBodyTextType: 'SSML'`).
 * The code is spoken one digit at a time with a pause between digits, so "012345" is heard as
 * "zero, one, two…", not "twelve thousand…", and it is said twice, since a listener cannot scroll
 * back. A caller `message` is spoken with each `%code%` spelled out the same way, then the code is
 * repeated once more. Caller and configuration text is XML-escaped.
 * @example renderVoice({ code: '012345', locale: 'de-DE', expiresInSeconds: 300, serviceName: 'Acme' }).voiceId
 * // 'VICKI'
 */
export function renderVoice(input: RenderInput): { ssml: string; languageCode: string; voiceId: string } {
  checkInput(input, 'voice');
  const strings = LOCALES[input.locale];
  const spokenCode = spellDigits(input.code);
  const again = `${escapeXml(strings.voiceAgain)} ${spokenCode}.`;
  let body: string;
  if (input.message !== undefined) {
    body = `${voiceMessageSsml(input.message, input.code)}${SENTENCE_BREAK}${again}`;
  } else {
    const minutes = formatMinutes(input.expiresInSeconds, input.locale);
    body =
      `${escapeXml(strings.voiceIntro(input.serviceName))} ${spokenCode}.${SENTENCE_BREAK}` +
      `${escapeXml(strings.expiry(minutes))}${SENTENCE_BREAK}${again}`;
  }
  return { ssml: `<speak>${body}</speak>`, languageCode: input.locale, voiceId: strings.voiceId };
}

/**
 * Guards the invariants the renderers rely on. A malformed code or lifetime is our bug, not the
 * caller's, so it is a plain error (a 500) whose text never contains the code.
 */
function checkInput(input: RenderInput, channel: Channel): void {
  if (!CODE_PATTERN.test(input.code)) throw new RangeError('code must be exactly six ASCII digits');
  if (!Number.isFinite(input.expiresInSeconds) || input.expiresInSeconds <= 0) {
    throw new RangeError('expiresInSeconds must be a positive number');
  }
  if (input.message !== undefined) validateMessage(input.message, channel);
}

/** Replaces every `%code%`, left to right, without treating `$` in the code as a pattern. */
function substituteCode(message: string, code: string): string {
  return message.split(CODE_PLACEHOLDER).join(code);
}

/** Code points, which is what a person counts as characters (an emoji is one, not two). */
function countCharacters(text: string): number {
  return Array.from(text).length;
}

/**
 * "5 minutes", "1 Minute": whole minutes rounded up, so a code never outlives what we promise,
 * with the word in the form the locale's CLDR plural rules pick for that number.
 */
function formatMinutes(expiresInSeconds: number, locale: Locale): string {
  const minutes = Math.ceil(expiresInSeconds / 60);
  const { minute } = LOCALES[locale];
  // Every registered locale has a form for each category of its language (a test checks it), so
  // `other` is only a guard for a form that the test would already have reported missing.
  const form = minute[new Intl.PluralRules(locale).select(minutes)] ?? minute.other;
  return `${minutes} ${form}`;
}

// ---------------------------------------------------------------------------------------------
// HTML
// ---------------------------------------------------------------------------------------------

const HTML_STYLE = {
  body: "margin:0;padding:24px;background-color:#f4f4f5;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#18181b;",
  card: 'max-width:480px;margin:0 auto;padding:32px;background-color:#ffffff;border-radius:8px;',
  paragraph: 'margin:0 0 16px;font-size:16px;line-height:24px;',
  code: 'margin:0 0 16px;font-family:Menlo,Consolas,monospace;font-size:32px;line-height:40px;font-weight:700;letter-spacing:8px;',
  inlineCode: 'font-family:Menlo,Consolas,monospace;font-size:18px;letter-spacing:2px;',
  note: 'margin:0;font-size:13px;line-height:20px;color:#71717a;',
} as const;

/** Escapes the five characters that matter in HTML text and attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ENTITIES[character] ?? character);
}
const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function htmlDocument(locale: Locale, subject: string, content: string): string {
  return [
    '<!DOCTYPE html>',
    `<html lang="${locale}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title>`,
    '</head>',
    `<body style="${HTML_STYLE.body}">`,
    `<div style="${HTML_STYLE.card}">`,
    content,
    '</div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// SSML
// ---------------------------------------------------------------------------------------------

/** Long enough to hear each digit as its own word, short enough not to sound like a dropped call. */
const DIGIT_BREAK = '<break time="400ms"/>';
const SENTENCE_BREAK = '<break time="800ms"/>';

/**
 * Escapes with the five XML predefined entities (XML 1.0 §4.6), which Polly's SSML parser
 * accepts, and drops what XML 1.0 §2.2 forbids outright (C0 controls other than tab and line
 * breaks, lone surrogates, U+FFFE/U+FFFF): it cannot be spoken, and one such character would make
 * the whole document invalid and the call fail, turning a caller's stray byte into a 502.
 */
function escapeXml(text: string): string {
  return Array.from(text)
    .filter(isXmlCharacter)
    .join('')
    .replace(/[&<>"']/g, (character) => XML_ENTITIES[character] ?? character);
}
function isXmlCharacter(character: string): boolean {
  const point = character.codePointAt(0) ?? 0;
  if (point < 0x20) return point === 0x09 || point === 0x0a || point === 0x0d;
  if (point >= 0xd800 && point <= 0xdfff) return false;
  return point !== 0xfffe && point !== 0xffff;
}
const XML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Each digit in its own `say-as digits`, with a pause between: never read as one number. */
function spellDigits(code: string): string {
  return Array.from(code, (digit) => `<say-as interpret-as="digits">${digit}</say-as>`).join(DIGIT_BREAK);
}

/** The caller's message as SSML: escaped text with each `%code%` spelled out. */
function voiceMessageSsml(message: string, code: string): string {
  const spokenCode = spellDigits(code);
  return message
    .split(CODE_PLACEHOLDER)
    .map((part) => escapeXml(part))
    .join(spokenCode);
}
