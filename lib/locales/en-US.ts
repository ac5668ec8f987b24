/** English (United States). */
import type { LocaleStrings } from './types';

export const enUS: LocaleStrings = {
  minute: { one: 'minute', other: 'minutes' },
  sms: (service, code, minutes) => `Your ${service} code is ${code}. It expires in ${minutes}. Don't share it with anyone.`,
  emailSubject: (service) => `Your ${service} sign-in code`,
  emailIntro: (service) => `Use this code to sign in to ${service}:`,
  expiry: (minutes) => `It expires in ${minutes}.`,
  emailIgnore: "If you didn't request this code, you can safely ignore this email. Don't share it with anyone.",
  voiceIntro: (service) => `Your ${service} code is`,
  voiceAgain: 'Again, your code is',
  voiceId: 'JOANNA',
};
