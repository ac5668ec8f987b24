/** Swedish (Sweden). */
import type { LocaleStrings, LoginPageStrings } from './types';

// "Du": Swedish addresses everyone as "du" (the formal "ni" reads as old-fashioned or distant).
export const svSE: LocaleStrings = {
  minute: { one: 'minut', other: 'minuter' },
  // GSM-7 has å, ä and ö.
  // Measured (5-minute code): GSM-7, one segment, 76 of 160 units for "Acme" and 112 for a
  // 40-character name.
  sms: (service, code, minutes) => `Din kod för ${service} är ${code}. Den gäller i ${minutes}. Dela den inte med någon.`,
  emailSubject: (service) => `Din inloggningskod för ${service}`,
  emailIntro: (service) => `Använd den här koden för att logga in på ${service}:`,
  expiry: (minutes) => `Den gäller i ${minutes}.`,
  emailIgnore: 'Om du inte har begärt den här koden kan du lugnt ignorera det här mejlet. Dela inte koden med någon.',
  voiceIntro: (service) => `Din kod för ${service} är`,
  voiceAgain: 'Jag upprepar, din kod är',
  voiceId: 'ASTRID',
};

/** The hosted login page (lib/login/login-page.ts). */
export const svSELogin: LoginPageStrings = {
  title: (service) => `Logga in på ${service}`,
  userIdLabel: 'E-postadress eller telefonnummer',
  userIdHint: 'För telefonnummer, börja med + och landsnumret.',
  channelLegend: 'Skicka koden till telefonnumret via',
  // Swedish writes "sms" in lower case, as a common noun.
  channelSms: 'Sms',
  channelVoice: 'Röstsamtal',
  sendCode: 'Skicka kod',
  codeSent: (destination) => `Vi har skickat en sexsiffrig kod till ${destination}.`,
  codeCalled: (destination) => `Vi ringer ${destination} och läser upp en sexsiffrig kod för dig.`,
  codeLabel: 'Sexsiffrig kod',
  signIn: 'Logga in',
  resend: 'Skicka en ny kod',
  changeUser: 'Använd en annan e-postadress eller ett annat telefonnummer',
  newCodeSent: 'En ny kod är på väg.',
  invalidUserId: 'Ange en e-postadress eller ett telefonnummer som börjar med + och landsnumret.',
  invalidCode: 'Ange kodens sex siffror.',
  wrongCode: 'Koden stämmer inte. Kontrollera den och försök igen.',
  codeDead: 'Koden kan inte längre användas. Skicka en ny kod.',
  blocked: (retryIn) => `För många försök. Försök igen ${retryIn}.`,
  deliveryFailed: 'Vi kunde inte skicka koden. Försök igen om en stund.',
  unavailable: 'Något gick fel hos oss. Försök igen om en stund.',
  destinationNotAllowed: 'Vi kan inte skicka koder till det här telefonnumret. Använd en e-postadress eller ett annat telefonnummer.',
  tooManySends: (retryIn) => `För många koder har begärts. Försök igen ${retryIn} eller använd en e-postadress.`,
  phoneUnavailable: 'Koder via sms och röstsamtal är inte tillgängliga just nu. Använd en e-postadress eller försök igen senare.',
  expired: 'Den här inloggningssidan har gått ut. Gå tillbaka till appen och börja om.',
  invalidRequestTitle: 'Den här inloggningslänken är inte giltig',
  invalidRequestBody: 'Gå tillbaka till appen du kom från och försök igen.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Välj ett konto',
  continueAs: (destination) => `Fortsätt som ${destination}`,
  useAnotherAccount: 'Använd ett annat konto',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Logga ut från ${service}?`,
  logoutBody: 'Du loggas ut i den här webbläsaren.',
  logoutConfirm: 'Logga ut',
  logoutCancel: 'Förbli inloggad',
  signedOutTitle: (service) => `Du är utloggad från ${service}`,
  stillSignedInTitle: (service) => `Du är fortfarande inloggad på ${service}`,
  closeWindow: 'Du kan stänga det här fönstret nu.',
  logoutInvalidTitle: 'Den här utloggningslänken är inte giltig',
  logoutExpired: 'Den här utloggningssidan har gått ut. Gå tillbaka till appen och logga ut igen.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Logga in med en lösennyckel',
  passkeyFailed: 'Det gick inte att logga in med den lösennyckeln. Försök igen.',
  passkeyRequired: 'Den här appen kräver att du loggar in med en lösennyckel.',
  passkeyNeedsScript: 'Inloggning med lösennyckel kräver JavaScript. Aktivera det och ladda om sidan.',
  passkeysTitle: 'Nästa gång utan kod',
  passkeyOffer: 'Skapa en lösennyckel och logga in med fingeravtryck, ansikte eller skärmlås i stället för med en kod.',
  signedInAs: (destination) => `Inloggad som ${destination}`,
  createPasskey: 'Skapa en lösennyckel',
  notNow: 'Inte nu',
  continueToApp: 'Fortsätt',
  yourPasskeys: 'Dina lösennycklar',
  passkeyCreatedOn: (date) => `Skapad ${date}`,
  passkeyLastUsed: (date) => `Senast använd ${date}`,
  passkeyNotUsed: 'Inte använd än',
  removePasskey: (name) => `Ta bort ${name}`,
  passkeyCreated: 'Din lösennyckel är klar. Använd den nästa gång du loggar in.',
  passkeyRemoved: 'Lösennyckeln har tagits bort.',
  passkeyCreateFailed: 'Lösennyckeln skapades inte. Försök igen eller fortsätt utan.',
  unnamedPasskey: 'Lösennyckel',
};
