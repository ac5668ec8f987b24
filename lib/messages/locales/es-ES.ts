/** Spanish (Spain). */
import type { LocaleStrings, LoginPageStrings } from './types';

export const esES: LocaleStrings = {
  // CLDR's "many" is for millions ("1 000 000 de minutos"), which no code lifetime reaches, so it
  // keeps the plain plural.
  minute: { one: 'minuto', many: 'minutos', other: 'minutos' },
  // Measured (5-minute code): UCS-2 for "ó", two segments: 76 units for "Acme" (one holds 70), 112
  // for a 40-character name. es-MX's shorter sentence fits one segment for names up to 9 characters.
  sms: (service, code, minutes) => `Tu código de ${service} es ${code}. Caduca en ${minutes}. No lo compartas con nadie.`,
  emailSubject: (service) => `Tu código para iniciar sesión en ${service}`,
  emailIntro: (service) => `Usa este código para iniciar sesión en ${service}:`,
  expiry: (minutes) => `Caduca en ${minutes}.`,
  emailIgnore: 'Si no has solicitado este código, puedes ignorar este correo. No lo compartas con nadie.',
  voiceIntro: (service) => `Tu código de ${service} es`,
  voiceAgain: 'Repito, tu código es',
  voiceId: 'LUCIA',
};

/** The hosted login page (lib/login/login-page.ts). */
export const esESLogin: LoginPageStrings = {
  title: (service) => `Iniciar sesión en ${service}`,
  userIdLabel: 'Correo electrónico o número de teléfono',
  userIdHint: 'Para un número de teléfono, empieza por + y el prefijo del país.',
  channelLegend: 'Para un número de teléfono, enviar el código por',
  channelSms: 'SMS',
  channelVoice: 'Llamada de voz',
  sendCode: 'Enviar código',
  codeSent: (destination) => `Hemos enviado un código de 6 dígitos a ${destination}.`,
  codeCalled: (destination) => `Estamos llamando al ${destination} para leerte un código de 6 dígitos.`,
  codeLabel: 'Código de 6 dígitos',
  signIn: 'Iniciar sesión',
  resend: 'Enviar un código nuevo',
  changeUser: 'Usar otro correo o teléfono',
  newCodeSent: 'Te hemos enviado un código nuevo.',
  invalidUserId: 'Escribe un correo electrónico, o un número de teléfono que empiece por + y el prefijo del país.',
  invalidCode: 'Escribe los 6 dígitos del código.',
  wrongCode: 'Ese código no es correcto. Revísalo e inténtalo de nuevo.',
  codeDead: 'Este código ya no se puede usar. Pide un código nuevo.',
  blocked: (retryIn) => `Demasiados intentos. Vuelve a intentarlo ${retryIn}.`,
  deliveryFailed: 'No hemos podido enviar el código. Inténtalo de nuevo en un momento.',
  unavailable: 'Algo ha fallado por nuestra parte. Inténtalo de nuevo en un momento.',
  destinationNotAllowed: 'No podemos enviar códigos a este número de teléfono. Usa un correo electrónico u otro número de teléfono.',
  tooManySends: (retryIn) => `Se han solicitado demasiados códigos. Vuelve a intentarlo ${retryIn} o usa un correo electrónico.`,
  phoneUnavailable:
    'Los códigos por SMS y llamada de voz no están disponibles en este momento. Usa un correo electrónico o inténtalo más tarde.',
  expired: 'Esta página de inicio de sesión ha caducado. Vuelve a la aplicación y empieza de nuevo.',
  invalidRequestTitle: 'Este enlace de inicio de sesión no es válido',
  invalidRequestBody: 'Vuelve a la aplicación de la que venías e inténtalo de nuevo.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Elige una cuenta',
  continueAs: (destination) => `Continuar como ${destination}`,
  useAnotherAccount: 'Usar otra cuenta',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `¿Cerrar sesión en ${service}?`,
  logoutBody: 'Se cerrará tu sesión en este navegador.',
  logoutConfirm: 'Cerrar sesión',
  logoutCancel: 'Mantener la sesión iniciada',
  signedOutTitle: (service) => `Has cerrado sesión en ${service}`,
  stillSignedInTitle: (service) => `Sigues con la sesión iniciada en ${service}`,
  closeWindow: 'Ya puedes cerrar esta ventana.',
  logoutInvalidTitle: 'Este enlace para cerrar sesión no es válido',
  logoutExpired: 'Esta página para cerrar sesión ha caducado. Vuelve a la aplicación y cierra sesión de nuevo.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Iniciar sesión con una llave de acceso',
  passkeyFailed: 'No hemos podido iniciar tu sesión con esa llave de acceso. Inténtalo de nuevo.',
  passkeyRequired: 'Esta aplicación te pide que inicies sesión con una llave de acceso.',
  passkeyNeedsScript: 'Para iniciar sesión con una llave de acceso se necesita JavaScript. Actívalo y vuelve a cargar esta página.',
  passkeysTitle: 'La próxima vez, sin código',
  passkeyOffer: 'Crea una llave de acceso e inicia sesión con tu huella, tu cara o el bloqueo de pantalla en lugar de con un código.',
  signedInAs: (destination) => `Sesión iniciada con ${destination}`,
  createPasskey: 'Crear una llave de acceso',
  notNow: 'Ahora no',
  continueToApp: 'Continuar',
  yourPasskeys: 'Tus llaves de acceso',
  passkeyCreatedOn: (date) => `Creada el ${date}`,
  passkeyLastUsed: (date) => `Último uso: ${date}`,
  passkeyNotUsed: 'Aún no se ha usado',
  removePasskey: (name) => `Eliminar ${name}`,
  passkeyCreated: 'Tu llave de acceso está lista. Úsala la próxima vez que inicies sesión.',
  passkeyRemoved: 'Se ha eliminado la llave de acceso.',
  passkeyCreateFailed: 'No se ha creado la llave de acceso. Inténtalo de nuevo o continúa sin ella.',
  unnamedPasskey: 'Llave de acceso',
};
