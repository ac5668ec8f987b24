/**
 * The hosted login page, rendered on the server: plain HTML forms that work without JavaScript,
 * one small stylesheet, no framework, every text from the locale (lib/messages/locales/), every value
 * escaped. WCAG 2.2 AA basics: a `lang` on the document, a `<label>` for every input, hints and
 * errors tied to their input with `aria-describedby` (and `aria-invalid`), errors announced
 * (`role="alert"`), the natural focus order of the document, visible focus, and colours whose
 * contrast is at least 4.5:1 (the values are in the stylesheet's comments).
 *
 * The stylesheet is inline, allowed by its hash in the Content-Security-Policy (`STYLE_HASH`), so
 * the page is one request and the policy still allows no other style. Pages with passkey parts end
 * with the one page script (lib/login/passkey-script.ts, generated from lib/login/browser/), which
 * html.ts allows by its hash on those pages only; no page has any other script or an inline event
 * handler. The script only enhances: its buttons are `hidden` until it shows them, and the code
 * login works without it.
 */
import { createHash } from 'node:crypto';
import { LOGIN_PAGES, type Locale } from '../messages/locales';
import type { Channel } from '../platform/vocabulary';
import { escapeHtml } from '../messages/markup';
import { PASSKEY_SCRIPT } from './passkey-script';

/** What a page shows. Texts come from the locale; the model holds only values. */
export type LoginPageModel =
  | {
      readonly view: 'user';
      readonly locale: Locale;
      readonly service: string;
      readonly csrf: string;
      /** The value to show in the input (a login_hint, or what the user typed before an error). */
      readonly userId?: string | undefined;
      /** Whether a phone number can be sent a code by voice call (the client and environment allow it). */
      readonly offerVoice: boolean;
      /**
       * Passkey sign-in on this page: the request options (JSON of WebAuthn's
       * `PublicKeyCredentialRequestOptionsJSON`, the transaction's challenge) and whether the code
       * form is still offered (false: the client asked for a phishing-resistant login, `acr_values=phr`).
       */
      readonly passkey?: { readonly options: string; readonly codeAllowed: boolean } | undefined;
      readonly error?: string | undefined;
    }
  | {
      readonly view: 'code';
      readonly locale: Locale;
      readonly service: string;
      readonly csrf: string;
      /** Where the code went, masked. */
      readonly destination: string;
      readonly channel: Channel;
      /**
       * Whether the code form carries the empty `webauthn` field the page script fills when the
       * browser has a platform authenticator (then a correct code leads to the passkeys page).
       */
      readonly offerPasskeys?: boolean | undefined;
      readonly error?: string | undefined;
      readonly notice?: string | undefined;
    }
  | {
      /** After a code login in a browser that can hold a passkey: the user's passkeys, create one, or go on. */
      readonly view: 'passkeys';
      readonly locale: Locale;
      readonly service: string;
      readonly csrf: string;
      /** The signed-in user, masked. */
      readonly destination: string;
      readonly passkeys: ReadonlyArray<PasskeyListItem>;
      /** JSON of WebAuthn's `PublicKeyCredentialCreationOptionsJSON`; undefined: no create button. */
      readonly registration: string | undefined;
      /** Show "Not now" (which keeps the page from asking again for a while), else only "Continue". */
      readonly offerLater: boolean;
      readonly notice?: string | undefined;
      readonly error?: string | undefined;
    }
  | {
      /** A live session in the browser and `prompt=select_account`: continue as its user, or another account. */
      readonly view: 'account';
      readonly locale: Locale;
      readonly service: string;
      readonly csrf: string;
      /** The session's user, masked. */
      readonly destination: string;
    }
  | { readonly view: 'invalid'; readonly locale: Locale }
  | { readonly view: 'expired'; readonly locale: Locale };

/** One of the user's passkeys as the passkeys page lists it. */
export interface PasskeyListItem {
  /** The credential id (base64url): the value of its remove button. */
  readonly id: string;
  /** The product name from its AAGUID, when known; else the page says "Passkey". */
  readonly name: string | undefined;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly lastUsedAt: number | undefined;
}

/**
 * Colours (text on background, contrast): text #18181b on #ffffff 17.7:1; hints #52525b 7.7:1;
 * errors #b91c1c 6.5:1; the button's #ffffff on #1d4ed8 6.7:1; the focus ring #1d4ed8 on the
 * page's #f4f4f5, 6.1:1 (WCAG 1.4.11 asks 3:1 of a focus indicator). The passkey button (`.passkey
 * button`): #1d4ed8 text and 2px border on #ffffff, 6.7:1; the list's separators (#d4d4d8) are
 * decoration, not a control's boundary. `[hidden]` wins over `button{display:block}`, so a button
 * the script has not shown stays out of sight and out of the focus order.
 */
