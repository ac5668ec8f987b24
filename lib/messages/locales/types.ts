/**
 * The shape of one locale's texts. Data only: a locale file fills this in and imports nothing but
 * this file, so a translator can add a language without reading the renderers.
 *
 * Functions take the service name, the code and "N minutes" already formatted; they only place
 * them in a sentence (word order differs between languages, so a template string per text rather
 * than concatenation in the renderer).
 *
 * SMS texts stick to the GSM-7 alphabet where the language allows (ASCII apostrophe, no
 * typographic quotes or non-breaking spaces): one character outside it turns the whole SMS into
 * UCS-2 and more than halves what a segment holds. Spanish and Portuguese need `ó` and `ã`,
 * which GSM-7 lacks, so their default SMS is UCS-2 (two segments); correct spelling wins.
 *
 * The service name is caller-configured text: the renderers escape it for HTML and SSML, so the
 * texts here are plain text and must not contain markup or entities of their own.
 */

/**
 * A word's forms by CLDR plural category (`Intl.PluralRules`): `other` always, plus each further
 * category the language has (`one` in all five of today's languages; `many` in French, Spanish and
 * Portuguese, for millions; `few` and `many` in Polish or Russian; `zero` and `two` in Arabic).
 * A test checks that every registered locale has exactly its language's categories, so a form is
 * never missing at run time.
 */
export type PluralForms = { readonly other: string } & { readonly [Category in Exclude<Intl.LDMLPluralRule, 'other'>]?: string };

/**
 * The hosted login page's texts (the authorization endpoint, lib/login/login-page.ts). Plain
 * text: the page escapes every value. Sentences that take a value are functions, so word order
 * is the language's. A retry time comes already formatted by `Intl.RelativeTimeFormat` ("in 5
 * minutes", "dans 5 minutes"), so no plural forms are needed here.
 */
