/**
 * Escaping for the two markup languages our messages are written in: HTML (the email's HTML part)
 * and XML (the call's SSML). Caller-controlled text (a request's `message`, an environment's
 * `serviceName`) and our own locale strings go through these before they meet our markup, so the
 * text can never add a tag or an attribute.
 *
 * One escaper per language for every document the service builds: two slightly different XML
 * escapers would be two places to get a character wrong.
 */

/**
 * Escapes the five characters that matter in HTML text and attribute values (`&`, `<`, `>`, `"`,
 * and `'` as the numeric `&#39;`: `&apos;` is not an HTML 4 entity, and some mail clients' HTML
 * renderers predate HTML5). Nothing is dropped: HTML parsers tolerate any other character in text.
 * @example escapeHtml(`<b class="x">Tom & 'Jerry'</b>`)
 * // '&lt;b class=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/b&gt;'
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ENTITIES[character] ?? character);
}
const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes with the five XML predefined entities (XML 1.0 §4.6), which Polly's SSML parser
 * accepts, and drops what XML 1.0 §2.2 forbids outright (C0 controls other than tab and line
 * breaks, lone surrogates, U+FFFE/U+FFFF): it cannot be spoken, and one such character would make
 * the whole document invalid and the call fail, turning a caller's stray byte into a 502.
 * @example escapeXml(`Tom & "Jerry"\u0000`) // 'Tom &amp; &quot;Jerry&quot;'
 */
export function escapeXml(text: string): string {
  return Array.from(text)
    .filter(isXmlCharacter)
    .join('')
    .replace(/[&<>"']/g, (character) => XML_ENTITIES[character] ?? character);
}
function isXmlCharacter(character: string): boolean {
  const point = character.codePointAt(0) ?? 0;
  if (point < 0x20) return point === 0x09 || point === 0x0a || point === 0x0d;
  if (point >= 0xd800 && point <= 0xdfff) return false;
  return point !== 0xfffe && point !== 0xffff;
}
const XML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