export const STYLESHEET = [
  '*{box-sizing:border-box}',
  "body{margin:0;padding:24px 16px;background:#f4f4f5;color:#18181b;font:16px/1.5 -apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif}",
  'main{max-width:26rem;margin:0 auto;padding:32px 24px;background:#fff;border-radius:8px}',
  'h1{margin:0 0 24px;font-size:1.5rem;line-height:1.3}',
  'label,legend{display:block;margin:0 0 4px;font-weight:600}',
  '.hint{margin:0 0 8px;color:#52525b;font-size:.875rem}',
  '.error{margin:0 0 8px;color:#b91c1c;font-weight:600}',
  '.notice{margin:0 0 16px;padding:8px 12px;background:#f4f4f5;border-left:4px solid #1d4ed8}',
  'input[type=text]{display:block;width:100%;margin:0 0 16px;padding:10px 12px;font:inherit;border:1px solid #71717a;border-radius:6px}',
  'input[aria-invalid=true]{border:2px solid #b91c1c}',
  '#code{font-family:Menlo,Consolas,monospace;font-size:1.5rem;letter-spacing:.5em}',
  'fieldset{margin:0 0 16px;padding:0;border:0}',
  'fieldset label{display:inline-flex;align-items:center;gap:6px;margin:4px 16px 0 0;font-weight:400}',
  'button{display:block;width:100%;padding:12px;font:inherit;font-weight:600;color:#fff;background:#1d4ed8;border:0;border-radius:6px;cursor:pointer}',
  '.secondary{display:flex;flex-wrap:wrap;gap:8px 16px;margin-top:16px}',
  '.secondary button{display:inline;width:auto;padding:4px 0;color:#1d4ed8;background:none;text-decoration:underline;font-weight:400}',
  ':focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}',
  'h2{margin:24px 0 8px;font-size:1.125rem}',
  '.passkey button{margin-top:16px;color:#1d4ed8;background:#fff;border:2px solid #1d4ed8}',
  '.passkeys{margin:0;padding:0;list-style:none}',
  '.passkeys li{padding:12px 0;border-top:1px solid #d4d4d8}',
  '.passkeys p{margin:0}',
  '.passkeys .secondary{margin-top:4px}',
  '[hidden]{display:none!important}',
].join('');

