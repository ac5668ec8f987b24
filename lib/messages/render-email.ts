/**
 * The email that carries a code. Caller and configuration text is HTML-escaped
 * (lib/messages/markup.ts); the code is six digits and goes in as is.
 *
 * Pure: no AWS SDK, no I/O, no clock. The SES adapter only delivers what this returns.
 */
import { LOCALES, type Locale } from './locales';
import { formatMinutes } from './locale';
import { escapeHtml } from './markup';
import { CODE_PLACEHOLDER, substituteCode } from './messages';
import { checkInput, type RenderInput } from './render-input';

/**
 * The email: a localised subject, a text part and a small self-contained HTML part with inline
 * styles (mail clients drop `<style>` blocks and external CSS). A caller `message` replaces the
 * body in both parts; in HTML it is escaped, its line breaks become `<br>`, and each code in it is
 * set in bold.
 * @example renderEmail({ code: '012345', locale: 'en-US', expiresInSeconds: 300, serviceName: 'Acme' }).subject
 * // 'Your Acme sign-in code'
 */
export function renderEmail(input: RenderInput): { subject: string; text: string; html: string } {
  checkInput(input, 'email');
  const strings = LOCALES[input.locale];
  const subject = strings.emailSubject(input.serviceName);
  if (input.message !== undefined) {
    const text = substituteCode(input.message, input.code);
    const body = input.message
      .split(CODE_PLACEHOLDER)
      .map((part) => escapeHtml(part).replace(/\r\n|\r|\n/g, '<br>'))
      .join(`<strong style="${HTML_STYLE.inlineCode}">${input.code}</strong>`);
    return { subject, text, html: htmlDocument(input.locale, subject, `<p style="${HTML_STYLE.paragraph}">${body}</p>`) };
  }
  const minutes = formatMinutes(input.expiresInSeconds, input.locale);
  const intro = strings.emailIntro(input.serviceName);
  const expiry = strings.expiry(minutes);
  const text = `${intro}\n\n${input.code}\n\n${expiry}\n\n${strings.emailIgnore}\n`;
  const html = htmlDocument(
    input.locale,
    subject,
    [
      `<p style="${HTML_STYLE.paragraph}">${escapeHtml(intro)}</p>`,
      `<p style="${HTML_STYLE.code}">${input.code}</p>`,
      `<p style="${HTML_STYLE.paragraph}">${escapeHtml(expiry)}</p>`,
      `<p style="${HTML_STYLE.note}">${escapeHtml(strings.emailIgnore)}</p>`,
    ].join('\n'),
  );
  return { subject, text, html };
}

const HTML_STYLE = {
  body: "margin:0;padding:24px;background-color:#f4f4f5;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#18181b;",
  card: 'max-width:480px;margin:0 auto;padding:32px;background-color:#ffffff;border-radius:8px;',
  paragraph: 'margin:0 0 16px;font-size:16px;line-height:24px;',
  code: 'margin:0 0 16px;font-family:Menlo,Consolas,monospace;font-size:32px;line-height:40px;font-weight:700;letter-spacing:8px;',
  inlineCode: 'font-family:Menlo,Consolas,monospace;font-size:18px;letter-spacing:2px;',
  note: 'margin:0;font-size:13px;line-height:20px;color:#71717a;',
} as const;

/** The page around `content` (already HTML): the locale as `lang`, the subject as the title. */
function htmlDocument(locale: Locale, subject: string, content: string): string {
  return [
    '<!DOCTYPE html>',
    `<html lang="${locale}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title>`,
    '</head>',
    `<body style="${HTML_STYLE.body}">`,
    `<div style="${HTML_STYLE.card}">`,
    content,
    '</div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
