/**
 * The origin-bound one-time code line that ends every SMS we send (WICG "Origin-bound one-time
 * codes delivered via SMS", https://wicg.github.io/sms-one-time-codes/): a last line
 * `@<host> #<code>` binds the code to https://<host>. Safari's and Chrome's autofill
 * (`autocomplete="one-time-code"`, and Chrome's WebOTP API) offer the code only on that host's
 * pages (the specification lets a browser accept the rest of its site too), so a phishing page on
 * another domain gets no one-tap fill, and the code is told apart from the other digits in the text
 * without guessing. The host is the passkeys' RP ID
 * (lib/passkeys/rp-id.ts): the service's own domain, no scheme, no port.
 *
 * The line goes after a blank line, as in the specification's example; it is all GSM-7 (a host name
 * is ASCII letters, digits, dots and hyphens), so it never turns a GSM-7 text into UCS-2, but it
 * lengthens every SMS: the default texts' cost per locale, and a caller `message`'s limit, count it
 * (lib/messages/messages.ts; test/unit/messages/locales/default-texts.test.ts holds the figures).
 *
 * Pure: no I/O.
 */

/**
 * A host as the line may carry it: a lower-case DNS name (a URL's hostname is lower-case and
 * punycoded) or an address (tests and local runs whose issuer is one). Nothing with whitespace, `#`
 * or `@`, which would end or garble the line for the parser.
 */
const HOST_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])$/;

/**
 * `text` with the origin-bound line after a blank line.
 * @throws {RangeError} when `host` is not a host name (our bug: it comes from the configuration or the issuer URL)
 * @example withOriginBoundLine('Your code is 012345.', 'id.example.com', '012345')
 * // 'Your code is 012345.\n\n@id.example.com #012345'
 */
export function withOriginBoundLine(text: string, host: string, code: string): string {
  if (!HOST_PATTERN.test(host)) throw new RangeError('the origin-bound line needs a lower-case host name');
  return `${text}\n\n@${host} #${code}`;
}
