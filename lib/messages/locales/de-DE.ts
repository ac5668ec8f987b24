/** German (Germany). */
import type { LocaleStrings, LoginPageStrings } from './types';

export const deDE: LocaleStrings = {
  minute: { one: 'Minute', other: 'Minuten' },
  // Measured (5-minute code): GSM-7, one segment, 92 of 160 units for "Acme" and 128 for a
  // 40-character name.
  sms: (service, code, minutes) => `Ihr Code für ${service} lautet ${code}. Er ist ${minutes} gültig. Geben Sie ihn an niemanden weiter.`,
  emailSubject: (service) => `Ihr Anmeldecode für ${service}`,
  emailIntro: (service) => `Mit diesem Code melden Sie sich bei ${service} an:`,
  expiry: (minutes) => `Er ist ${minutes} gültig.`,
  emailIgnore: 'Wenn Sie diesen Code nicht angefordert haben, können Sie diese E-Mail ignorieren. Geben Sie den Code an niemanden weiter.',
  voiceIntro: (service) => `Ihr Code für ${service} lautet`,
  voiceAgain: 'Ich wiederhole, Ihr Code lautet',
  voiceId: 'VICKI',
};

/** The hosted login page (lib/login/login-page.ts). */
export const deDELogin: LoginPageStrings = {
  title: (service) => `Bei ${service} anmelden`,
  userIdLabel: 'E-Mail-Adresse oder Telefonnummer',
  userIdHint: 'Telefonnummern bitte mit + und Ländervorwahl eingeben.',
  channelLegend: 'Code an Telefonnummern senden per',
  channelSms: 'SMS',
  channelVoice: 'Anruf',
  sendCode: 'Code senden',
  codeSent: (destination) => `Wir haben einen 6-stelligen Code an ${destination} gesendet.`,
  codeCalled: (destination) => `Wir rufen ${destination} an und lesen Ihnen einen 6-stelligen Code vor.`,
  codeLabel: '6-stelliger Code',
  signIn: 'Anmelden',
  resend: 'Neuen Code senden',
  changeUser: 'Andere E-Mail-Adresse oder Telefonnummer verwenden',
  newCodeSent: 'Ein neuer Code ist unterwegs.',
  invalidUserId: 'Geben Sie eine E-Mail-Adresse ein oder eine Telefonnummer, die mit + und der Ländervorwahl beginnt.',
  invalidCode: 'Geben Sie die 6 Ziffern des Codes ein.',
  wrongCode: 'Dieser Code ist nicht richtig. Prüfen Sie ihn und versuchen Sie es erneut.',
  codeDead: 'Dieser Code kann nicht mehr verwendet werden. Fordern Sie einen neuen Code an.',
  blocked: (retryIn) => `Zu viele Versuche. Versuchen Sie es ${retryIn} erneut.`,
  deliveryFailed: 'Der Code konnte nicht gesendet werden. Versuchen Sie es gleich noch einmal.',
  unavailable: 'Bei uns ist ein Fehler aufgetreten. Versuchen Sie es gleich noch einmal.',
  destinationNotAllowed:
    'An diese Telefonnummer können wir keine Codes senden. Verwenden Sie eine E-Mail-Adresse oder eine andere Telefonnummer.',
  tooManySends: (retryIn) =>
    `Es wurden zu viele Codes angefordert. Versuchen Sie es ${retryIn} erneut oder verwenden Sie eine E-Mail-Adresse.`,
  phoneUnavailable:
    'Codes per SMS und Anruf sind derzeit nicht verfügbar. Verwenden Sie eine E-Mail-Adresse oder versuchen Sie es später erneut.',
  expired: 'Diese Anmeldeseite ist abgelaufen. Kehren Sie zur App zurück und beginnen Sie neu.',
  invalidRequestTitle: 'Dieser Anmeldelink ist ungültig',
  invalidRequestBody: 'Kehren Sie zur App zurück, von der Sie kamen, und versuchen Sie es erneut.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Konto auswählen',
  continueAs: (destination) => `Weiter als ${destination}`,
  useAnotherAccount: 'Anderes Konto verwenden',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Von ${service} abmelden?`,
  logoutBody: 'Sie werden in diesem Browser abgemeldet.',
  logoutConfirm: 'Abmelden',
  logoutCancel: 'Angemeldet bleiben',
  signedOutTitle: (service) => `Sie wurden von ${service} abgemeldet`,
  stillSignedInTitle: (service) => `Sie sind weiterhin bei ${service} angemeldet`,
  closeWindow: 'Sie können dieses Fenster jetzt schließen.',
  logoutInvalidTitle: 'Dieser Abmeldelink ist ungültig',
  logoutExpired: 'Diese Abmeldeseite ist abgelaufen. Kehren Sie zur App zurück und melden Sie sich erneut ab.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Mit Passkey anmelden',
  passkeyFailed: 'Die Anmeldung mit diesem Passkey hat nicht funktioniert. Versuchen Sie es erneut.',
  passkeyRequired: 'Für diese App melden Sie sich mit einem Passkey an.',
  passkeyNeedsScript: 'Für die Anmeldung mit einem Passkey wird JavaScript benötigt. Aktivieren Sie es und laden Sie die Seite neu.',
  passkeysTitle: 'Nächstes Mal ohne Code anmelden',
  passkeyOffer:
    'Erstellen Sie einen Passkey und melden Sie sich statt mit einem Code per Fingerabdruck, Gesichtserkennung oder Bildschirmsperre an.',
  signedInAs: (destination) => `Angemeldet als ${destination}`,
  createPasskey: 'Passkey erstellen',
  notNow: 'Nicht jetzt',
  continueToApp: 'Weiter',
  yourPasskeys: 'Ihre Passkeys',
  passkeyCreatedOn: (date) => `Erstellt am ${date}`,
  passkeyLastUsed: (date) => `Zuletzt verwendet am ${date}`,
  passkeyNotUsed: 'Noch nicht verwendet',
  removePasskey: (name) => `${name} entfernen`,
  passkeyCreated: 'Ihr Passkey ist eingerichtet. Verwenden Sie ihn bei der nächsten Anmeldung.',
  passkeyRemoved: 'Der Passkey wurde entfernt.',
  passkeyCreateFailed: 'Der Passkey wurde nicht erstellt. Versuchen Sie es erneut oder fahren Sie ohne Passkey fort.',
  unnamedPasskey: 'Passkey',
};
