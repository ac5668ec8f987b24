/** Spanish (United States). */
import { esMX, esMXLogin } from './es-MX';
import type { LocaleStrings, LoginPageStrings } from './types';

// Neutral Latin American Spanish, which US Spanish speakers of every origin read as their own:
// the same words as es-MX ("tú", as consumer apps in the US use), kept apart for the US Spanish
// voice (a request for es-US would otherwise get Spain's texts and a Castilian voice).
export const esUS: LocaleStrings = { ...esMX, voiceId: 'LUPE' };

/** The hosted login page (lib/login/login-page.ts): es-MX's. */
export const esUSLogin: LoginPageStrings = esMXLogin;
