/** Russian (Russia). */
import type { LocaleStrings, LoginPageStrings } from './types';

// "Вы", lower case as Russian interfaces write it: the polite form every Russian service uses with
// its users; "ты" would read as over-familiar.
export const ruRU: LocaleStrings = {
  // Every sentence puts the number as a duration ("действует 1 минуту"), in the accusative, so
  // "one" (1, 21, 31…) is "минуту"; "few" (2–4, 22–24…) "минуты", "many" (0, 5–20…) "минут",
  // "other" fractions ("1,5 минуты").
  minute: { one: 'минуту', few: 'минуты', many: 'минут', other: 'минуты' },
  // "Service: …" because Russian declines names after a preposition ("для Яндекса"), which an
  // unknown name cannot be. Cyrillic is not in GSM-7: UCS-2.
  // Measured (5-minute code): one segment, 65 of 70 units for "Acme"; names up to 9 characters
  // fit, a 40-character one takes 2 segments (101 units).
  sms: (service, code, minutes) => `${service}: ваш код ${code}. Действует ${minutes}. Никому его не сообщайте.`,
  emailSubject: (service) => `${service}: ваш код для входа`,
  // "в сервис …" leaves the name in the nominative for the same reason.
  emailIntro: (service) => `Используйте этот код для входа в сервис ${service}:`,
  expiry: (minutes) => `Код действует ${minutes}.`,
  emailIgnore: 'Если вы не запрашивали этот код, можете спокойно проигнорировать это письмо. Никому не сообщайте код.',
  voiceIntro: (service) => `${service}: ваш код`,
  voiceAgain: 'Повторяю, ваш код',
  voiceId: 'TATYANA',
};

/** The hosted login page (lib/login/login-page.ts). */
export const ruRULogin: LoginPageStrings = {
  title: (service) => `Вход в сервис ${service}`,
  userIdLabel: 'Электронная почта или номер телефона',
  userIdHint: 'Номер телефона начинайте с + и кода страны.',
  channelLegend: 'Как отправить код на номер телефона',
  channelSms: 'SMS',
  channelVoice: 'Звонок',
  sendCode: 'Отправить код',
  codeSent: (destination) => `Мы отправили шестизначный код на ${destination}.`,
  codeCalled: (destination) => `Мы звоним на номер ${destination}, чтобы продиктовать вам шестизначный код.`,
  codeLabel: 'Шестизначный код',
  signIn: 'Войти',
  resend: 'Отправить новый код',
  changeUser: 'Указать другую почту или телефон',
  newCodeSent: 'Новый код уже в пути.',
  invalidUserId: 'Введите адрес электронной почты или номер телефона, который начинается с + и кода страны.',
  invalidCode: 'Введите 6 цифр кода.',
  wrongCode: 'Код неверный. Проверьте его и попробуйте ещё раз.',
  codeDead: 'Этот код больше нельзя использовать. Запросите новый код.',
  blocked: (retryIn) => `Слишком много попыток. Попробуйте ещё раз ${retryIn}.`,
  deliveryFailed: 'Не удалось отправить код. Попробуйте ещё раз чуть позже.',
  unavailable: 'У нас что-то пошло не так. Попробуйте ещё раз чуть позже.',
  destinationNotAllowed: 'Мы не можем отправить код на этот номер телефона. Укажите адрес электронной почты или другой номер.',
  tooManySends: (retryIn) => `Запрошено слишком много кодов. Попробуйте ещё раз ${retryIn} или укажите адрес электронной почты.`,
  phoneUnavailable: 'Коды по SMS и звонком сейчас недоступны. Укажите адрес электронной почты или попробуйте позже.',
  expired: 'Срок действия этой страницы входа истёк. Вернитесь в приложение и начните заново.',
  invalidRequestTitle: 'Эта ссылка для входа недействительна',
  invalidRequestBody: 'Вернитесь в приложение, из которого вы пришли, и попробуйте ещё раз.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Выберите аккаунт',
  continueAs: (destination) => `Продолжить как ${destination}`,
  useAnotherAccount: 'Использовать другой аккаунт',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Выйти из сервиса ${service}?`,
  logoutBody: 'Вы выйдете из аккаунта в этом браузере.',
  logoutConfirm: 'Выйти',
  logoutCancel: 'Не выходить',
  signedOutTitle: (service) => `Вы вышли из сервиса ${service}`,
  stillSignedInTitle: (service) => `Вы всё ещё авторизованы в сервисе ${service}`,
  closeWindow: 'Теперь это окно можно закрыть.',
  logoutInvalidTitle: 'Эта ссылка для выхода недействительна',
  logoutExpired: 'Срок действия этой страницы выхода истёк. Вернитесь в приложение и выйдите ещё раз.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Войти с ключом доступа',
  passkeyFailed: 'Не удалось войти с этим ключом доступа. Попробуйте ещё раз.',
  passkeyRequired: 'Это приложение требует входа с ключом доступа.',
  passkeyNeedsScript: 'Для входа с ключом доступа нужен JavaScript. Включите его и обновите страницу.',
  passkeysTitle: 'В следующий раз — без кода',
  passkeyOffer: 'Создайте ключ доступа и входите по отпечатку пальца, лицу или блокировке экрана вместо кода.',
  signedInAs: (destination) => `Вход выполнен: ${destination}`,
  createPasskey: 'Создать ключ доступа',
  notNow: 'Не сейчас',
  continueToApp: 'Продолжить',
  yourPasskeys: 'Ваши ключи доступа',
  passkeyCreatedOn: (date) => `Создан ${date}`,
  passkeyLastUsed: (date) => `Последнее использование: ${date}`,
  passkeyNotUsed: 'Ещё не использовался',
  removePasskey: (name) => `Удалить: ${name}`,
  passkeyCreated: 'Ключ доступа создан. Используйте его при следующем входе.',
  passkeyRemoved: 'Ключ доступа удалён.',
  passkeyCreateFailed: 'Ключ доступа не создан. Попробуйте ещё раз или продолжите без него.',
  unnamedPasskey: 'Ключ доступа',
};
