/** Spanish (Spain). */
import type { LocaleStrings } from './types';

export const esES: LocaleStrings = {
  // CLDR's "many" is for millions ("1 000 000 de minutos"), which no code lifetime reaches, so it
  // keeps the plain plural.
  minute: { one: 'minuto', many: 'minutos', other: 'minutos' },
  sms: (service, code, minutes) => `Tu código de ${service} es ${code}. Caduca en ${minutes}. No lo compartas con nadie.`,
  emailSubject: (service) => `Tu código para iniciar sesión en ${service}`,
  emailIntro: (service) => `Usa este código para iniciar sesión en ${service}:`,
  expiry: (minutes) => `Caduca en ${minutes}.`,
  emailIgnore: 'Si no has solicitado este código, puedes ignorar este correo. No lo compartas con nadie.',
  voiceIntro: (service) => `Tu código de ${service} es`,
  voiceAgain: 'Repito, tu código es',
  voiceId: 'LUCIA',
};
