/** Turkish (Turkey). */
import type { LocaleStrings, LoginPageStrings } from './types';

// The polite "siz" ("girin", "kodunuz"), as Turkish software addresses its users; buttons keep the
// bare verb ("Giriş yap"), as Turkish interfaces do. The service name never takes a suffix:
// Turkish suffixes follow the name's vowels and final sound (vowel harmony), which are unknown, so
// the name only ever modifies a noun ("Acme giriş kodunuz") or ends a clause.
export const trTR: LocaleStrings = {
  // Turkish keeps the noun singular after a number ("5 dakika").
  minute: { one: 'dakika', other: 'dakika' },
  // Turkish letters (ç, ğ, ı, ş) are not in GSM-7 (only the Turkish national shift table has them,
  // which not every carrier supports): UCS-2.
  // Measured (5-minute code): one segment, 64 of 70 units for "Acme"; names up to 10 characters
  // fit, a 40-character one takes 2 segments (100 units).
  sms: (service, code, minutes) => `${service} kodunuz: ${code}. ${minutes} geçerlidir. Kimseyle paylaşmayın.`,
  emailSubject: (service) => `${service} giriş kodunuz`,
  emailIntro: (service) => `${service} hesabınıza giriş yapmak için bu kodu kullanın:`,
  expiry: (minutes) => `Kod ${minutes} geçerlidir.`,
  emailIgnore: 'Bu kodu siz istemediyseniz bu e-postayı güvenle yok sayabilirsiniz. Kodu kimseyle paylaşmayın.',
  voiceIntro: (service) => `${service} giriş kodunuz`,
  voiceAgain: 'Tekrar ediyorum, kodunuz',
  voiceId: 'FILIZ',
};

/** The hosted login page (lib/login/login-page.ts). */
export const trTRLogin: LoginPageStrings = {
  title: (service) => `${service} hesabınıza giriş yapın`,
  userIdLabel: 'E-posta adresi veya telefon numarası',
  userIdHint: 'Telefon numarasını + ve ülke koduyla başlayarak yazın.',
  channelLegend: 'Telefon numarasına kod gönderme yöntemi',
  channelSms: 'SMS',
  channelVoice: 'Sesli arama',
  sendCode: 'Kod gönder',
  codeSent: (destination) => `6 haneli bir kod gönderdik: ${destination}`,
  codeCalled: (destination) => `6 haneli kodu size okumak için arıyoruz: ${destination}`,
  codeLabel: '6 haneli kod',
  signIn: 'Giriş yap',
  resend: 'Yeni kod gönder',
  changeUser: 'Başka bir e-posta veya telefon kullan',
  newCodeSent: 'Yeni kodunuz yolda.',
  invalidUserId: 'Bir e-posta adresi ya da + ve ülke koduyla başlayan bir telefon numarası girin.',
  invalidCode: 'Kodun 6 hanesini girin.',
  wrongCode: 'Bu kod doğru değil. Kontrol edip tekrar deneyin.',
  codeDead: 'Bu kod artık kullanılamaz. Yeni bir kod isteyin.',
  blocked: (retryIn) => `Çok fazla deneme yapıldı. ${retryIn} tekrar deneyin.`,
  deliveryFailed: 'Kodu gönderemedik. Birazdan tekrar deneyin.',
  unavailable: 'Bizim tarafımızda bir sorun oluştu. Birazdan tekrar deneyin.',
  destinationNotAllowed: 'Bu telefon numarasına kod gönderemiyoruz. Bir e-posta adresi veya başka bir telefon numarası kullanın.',
  tooManySends: (retryIn) => `Çok fazla kod istendi. ${retryIn} tekrar deneyin veya bir e-posta adresi kullanın.`,
  phoneUnavailable:
    'SMS ve sesli arama ile kod gönderimi şu anda kullanılamıyor. Bir e-posta adresi kullanın veya daha sonra tekrar deneyin.',
  expired: 'Bu giriş sayfasının süresi doldu. Uygulamaya dönüp yeniden başlayın.',
  invalidRequestTitle: 'Bu giriş bağlantısı geçerli değil',
  invalidRequestBody: 'Geldiğiniz uygulamaya dönüp tekrar deneyin.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Bir hesap seçin',
  continueAs: (destination) => `${destination} olarak devam et`,
  useAnotherAccount: 'Başka bir hesap kullan',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `${service} hesabınızdan çıkış yapılsın mı?`,
  logoutBody: 'Bu tarayıcıdaki oturumunuz kapatılacak.',
  logoutConfirm: 'Çıkış yap',
  logoutCancel: 'Oturumu açık tut',
  signedOutTitle: (service) => `${service} hesabınızdan çıkış yaptınız`,
  stillSignedInTitle: (service) => `${service} hesabınızdaki oturumunuz hâlâ açık`,
  closeWindow: 'Bu pencereyi artık kapatabilirsiniz.',
  logoutInvalidTitle: 'Bu çıkış bağlantısı geçerli değil',
  logoutExpired: 'Bu çıkış sayfasının süresi doldu. Uygulamaya dönüp yeniden çıkış yapın.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Geçiş anahtarıyla giriş yap',
  passkeyFailed: 'Bu geçiş anahtarıyla giriş yapılamadı. Tekrar deneyin.',
  passkeyRequired: 'Bu uygulama geçiş anahtarıyla giriş yapmanızı istiyor.',
  passkeyNeedsScript: "Geçiş anahtarıyla giriş için JavaScript gerekir. JavaScript'i açıp bu sayfayı yeniden yükleyin.",
  passkeysTitle: 'Bir dahaki sefere kodsuz',
  passkeyOffer: 'Bir geçiş anahtarı oluşturun; kod yerine parmak iziniz, yüzünüz veya ekran kilidinizle giriş yapın.',
  signedInAs: (destination) => `Giriş yapılan hesap: ${destination}`,
  createPasskey: 'Geçiş anahtarı oluştur',
  notNow: 'Şimdi değil',
  continueToApp: 'Devam et',
  yourPasskeys: 'Geçiş anahtarlarınız',
  passkeyCreatedOn: (date) => `Oluşturulma: ${date}`,
  passkeyLastUsed: (date) => `Son kullanım: ${date}`,
  passkeyNotUsed: 'Henüz kullanılmadı',
  removePasskey: (name) => `Kaldır: ${name}`,
  passkeyCreated: 'Geçiş anahtarınız hazır. Bir sonraki girişinizde kullanın.',
  passkeyRemoved: 'Geçiş anahtarı kaldırıldı.',
  passkeyCreateFailed: 'Geçiş anahtarı oluşturulmadı. Tekrar deneyin veya geçiş anahtarı olmadan devam edin.',
  unnamedPasskey: 'Geçiş anahtarı',
};
