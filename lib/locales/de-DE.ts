/** German (Germany). */
import type { LocaleStrings } from './types';

export const deDE: LocaleStrings = {
  minute: { one: 'Minute', other: 'Minuten' },
  sms: (service, code, minutes) => `Ihr Code für ${service} lautet ${code}. Er ist ${minutes} gültig. Geben Sie ihn an niemanden weiter.`,
  emailSubject: (service) => `Ihr Anmeldecode für ${service}`,
  emailIntro: (service) => `Mit diesem Code melden Sie sich bei ${service} an:`,
  expiry: (minutes) => `Er ist ${minutes} gültig.`,
  emailIgnore: 'Wenn Sie diesen Code nicht angefordert haben, können Sie diese E-Mail ignorieren. Geben Sie den Code an niemanden weiter.',
  voiceIntro: (service) => `Ihr Code für ${service} lautet`,
  voiceAgain: 'Ich wiederhole, Ihr Code lautet',
  voiceId: 'VICKI',
};
