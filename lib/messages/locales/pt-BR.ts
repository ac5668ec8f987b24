/** Portuguese (Brazil). */
import type { LocaleStrings, LoginPageStrings } from './types';

export const ptBR: LocaleStrings = {
  // CLDR puts 0 and 1 in "one"; "many" is for millions ("1 000 000 de minutos"), which no code
  // lifetime reaches, so it keeps the plain plural.
  minute: { one: 'minuto', many: 'minutos', other: 'minutos' },
  // "Service: …" sidesteps the article (do/da) that a Portuguese sentence would need to agree
  // with the service name's unknown gender.
  // Measured (5-minute code): UCS-2 for "ó" and "ã", two segments: 90 units for "Acme" (one holds
  // 70), 126 for a 40-character name. pt-PT's shorter sentence fits one for names up to 9 characters.
  sms: (service, code, minutes) => `${service}: seu código de acesso é ${code}. Ele expira em ${minutes}. Não compartilhe com ninguém.`,
  emailSubject: (service) => `${service}: seu código de acesso`,
  emailIntro: (service) => `Use este código para entrar na sua conta ${service}:`,
  expiry: (minutes) => `Ele expira em ${minutes}.`,
  emailIgnore: 'Se você não solicitou este código, pode ignorar este e-mail. Não compartilhe o código com ninguém.',
  voiceIntro: (service) => `${service}: seu código de acesso é`,
  voiceAgain: 'Repetindo, seu código é',
  voiceId: 'CAMILA',
};

/** The hosted login page (lib/login/login-page.ts). */
export const ptBRLogin: LoginPageStrings = {
  title: (service) => `Entrar em ${service}`,
  userIdLabel: 'E-mail ou número de telefone',
  userIdHint: 'Para um número de telefone, comece com + e o código do país.',
  channelLegend: 'Para um número de telefone, enviar o código por',
  channelSms: 'SMS',
  channelVoice: 'Ligação',
  sendCode: 'Enviar código',
  codeSent: (destination) => `Enviamos um código de 6 dígitos para ${destination}.`,
  codeCalled: (destination) => `Estamos ligando para ${destination} para ler um código de 6 dígitos.`,
  codeLabel: 'Código de 6 dígitos',
  signIn: 'Entrar',
  resend: 'Enviar um novo código',
  changeUser: 'Usar outro e-mail ou telefone',
  newCodeSent: 'Um novo código está a caminho.',
  invalidUserId: 'Digite um e-mail ou um número de telefone que comece com + e o código do país.',
  invalidCode: 'Digite os 6 dígitos do código.',
  wrongCode: 'Esse código não está correto. Confira e tente de novo.',
  codeDead: 'Este código não pode mais ser usado. Peça um novo código.',
  blocked: (retryIn) => `Muitas tentativas. Tente de novo ${retryIn}.`,
  deliveryFailed: 'Não conseguimos enviar o código. Tente de novo daqui a pouco.',
  unavailable: 'Algo deu errado do nosso lado. Tente de novo daqui a pouco.',
  destinationNotAllowed: 'Não podemos enviar códigos para este número de telefone. Use um e-mail ou outro número de telefone.',
  tooManySends: (retryIn) => `Muitos códigos foram solicitados. Tente de novo ${retryIn} ou use um e-mail.`,
  phoneUnavailable: 'Os códigos por SMS e ligação estão indisponíveis no momento. Use um e-mail ou tente de novo mais tarde.',
  expired: 'Esta página de acesso expirou. Volte ao aplicativo e comece de novo.',
  invalidRequestTitle: 'Este link de acesso não é válido',
  invalidRequestBody: 'Volte ao aplicativo de onde você veio e tente de novo.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Escolha uma conta',
  continueAs: (destination) => `Continuar como ${destination}`,
  useAnotherAccount: 'Usar outra conta',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Sair de ${service}?`,
  logoutBody: 'Você vai sair da sua conta neste navegador.',
  logoutConfirm: 'Sair',
  logoutCancel: 'Continuar na conta',
  signedOutTitle: (service) => `Você saiu de ${service}`,
  stillSignedInTitle: (service) => `Sua sessão em ${service} continua ativa`,
  closeWindow: 'Você já pode fechar esta janela.',
  logoutInvalidTitle: 'Este link para sair não é válido',
  logoutExpired: 'Esta página para sair expirou. Volte ao aplicativo e saia de novo.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Entrar com uma chave de acesso',
  passkeyFailed: 'Não foi possível entrar com essa chave de acesso. Tente de novo.',
  passkeyRequired: 'Este aplicativo pede que você entre com uma chave de acesso.',
  passkeyNeedsScript: 'Para entrar com uma chave de acesso, é preciso ter o JavaScript ativado. Ative e recarregue esta página.',
  passkeysTitle: 'Da próxima vez, sem código',
  passkeyOffer: 'Crie uma chave de acesso e entre com sua digital, seu rosto ou o bloqueio de tela em vez de um código.',
  signedInAs: (destination) => `Você entrou com ${destination}`,
  createPasskey: 'Criar uma chave de acesso',
  notNow: 'Agora não',
  continueToApp: 'Continuar',
  yourPasskeys: 'Suas chaves de acesso',
  passkeyCreatedOn: (date) => `Criada em ${date}`,
  passkeyLastUsed: (date) => `Último uso em ${date}`,
  passkeyNotUsed: 'Ainda não usada',
  removePasskey: (name) => `Remover ${name}`,
  passkeyCreated: 'Sua chave de acesso está pronta. Use-a da próxima vez que entrar.',
  passkeyRemoved: 'A chave de acesso foi removida.',
  passkeyCreateFailed: 'A chave de acesso não foi criada. Tente de novo ou continue sem ela.',
  unnamedPasskey: 'Chave de acesso',
};
