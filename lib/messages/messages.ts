/**
 * A caller's own `message` (the request field that replaces our default text): the `%code%`
 * placeholder, what each channel can carry, and the code put into it, as plain text or as speech
 * markup.
 *
 * Pure: no I/O. The message is caller-controlled text: it is never echoed in an error (once a code
 * exists it would contain the code), and the renderers escape it for every markup language it
 * lands in.
 */
import { InvalidRequestError } from '../platform/errors';
import type { Channel } from '../platform/vocabulary';
import { escapeXml } from './markup';
import { withOriginBoundLine } from './origin-bound-code';
import { countSmsSegments, GSM7_MULTIPART_UNITS, UCS2_MULTIPART_UNITS } from './sms-segments';
import { spellDigits } from './spoken-code';

/** Stands for the code in a caller-supplied `message` (the request field). */
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
 * segments, counted with the origin-bound last line every SMS gets, lib/messages/origin-bound-code.ts,
 * which is why an SMS needs `originHost`; email: more than {@link MAX_EMAIL_MESSAGE_LENGTH}
 * characters; voice: more than {@link MAX_VOICE_MESSAGE_LENGTH} characters). Call it before
 * generating a code, so a bad request changes nothing; the render functions call it again. The
 * description names the field and the limit and never echoes the message (which would contain the
 * code once one exists).
 * @throws {InvalidRequestError}
 * @throws {RangeError} for an SMS without `originHost` (our bug)
 * @example validateMessage('Your code: %code%', 'sms', 'id.example.com') // returns
 * @example validateMessage('Hello', 'email')                              // throws: message must contain %code%
 */
export function validateMessage(message: string, channel: Channel, originHost?: string): void {
  if (message.trim() === '') {
    throw new InvalidRequestError('message must not be empty.');
  }
  if (!message.includes(CODE_PLACEHOLDER)) {
    throw new InvalidRequestError(`message must contain the placeholder ${CODE_PLACEHOLDER}, which is replaced by the code.`);
  }
  const rendered = substituteCode(message, PLACEHOLDER_CODE);
  switch (channel) {
    case 'sms': {
      if (originHost === undefined) throw new RangeError('an SMS message is measured with its origin-bound line: originHost is required');
      const lastLine = withOriginBoundLine('', originHost, PLACEHOLDER_CODE).length;
      const { segments } = countSmsSegments(withOriginBoundLine(rendered, originHost, PLACEHOLDER_CODE));
      if (segments > MAX_SMS_SEGMENTS) {
        throw new InvalidRequestError(
          `message is too long for SMS: with ${CODE_PLACEHOLDER} replaced by the 6-digit code, and the last line the service adds ` +
            `(a blank line, then @${originHost} #<code>: ${lastLine} characters), it must fit in ` +
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

/**
 * Replaces every `%code%`, left to right, without treating `$` in the code as a pattern.
 * @example substituteCode('Code %code%, again %code%', '012345') // 'Code 012345, again 012345'
 */
export function substituteCode(message: string, code: string): string {
  return message.split(CODE_PLACEHOLDER).join(code);
}

/**
 * The caller's message as SSML: XML-escaped text with each `%code%` spelled out digit by digit.
 * @example voiceMessageSsml('A&B %code%', '012345') // 'A&amp;B <say-as interpret-as="digits">0</say-as>…'
 */
export function voiceMessageSsml(message: string, code: string): string {
  const spokenCode = spellDigits(code);
  return message
    .split(CODE_PLACEHOLDER)
    .map((part) => escapeXml(part))
    .join(spokenCode);
}

/** Code points, which is what a person counts as characters (an emoji is one, not two). */
function countCharacters(text: string): number {
  return Array.from(text).length;
}
