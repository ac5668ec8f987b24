/**
 * The SMS that carries a code. Plain text: nothing to escape. Its length is the caller's concern
 * only for a caller `message` (limited in segments, lib/messages/messages.ts); our default texts are
 * short, and a test keeps each locale's within the limit.
 *
 * Every SMS, ours or the caller's, ends with the origin-bound line `@<host> #<code>`
 * (lib/messages/origin-bound-code.ts), so browsers offer the code only on the service's domain.
 *
 * Pure: no AWS SDK, no I/O, no clock. The SMS adapter only delivers what this returns.
 */
import { LOCALES } from './locales';
import { formatMinutes } from './locale';
import { substituteCode } from './messages';
import { withOriginBoundLine } from './origin-bound-code';
import { checkInput, type SmsRenderInput } from './render-input';

/**
 * The SMS text: the localised default, or the caller's `message` with every `%code%` replaced,
 * then a blank line and the origin-bound line.
 * @example renderSms({ code: '012345', locale: 'en-US', expiresInSeconds: 300, serviceName: 'Acme', originHost: 'id.example.com' }).text
 * // "Your Acme code is 012345. It expires in 5 minutes. Don't share it with anyone.\n\n@id.example.com #012345"
 */
export function renderSms(input: SmsRenderInput): { text: string } {
  checkInput(input, 'sms');
  const body =
    input.message === undefined
      ? LOCALES[input.locale].sms(input.serviceName, input.code, formatMinutes(input.expiresInSeconds, input.locale))
      : substituteCode(input.message, input.code);
  return { text: withOriginBoundLine(body, input.originHost, input.code) };
}
