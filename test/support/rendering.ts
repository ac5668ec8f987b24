/**
 * Shared by the tests of the message modules and the renderers: a render input, oracles for what
 * the renderers should produce (written independently of the implementation), and fast-check
 * arbitraries for codes and caller messages.
 */
import fc from 'fast-check';
import { CODE_PLACEHOLDER, validateMessage } from '../../lib/messages/messages';
import type { SmsRenderInput } from '../../lib/messages/render-input';

/** A render input; `originHost` is the SMS's alone (email and voice take the rest). */
export const base: SmsRenderInput = {
  code: '012345',
  locale: 'en-US',
  expiresInSeconds: 300,
  serviceName: 'Acme',
  originHost: 'id.example.com',
};

/**
 * What every SMS rendered from `base` ends with for `code`: a blank line and the origin-bound line
 * (https://wicg.github.io/sms-one-time-codes/), written out here rather than taken from the
 * implementation. 25 GSM-7 units for base's host and any code.
 */
export function originBoundEnding(code: string, host = base.originHost): string {
  return `\n\n@${host} #${code}`;
}

/** The SSML the renderer should produce for a code: one say-as per digit, 400 ms between. */
export function spelled(code: string): string {
  return Array.from(code, (digit) => `<say-as interpret-as="digits">${digit}</say-as>`).join('<break time="400ms"/>');
}

/** Every digit spoken, in order, across the whole document. */
export function spokenDigits(ssml: string): string {
  return Array.from(ssml.matchAll(/<say-as interpret-as="digits">(\d)<\/say-as>/g), (match) => match[1]).join('');
}

/** Test oracle for HTML escaping, written independently of the implementation. */
export function htmlEscapeOracle(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

/** Whatever `validateMessage` throws, or undefined. */
export function validationError(message: string, channel: 'email' | 'sms' | 'voice'): unknown {
  try {
    validateMessage(message, channel, base.originHost);
    return undefined;
  } catch (error) {
    return error;
  }
}

/** Six digits, leading zeros as likely as any. */
export function codeArbitrary(): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 6, maxLength: 6 });
}

/**
 * Messages with at least one %code%: pieces from plain ASCII, GSM-7 extension characters, non-GSM
 * letters, emoji, markup characters and arbitrary UTF-16 (lone surrogates included), at lengths
 * around the limits.
 */
export function messageArbitrary(): fc.Arbitrary<string> {
  const piece = fc.oneof(
    fc.string({ maxLength: 250 }),
    fc.string({ unit: fc.constantFrom(...'aZ €{}^\\~ó😀<>&"\'\n\r'), maxLength: 250 }),
    fc.string({ unit: 'binary', maxLength: 120 }),
  );
  return fc.array(piece, { minLength: 2, maxLength: 4 }).map((pieces) => pieces.join(CODE_PLACEHOLDER));
}
