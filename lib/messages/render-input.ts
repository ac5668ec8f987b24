/**
 * What the three renderers (render-email.ts, render-sms.ts, render-voice.ts) take, and the checks
 * they all start with.
 *
 * Three kinds of text meet in a rendered message, and each is treated as what it is:
 * - our own per-locale strings (lib/messages/locales/);
 * - caller-controlled text: the request's `message` and the environment's `serviceName`. They are
 *   escaped for every markup language they land in (HTML in the email, SSML in the call);
 * - the code: always six ASCII digits (checked here), so it is safe in every format as is.
 *
 * The renderers are pure: no AWS SDK, no I/O, no clock. The adapters only deliver what they return.
 */
import type { Locale } from './locales';
import type { Channel } from '../platform/vocabulary';
import { validateMessage } from './messages';

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

/**
 * What the SMS renderer takes besides: the host its origin-bound last line names
 * (lib/messages/origin-bound-code.ts), the passkeys' RP ID. Email and voice have no such line.
 */
export interface SmsRenderInput extends RenderInput {
  originHost: string;
}

const CODE_PATTERN = /^[0-9]{6}$/;

/**
 * Guards the invariants the renderers rely on. A malformed code or lifetime is our bug, not the
 * caller's, so it is a plain error (a 500) whose text never contains the code. A caller `message`
 * is checked again for `channel` (validateMessage: an InvalidRequestError, a 400).
 * @throws {RangeError} when the code is not six ASCII digits or the lifetime is not positive
 */
export function checkInput(input: RenderInput & { readonly originHost?: string }, channel: Channel): void {
  if (!CODE_PATTERN.test(input.code)) throw new RangeError('code must be exactly six ASCII digits');
  if (!Number.isFinite(input.expiresInSeconds) || input.expiresInSeconds <= 0) {
    throw new RangeError('expiresInSeconds must be a positive number');
  }
  if (input.message !== undefined) validateMessage(input.message, channel, input.originHost);
}
