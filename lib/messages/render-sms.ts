/**
 * The SMS that carries a code. Plain text: nothing to escape. Its length is the caller's concern
 * only for a caller `message` (limited in segments, lib/messages/messages.ts); our default texts are
 * short, and a test keeps each locale's within the limit.
 *
 * Pure: no AWS SDK, no I/O, no clock. The SMS adapter only delivers what this returns.
 */
import { LOCALES } from './locales';
import { formatMinutes } from './locale';
import { substituteCode } from './messages';
import { checkInput, type RenderInput } from './render-input';

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
