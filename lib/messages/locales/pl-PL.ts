/** Polish (Poland). */
import type { LocaleStrings, LoginPageStrings } from './types';

// The second person singular ("Wpisz", "Twój"), as Polish software and consumer services write, with
// "Twój" and "Ci" capitalised as a courtesy in direct address. Past-tense verbs in the second
// person are gendered in Polish ("prosiłeś"/"prosiłaś"), so the texts are phrased without them.
export const plPL: LocaleStrings = {
  // Every sentence puts the number after "za" (accusative), so "one" is the accusative "minutę"
  // ("za 1 minutę"); "few" is 2–4, 22–24… ("minuty"), "many" 0, 5–21, 25–31… ("minut"), "other"
  // fractions ("1,5 minuty").
  minute: { one: 'minutę', few: 'minuty', many: 'minut', other: 'minuty' },
  // "Service: …" because Polish declines names after a preposition ("kod do Allegra"), which an
  // unknown name cannot be. Polish letters (ó, ę, ą, ł…) are not in GSM-7: UCS-2.
  // Measured (5-minute code): one segment, 67 of 70 units for "Acme"; names up to 7 characters
  // fit, a 40-character one takes 2 segments (103 units).
  sms: (service, code, minutes) => `${service}: Twój kod to ${code}. Wygasa za ${minutes}. Nie podawaj go nikomu.`,
  emailSubject: (service) => `${service}: Twój kod logowania`,
  // "do serwisu …" leaves the name in the nominative for the same reason.
  emailIntro: (service) => `Użyj tego kodu, aby zalogować się do serwisu ${service}:`,
  expiry: (minutes) => `Kod wygasa za ${minutes}.`,
  emailIgnore:
    'Jeśli ten kod nie został wysłany na Twoją prośbę, możesz bezpiecznie zignorować tę wiadomość. Nie podawaj nikomu tego kodu.',
  voiceIntro: (service) => `${service}: Twój kod to`,
  voiceAgain: 'Powtarzam, Twój kod to',
  voiceId: 'EWA',
};

/** The hosted login page (lib/login/login-page.ts). */
export const plPLLogin: LoginPageStrings = {
  title: (service) => `Zaloguj się do serwisu ${service}`,
  userIdLabel: 'Adres e-mail lub numer telefonu',
  userIdHint: 'Numer telefonu wpisz z + i numerem kierunkowym kraju.',
  channelLegend: 'Sposób wysłania kodu na numer telefonu',
  channelSms: 'SMS',
  channelVoice: 'Połączenie głosowe',
  sendCode: 'Wyślij kod',
  codeSent: (destination) => `Wysłaliśmy 6-cyfrowy kod na ${destination}.`,
  codeCalled: (destination) => `Dzwonimy pod numer ${destination}, aby podać Ci 6-cyfrowy kod.`,
  codeLabel: '6-cyfrowy kod',
  signIn: 'Zaloguj się',
  resend: 'Wyślij nowy kod',
  changeUser: 'Użyj innego adresu e-mail lub numeru telefonu',
  newCodeSent: 'Nowy kod jest już w drodze.',
  invalidUserId: 'Wpisz adres e-mail lub numer telefonu zaczynający się od + i numeru kierunkowego kraju.',
  invalidCode: 'Wpisz 6 cyfr kodu.',
  wrongCode: 'Ten kod jest nieprawidłowy. Sprawdź go i spróbuj ponownie.',
  codeDead: 'Tego kodu nie można już użyć. Wyślij nowy kod.',
  blocked: (retryIn) => `Zbyt wiele prób. Spróbuj ponownie ${retryIn}.`,
  deliveryFailed: 'Nie udało się wysłać kodu. Spróbuj ponownie za chwilę.',
  unavailable: 'Coś poszło nie tak po naszej stronie. Spróbuj ponownie za chwilę.',
  destinationNotAllowed: 'Nie możemy wysyłać kodów na ten numer telefonu. Użyj adresu e-mail lub innego numeru telefonu.',
  tooManySends: (retryIn) => `Poproszono o zbyt wiele kodów. Spróbuj ponownie ${retryIn} lub użyj adresu e-mail.`,
  phoneUnavailable: 'Kody przez SMS i połączenie głosowe są chwilowo niedostępne. Użyj adresu e-mail lub spróbuj ponownie później.',
  expired: 'Ta strona logowania wygasła. Wróć do aplikacji i zacznij od nowa.',
  invalidRequestTitle: 'Ten link do logowania jest nieprawidłowy',
  // "the app you came from" would need a gendered past tense ("przyszedłeś"/"przyszłaś").
  invalidRequestBody: 'Wróć do poprzedniej aplikacji i spróbuj ponownie.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Wybierz konto',
  continueAs: (destination) => `Kontynuuj jako ${destination}`,
  useAnotherAccount: 'Użyj innego konta',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Wylogować się z serwisu ${service}?`,
  logoutBody: 'Twoja sesja w tej przeglądarce zostanie zakończona.',
  logoutConfirm: 'Wyloguj się',
  logoutCancel: 'Nie wylogowuj mnie',
  signedOutTitle: (service) => `Wylogowano z serwisu ${service}`,
  stillSignedInTitle: (service) => `Twoja sesja w serwisie ${service} jest nadal aktywna`,
  closeWindow: 'Możesz teraz zamknąć to okno.',
  logoutInvalidTitle: 'Ten link do wylogowania jest nieprawidłowy',
  logoutExpired: 'Ta strona wylogowania wygasła. Wróć do aplikacji i wyloguj się ponownie.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Zaloguj się kluczem dostępu',
  passkeyFailed: 'Nie udało się zalogować tym kluczem dostępu. Spróbuj ponownie.',
  passkeyRequired: 'Ta aplikacja wymaga logowania kluczem dostępu.',
  passkeyNeedsScript: 'Logowanie kluczem dostępu wymaga JavaScriptu. Włącz go i odśwież tę stronę.',
  passkeysTitle: 'Następnym razem bez kodu',
  passkeyOffer: 'Utwórz klucz dostępu i loguj się odciskiem palca, skanem twarzy lub blokadą ekranu zamiast kodem.',
  signedInAs: (destination) => `Zalogowano jako ${destination}`,
  createPasskey: 'Utwórz klucz dostępu',
  notNow: 'Nie teraz',
  continueToApp: 'Dalej',
  yourPasskeys: 'Twoje klucze dostępu',
  passkeyCreatedOn: (date) => `Utworzono ${date}`,
  passkeyLastUsed: (date) => `Ostatnio użyto ${date}`,
  passkeyNotUsed: 'Jeszcze nieużywany',
  removePasskey: (name) => `Usuń: ${name}`,
  passkeyCreated: 'Klucz dostępu jest gotowy. Użyj go przy następnym logowaniu.',
  passkeyRemoved: 'Klucz dostępu został usunięty.',
  passkeyCreateFailed: 'Nie utworzono klucza dostępu. Spróbuj ponownie lub kontynuuj bez niego.',
  unnamedPasskey: 'Klucz dostępu',
};
