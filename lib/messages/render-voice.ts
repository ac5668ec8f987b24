/**
 * The voice call that carries a code, as SSML for Amazon Polly. Caller and configuration text is
 * XML-escaped (lib/messages/markup.ts), so the only tags in the document are ours.
 *
 * Pure: no AWS SDK, no I/O, no clock. The voice adapter only delivers what this returns.
 */
import { LOCALES } from './locales';
import { formatMinutes } from './locale';
import { escapeXml } from './markup';
import { voiceMessageSsml } from './messages';
import { checkInput, type RenderInput } from './render-input';
import { spellDigits } from './spoken-code';

/** Between sentences: longer than the pause between a code's digits (lib/messages/spoken-code.ts). */
const SENTENCE_BREAK = '<break time="800ms"/>';

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
