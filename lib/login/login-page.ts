/**
 * The hosted login page, rendered on the server: plain HTML forms that work without JavaScript,
 * one small stylesheet, no framework, every text from the locale (lib/messages/locales/), every value
 * escaped. WCAG 2.2 AA basics: a `lang` on the document, a `<label>` for every input, hints and
 * errors tied to their input with `aria-describedby` (and `aria-invalid`), errors announced
 * (`role="alert"`), the natural focus order of the document, visible focus, and colours whose
 * contrast is at least 4.5:1 (the values are in the stylesheet's comments).
 *
 * The stylesheet is inline, allowed by its hash in the Content-Security-Policy (`STYLE_HASH`), so
 * the page is one request and the policy still allows no inline script and no other style.
 */
import { createHash } from 'node:crypto';
import { LOGIN_PAGES, type Locale } from '../messages/locales';
import type { Channel } from '../platform/vocabulary';
import { escapeHtml } from '../messages/markup';

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
      readonly error?: string | undefined;
      readonly notice?: string | undefined;
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

/**
 * Colours (text on background, contrast): text #18181b on #ffffff 17.7:1; hints #52525b 7.7:1;
 * errors #b91c1c 6.5:1; the button's #ffffff on #1d4ed8 6.7:1; the focus ring #1d4ed8 on the
 * page's #f4f4f5, 6.1:1 (WCAG 1.4.11 asks 3:1 of a focus indicator).
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
].join('');

/** The stylesheet's CSP hash source (CSP Level 3 §2.3.1): the only style the page allows. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLESHEET, 'utf8').digest('base64')}'`;

/** Renders a page as a complete HTML document. */
export function renderLoginPage(model: LoginPageModel): string {
  const strings = LOGIN_PAGES[model.locale];
  switch (model.view) {
    case 'user': {
      const title = strings.title(model.service);
      const describedBy = ['user_id-hint', ...(model.error === undefined ? [] : ['user_id-error'])].join(' ');
      const body = [
        `<h1>${escapeHtml(title)}</h1>`,
        '<form method="post" action="authorize">',
        hidden('csrf', model.csrf),
        `<label for="user_id">${escapeHtml(strings.userIdLabel)}</label>`,
        `<p class="hint" id="user_id-hint">${escapeHtml(strings.userIdHint)}</p>`,
        errorLine('user_id-error', model.error),
        `<input id="user_id" name="user_id" type="text" autocomplete="username" autocapitalize="off" spellcheck="false" required autofocus aria-describedby="${describedBy}"${invalid(model.error)} value="${escapeHtml(model.userId ?? '')}">`,
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
      ];
      return document(model.locale, title, body);
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
        `<button type="submit" name="action" value="verify">${escapeHtml(strings.signIn)}</button>`,
        '</form>',
        '<form method="post" action="authorize" class="secondary">',
        hidden('csrf', model.csrf),
        `<button type="submit" name="action" value="resend">${escapeHtml(strings.resend)}</button>`,
        `<button type="submit" name="action" value="restart">${escapeHtml(strings.changeUser)}</button>`,
        '</form>',
      ];
      return document(model.locale, title, body);
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

/** A complete page: the document, its language, its title and the one stylesheet around `body` (the logout page's too). */
export function document(locale: Locale, title: string, body: readonly string[]): string {
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
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
