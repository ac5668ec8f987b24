/**
 * OAuth 2.0 Form Post Response Mode (§2): the authorization response as a page whose form posts
 * the parameters to the client's redirect URI, submitted by a one-line script the page's
 * Content-Security-Policy allows by its hash (the page runs nothing else), or by the user with
 * its one button where scripts are off. Every value is HTML-escaped. §4: the response is not to
 * be cached (html.ts sends `Cache-Control: no-store`).
 */
import { createHash } from 'node:crypto';
import { escapeHtml } from '../messages/markup';
import { LOGIN_PAGES } from '../messages/locales';
import type { Locale } from '../platform/vocabulary';

/** The page's one script: submit its one form as soon as it is parsed. */
const SUBMIT_SCRIPT = 'document.forms[0].submit();';

/** The script's CSP hash source (CSP Level 3 §2.3.1). */
export const SUBMIT_SCRIPT_HASH = `'sha256-${createHash('sha256').update(SUBMIT_SCRIPT, 'utf8').digest('base64')}'`;

/** The page that posts `parameters` to `action`, with its button in the login's language. */
export function renderFormPost(action: string, parameters: Readonly<Record<string, string>>, locale: Locale): string {
  const label = LOGIN_PAGES[locale].signIn;
  return [
    '<!DOCTYPE html>',
    `<html lang="${locale}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(label)}</title>`,
    '</head>',
    '<body>',
    `<form method="post" action="${escapeHtml(action)}">`,
    ...Object.entries(parameters).map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`),
    `<noscript><button type="submit">${escapeHtml(label)}</button></noscript>`,
    '</form>',
    `<script>${SUBMIT_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
