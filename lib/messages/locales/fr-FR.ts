/** French (France). */
import type { LocaleStrings, LoginPageStrings } from './types';

export const frFR: LocaleStrings = {
  // CLDR puts 0 and 1 in "one"; "many" is for millions ("1 000 000 de minutes"), which no code
  // lifetime reaches, so it keeps the plain plural.
  minute: { one: 'minute', many: 'minutes', other: 'minutes' },
  // Measured (5-minute code): GSM-7, one segment, 83 of 160 units for "Acme" and 119 for a
  // 40-character name.
  sms: (service, code, minutes) => `Votre code ${service} est ${code}. Il expire dans ${minutes}. Ne le communiquez à personne.`,
  emailSubject: (service) => `Votre code de connexion ${service}`,
  // French typography puts a (non-breaking) space before the colon.
  emailIntro: (service) => `Utilisez ce code pour vous connecter à ${service}\u00a0:`,
  expiry: (minutes) => `Il expire dans ${minutes}.`,
  emailIgnore: "Si vous n'avez pas demandé ce code, vous pouvez ignorer cet e-mail. Ne le communiquez à personne.",
  voiceIntro: (service) => `Votre code ${service} est`,
  voiceAgain: 'Je répète, votre code est',
  voiceId: 'LEA',
};

/** The hosted login page (lib/login/login-page.ts). */
export const frFRLogin: LoginPageStrings = {
  title: (service) => `Se connecter à ${service}`,
  userIdLabel: 'Adresse e-mail ou numéro de téléphone',
  userIdHint: 'Pour un numéro de téléphone, commencez par + et l\u2019indicatif du pays.',
  channelLegend: 'Pour un numéro de téléphone, envoyer le code par',
  channelSms: 'SMS',
  channelVoice: 'Appel vocal',
  sendCode: 'Envoyer le code',
  codeSent: (destination) => `Nous avons envoyé un code à 6 chiffres à ${destination}.`,
  codeCalled: (destination) => `Nous appelons le ${destination} pour vous lire un code à 6 chiffres.`,
  codeLabel: 'Code à 6 chiffres',
  signIn: 'Se connecter',
  resend: 'Envoyer un nouveau code',
  changeUser: 'Utiliser une autre adresse ou un autre numéro',
  newCodeSent: 'Un nouveau code est en route.',
  invalidUserId: 'Saisissez une adresse e-mail, ou un numéro de téléphone commençant par + et l\u2019indicatif du pays.',
  invalidCode: 'Saisissez les 6 chiffres du code.',
  wrongCode: 'Ce code est incorrect. Vérifiez-le et réessayez.',
  codeDead: 'Ce code ne peut plus être utilisé. Demandez un nouveau code.',
  blocked: (retryIn) => `Trop de tentatives. Réessayez ${retryIn}.`,
  deliveryFailed: 'Nous n\u2019avons pas pu envoyer le code. Réessayez dans un instant.',
  unavailable: 'Un problème est survenu de notre côté. Réessayez dans un instant.',
  destinationNotAllowed: 'Nous ne pouvons pas envoyer de code à ce numéro de téléphone. Utilisez une adresse e-mail ou un autre numéro.',
  tooManySends: (retryIn) => `Trop de codes ont été demandés. Réessayez ${retryIn} ou utilisez une adresse e-mail.`,
  phoneUnavailable:
    'Les codes par SMS et par appel vocal sont momentanément indisponibles. Utilisez une adresse e-mail ou réessayez plus tard.',
  expired: 'Cette page de connexion a expiré. Revenez à l\u2019application et recommencez.',
  invalidRequestTitle: 'Ce lien de connexion n\u2019est pas valide',
  invalidRequestBody: 'Revenez à l\u2019application d\u2019où vous venez et réessayez.',
  // The account chooser (a live session).
  chooseAccountTitle: 'Choisissez un compte',
  continueAs: (destination) => `Continuer en tant que ${destination}`,
  useAnotherAccount: 'Utiliser un autre compte',
  // The end-session endpoint (lib/login/logout-page.ts).
  logoutTitle: (service) => `Se déconnecter de ${service}\u202f?`,
  logoutBody: 'Votre session prendra fin dans ce navigateur.',
  logoutConfirm: 'Se déconnecter',
  logoutCancel: 'Rester connecté',
  signedOutTitle: (service) => `Déconnexion de ${service} effectuée`,
  stillSignedInTitle: (service) => `Votre session ${service} reste ouverte`,
  closeWindow: 'Vous pouvez fermer cette fenêtre.',
  logoutInvalidTitle: 'Ce lien de déconnexion n\u2019est pas valide',
  logoutExpired: 'Cette page de déconnexion a expiré. Revenez à l\u2019application et déconnectez-vous à nouveau.',
  // Passkeys: the sign-in on the first page, and the passkeys page after a code login.
  passkeySignIn: 'Se connecter avec une clé d\u2019accès',
  passkeyFailed: 'La connexion avec cette clé d\u2019accès n\u2019a pas abouti. Réessayez.',
  passkeyRequired: 'Cette application vous demande de vous connecter avec une clé d\u2019accès.',
  passkeyNeedsScript: 'La connexion avec une clé d\u2019accès nécessite JavaScript. Activez-le, puis rechargez cette page.',
  passkeysTitle: 'La prochaine fois, sans code',
  passkeyOffer:
    'Créez une clé d\u2019accès pour vous connecter avec votre empreinte digitale, votre visage ou le verrouillage de votre écran au lieu d\u2019un code.',
  signedInAs: (destination) => `Session ouverte avec ${destination}`,
  createPasskey: 'Créer une clé d\u2019accès',
  notNow: 'Pas maintenant',
  continueToApp: 'Continuer',
  yourPasskeys: 'Vos clés d\u2019accès',
  passkeyCreatedOn: (date) => `Créée le ${date}`,
  passkeyLastUsed: (date) => `Dernière utilisation le ${date}`,
  passkeyNotUsed: 'Pas encore utilisée',
  removePasskey: (name) => `Supprimer ${name}`,
  passkeyCreated: 'Votre clé d\u2019accès est prête. Utilisez-la lors de votre prochaine connexion.',
  passkeyRemoved: 'La clé d\u2019accès a été supprimée.',
  passkeyCreateFailed: 'La clé d\u2019accès n\u2019a pas été créée. Réessayez ou continuez sans.',
  unnamedPasskey: 'Clé d\u2019accès',
};
