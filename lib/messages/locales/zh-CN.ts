/** Chinese (Simplified, China). */
import type { LocaleStrings, LoginPageStrings } from './types';

// 您, the polite "you" that Chinese services use with their users; 验证码 for the code, the word of
// every verification SMS in China.
export const zhCN: LocaleStrings = {
  // Chinese has no plural. The renderer puts a space between the number and the word ("5 分钟"),
  // which mixed Chinese and Latin typesetting tolerates; see lib/messages/locale.ts formatMinutes.
  minute: { other: '分钟' },
  // UCS-2. The sender's name in 【】 opens every business SMS in China (a signature the carriers require).
  // Measured (5-minute code): one segment, 34 of 70 units for "Acme" and exactly 70 for a
  // 40-character name (which a lifetime of 10 minutes or more tips into two segments).
  sms: (service, code, minutes) => `【${service}】您的验证码是${code}，${minutes}内有效，请勿告诉他人。`,
  emailSubject: (service) => `您的${service}登录验证码`,
  emailIntro: (service) => `请使用以下验证码登录${service}：`,
  expiry: (minutes) => `验证码${minutes}内有效。`,
  emailIgnore: '如果您没有申请此验证码，可以放心忽略此邮件。请勿将验证码告诉任何人。',
  voiceIntro: (service) => `您的${service}验证码是`,
  voiceAgain: '重复一遍，您的验证码是',
  voiceId: 'ZHIYU',
};

/** The hosted login page (lib/login/login-page.ts). */
export const zhCNLogin: LoginPageStrings = {
  title: (service) => `登录${service}`,
  userIdLabel: '邮箱地址或电话号码',
  userIdHint: '电话号码请以+和国家/地区代码开头。',
  channelLegend: '电话号码接收验证码的方式',
  channelSms: '短信',
  channelVoice: '语音电话',
  sendCode: '发送验证码',
  codeSent: (destination) => `我们已向${destination}发送了6位数验证码。`,
  codeCalled: (destination) => `我们正在呼叫${destination}，为您播报6位数验证码。`,
  codeLabel: '6位数验证码',
  signIn: '登录',
  resend: '重新发送验证码',
  changeUser: '使用其他邮箱或电话号码',
  newCodeSent: '新的验证码已发出。',
  invalidUserId: '请输入邮箱地址，或以+和国家/地区代码开头的电话号码。',
  invalidCode: '请输入6位数验证码。',
  wrongCode: '验证码不正确。请检查后重试。',
  codeDead: '此验证码已无法使用。请重新发送验证码。',
  blocked: (retryIn) => `尝试次数过多。请${retryIn}重试。`,
  deliveryFailed: '我们未能发送验证码。请稍后重试。',
  unavailable: '我们这边出了点问题。请稍后重试。',
  destinationNotAllowed: '无法向此电话号码发送验证码。请使用邮箱地址或其他电话号码。',
  tooManySends: (retryIn) => `验证码请求过多。请${retryIn}重试，或使用邮箱地址。`,
  phoneUnavailable: '短信和语音电话验证码暂时无法使用。请使用邮箱地址，或稍后重试。',
  expired: '此登录页面已过期。请返回应用重新开始。',
  invalidRequestTitle: '此登录链接无效',
  invalidRequestBody: '请返回您之前使用的应用，然后重试。',
  // The account chooser (a live session).
  chooseAccountTitle: '选择账号',
  continueAs: (destination) => `以${destination}继续`,
  useAnotherAccount: '使用其他账号',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `要退出${service}吗？`,
  logoutBody: '您将在此浏览器中退出登录。',
  logoutConfirm: '退出登录',
  logoutCancel: '保持登录',
  signedOutTitle: (service) => `您已退出${service}`,
  stillSignedInTitle: (service) => `您仍已登录${service}`,
  closeWindow: '现在可以关闭此窗口。',
  logoutInvalidTitle: '此退出链接无效',
  logoutExpired: '此退出页面已过期。请返回应用重新退出登录。',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: '使用通行密钥登录',
  passkeyFailed: '无法使用此通行密钥登录。请重试。',
  passkeyRequired: '此应用要求使用通行密钥登录。',
  passkeyNeedsScript: '使用通行密钥登录需要JavaScript。请启用后重新加载此页面。',
  passkeysTitle: '下次登录无需验证码',
  passkeyOffer: '创建通行密钥后，即可使用指纹、面容或屏幕锁登录，无需输入验证码。',
  signedInAs: (destination) => `已登录：${destination}`,
  createPasskey: '创建通行密钥',
  notNow: '以后再说',
  continueToApp: '继续',
  yourPasskeys: '您的通行密钥',
  passkeyCreatedOn: (date) => `创建于${date}`,
  passkeyLastUsed: (date) => `上次使用：${date}`,
  passkeyNotUsed: '尚未使用',
  removePasskey: (name) => `删除${name}`,
  passkeyCreated: '通行密钥已创建。下次登录时即可使用。',
  passkeyRemoved: '通行密钥已删除。',
  passkeyCreateFailed: '未能创建通行密钥。请重试，或不使用通行密钥继续。',
  unnamedPasskey: '通行密钥',
};
