/** Japanese (Japan). */
import type { LocaleStrings, LoginPageStrings } from './types';

// です/ます and the polite request (〜してください), as Japanese services write to their users;
// 確認コード for the code, as the large platforms call it. Particles (の, に) follow the service
// name unchanged, whatever it is.
export const jaJP: LocaleStrings = {
  // Japanese has no plural. The renderer puts a space between the number and the word ("5 分"),
  // which Japanese would not write; see lib/messages/locale.ts formatMinutes.
  minute: { other: '分' },
  // UCS-2.
  // Measured (5-minute code): one segment, 48 of 70 units for "Acme"; names up to 26 characters
  // fit, a 40-character one takes 2 segments (84 units).
  sms: (service, code, minutes) => `${service}の確認コードは${code}です。${minutes}間有効です。このコードは誰にも教えないでください。`,
  emailSubject: (service) => `${service}のログイン用確認コード`,
  emailIntro: (service) => `次のコードを使って、${service}にログインしてください。`,
  expiry: (minutes) => `このコードは${minutes}間有効です。`,
  emailIgnore:
    'このコードをリクエストした覚えがない場合は、このメールを無視していただいて問題ありません。コードは誰にも教えないでください。',
  voiceIntro: (service) => `${service}の確認コードは`,
  voiceAgain: 'もう一度お伝えします。確認コードは',
  voiceId: 'MIZUKI',
};

/** The hosted login page (lib/login/login-page.ts). */
export const jaJPLogin: LoginPageStrings = {
  title: (service) => `${service}にログイン`,
  userIdLabel: 'メールアドレスまたは電話番号',
  userIdHint: '電話番号は、+と国番号から入力してください。',
  channelLegend: '電話番号へのコードの送信方法',
  channelSms: 'SMS',
  channelVoice: '音声通話',
  sendCode: 'コードを送信',
  codeSent: (destination) => `${destination}に6桁のコードを送信しました。`,
  codeCalled: (destination) => `${destination}に電話をかけています。6桁のコードを音声でお伝えします。`,
  codeLabel: '6桁のコード',
  signIn: 'ログイン',
  resend: '新しいコードを送信',
  changeUser: '別のメールアドレスまたは電話番号を使用',
  newCodeSent: '新しいコードを送信しました。',
  invalidUserId: 'メールアドレス、または+と国番号から始まる電話番号を入力してください。',
  invalidCode: '6桁のコードを入力してください。',
  wrongCode: 'コードが正しくありません。確認して、もう一度お試しください。',
  codeDead: 'このコードは使用できなくなりました。新しいコードを送信してください。',
  blocked: (retryIn) => `試行回数が多すぎます。${retryIn}にもう一度お試しください。`,
  deliveryFailed: 'コードを送信できませんでした。しばらくしてからもう一度お試しください。',
  unavailable: '当社側で問題が発生しました。しばらくしてからもう一度お試しください。',
  destinationNotAllowed: 'この電話番号にはコードを送信できません。メールアドレスまたは別の電話番号をご利用ください。',
  tooManySends: (retryIn) => `コードのリクエストが多すぎます。${retryIn}にもう一度お試しいただくか、メールアドレスをご利用ください。`,
  phoneUnavailable:
    'SMSと音声通話によるコードの送信は現在ご利用いただけません。メールアドレスをご利用いただくか、しばらくしてからもう一度お試しください。',
  expired: 'このログインページの有効期限が切れました。アプリに戻って、最初からやり直してください。',
  invalidRequestTitle: 'このログインリンクは無効です',
  invalidRequestBody: '元のアプリに戻って、もう一度お試しください。',
  // The account chooser (a live session).
  chooseAccountTitle: 'アカウントの選択',
  continueAs: (destination) => `${destination}で続行`,
  useAnotherAccount: '別のアカウントを使用',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `${service}からログアウトしますか？`,
  logoutBody: 'このブラウザでのログインが終了します。',
  logoutConfirm: 'ログアウト',
  logoutCancel: 'ログインしたままにする',
  signedOutTitle: (service) => `${service}からログアウトしました`,
  stillSignedInTitle: (service) => `${service}にログインしたままです`,
  closeWindow: 'このウィンドウは閉じてかまいません。',
  logoutInvalidTitle: 'このログアウトリンクは無効です',
  logoutExpired: 'このログアウトページの有効期限が切れました。アプリに戻って、もう一度ログアウトしてください。',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'パスキーでログイン',
  passkeyFailed: 'このパスキーではログインできませんでした。もう一度お試しください。',
  passkeyRequired: 'このアプリではパスキーでのログインが必要です。',
  passkeyNeedsScript: 'パスキーでログインするにはJavaScriptが必要です。JavaScriptを有効にして、このページを再読み込みしてください。',
  passkeysTitle: '次回はコードなしでログイン',
  passkeyOffer: 'パスキーを作成すると、コードの代わりに指紋認証、顔認証、または画面ロックでログインできます。',
  signedInAs: (destination) => `${destination}でログイン中`,
  createPasskey: 'パスキーを作成',
  notNow: '後で',
  continueToApp: '続行',
  yourPasskeys: 'お使いのパスキー',
  passkeyCreatedOn: (date) => `作成日：${date}`,
  passkeyLastUsed: (date) => `最終使用日：${date}`,
  passkeyNotUsed: '未使用',
  removePasskey: (name) => `${name}を削除`,
  passkeyCreated: 'パスキーを作成しました。次回からはパスキーでログインできます。',
  passkeyRemoved: 'パスキーを削除しました。',
  passkeyCreateFailed: 'パスキーを作成できませんでした。もう一度お試しいただくか、パスキーなしで続行してください。',
  unnamedPasskey: 'パスキー',
};
