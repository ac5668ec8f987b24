/** Norwegian Bokmål (Norway). */
import type { LocaleStrings, LoginPageStrings } from './types';

// "Du": Norwegian addresses everyone as "du" (the formal "De" is all but gone).
export const nbNO: LocaleStrings = {
  minute: { one: 'minutt', other: 'minutter' },
  // GSM-7 has æ, ø and å.
  // Measured (5-minute code): GSM-7, one segment, 79 of 160 units for "Acme" and 115 for a
  // 40-character name.
  sms: (service, code, minutes) => `Koden din for ${service} er ${code}. Den utløper om ${minutes}. Ikke del den med noen.`,
  emailSubject: (service) => `Påloggingskoden din for ${service}`,
  emailIntro: (service) => `Bruk denne koden for å logge inn på ${service}:`,
  expiry: (minutes) => `Den utløper om ${minutes}.`,
  emailIgnore: 'Hvis du ikke har bedt om denne koden, kan du trygt se bort fra denne e-posten. Ikke del koden med noen.',
  voiceIntro: (service) => `Koden din for ${service} er`,
  voiceAgain: 'Jeg gjentar, koden din er',
  voiceId: 'LIV',
};

/** The hosted login page (lib/login/login-page.ts). */
export const nbNOLogin: LoginPageStrings = {
  title: (service) => `Logg inn på ${service}`,
  userIdLabel: 'E-postadresse eller telefonnummer',
  userIdHint: 'For telefonnummer: start med + og landskoden.',
  channelLegend: 'Send koden til telefonnummeret via',
  channelSms: 'SMS',
  channelVoice: 'Taleanrop',
  sendCode: 'Send kode',
  codeSent: (destination) => `Vi har sendt en sekssifret kode til ${destination}.`,
  codeCalled: (destination) => `Vi ringer ${destination} og leser opp en sekssifret kode for deg.`,
  codeLabel: 'Sekssifret kode',
  signIn: 'Logg inn',
  resend: 'Send en ny kode',
  changeUser: 'Bruk en annen e-postadresse eller et annet telefonnummer',
  newCodeSent: 'En ny kode er på vei.',
  invalidUserId: 'Skriv inn en e-postadresse eller et telefonnummer som starter med + og landskoden.',
  invalidCode: 'Skriv inn de seks sifrene i koden.',
  wrongCode: 'Koden er ikke riktig. Sjekk den og prøv igjen.',
  codeDead: 'Denne koden kan ikke brukes lenger. Send en ny kode.',
  blocked: (retryIn) => `For mange forsøk. Prøv igjen ${retryIn}.`,
  deliveryFailed: 'Vi kunne ikke sende koden. Prøv igjen om litt.',
  unavailable: 'Noe gikk galt hos oss. Prøv igjen om litt.',
  destinationNotAllowed: 'Vi kan ikke sende koder til dette telefonnummeret. Bruk en e-postadresse eller et annet telefonnummer.',
  tooManySends: (retryIn) => `Det er bedt om for mange koder. Prøv igjen ${retryIn}, eller bruk en e-postadresse.`,
  phoneUnavailable: 'Koder på SMS og taleanrop er ikke tilgjengelige akkurat nå. Bruk en e-postadresse, eller prøv igjen senere.',
  expired: 'Denne påloggingssiden er utløpt. Gå tilbake til appen og start på nytt.',
  invalidRequestTitle: 'Denne påloggingslenken er ikke gyldig',
  invalidRequestBody: 'Gå tilbake til appen du kom fra, og prøv igjen.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Velg en konto',
  continueAs: (destination) => `Fortsett som ${destination}`,
  useAnotherAccount: 'Bruk en annen konto',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Logge ut av ${service}?`,
  logoutBody: 'Du blir logget ut i denne nettleseren.',
  logoutConfirm: 'Logg ut',
  logoutCancel: 'Forbli pålogget',
  signedOutTitle: (service) => `Du er logget ut av ${service}`,
  stillSignedInTitle: (service) => `Du er fortsatt logget inn på ${service}`,
  closeWindow: 'Du kan lukke dette vinduet nå.',
  logoutInvalidTitle: 'Denne utloggingslenken er ikke gyldig',
  logoutExpired: 'Denne utloggingssiden er utløpt. Gå tilbake til appen og logg ut på nytt.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Logg inn med en passnøkkel',
  passkeyFailed: 'Vi fikk ikke logget deg inn med den passnøkkelen. Prøv igjen.',
  passkeyRequired: 'Denne appen krever at du logger inn med en passnøkkel.',
  passkeyNeedsScript: 'Innlogging med passnøkkel krever JavaScript. Slå det på og last inn siden på nytt.',
  passkeysTitle: 'Neste gang uten kode',
  passkeyOffer: 'Opprett en passnøkkel og logg inn med fingeravtrykk, ansikt eller skjermlås i stedet for en kode.',
  signedInAs: (destination) => `Logget inn som ${destination}`,
  createPasskey: 'Opprett en passnøkkel',
  notNow: 'Ikke nå',
  continueToApp: 'Fortsett',
  yourPasskeys: 'Dine passnøkler',
  passkeyCreatedOn: (date) => `Opprettet ${date}`,
  passkeyLastUsed: (date) => `Sist brukt ${date}`,
  passkeyNotUsed: 'Ikke brukt ennå',
  removePasskey: (name) => `Fjern ${name}`,
  passkeyCreated: 'Passnøkkelen din er klar. Bruk den neste gang du logger inn.',
  passkeyRemoved: 'Passnøkkelen er fjernet.',
  passkeyCreateFailed: 'Passnøkkelen ble ikke opprettet. Prøv igjen, eller fortsett uten.',
  unnamedPasskey: 'Passnøkkel',
};
