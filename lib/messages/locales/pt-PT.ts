/** Portuguese (Portugal). */
import type { LocaleStrings, LoginPageStrings } from './types';

// The courteous third person without a pronoun ("Introduza", "o seu código"), as Portuguese services
// write: "você" reads as distant or curt in Portugal, and "tu" as too familiar for a sign-in.
export const ptPT: LocaleStrings = {
  // CLDR puts only 1 in "one" here (pt-BR also 0); "many" is for millions ("1 000 000 de minutos"),
  // which no code lifetime reaches, so it keeps the plain plural.
  minute: { one: 'minuto', many: 'minutos', other: 'minutos' },
  // "Service: …" sidesteps the article (do/da) that a Portuguese sentence would need to agree
  // with the service name's unknown gender, as in pt-BR.
  // Measured (5-minute code): one segment, 65 of 70 units for "Acme"; names up to 9 characters
  // fit, a 40-character one takes 2 segments (101 units).
  sms: (service, code, minutes) => `${service}: o seu código é ${code}. Expira em ${minutes}. Não o partilhe.`,
  emailSubject: (service) => `${service}: o seu código de acesso`,
  // "na sua conta …" for the same reason: "em"/"no"/"na" before a bare name depends on its gender.
  emailIntro: (service) => `Utilize este código para iniciar sessão na sua conta ${service}:`,
  expiry: (minutes) => `Expira em ${minutes}.`,
  emailIgnore: 'Se não pediu este código, pode ignorar este email em segurança. Não partilhe o código com ninguém.',
  voiceIntro: (service) => `${service}: o seu código de acesso é`,
  voiceAgain: 'Repito, o seu código é',
  voiceId: 'INES',
};

/** The hosted login page (lib/login/login-page.ts). */
export const ptPTLogin: LoginPageStrings = {
  title: (service) => `Iniciar sessão na sua conta ${service}`,
  userIdLabel: 'Email ou número de telefone',
  userIdHint: 'Para um número de telefone, comece por + e o indicativo do país.',
  channelLegend: 'Para um número de telefone, enviar o código por',
  channelSms: 'SMS',
  channelVoice: 'Chamada de voz',
  sendCode: 'Enviar código',
  codeSent: (destination) => `Enviámos um código de 6 dígitos para ${destination}.`,
  codeCalled: (destination) => `Estamos a ligar para o ${destination} para lhe ler um código de 6 dígitos.`,
  codeLabel: 'Código de 6 dígitos',
  signIn: 'Iniciar sessão',
  resend: 'Enviar um novo código',
  changeUser: 'Utilizar outro email ou telefone',
  newCodeSent: 'Um novo código está a caminho.',
  invalidUserId: 'Introduza um email ou um número de telefone que comece por + e o indicativo do país.',
  invalidCode: 'Introduza os 6 dígitos do código.',
  wrongCode: 'Esse código não está correto. Verifique-o e tente novamente.',
  codeDead: 'Este código já não pode ser utilizado. Peça um novo código.',
  blocked: (retryIn) => `Demasiadas tentativas. Tente novamente ${retryIn}.`,
  deliveryFailed: 'Não conseguimos enviar o código. Tente novamente daqui a pouco.',
  unavailable: 'Ocorreu um erro do nosso lado. Tente novamente daqui a pouco.',
  destinationNotAllowed: 'Não podemos enviar códigos para este número de telefone. Utilize um email ou outro número de telefone.',
  tooManySends: (retryIn) => `Foram pedidos demasiados códigos. Tente novamente ${retryIn} ou utilize um email.`,
  phoneUnavailable: 'Os códigos por SMS e chamada de voz estão indisponíveis de momento. Utilize um email ou tente novamente mais tarde.',
  expired: 'Esta página de início de sessão expirou. Volte à aplicação e comece de novo.',
  invalidRequestTitle: 'Este link de início de sessão não é válido',
  invalidRequestBody: 'Volte à aplicação de onde veio e tente novamente.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Escolha uma conta',
  continueAs: (destination) => `Continuar como ${destination}`,
  useAnotherAccount: 'Utilizar outra conta',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Terminar sessão na sua conta ${service}?`,
  logoutBody: 'A sua sessão neste navegador será terminada.',
  logoutConfirm: 'Terminar sessão',
  logoutCancel: 'Manter sessão iniciada',
  signedOutTitle: (service) => `Terminou sessão na sua conta ${service}`,
  stillSignedInTitle: (service) => `A sua sessão na conta ${service} continua iniciada`,
  closeWindow: 'Já pode fechar esta janela.',
  logoutInvalidTitle: 'Este link para terminar sessão não é válido',
  logoutExpired: 'Esta página para terminar sessão expirou. Volte à aplicação e termine sessão novamente.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Iniciar sessão com uma chave de acesso',
  passkeyFailed: 'Não foi possível iniciar sessão com essa chave de acesso. Tente novamente.',
  passkeyRequired: 'Esta aplicação pede-lhe que inicie sessão com uma chave de acesso.',
  passkeyNeedsScript: 'Para iniciar sessão com uma chave de acesso, é necessário o JavaScript. Ative-o e recarregue esta página.',
  passkeysTitle: 'Da próxima vez, sem código',
  passkeyOffer: 'Crie uma chave de acesso e inicie sessão com a impressão digital, o rosto ou o bloqueio de ecrã em vez de um código.',
  signedInAs: (destination) => `Sessão iniciada com ${destination}`,
  createPasskey: 'Criar uma chave de acesso',
  notNow: 'Agora não',
  continueToApp: 'Continuar',
  yourPasskeys: 'As suas chaves de acesso',
  passkeyCreatedOn: (date) => `Criada a ${date}`,
  passkeyLastUsed: (date) => `Utilizada pela última vez a ${date}`,
  passkeyNotUsed: 'Ainda não utilizada',
  removePasskey: (name) => `Remover ${name}`,
  passkeyCreated: 'A sua chave de acesso está pronta. Utilize-a da próxima vez que iniciar sessão.',
  passkeyRemoved: 'A chave de acesso foi removida.',
  passkeyCreateFailed: 'A chave de acesso não foi criada. Tente novamente ou continue sem ela.',
  unnamedPasskey: 'Chave de acesso',
};
