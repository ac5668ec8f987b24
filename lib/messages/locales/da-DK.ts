/** Danish (Denmark). */
import type { LocaleStrings, LoginPageStrings } from './types';

// "Du": Danish addresses everyone as "du" (the formal "De" survives only in a few official letters).
export const daDK: LocaleStrings = {
  minute: { one: 'minut', other: 'minutter' },
  // GSM-7 has æ, ø and å.
  // Measured (5-minute code): GSM-7, one segment, 79 of 160 units for "Acme" and 115 for a
  // 40-character name.
  sms: (service, code, minutes) => `Din kode til ${service} er ${code}. Den udløber om ${minutes}. Del den ikke med nogen.`,
  emailSubject: (service) => `Din loginkode til ${service}`,
  emailIntro: (service) => `Brug denne kode til at logge ind på ${service}:`,
  expiry: (minutes) => `Den udløber om ${minutes}.`,
  emailIgnore: 'Hvis du ikke har bedt om denne kode, kan du roligt se bort fra denne e-mail. Del ikke koden med nogen.',
  voiceIntro: (service) => `Din kode til ${service} er`,
  voiceAgain: 'Jeg gentager, din kode er',
  voiceId: 'NAJA',
};

/** The hosted login page (lib/login/login-page.ts). */
export const daDKLogin: LoginPageStrings = {
  title: (service) => `Log ind på ${service}`,
  userIdLabel: 'E-mailadresse eller telefonnummer',
  userIdHint: 'Start et telefonnummer med + og landekoden.',
  channelLegend: 'Send koden til telefonnummeret via',
  // Danish writes "sms" in lower case, as a common noun.
  channelSms: 'Sms',
  channelVoice: 'Opkald',
  sendCode: 'Send kode',
  codeSent: (destination) => `Vi har sendt en 6-cifret kode til ${destination}.`,
  codeCalled: (destination) => `Vi ringer til ${destination} og læser en 6-cifret kode op for dig.`,
  codeLabel: '6-cifret kode',
  signIn: 'Log ind',
  resend: 'Send en ny kode',
  changeUser: 'Brug en anden e-mailadresse eller et andet telefonnummer',
  newCodeSent: 'En ny kode er på vej.',
  invalidUserId: 'Angiv en e-mailadresse eller et telefonnummer, der starter med + og landekoden.',
  invalidCode: 'Angiv kodens 6 cifre.',
  wrongCode: 'Koden er ikke korrekt. Tjek den, og prøv igen.',
  codeDead: 'Koden kan ikke længere bruges. Send en ny kode.',
  blocked: (retryIn) => `For mange forsøg. Prøv igen ${retryIn}.`,
  deliveryFailed: 'Vi kunne ikke sende koden. Prøv igen om lidt.',
  unavailable: 'Der opstod en fejl hos os. Prøv igen om lidt.',
  destinationNotAllowed: 'Vi kan ikke sende koder til dette telefonnummer. Brug en e-mailadresse eller et andet telefonnummer.',
  tooManySends: (retryIn) => `Der er anmodet om for mange koder. Prøv igen ${retryIn}, eller brug en e-mailadresse.`,
  phoneUnavailable: 'Koder via sms og opkald er ikke tilgængelige lige nu. Brug en e-mailadresse, eller prøv igen senere.',
  expired: 'Denne loginside er udløbet. Gå tilbage til appen, og start forfra.',
  invalidRequestTitle: 'Dette loginlink er ikke gyldigt',
  invalidRequestBody: 'Gå tilbage til den app, du kom fra, og prøv igen.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Vælg en konto',
  continueAs: (destination) => `Fortsæt som ${destination}`,
  useAnotherAccount: 'Brug en anden konto',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Log ud af ${service}?`,
  logoutBody: 'Du bliver logget ud i denne browser.',
  logoutConfirm: 'Log ud',
  logoutCancel: 'Forbliv logget ind',
  signedOutTitle: (service) => `Du er logget ud af ${service}`,
  stillSignedInTitle: (service) => `Du er stadig logget ind på ${service}`,
  closeWindow: 'Du kan nu lukke dette vindue.',
  logoutInvalidTitle: 'Dette link til at logge ud er ikke gyldigt',
  logoutExpired: 'Denne side til at logge ud er udløbet. Gå tilbage til appen, og log ud igen.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Log ind med en adgangsnøgle',
  passkeyFailed: 'Det lykkedes ikke at logge ind med den adgangsnøgle. Prøv igen.',
  passkeyRequired: 'Denne app kræver, at du logger ind med en adgangsnøgle.',
  passkeyNeedsScript: 'Du skal have JavaScript slået til for at logge ind med en adgangsnøgle. Slå det til, og genindlæs siden.',
  passkeysTitle: 'Næste gang uden kode',
  passkeyOffer: 'Opret en adgangsnøgle, og log ind med dit fingeraftryk, dit ansigt eller din skærmlås i stedet for en kode.',
  signedInAs: (destination) => `Logget ind som ${destination}`,
  createPasskey: 'Opret en adgangsnøgle',
  notNow: 'Ikke nu',
  continueToApp: 'Fortsæt',
  yourPasskeys: 'Dine adgangsnøgler',
  passkeyCreatedOn: (date) => `Oprettet ${date}`,
  passkeyLastUsed: (date) => `Sidst brugt ${date}`,
  passkeyNotUsed: 'Ikke brugt endnu',
  removePasskey: (name) => `Fjern ${name}`,
  passkeyCreated: 'Din adgangsnøgle er klar. Brug den, næste gang du logger ind.',
  passkeyRemoved: 'Adgangsnøglen er fjernet.',
  passkeyCreateFailed: 'Adgangsnøglen blev ikke oprettet. Prøv igen, eller fortsæt uden.',
  unnamedPasskey: 'Adgangsnøgle',
};