export interface LoginPageStrings {
  /** The page's `<title>` and heading: "Sign in to {service}". */
  readonly title: (service: string) => string;
  /** Step 1: the one input's label, and a hint under it. */
  readonly userIdLabel: string;
  readonly userIdHint: string;
  /** Step 1, for phone numbers: the legend of the choice, and its two options. */
  readonly channelLegend: string;
  readonly channelSms: string;
  readonly channelVoice: string;
  /** Step 1's button. */
  readonly sendCode: string;
  /** Step 2: where the code went, masked ("a•••@example.com", "••• ••• 0100"). */
  readonly codeSent: (destination: string) => string;
  /** Step 2 after a voice call was placed. */
  readonly codeCalled: (destination: string) => string;
  /** Step 2: the code input's label, and the buttons. */
  readonly codeLabel: string;
  readonly signIn: string;
  readonly resend: string;
  readonly changeUser: string;
  /** Step 2, after a resend. */
  readonly newCodeSent: string;
  /** Errors shown beside the input they concern. */
  readonly invalidUserId: string;
  readonly invalidCode: string;
  readonly wrongCode: string;
  /** The code expired or has no tries left: only a new one helps. */
  readonly codeDead: string;
  /** Too many attempts: `retryIn` is e.g. "in 5 minutes". */
  readonly blocked: (retryIn: string) => string;
  /** The code could not be sent (the provider refused or did not answer). */
  readonly deliveryFailed: string;
  /** A dependency is down: try again shortly. */
  readonly unavailable: string;
  /**
   * The fraud guards' refusals of an SMS or voice send (docs/decisions/008-sms-fraud-guards.md),
   * each pointing to what still works (email, another number), never saying why (a country, a
   * kind of number, an IP, a block of numbers). This one: the environment does not send codes to
   * this number (403 `destination_not_allowed`).
   */
  readonly destinationNotAllowed: string;
  /** Too many SMS/voice sends from this network or to numbers like this one: `retryIn` is e.g. "in 12 minutes". */
  readonly tooManySends: (retryIn: string) => string;
  /** The day's SMS and voice budget is spent (503): email still works. */
  readonly phoneUnavailable: string;
  /** The page's transaction expired or was tampered with: start again from the app. */
  readonly expired: string;
  /** The error page shown when there is nowhere safe to redirect (unknown client or redirect URI). */
  readonly invalidRequestTitle: string;
  readonly invalidRequestBody: string;
  /**
   * The account chooser (a live single sign-on session, `prompt=select_account`): its heading, the
   * button that continues with the session's user (masked, as `codeSent`'s destination), and the
   * one that asks for a code for someone else.
   */
  readonly chooseAccountTitle: string;
  readonly continueAs: (destination: string) => string;
  readonly useAnotherAccount: string;
  /**
   * The end-session endpoint's pages (lib/login/logout-page.ts, OpenID Connect RP-Initiated
   * Logout 1.0). The confirmation, asked when the relying party did not prove which login it
   * means (§2): "Sign out of {service}?", what signing out does, and its two buttons.
   */
  readonly logoutTitle: (service: string) => string;
  readonly logoutBody: string;
  readonly logoutConfirm: string;
  readonly logoutCancel: string;
  /** After a logout, when there is no relying party to send the user back to: the heading. */
  readonly signedOutTitle: (service: string) => string;
  /** After "stay signed in", likewise. */
  readonly stillSignedInTitle: (service: string) => string;
  /** Under either heading. */
  readonly closeWindow: string;
  /** A logout request that cannot be answered (a parameter repeated, hint and client_id disagreeing); its body is `invalidRequestBody`. */
  readonly logoutInvalidTitle: string;
  /** The confirmation was answered too late, or for a session that is no longer this browser's. */
  readonly logoutExpired: string;
  /**
   * Passkeys (WebAuthn), on the first page: the button that starts a passkey sign-in (the browser
   * also suggests passkeys in the input), the error after an assertion the service refused, the
   * line shown where the client requires a passkey (no code is offered or sent), and, in a
   * `<noscript>`, why the passkey needs JavaScript. Each language's usual word for "passkey" (the
   * one its platforms use: "clé d'accès", "llave de acceso", "パスキー", ...).
   */
  readonly passkeySignIn: string;
  readonly passkeyFailed: string;
  readonly passkeyRequired: string;
  readonly passkeyNeedsScript: string;
  /**
   * The passkeys page, after a code login in a browser that can hold a passkey: its heading, the
   * offer, who is signed in (masked, as `codeSent`'s destination), and its buttons.
   */
  readonly passkeysTitle: string;
  readonly passkeyOffer: string;
  readonly signedInAs: (destination: string) => string;
  readonly createPasskey: string;
  readonly notNow: string;
  readonly continueToApp: string;
  /**
   * The list of the user's passkeys: its heading; each passkey's dates, already formatted by
   * `Intl.DateTimeFormat(locale, { dateStyle: 'medium' })`; its remove button, whose text names the
   * passkey (product name or `unnamedPasskey`) so a screen reader tells the buttons apart.
   */
  readonly yourPasskeys: string;
  readonly passkeyCreatedOn: (date: string) => string;
  readonly passkeyLastUsed: (date: string) => string;
  readonly passkeyNotUsed: string;
  readonly removePasskey: (name: string) => string;
  /** Notices and the error after an action of the passkeys page. */
  readonly passkeyCreated: string;
  readonly passkeyRemoved: string;
  readonly passkeyCreateFailed: string;
  /** A passkey whose authenticator (AAGUID) we cannot name. */
  readonly unnamedPasskey: string;
}

export interface LocaleStrings {
  /**
   * "minute" in each plural form of the language, chosen by `Intl.PluralRules(locale).select(n)`
   * for the code's lifetime in whole minutes. Printed after the number ("5 minutes").
   */
  readonly minute: PluralForms;
  /** The default SMS: says whose code it is, the code, its lifetime, and not to share it. */
  readonly sms: (service: string, code: string, minutes: string) => string;
  /** The email's subject line (also the HTML part's `<title>`). */
  readonly emailSubject: (service: string) => string;
  /** Precedes the code in the email. */
  readonly emailIntro: (service: string) => string;
  /** The code's lifetime, as a sentence; follows the code in the email and in the call. */
  readonly expiry: (minutes: string) => string;
  /** Closes the email: what to do if you did not ask, and not to share the code. */
  readonly emailIgnore: string;
  /** Spoken right before the code. */
  readonly voiceIntro: (service: string) => string;
  /** Spoken before the code is said the second time. */
  readonly voiceAgain: string;
  /**
   * The Amazon Polly voice that speaks the call, as the End User Messaging SMS and voice v2 API
   * spells it (`SendVoiceMessage`'s `VoiceId`, upper case: `JOANNA`). It must be a voice of this
   * locale's language, or Polly reads the text with another language's pronunciation.
   */
  readonly voiceId: string;
}
