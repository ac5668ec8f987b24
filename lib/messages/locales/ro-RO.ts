/** Romanian (Romania). */
import type { LocaleStrings, LoginPageStrings } from './types';

// The polite plural ("Introduceți", "codul dvs."), as Romanian software and services address their
// users; "tu" would read as over-familiar in a sign-in flow. ș and ț are the comma-below letters
// (U+0219, U+021B), not the cedilla ones.
export const roRO: LocaleStrings = {
  // "few" covers 0, 2–19 and 101–119 ("5 minute"); from 20 Romanian puts "de" between the number
  // and the noun ("20 de minute"), so the "other" form carries it.
  minute: { one: 'minut', few: 'minute', other: 'de minute' },
  // Romanian letters (ă, î, ș, ț) are not in GSM-7: UCS-2. "Codul dvs. Acme" sets the name in
  // apposition, so it needs no case ending.
  // Measured (5-minute code): one segment, 67 of 70 units for "Acme"; names up to 7 characters
  // fit, a 40-character one takes 2 segments (103 units), and so does a lifetime of 20 minutes or
  // more ("20 de minute", 71 units for "Acme").
  sms: (service, code, minutes) => `Codul dvs. ${service} este ${code}. Expiră în ${minutes}. Nu-l dați nimănui.`,
  emailSubject: (service) => `Codul dvs. de conectare la ${service}`,
  emailIntro: (service) => `Folosiți acest cod pentru a vă conecta la ${service}:`,
  expiry: (minutes) => `Codul expiră în ${minutes}.`,
  emailIgnore: 'Dacă nu ați solicitat acest cod, puteți ignora liniștit acest e-mail. Nu comunicați codul nimănui.',
  // Spelled out for the voice: Polly would read the abbreviation "dvs." letter by letter.
  voiceIntro: (service) => `Codul dumneavoastră ${service} este`,
  voiceAgain: 'Repet, codul dumneavoastră este',
  voiceId: 'CARMEN',
};

/** The hosted login page (lib/login/login-page.ts). */
export const roROLogin: LoginPageStrings = {
  title: (service) => `Conectați-vă la ${service}`,
  userIdLabel: 'Adresă de e-mail sau număr de telefon',
  userIdHint: 'Pentru un număr de telefon, începeți cu + și prefixul țării.',
  channelLegend: 'Pentru un număr de telefon, trimiteți codul prin',
  channelSms: 'SMS',
  channelVoice: 'Apel vocal',
  sendCode: 'Trimiteți codul',
  codeSent: (destination) => `Am trimis un cod din 6 cifre la ${destination}.`,
  codeCalled: (destination) => `Vă sunăm la ${destination} pentru a vă citi un cod din 6 cifre.`,
  codeLabel: 'Cod din 6 cifre',
  signIn: 'Conectați-vă',
  resend: 'Trimiteți un cod nou',
  changeUser: 'Folosiți alt e-mail sau alt număr de telefon',
  newCodeSent: 'Un cod nou este pe drum.',
  invalidUserId: 'Introduceți o adresă de e-mail sau un număr de telefon care începe cu + și prefixul țării.',
  invalidCode: 'Introduceți cele 6 cifre ale codului.',
  wrongCode: 'Codul nu este corect. Verificați-l și încercați din nou.',
  codeDead: 'Acest cod nu mai poate fi folosit. Trimiteți un cod nou.',
  blocked: (retryIn) => `Prea multe încercări. Încercați din nou ${retryIn}.`,
  deliveryFailed: 'Nu am putut trimite codul. Încercați din nou în câteva momente.',
  unavailable: 'A apărut o eroare de partea noastră. Încercați din nou în câteva momente.',
  destinationNotAllowed: 'Nu putem trimite coduri la acest număr de telefon. Folosiți o adresă de e-mail sau alt număr de telefon.',
  tooManySends: (retryIn) => `Au fost solicitate prea multe coduri. Încercați din nou ${retryIn} sau folosiți o adresă de e-mail.`,
  phoneUnavailable:
    'Codurile prin SMS și apel vocal nu sunt disponibile momentan. Folosiți o adresă de e-mail sau încercați din nou mai târziu.',
  expired: 'Această pagină de conectare a expirat. Reveniți în aplicație și începeți din nou.',
  invalidRequestTitle: 'Acest link de conectare nu este valid',
  invalidRequestBody: 'Reveniți în aplicația din care ați venit și încercați din nou.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Alegeți un cont',
  continueAs: (destination) => `Continuați ca ${destination}`,
  useAnotherAccount: 'Folosiți alt cont',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Vă deconectați de la ${service}?`,
  logoutBody: 'Sesiunea din acest browser se va încheia.',
  logoutConfirm: 'Deconectați-vă',
  logoutCancel: 'Rămâneți în cont',
  signedOutTitle: (service) => `V-ați deconectat de la ${service}`,
  stillSignedInTitle: (service) => `Sesiunea dumneavoastră în ${service} rămâne activă`,
  closeWindow: 'Acum puteți închide această fereastră.',
  logoutInvalidTitle: 'Acest link de deconectare nu este valid',
  logoutExpired: 'Această pagină de deconectare a expirat. Reveniți în aplicație și deconectați-vă din nou.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Conectați-vă cu o cheie de acces',
  passkeyFailed: 'Conectarea cu această cheie de acces nu a reușit. Încercați din nou.',
  passkeyRequired: 'Această aplicație vă cere să vă conectați cu o cheie de acces.',
  passkeyNeedsScript: 'Conectarea cu o cheie de acces necesită JavaScript. Activați-l și reîncărcați pagina.',
  passkeysTitle: 'Data viitoare, fără cod',
  passkeyOffer: 'Creați o cheie de acces și conectați-vă cu amprenta, cu fața sau cu blocarea ecranului în loc de un cod.',
  signedInAs: (destination) => `Cont: ${destination}`,
  createPasskey: 'Creați o cheie de acces',
  notNow: 'Nu acum',
  continueToApp: 'Continuați',
  yourPasskeys: 'Cheile dumneavoastră de acces',
  passkeyCreatedOn: (date) => `Creată pe ${date}`,
  passkeyLastUsed: (date) => `Folosită ultima dată pe ${date}`,
  passkeyNotUsed: 'Nefolosită încă',
  removePasskey: (name) => `Eliminați ${name}`,
  passkeyCreated: 'Cheia de acces este gata. Folosiți-o la următoarea conectare.',
  passkeyRemoved: 'Cheia de acces a fost eliminată.',
  passkeyCreateFailed: 'Cheia de acces nu a fost creată. Încercați din nou sau continuați fără ea.',
  unnamedPasskey: 'Cheie de acces',
};