/** The stylesheet's CSP hash source (CSP Level 3 §2.3.1): the only style the page allows. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLESHEET, 'utf8').digest('base64')}'`;

/** Renders a page as a complete HTML document. */
export function renderLoginPage(model: LoginPageModel): string {
  const strings = LOGIN_PAGES[model.locale];
  switch (model.view) {
    case 'user': {
      const title = strings.title(model.service);
      if (model.passkey?.codeAllowed === false) {
        // A phishing-resistant login was asked for (`acr_values=phr`): no code form at all, only
        // the passkey, and a line for a browser that runs no script (a passkey needs one).
        const body = [
          `<h1>${escapeHtml(title)}</h1>`,
          `<p id="passkey-required">${escapeHtml(strings.passkeyRequired)}</p>`,
          errorLine('passkey-error', model.error),
          `<noscript><p class="error">${escapeHtml(strings.passkeyNeedsScript)}</p></noscript>`,
          passkeyForm(model.csrf, model.passkey.options, strings.passkeySignIn, 'passkey-required'),
        ];
        return document(model.locale, title, body, { script: true });
      }
      const describedBy = ['user_id-hint', ...(model.error === undefined ? [] : ['user_id-error'])].join(' ');
      const body = [
        `<h1>${escapeHtml(title)}</h1>`,
        '<form method="post" action="authorize">',
        hidden('csrf', model.csrf),
        `<label for="user_id">${escapeHtml(strings.userIdLabel)}</label>`,
        `<p class="hint" id="user_id-hint">${escapeHtml(strings.userIdHint)}</p>`,
        errorLine('user_id-error', model.error),
        `<input id="user_id" name="user_id" type="text" autocomplete="${model.passkey === undefined ? 'username' : 'username webauthn'}" autocapitalize="off" spellcheck="false" required autofocus aria-describedby="${describedBy}"${invalid(model.error)} value="${escapeHtml(model.userId ?? '')}">`,
        model.offerVoice
          ? [
              '<fieldset>',
              `<legend>${escapeHtml(strings.channelLegend)}</legend>`,
              `<label><input type="radio" name="channel" value="sms" checked> ${escapeHtml(strings.channelSms)}</label>`,
              `<label><input type="radio" name="channel" value="voice"> ${escapeHtml(strings.channelVoice)}</label>`,
              '</fieldset>',
            ].join('\n')
          : '',
        `<button type="submit" name="action" value="send">${escapeHtml(strings.sendCode)}</button>`,
        '</form>',
        model.passkey === undefined ? '' : passkeyForm(model.csrf, model.passkey.options, strings.passkeySignIn, undefined),
      ];
      return document(model.locale, title, body, { script: model.passkey !== undefined });
    }
    case 'code': {
      const title = strings.title(model.service);
      const sent = model.channel === 'voice' ? strings.codeCalled(model.destination) : strings.codeSent(model.destination);
      const describedBy = ['destination', ...(model.error === undefined ? [] : ['code-error'])].join(' ');
      const body = [
        `<h1>${escapeHtml(title)}</h1>`,
        model.notice === undefined ? '' : `<p class="notice" role="status">${escapeHtml(model.notice)}</p>`,
        `<p id="destination">${escapeHtml(sent)}</p>`,
        '<form method="post" action="authorize">',
        hidden('csrf', model.csrf),
        `<label for="code">${escapeHtml(strings.codeLabel)}</label>`,
        errorLine('code-error', model.error),
        `<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus aria-describedby="${describedBy}"${invalid(model.error)}>`,
        // Empty unless the script finds a platform authenticator: then a correct code leads to the passkeys page.
        model.offerPasskeys === true ? hidden('webauthn', '') : '',
        `<button type="submit" name="action" value="verify">${escapeHtml(strings.signIn)}</button>`,
        '</form>',
        '<form method="post" action="authorize" class="secondary">',
        hidden('csrf', model.csrf),
        `<button type="submit" name="action" value="resend">${escapeHtml(strings.resend)}</button>`,
        `<button type="submit" name="action" value="restart">${escapeHtml(strings.changeUser)}</button>`,
        '</form>',
      ];
      return document(model.locale, title, body, { script: model.offerPasskeys === true });
    }
    case 'account': {
      // The session's user, or the address page (the `restart` action) for another account.
      const body = [
        `<h1>${escapeHtml(strings.chooseAccountTitle)}</h1>`,
        '<form method="post" action="authorize">',
        hidden('csrf', model.csrf),
        `<button type="submit" name="action" value="continue">${escapeHtml(strings.continueAs(model.destination))}</button>`,
        '</form>',
        '<form method="post" action="authorize" class="secondary">',
        hidden('csrf', model.csrf),
        `<button type="submit" name="action" value="restart">${escapeHtml(strings.useAnotherAccount)}</button>`,
        '</form>',
      ];
      return document(model.locale, strings.chooseAccountTitle, body);
    }
    case 'passkeys':
      return renderPasskeysPage(model);
    case 'invalid':
      return document(model.locale, strings.invalidRequestTitle, [
        `<h1>${escapeHtml(strings.invalidRequestTitle)}</h1>`,
        `<p>${escapeHtml(strings.invalidRequestBody)}</p>`,
      ]);
    case 'expired':
      return document(model.locale, strings.invalidRequestTitle, [
        `<h1>${escapeHtml(strings.invalidRequestTitle)}</h1>`,
        `<p role="alert">${escapeHtml(strings.expired)}</p>`,
      ]);
  }
}

/**
 * The passkeys page, after a code login: create a passkey (the button the script shows), the
 * user's passkeys each with its remove button, then continue to the app, or "Not now" (which the
 * server remembers in a cookie for a while). Create is the page's one primary action when offered;
 * continuing is then a secondary one.
 */
