/** French (France). */
import type { LocaleStrings } from './types';

export const frFR: LocaleStrings = {
  // CLDR puts 0 and 1 in "one"; "many" is for millions ("1 000 000 de minutes"), which no code
  // lifetime reaches, so it keeps the plain plural.
  minute: { one: 'minute', many: 'minutes', other: 'minutes' },
  sms: (service, code, minutes) => `Votre code ${service} est ${code}. Il expire dans ${minutes}. Ne le communiquez à personne.`,
  emailSubject: (service) => `Votre code de connexion ${service}`,
  // French typography puts a (non-breaking) space before the colon.
  emailIntro: (service) => `Utilisez ce code pour vous connecter à ${service}\u00a0:`,
  expiry: (minutes) => `Il expire dans ${minutes}.`,
  emailIgnore: "Si vous n'avez pas demandé ce code, vous pouvez ignorer cet e-mail. Ne le communiquez à personne.",
  voiceIntro: (service) => `Votre code ${service} est`,
  voiceAgain: 'Je répète, votre code est',
  voiceId: 'LEA',
};
