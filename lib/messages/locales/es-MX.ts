/** Spanish (Mexico). */
import type { LocaleStrings, LoginPageStrings } from './types';

// "Tú", as in es-ES: Mexican consumer apps address the user as "tú"; "usted" would read as a bank
// letter. Mexican usage otherwise: the preterite ("Enviamos", not "Hemos enviado"), "vence".
export const esMX: LocaleStrings = {
  // CLDR's "many" is for millions ("1 000 000 de minutos"), which no code lifetime reaches, so it
  // keeps the plain plural.
  minute: { one: 'minuto', many: 'minutos', other: 'minutos' },
  // Measured (5-minute code): one segment, 65 of 70 units for "Acme"; names up to 9 characters
  // fit, a 40-character one takes 2 segments (101 units).
  sms: (service, code, minutes) => `Tu código de ${service} es ${code}. Vence en ${minutes}. No lo compartas.`,
  emailSubject: (service) => `Tu código para iniciar sesión en ${service}`,
  emailIntro: (service) => `Usa este código para iniciar sesión en ${service}:`,
  expiry: (minutes) => `Vence en ${minutes}.`,
  emailIgnore: 'Si no solicitaste este código, puedes ignorar este correo sin problema. No lo compartas con nadie.',
  voiceIntro: (service) => `Tu código de ${service} es`,
  voiceAgain: 'Repito, tu código es',
  voiceId: 'MIA',
};

/** The hosted login page (lib/login/login-page.ts). */
export const esMXLogin: LoginPageStrings = {
  title: (service) => `Iniciar sesión en ${service}`,
  userIdLabel: 'Correo electrónico o número de teléfono',
  userIdHint: 'Para un número de teléfono, empieza con + y el código de país.',
  channelLegend: 'Para un número de teléfono, enviar el código por',
  channelSms: 'Mensaje de texto',
  channelVoice: 'Llamada',
  sendCode: 'Enviar código',
  codeSent: (destination) => `Enviamos un código de 6 dígitos a ${destination}.`,
  codeCalled: (destination) => `Estamos llamando al ${destination} para leerte un código de 6 dígitos.`,
  codeLabel: 'Código de 6 dígitos',
  signIn: 'Iniciar sesión',
  resend: 'Enviar un código nuevo',
  changeUser: 'Usar otro correo o teléfono',
  newCodeSent: 'Ya te enviamos un código nuevo.',
  invalidUserId: 'Escribe un correo electrónico o un número de teléfono que empiece con + y el código de país.',
  invalidCode: 'Escribe los 6 dígitos del código.',
  wrongCode: 'Ese código no es correcto. Revísalo e inténtalo de nuevo.',
  codeDead: 'Este código ya no se puede usar. Solicita un código nuevo.',
  blocked: (retryIn) => `Demasiados intentos. Vuelve a intentarlo ${retryIn}.`,
  deliveryFailed: 'No pudimos enviar el código. Inténtalo de nuevo en un momento.',
  unavailable: 'Algo salió mal de nuestro lado. Inténtalo de nuevo en un momento.',
  destinationNotAllowed: 'No podemos enviar códigos a este número de teléfono. Usa un correo electrónico u otro número de teléfono.',
  tooManySends: (retryIn) => `Se solicitaron demasiados códigos. Vuelve a intentarlo ${retryIn} o usa un correo electrónico.`,
  phoneUnavailable:
    'Los códigos por mensaje de texto y llamada no están disponibles en este momento. Usa un correo electrónico o inténtalo más tarde.',
  expired: 'Esta página de inicio de sesión expiró. Regresa a la aplicación y vuelve a empezar.',
  invalidRequestTitle: 'Este enlace de inicio de sesión no es válido',
  invalidRequestBody: 'Regresa a la aplicación de la que venías e inténtalo de nuevo.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Elige una cuenta',
  continueAs: (destination) => `Continuar como ${destination}`,
  useAnotherAccount: 'Usar otra cuenta',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `¿Cerrar sesión en ${service}?`,
  logoutBody: 'Se cerrará tu sesión en este navegador.',
  logoutConfirm: 'Cerrar sesión',
  logoutCancel: 'Mantener la sesión iniciada',
  signedOutTitle: (service) => `Cerraste sesión en ${service}`,
  stillSignedInTitle: (service) => `Sigues con la sesión iniciada en ${service}`,
  closeWindow: 'Ya puedes cerrar esta ventana.',
  logoutInvalidTitle: 'Este enlace para cerrar sesión no es válido',
  logoutExpired: 'Esta página para cerrar sesión expiró. Regresa a la aplicación y vuelve a cerrar sesión.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Iniciar sesión con una llave de acceso',
  passkeyFailed: 'No pudimos iniciar tu sesión con esa llave de acceso. Vuelve a intentarlo.',
  passkeyRequired: 'Esta aplicación te pide que inicies sesión con una llave de acceso.',
  passkeyNeedsScript: 'Para iniciar sesión con una llave de acceso se necesita JavaScript. Actívalo y vuelve a cargar esta página.',
  passkeysTitle: 'La próxima vez, sin código',
  passkeyOffer: 'Crea una llave de acceso e inicia sesión con tu huella, tu rostro o el bloqueo de pantalla en lugar de un código.',
  signedInAs: (destination) => `Sesión iniciada con ${destination}`,
  createPasskey: 'Crear una llave de acceso',
  notNow: 'Ahora no',
  continueToApp: 'Continuar',
  yourPasskeys: 'Tus llaves de acceso',
  passkeyCreatedOn: (date) => `Creada el ${date}`,
  passkeyLastUsed: (date) => `Último uso: ${date}`,
  passkeyNotUsed: 'Todavía no se usa',
  removePasskey: (name) => `Eliminar ${name}`,
  passkeyCreated: 'Tu llave de acceso está lista. Úsala la próxima vez que inicies sesión.',
  passkeyRemoved: 'Se eliminó la llave de acceso.',
  passkeyCreateFailed: 'No se creó la llave de acceso. Vuelve a intentarlo o continúa sin ella.',
  unnamedPasskey: 'Llave de acceso',
};