function renderPasskeysPage(model: Extract<LoginPageModel, { view: 'passkeys' }>): string {
  const strings = LOGIN_PAGES[model.locale];
  const dates = new Intl.DateTimeFormat(model.locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const items = model.passkeys.map((passkey, index) => {
    const name = passkey.name ?? strings.unnamedPasskey;
    const used = passkey.lastUsedAt === undefined ? strings.passkeyNotUsed : strings.passkeyLastUsed(dates.format(passkey.lastUsedAt));
    return [
      '<li>',
      `<p>${escapeHtml(name)}</p>`,
      `<p class="hint" id="passkey-${index}-dates">${escapeHtml(strings.passkeyCreatedOn(dates.format(passkey.createdAt)))}<br>${escapeHtml(used)}</p>`,
      '<form method="post" action="authorize" class="secondary">',
      hidden('csrf', model.csrf),
      hidden('passkey', passkey.id),
      // The button's text names the passkey, so a screen reader's list of buttons tells them apart.
      `<button type="submit" name="action" value="passkey_remove" aria-describedby="passkey-${index}-dates">${escapeHtml(strings.removePasskey(name))}</button>`,
      '</form>',
      '</li>',
    ].join('\n');
  });
  const leave = [
    `<button type="submit" name="action" value="continue">${escapeHtml(strings.continueToApp)}</button>`,
    model.offerLater ? `<button type="submit" name="action" value="later">${escapeHtml(strings.notNow)}</button>` : '',
  ];
  const body = [
    `<h1>${escapeHtml(strings.passkeysTitle)}</h1>`,
    model.notice === undefined ? '' : `<p class="notice" role="status">${escapeHtml(model.notice)}</p>`,
    model.error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(model.error)}</p>`,
    `<p class="hint">${escapeHtml(strings.signedInAs(model.destination))}</p>`,
    ...(model.registration === undefined
      ? []
      : [
          `<p id="passkey-offer">${escapeHtml(strings.passkeyOffer)}</p>`,
          `<form id="passkey-register-form" method="post" action="authorize" data-options="${escapeHtml(model.registration)}">`,
          hidden('csrf', model.csrf),
          hidden('action', 'passkey_register'),
          hidden('credential', ''),
          `<button type="button" id="passkey-register" aria-describedby="passkey-offer" hidden>${escapeHtml(strings.createPasskey)}</button>`,
          '</form>',
        ]),
    ...(items.length === 0 ? [] : [`<h2>${escapeHtml(strings.yourPasskeys)}</h2>`, '<ul class="passkeys">', ...items, '</ul>']),
    model.registration === undefined
      ? '<form method="post" action="authorize">'
      : '<form method="post" action="authorize" class="secondary">',
    hidden('csrf', model.csrf),
    ...leave,
    '</form>',
  ];
  // The script only creates passkeys here: without registration options, the page needs none.
  return document(model.locale, strings.passkeysTitle, body, { script: model.registration !== undefined });
}

/**
 * The passkey sign-in: the request options in `data-options` (escaped: JSON in an attribute), and a
 * button that stays `hidden` until the script finds WebAuthn; the script posts the assertion in
 * `credential`. `describedBy`: the line that says why a passkey is needed, when there is one.
 */
function passkeyForm(csrf: string, options: string, label: string, describedBy: string | undefined): string {
  return [
    `<form id="passkey-form" method="post" action="authorize" class="passkey" data-options="${escapeHtml(options)}">`,
    hidden('csrf', csrf),
    hidden('action', 'passkey'),
    hidden('credential', ''),
    `<button type="button" id="passkey-sign-in"${describedBy === undefined ? '' : ` aria-describedby="${describedBy}"`} hidden>${escapeHtml(label)}</button>`,
    '</form>',
  ].join('\n');
}

/** A hidden form field, its value escaped (the logout page's forms use it too). */
export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

function errorLine(id: string, error: string | undefined): string {
  return error === undefined ? '' : `<p class="error" id="${id}" role="alert">${escapeHtml(error)}</p>`;
}

function invalid(error: string | undefined): string {
  return error === undefined ? '' : ' aria-invalid="true"';
}

/** The page script as the page includes it: no attributes, so its CSP hash is of exactly this text. */
export const PAGE_SCRIPT_ELEMENT = `<script>${PASSKEY_SCRIPT}</script>`;

/**
 * A complete page: the document, its language, its title and the one stylesheet around `body` (the
 * logout page's too), and the page script after it where `script` (run once the forms it enhances
 * are parsed).
 */
export function document(locale: Locale, title: string, body: readonly string[], options: { readonly script?: boolean } = {}): string {
  return [
    '<!DOCTYPE html>',
    `<html lang="${locale}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLESHEET}</style>`,
    '</head>',
    '<body>',
    '<main>',
    ...body.filter((line) => line !== ''),
    '</main>',
    ...(options.script === true ? [PAGE_SCRIPT_ELEMENT] : []),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
