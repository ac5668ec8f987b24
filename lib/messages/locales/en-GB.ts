/** English (United Kingdom). */
import { enUS, enUSLogin } from './en-US';
import type { LocaleStrings, LoginPageStrings } from './types';

// The texts differ from en-US only where British usage does (the present perfect in "We've sent");
// the locale exists mostly for a British voice, which a UK listener follows more easily.
export const enGB: LocaleStrings = {
  ...enUS,
  voiceId: 'AMY',
};

/** The hosted login page (lib/login/login-page.ts). */
export const enGBLogin: LoginPageStrings = {
  ...enUSLogin,
  codeSent: (destination) => `We've sent a 6-digit code to ${destination}.`,
  codeCalled: (destination) => `We're calling ${destination} to read you a 6-digit code.`,
  phoneUnavailable: 'Codes by text message and voice call are unavailable at the moment. Use an email address, or try again later.',
};
