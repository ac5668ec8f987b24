/**
 * A code as Amazon Polly should say it: digit by digit, with a pause between. Used by the voice
 * renderer and by the limit on a voice `message` (lib/messages/messages.ts), which measures the same
 * markup the call will carry.
 *
 * Pure: no I/O.
 */

/** Long enough to hear each digit as its own word, short enough not to sound like a dropped call. */
const DIGIT_BREAK = '<break time="400ms"/>';

/**
 * Each digit in its own `say-as digits`, with a pause between: never read as one number, so
 * "012345" is heard as "zero, one, two…", not "twelve thousand…". The code is six ASCII digits
 * (the renderers check it), so it needs no escaping.
 * @example spellDigits('01')
 * // '<say-as interpret-as="digits">0</say-as><break time="400ms"/><say-as interpret-as="digits">1</say-as>'
 */
export function spellDigits(code: string): string {
  return Array.from(code, (digit) => `<say-as interpret-as="digits">${digit}</say-as>`).join(DIGIT_BREAK);
}
