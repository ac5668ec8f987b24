/** English (United States). */
import type { LocaleStrings, LoginPageStrings } from './types';

export const enUS: LocaleStrings = {
  minute: { one: 'minute', other: 'minutes' },
  // Measured (5-minute code): GSM-7, one segment, 78 of 160 units for "Acme" and 114 for a
  // 40-character name.
  sms: (service, code, minutes) => `Your ${service} code is ${code}. It expires in ${minutes}. Don't share it with anyone.`,
  emailSubject: (service) => `Your ${service} sign-in code`,
  emailIntro: (service) => `Use this code to sign in to ${service}:`,
  expiry: (minutes) => `It expires in ${minutes}.`,
  emailIgnore: "If you didn't request this code, you can safely ignore this email. Don't share it with anyone.",
  voiceIntro: (service) => `Your ${service} code is`,
  voiceAgain: 'Again, your code is',
  voiceId: 'JOANNA',
};

/** The hosted login page (lib/login/login-page.ts). */
export const enUSLogin: LoginPageStrings = {
  title: (service) => `Sign in to ${service}`,
  userIdLabel: 'Email address or phone number',
  userIdHint: 'For a phone number, start with + and the country code.',
  channelLegend: 'For a phone number, send the code by',
  channelSms: 'Text message',
  channelVoice: 'Voice call',
  sendCode: 'Send code',
  codeSent: (destination) => `We sent a 6-digit code to ${destination}.`,
  codeCalled: (destination) => `We are calling ${destination} to read you a 6-digit code.`,
  codeLabel: '6-digit code',
  signIn: 'Sign in',
  resend: 'Send a new code',
  changeUser: 'Use another email or phone',
  newCodeSent: 'A new code is on its way.',
  invalidUserId: 'Enter an email address, or a phone number that starts with + and the country code.',
  invalidCode: 'Enter the 6 digits of the code.',
  wrongCode: 'That code is not correct. Check it and try again.',
  codeDead: 'This code can no longer be used. Send a new code.',
  blocked: (retryIn) => `Too many attempts. Try again ${retryIn}.`,
  deliveryFailed: 'We could not send the code. Try again in a moment.',
  unavailable: 'Something went wrong on our side. Try again in a moment.',
  destinationNotAllowed: 'We cannot send codes to this phone number. Use an email address or another phone number.',
  tooManySends: (retryIn) => `Too many codes have been requested. Try again ${retryIn}, or use an email address.`,
  phoneUnavailable: 'Codes by text message and voice call are unavailable right now. Use an email address, or try again later.',
  expired: 'This sign-in page has expired. Go back to the app and start again.',
  invalidRequestTitle: 'This sign-in link is not valid',
  invalidRequestBody: 'Go back to the app you came from and try again.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Choose an account',
  continueAs: (destination) => `Continue as ${destination}`,
  useAnotherAccount: 'Use another account',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Sign out of ${service}?`,
  logoutBody: 'You will be signed out in this browser.',
  logoutConfirm: 'Sign out',
  logoutCancel: 'Stay signed in',
  signedOutTitle: (service) => `You are signed out of ${service}`,
  stillSignedInTitle: (service) => `You are still signed in to ${service}`,
  closeWindow: 'You can close this window.',
  logoutInvalidTitle: 'This sign-out link is not valid',
  logoutExpired: 'This sign-out page has expired. Go back to the app and sign out again.',
};
