/** Dutch (Netherlands). */
import type { LocaleStrings, LoginPageStrings } from './types';

// "Je": Dutch apps and web services address the user as "je"; "u" would read as a letter from a
// government office.
export const nlNL: LocaleStrings = {
  minute: { one: 'minuut', other: 'minuten' },
  // Measured (5-minute code): GSM-7, one segment, 84 of 160 units for "Acme" and 120 for a
  // 40-character name.
  sms: (service, code, minutes) => `Je code voor ${service} is ${code}. Deze verloopt over ${minutes}. Deel de code met niemand.`,
  emailSubject: (service) => `Je inlogcode voor ${service}`,
  emailIntro: (service) => `Gebruik deze code om in te loggen bij ${service}:`,
  expiry: (minutes) => `De code verloopt over ${minutes}.`,
  emailIgnore: 'Heb je deze code niet aangevraagd? Dan kun je deze e-mail gerust negeren. Deel de code met niemand.',
  voiceIntro: (service) => `Je code voor ${service} is`,
  voiceAgain: 'Nogmaals, je code is',
  voiceId: 'LOTTE',
};

/** The hosted login page (lib/login/login-page.ts). */
export const nlNLLogin: LoginPageStrings = {
  title: (service) => `Inloggen bij ${service}`,
  userIdLabel: 'E-mailadres of telefoonnummer',
  userIdHint: 'Begin een telefoonnummer met + en de landcode.',
  channelLegend: 'Code naar een telefoonnummer sturen via',
  // Dutch writes "sms" in lower case, as a common noun.
  channelSms: 'Sms',
  channelVoice: 'Telefoonoproep',
  sendCode: 'Code versturen',
  codeSent: (destination) => `We hebben een 6-cijferige code gestuurd naar ${destination}.`,
  codeCalled: (destination) => `We bellen ${destination} om je een 6-cijferige code voor te lezen.`,
  codeLabel: '6-cijferige code',
  signIn: 'Inloggen',
  resend: 'Nieuwe code versturen',
  changeUser: 'Ander e-mailadres of telefoonnummer gebruiken',
  newCodeSent: 'Er is een nieuwe code onderweg.',
  invalidUserId: 'Vul een e-mailadres in, of een telefoonnummer dat begint met + en de landcode.',
  invalidCode: 'Vul de 6 cijfers van de code in.',
  wrongCode: 'Die code klopt niet. Controleer de code en probeer het opnieuw.',
  codeDead: 'Deze code kan niet meer worden gebruikt. Vraag een nieuwe code aan.',
  blocked: (retryIn) => `Te veel pogingen. Probeer het ${retryIn} opnieuw.`,
  deliveryFailed: 'We konden de code niet versturen. Probeer het zo opnieuw.',
  unavailable: 'Er is bij ons iets misgegaan. Probeer het zo opnieuw.',
  destinationNotAllowed: 'We kunnen geen codes naar dit telefoonnummer sturen. Gebruik een e-mailadres of een ander telefoonnummer.',
  tooManySends: (retryIn) => `Er zijn te veel codes aangevraagd. Probeer het ${retryIn} opnieuw of gebruik een e-mailadres.`,
  phoneUnavailable:
    'Codes via sms en telefoonoproep zijn op dit moment niet beschikbaar. Gebruik een e-mailadres of probeer het later opnieuw.',
  expired: 'Deze inlogpagina is verlopen. Ga terug naar de app en begin opnieuw.',
  invalidRequestTitle: 'Deze inloglink is niet geldig',
  invalidRequestBody: 'Ga terug naar de app waar je vandaan kwam en probeer het opnieuw.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Kies een account',
  continueAs: (destination) => `Doorgaan als ${destination}`,
  useAnotherAccount: 'Ander account gebruiken',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Uitloggen bij ${service}?`,
  logoutBody: 'Je wordt uitgelogd in deze browser.',
  logoutConfirm: 'Uitloggen',
  logoutCancel: 'Ingelogd blijven',
  signedOutTitle: (service) => `Je bent uitgelogd bij ${service}`,
  stillSignedInTitle: (service) => `Je bent nog steeds ingelogd bij ${service}`,
  closeWindow: 'Je kunt dit venster nu sluiten.',
  logoutInvalidTitle: 'Deze uitloglink is niet geldig',
  logoutExpired: 'Deze uitlogpagina is verlopen. Ga terug naar de app en log opnieuw uit.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Inloggen met een toegangssleutel',
  passkeyFailed: 'Inloggen met deze toegangssleutel is niet gelukt. Probeer het opnieuw.',
  passkeyRequired: 'Voor deze app log je in met een toegangssleutel.',
  passkeyNeedsScript: 'Voor inloggen met een toegangssleutel is JavaScript nodig. Zet het aan en laad deze pagina opnieuw.',
  passkeysTitle: 'Volgende keer zonder code',
  passkeyOffer: 'Maak een toegangssleutel aan en log in met je vingerafdruk, gezicht of schermvergrendeling in plaats van met een code.',
  signedInAs: (destination) => `Ingelogd als ${destination}`,
  createPasskey: 'Toegangssleutel aanmaken',
  notNow: 'Niet nu',
  continueToApp: 'Doorgaan',
  yourPasskeys: 'Je toegangssleutels',
  passkeyCreatedOn: (date) => `Aangemaakt op ${date}`,
  passkeyLastUsed: (date) => `Laatst gebruikt op ${date}`,
  passkeyNotUsed: 'Nog niet gebruikt',
  removePasskey: (name) => `${name} verwijderen`,
  passkeyCreated: 'Je toegangssleutel is klaar. Gebruik hem de volgende keer dat je inlogt.',
  passkeyRemoved: 'De toegangssleutel is verwijderd.',
  passkeyCreateFailed: 'De toegangssleutel is niet aangemaakt. Probeer het opnieuw of ga verder zonder.',
  unnamedPasskey: 'Toegangssleutel',
};
