/** Portuguese (Brazil). */
import type { LocaleStrings } from './types';

export const ptBR: LocaleStrings = {
  // CLDR puts 0 and 1 in "one"; "many" is for millions ("1 000 000 de minutos"), which no code
  // lifetime reaches, so it keeps the plain plural.
  minute: { one: 'minuto', many: 'minutos', other: 'minutos' },
  // "Service: …" sidesteps the article (do/da) that a Portuguese sentence would need to agree
  // with the service name's unknown gender.
  sms: (service, code, minutes) => `${service}: seu código de acesso é ${code}. Ele expira em ${minutes}. Não compartilhe com ninguém.`,
  emailSubject: (service) => `${service}: seu código de acesso`,
  emailIntro: (service) => `Use este código para entrar na sua conta ${service}:`,
  expiry: (minutes) => `Ele expira em ${minutes}.`,
  emailIgnore: 'Se você não solicitou este código, pode ignorar este e-mail. Não compartilhe o código com ninguém.',
  voiceIntro: (service) => `${service}: seu código de acesso é`,
  voiceAgain: 'Repetindo, seu código é',
  voiceId: 'CAMILA',
};
