/** Italian (Italy). */
import type { LocaleStrings, LoginPageStrings } from './types';

// "Tu": Italian software and consumer services address the user as "tu" (the "Lei" of banks and
// public offices would read as stiff in a sign-in flow).
export const itIT: LocaleStrings = {
  // CLDR's "many" is for millions ("1 milione di minuti"), which no code lifetime reaches, so it
  // keeps the plain plural.
  minute: { one: 'minuto', many: 'minuti', other: 'minuti' },
  // GSM-7 has every Italian accented letter (à è é ì ò ù).
  // Measured (5-minute code): GSM-7, one segment, 78 of 160 units for "Acme" and 114 for a
  // 40-character name.
  sms: (service, code, minutes) => `Il tuo codice ${service} è ${code}. Scade tra ${minutes}. Non condividerlo con nessuno.`,
  // "per …" and "al tuo account …" rather than "a …", which before a vowel may want the euphonic
  // "ad": the name's first letter is unknown.
  emailSubject: (service) => `Il tuo codice di accesso per ${service}`,
  emailIntro: (service) => `Usa questo codice per accedere al tuo account ${service}:`,
  expiry: (minutes) => `Scade tra ${minutes}.`,
  emailIgnore: 'Se non hai richiesto questo codice, puoi ignorare tranquillamente questa email. Non condividerlo con nessuno.',
  voiceIntro: (service) => `Il tuo codice ${service} è`,
  voiceAgain: 'Ripeto, il tuo codice è',
  voiceId: 'BIANCA',
};

/** The hosted login page (lib/login/login-page.ts). */
export const itITLogin: LoginPageStrings = {
  title: (service) => `Accedi al tuo account ${service}`,
  userIdLabel: 'Indirizzo email o numero di telefono',
  userIdHint: 'Per un numero di telefono, inizia con + e il prefisso internazionale.',
  channelLegend: 'Per un numero di telefono, invia il codice tramite',
  channelSms: 'SMS',
  channelVoice: 'Chiamata vocale',
  sendCode: 'Invia codice',
  codeSent: (destination) => `Abbiamo inviato un codice di 6 cifre a ${destination}.`,
  codeCalled: (destination) => `Stiamo chiamando il ${destination} per dettarti un codice di 6 cifre.`,
  codeLabel: 'Codice di 6 cifre',
  signIn: 'Accedi',
  resend: 'Invia un nuovo codice',
  changeUser: 'Usa un\u2019altra email o un altro numero',
  newCodeSent: 'Un nuovo codice è in arrivo.',
  invalidUserId: 'Inserisci un indirizzo email o un numero di telefono che inizi con + e il prefisso internazionale.',
  invalidCode: 'Inserisci le 6 cifre del codice.',
  wrongCode: 'Questo codice non è corretto. Controllalo e riprova.',
  codeDead: 'Questo codice non può più essere usato. Richiedi un nuovo codice.',
  blocked: (retryIn) => `Troppi tentativi. Riprova ${retryIn}.`,
  deliveryFailed: 'Non siamo riusciti a inviare il codice. Riprova tra poco.',
  unavailable: 'Si è verificato un problema da parte nostra. Riprova tra poco.',
  destinationNotAllowed: 'Non possiamo inviare codici a questo numero di telefono. Usa un indirizzo email o un altro numero.',
  tooManySends: (retryIn) => `Sono stati richiesti troppi codici. Riprova ${retryIn} oppure usa un indirizzo email.`,
  phoneUnavailable: 'I codici via SMS e chiamata vocale non sono disponibili al momento. Usa un indirizzo email o riprova più tardi.',
  expired: 'Questa pagina di accesso è scaduta. Torna all\u2019app e ricomincia.',
  invalidRequestTitle: 'Questo link di accesso non è valido',
  invalidRequestBody: 'Torna all\u2019app di provenienza e riprova.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Scegli un account',
  continueAs: (destination) => `Continua come ${destination}`,
  useAnotherAccount: 'Usa un altro account',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Vuoi uscire dal tuo account ${service}?`,
  logoutBody: 'Uscirai dall\u2019account su questo browser.',
  logoutConfirm: 'Esci',
  logoutCancel: 'Non uscire',
  signedOutTitle: (service) => `Hai effettuato l\u2019uscita dal tuo account ${service}`,
  stillSignedInTitle: (service) => `Il tuo accesso a ${service} è ancora attivo`,
  closeWindow: 'Ora puoi chiudere questa finestra.',
  logoutInvalidTitle: 'Questo link di disconnessione non è valido',
  logoutExpired: 'Questa pagina di disconnessione è scaduta. Torna all\u2019app ed esci di nuovo.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Accedi con una passkey',
  passkeyFailed: 'Non è stato possibile accedere con questa passkey. Riprova.',
  passkeyRequired: 'Questa app ti chiede di accedere con una passkey.',
  passkeyNeedsScript: 'Per accedere con una passkey serve JavaScript. Attivalo e ricarica questa pagina.',
  passkeysTitle: 'La prossima volta, senza codice',
  passkeyOffer: 'Crea una passkey e accedi con l\u2019impronta digitale, il volto o il blocco schermo invece che con un codice.',
  signedInAs: (destination) => `Accesso effettuato con ${destination}`,
  createPasskey: 'Crea una passkey',
  notNow: 'Non ora',
  continueToApp: 'Continua',
  yourPasskeys: 'Le tue passkey',
  passkeyCreatedOn: (date) => `Creata il ${date}`,
  passkeyLastUsed: (date) => `Ultimo utilizzo: ${date}`,
  passkeyNotUsed: 'Non ancora utilizzata',
  removePasskey: (name) => `Rimuovi ${name}`,
  passkeyCreated: 'La tua passkey è pronta. Usala al prossimo accesso.',
  passkeyRemoved: 'La passkey è stata rimossa.',
  passkeyCreateFailed: 'La passkey non è stata creata. Riprova o continua senza.',
  unnamedPasskey: 'Passkey',
};
