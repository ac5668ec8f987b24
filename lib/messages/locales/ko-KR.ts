/** Korean (South Korea). */
import type { LocaleStrings, LoginPageStrings } from './types';

// The polite 합니다/하세요 forms, as Korean services write to their users; 인증번호 for the code,
// the word Korean users know from every verification SMS. Korean particles change with the last
// sound of the word they follow (은/는, 을/를, 으로/로), which for the service name or a masked
// destination is unknown: those only ever stand before a noun, in brackets, before 에 (which
// never changes), or after a colon.
export const koKR: LocaleStrings = {
  // Korean has no plural. The renderer puts a space between the number and the word ("5 분"),
  // which Korean would not write; see lib/messages/locale.ts formatMinutes.
  minute: { other: '분' },
  // UCS-2. The bracketed sender name opens Korean verification SMS by convention.
  // Measured (5-minute code): one segment, 56 of 70 units for "Acme"; names up to 18 characters
  // fit, a 40-character one takes 2 segments (92 units).
  sms: (service, code, minutes) => `[${service}] 인증번호는 ${code}입니다. ${minutes} 동안 유효합니다. 다른 사람에게 알려 주지 마세요.`,
  emailSubject: (service) => `[${service}] 로그인 인증번호`,
  emailIntro: (service) => `${service}에 로그인하려면 다음 인증번호를 입력하세요.`,
  expiry: (minutes) => `이 인증번호는 ${minutes} 동안 유효합니다.`,
  emailIgnore: '인증번호를 요청하지 않으셨다면 이 이메일은 무시하셔도 됩니다. 인증번호는 다른 사람에게 알려 주지 마세요.',
  voiceIntro: (service) => `${service} 인증번호는`,
  voiceAgain: '다시 한번 말씀드립니다. 인증번호는',
  voiceId: 'SEOYEON',
};

/** The hosted login page (lib/login/login-page.ts). */
export const koKRLogin: LoginPageStrings = {
  title: (service) => `${service}에 로그인`,
  userIdLabel: '이메일 주소 또는 전화번호',
  userIdHint: '전화번호는 +와 국가 번호로 시작하세요.',
  channelLegend: '전화번호로 인증번호를 받는 방법',
  channelSms: '문자 메시지',
  channelVoice: '음성 전화',
  sendCode: '인증번호 보내기',
  codeSent: (destination) => `6자리 인증번호를 보냈습니다: ${destination}`,
  codeCalled: (destination) => `6자리 인증번호를 알려 드리기 위해 전화를 걸고 있습니다: ${destination}`,
  codeLabel: '6자리 인증번호',
  signIn: '로그인',
  resend: '인증번호 다시 보내기',
  changeUser: '다른 이메일 또는 전화번호 사용',
  newCodeSent: '새 인증번호를 보냈습니다.',
  invalidUserId: '이메일 주소 또는 +와 국가 번호로 시작하는 전화번호를 입력하세요.',
  invalidCode: '인증번호 6자리를 입력하세요.',
  wrongCode: '인증번호가 올바르지 않습니다. 확인 후 다시 시도하세요.',
  codeDead: '이 인증번호는 더 이상 사용할 수 없습니다. 새 인증번호를 요청하세요.',
  blocked: (retryIn) => `시도 횟수가 너무 많습니다. ${retryIn} 다시 시도하세요.`,
  deliveryFailed: '인증번호를 보내지 못했습니다. 잠시 후 다시 시도하세요.',
  unavailable: '저희 쪽에 문제가 발생했습니다. 잠시 후 다시 시도하세요.',
  destinationNotAllowed: '이 전화번호로는 인증번호를 보낼 수 없습니다. 이메일 주소나 다른 전화번호를 사용하세요.',
  tooManySends: (retryIn) => `인증번호 요청이 너무 많습니다. ${retryIn} 다시 시도하거나 이메일 주소를 사용하세요.`,
  phoneUnavailable: '지금은 문자 메시지와 음성 전화로 인증번호를 보낼 수 없습니다. 이메일 주소를 사용하거나 나중에 다시 시도하세요.',
  expired: '로그인 페이지가 만료되었습니다. 앱으로 돌아가 처음부터 다시 시작하세요.',
  invalidRequestTitle: '유효하지 않은 로그인 링크입니다',
  invalidRequestBody: '이전 앱으로 돌아가 다시 시도하세요.',
  // The account chooser (a live session).
  chooseAccountTitle: '계정 선택',
  continueAs: (destination) => `다음 계정으로 계속: ${destination}`,
  useAnotherAccount: '다른 계정 사용',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `${service}에서 로그아웃하시겠습니까?`,
  logoutBody: '이 브라우저에서 로그아웃됩니다.',
  logoutConfirm: '로그아웃',
  logoutCancel: '로그인 상태 유지',
  signedOutTitle: (service) => `${service}에서 로그아웃되었습니다`,
  stillSignedInTitle: (service) => `${service}에 로그인된 상태입니다`,
  closeWindow: '이제 이 창을 닫아도 됩니다.',
  logoutInvalidTitle: '유효하지 않은 로그아웃 링크입니다',
  logoutExpired: '로그아웃 페이지가 만료되었습니다. 앱으로 돌아가 다시 로그아웃하세요.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: '패스키로 로그인',
  passkeyFailed: '이 패스키로 로그인하지 못했습니다. 다시 시도하세요.',
  passkeyRequired: '이 앱은 패스키로 로그인해야 합니다.',
  passkeyNeedsScript: '패스키로 로그인하려면 JavaScript가 필요합니다. JavaScript를 켜고 이 페이지를 새로고침하세요.',
  passkeysTitle: '다음부터는 인증번호 없이 로그인',
  passkeyOffer: '패스키를 만들면 인증번호 대신 지문, 얼굴 또는 화면 잠금으로 로그인할 수 있습니다.',
  signedInAs: (destination) => `로그인한 계정: ${destination}`,
  createPasskey: '패스키 만들기',
  notNow: '나중에',
  continueToApp: '계속',
  yourPasskeys: '내 패스키',
  passkeyCreatedOn: (date) => `생성일: ${date}`,
  passkeyLastUsed: (date) => `마지막 사용: ${date}`,
  passkeyNotUsed: '아직 사용하지 않음',
  removePasskey: (name) => `삭제: ${name}`,
  passkeyCreated: '패스키가 준비되었습니다. 다음 로그인 때 사용하세요.',
  passkeyRemoved: '패스키를 삭제했습니다.',
  passkeyCreateFailed: '패스키를 만들지 못했습니다. 다시 시도하거나 패스키 없이 계속하세요.',
  unnamedPasskey: '패스키',
};
