/**
 * The end-session endpoint's pages (lib/login/end-session.ts): the confirmation it asks when the
 * relying party did not prove which login it means (OpenID Connect RP-Initiated Logout 1.0 §2),
 * the pages that end a logout with no relying party to return to, and its error pages. Rendered
 * as the login page is (lib/login/login-page.ts: its document, its one stylesheet, allowed by
 * hash in the same Content-Security-Policy, lib/login/html.ts), every text from the locale,
 * every value escaped, no script.
 *
 * The confirmation is one form with two buttons, the first (the default one, for Enter) signing
 * out: the user came here by asking an app to sign them out. Both post back to the endpoint with
 * the sealed request (lib/login/logout-confirmation.ts).
 */
import { LOGIN_PAGES, type Locale } from '../messages/locales';
import { escapeHtml } from '../messages/markup';
import { document, hidden } from './login-page';

/** What a page shows. Texts come from the locale; the model holds only values. */
export type LogoutPageModel =
  | { readonly view: 'confirm'; readonly locale: Locale; readonly service: string; readonly confirmation: string }
  | { readonly view: 'signed_out'; readonly locale: Locale; readonly service: string }
  | { readonly view: 'still_signed_in'; readonly locale: Locale; readonly service: string }
  /** A request that cannot be answered (a parameter repeated, a hint and client_id that disagree, an unknown client or environment). */
  | { readonly view: 'invalid'; readonly locale: Locale }
  /** A confirmation answered too late, altered, or from a browser whose session is not the one it was asked for. */
  | { readonly view: 'expired'; readonly locale: Locale };

/** The form field that carries the sealed request, and the one whose value says which button was pressed. */
export const CONFIRMATION_FIELD = 'confirmation';
export const ACTION_FIELD = 'action';
/** The buttons' values: end the session, or leave it. */
export const LOGOUT_ACTIONS = { confirm: 'logout', decline: 'stay' } as const;

/** Renders a page as a complete HTML document. */
export function renderLogoutPage(model: LogoutPageModel): string {
  const strings = LOGIN_PAGES[model.locale];
  switch (model.view) {
    case 'confirm': {
      const title = strings.logoutTitle(model.service);
      return document(model.locale, title, [
        `<h1>${escapeHtml(title)}</h1>`,
        `<p>${escapeHtml(strings.logoutBody)}</p>`,
        // A relative action: the endpoint's own path, whatever the stage's base path.
        '<form method="post" action="logout">',
        hidden(CONFIRMATION_FIELD, model.confirmation),
        `<button type="submit" name="${ACTION_FIELD}" value="${LOGOUT_ACTIONS.confirm}">${escapeHtml(strings.logoutConfirm)}</button>`,
        '<div class="secondary">',
        `<button type="submit" name="${ACTION_FIELD}" value="${LOGOUT_ACTIONS.decline}">${escapeHtml(strings.logoutCancel)}</button>`,
        '</div>',
        '</form>',
      ]);
    }
    case 'signed_out':
    case 'still_signed_in': {
      const title = model.view === 'signed_out' ? strings.signedOutTitle(model.service) : strings.stillSignedInTitle(model.service);
      return document(model.locale, title, [`<h1>${escapeHtml(title)}</h1>`, `<p>${escapeHtml(strings.closeWindow)}</p>`]);
    }
    case 'invalid':
      return document(model.locale, strings.logoutInvalidTitle, [
        `<h1>${escapeHtml(strings.logoutInvalidTitle)}</h1>`,
        `<p>${escapeHtml(strings.invalidRequestBody)}</p>`,
      ]);
    case 'expired':
      return document(model.locale, strings.logoutInvalidTitle, [
        `<h1>${escapeHtml(strings.logoutInvalidTitle)}</h1>`,
        `<p role="alert">${escapeHtml(strings.logoutExpired)}</p>`,
      ]);
  }
}
