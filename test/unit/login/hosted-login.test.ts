/**
 * The hosted login's pure parts: at_hash (OIDC Core §3.1.3.6), scopes (RFC 6749 §3.3), the
 * transaction cookie, the page's locale, the masked destination, the redirect, the authorization
 * code, and the page's markup (WCAG 2.2 AA basics). The endpoint over HTTP is
 * test/http/authorize.test.ts; a real browser drives it in test/browser/.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildServiceConfig, parseStageConfig, type ClientConfig } from '../../../lib/platform/config';
import { AUTHORIZATION_CODE_PATTERN, authorizationCodeHash, mintAuthorizationCode } from '../../../lib/oauth/authorization-codes';
import { maskDestination, relativeTime } from '../../../lib/login/authorize';
import { pickLocale, redirectWith } from '../../../lib/login/request-parameters';
import { deriveHmacKeys } from '../../../lib/keys/hmac-keys';
import { atHash } from '../../../lib/oauth/id-tokens';
import { renderLoginPage, STYLE_HASH, STYLESHEET } from '../../../lib/login/login-page';
import {
  csrfMatches,
  LOGIN_COOKIE,
  LOGIN_TRANSACTION_TTL_SECONDS,
  newCsrfToken,
  openTransaction,
  sealTransaction,
  type LoginTransaction,
} from '../../../lib/login/login-transaction';
import { allowedScopes, grantScope, hasScope, scopesOf } from '../../../lib/oauth/scopes';
import { SUPPORTED_LOCALES } from '../../../lib/platform/vocabulary';
import { LOGIN_PAGES } from '../../../lib/messages/locales';
import { escapeHtml } from '../../../lib/messages/markup';

const config = buildServiceConfig(parseStageConfig(JSON.parse(readFileSync(resolve(__dirname, '../../../config/local.json'), 'utf8'))));
const client = (id: string): ClientConfig => {
  const found = config.client(id);
  if (found === undefined) throw new Error(`no client ${id}`);
  return found;
};
const keys = deriveHmacKeys(Buffer.alloc(32, 7));
const otherKeys = deriveHmacKeys(Buffer.alloc(32, 8));

describe('at_hash (OpenID Connect Core §3.1.3.6)', () => {
  it('matches the specification’s example (OIDC Core §A.3)', () => {
    expect(atHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y', 'RS256')).toBe('77QmUPtjPfzWtF2AnpK9RQ');
  });

  it('is the left half of SHA-256 for ES256 too (16 bytes, 22 base64url characters)', () => {
    expect(atHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y', 'ES256')).toBe('77QmUPtjPfzWtF2AnpK9RQ');
    expect(atHash('another token', 'ES256')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});

describe('scopes (RFC 6749 §3.3)', () => {
  it('splits on spaces, drops empties and repeats, keeps order', () => {
    expect(scopesOf('openid  email openid phone')).toEqual(['openid', 'email', 'phone']);
    expect(scopesOf(undefined)).toEqual([]);
    expect(scopesOf('   ')).toEqual([]);
  });

  it('is case-sensitive', () => {
    expect(hasScope('openid email', 'openid')).toBe(true);
    expect(hasScope('OpenID email', 'openid')).toBe(false);
    expect(hasScope(undefined, 'openid')).toBe(false);
  });

  it('grants the OpenID Connect scopes and the client’s own, and ignores any other (OIDC Core §3.1.2.1: SHOULD be ignored)', () => {
    const web = client('local-web');
    expect(allowedScopes(web)).toEqual(['openid', 'profile', 'email', 'phone', 'offline_access']);
    expect(grantScope('openid email', web)).toEqual({ granted: 'openid email' });
    expect(grantScope('openid profile email', web)).toEqual({ granted: 'openid profile email' });
    expect(grantScope('openid admin email', web)).toEqual({ granted: 'openid email' });
    expect(grantScope('admin', web)).toStrictEqual({ granted: undefined });
    const own: ClientConfig = { ...web, accessToken: { ...web.accessToken, scope: 'orders:read' } };
    expect(grantScope('orders:read admin', own)).toEqual({ granted: 'orders:read' });
  });

  it('grants offline_access only to a client issued refresh tokens (OIDC Core §11)', () => {
    const web = client('local-web');
    expect(grantScope('openid offline_access', web)).toEqual({ granted: 'openid offline_access' });
    const without: ClientConfig = { ...web, refreshTokens: undefined };
    expect(grantScope('openid offline_access', without)).toEqual({ granted: 'openid' });
  });

  it('grants the client’s configured scope when none is requested', () => {
    const web = client('local-web');
    expect(grantScope(undefined, web)).toStrictEqual({ granted: web.accessToken.scope });
    expect(grantScope('', web)).toStrictEqual({ granted: web.accessToken.scope });
    const scoped: ClientConfig = { ...web, accessToken: { ...web.accessToken, scope: 'openid email' } };
    expect(grantScope(undefined, scoped)).toStrictEqual({ granted: 'openid email' });
  });

  it('refuses a token outside the RFC 6749 §3.3 character set, even one the client has', () => {
    const withQuote: ClientConfig = { ...client('local-web'), accessToken: { ...client('local-web').accessToken, scope: 'a"b' } };
    expect(grantScope('a"b', withQuote)).toEqual({ refused: 'a"b' });
    expect(grantScope('openid\\x', client('local-web'))).toEqual({ refused: 'openid\\x' });
  });
});

describe('the transaction cookie', () => {
  const transaction: LoginTransaction = {
    environmentId: 'local',
    clientId: 'local-web',
    redirectUri: 'http://localhost:3000/callback',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    state: 'xyz',
    nonce: 'n-0S6_WzA2Mj',
    scope: 'openid email',
    locale: 'de-DE',
    csrf: newCsrfToken(),
    user: { authType: 'email', value: 'alice@example.com' },
    channel: 'email',
  };
  const now = Date.UTC(2026, 10, 22, 12);

  it('opens what it sealed, and hides the user’s address', async () => {
    const cookie = await sealTransaction(keys, transaction, now);
    expect(cookie).not.toContain('alice');
    expect(Buffer.from(cookie.replace(/\./g, ''), 'base64url').toString('latin1')).not.toContain('alice@example.com');
    await expect(openTransaction(keys, cookie, now)).resolves.toEqual(transaction);
  });

  it('opens a transaction whose user signs in by phone', async () => {
    const byPhone: LoginTransaction = { ...transaction, user: { authType: 'sms', value: '+14155552671' }, channel: 'voice' };
    await expect(openTransaction(keys, await sealTransaction(keys, byPhone, now), now)).resolves.toEqual(byPhone);
  });

  it('is named by an RFC 6265 §4.1.1 cookie-name (a token: no separators, not empty)', () => {
    expect(LOGIN_COOKIE).toMatch(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/);
  });

  it('lasts 10 minutes to the second', async () => {
    const cookie = await sealTransaction(keys, transaction, now);
    await expect(openTransaction(keys, cookie, now + (LOGIN_TRANSACTION_TTL_SECONDS - 1) * 1000)).resolves.toEqual(transaction);
    await expect(openTransaction(keys, cookie, now + LOGIN_TRANSACTION_TTL_SECONDS * 1000)).resolves.toBeUndefined();
  });

  it('refuses a cookie sealed under another key, a tampered one, an empty one, and none', async () => {
    const cookie = await sealTransaction(keys, transaction, now);
    await expect(openTransaction(otherKeys, cookie, now)).resolves.toBeUndefined();
    const parts = cookie.split('.');
    const ciphertext = Buffer.from(parts[3] ?? '', 'base64url');
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 1;
    parts[3] = ciphertext.toString('base64url');
    await expect(openTransaction(keys, parts.join('.'), now)).resolves.toBeUndefined();
    await expect(openTransaction(keys, '', now)).resolves.toBeUndefined();
    await expect(openTransaction(keys, undefined, now)).resolves.toBeUndefined();
    await expect(openTransaction(keys, 'not.a.jwe.at.all', now)).resolves.toBeUndefined();
  });

  it('refuses a well-sealed payload that is not a transaction (an unknown field, a wrong type)', async () => {
    const sealed = (value: unknown) => sealTransaction(keys, value as LoginTransaction, now);
    await expect(openTransaction(keys, await sealed({ ...transaction, admin: true }), now)).resolves.toBeUndefined();
    await expect(openTransaction(keys, await sealed({ ...transaction, locale: 'xx-XX' }), now)).resolves.toBeUndefined();
  });

  it('matches the CSRF token exactly', () => {
    expect(newCsrfToken()).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(csrfMatches(transaction, transaction.csrf)).toBe(true);
    expect(csrfMatches(transaction, `${transaction.csrf}x`)).toBe(false);
    expect(csrfMatches(transaction, transaction.csrf.slice(1))).toBe(false);
    expect(csrfMatches(transaction, undefined)).toBe(false);
    expect(csrfMatches(transaction, [transaction.csrf])).toBe(false);
  });
});

describe('the page’s locale', () => {
  it('skips a tag it cannot read, even one of a language it speaks, for the next', () => {
    expect(pickLocale('de-!! fr', undefined, config)).toBe('fr-FR');
  });

  it('takes the weight only from a q parameter (RFC 9110 §12.4.2), not from one that merely contains q=', () => {
    expect(pickLocale(undefined, 'fr;x-q=0, de;q=0.5', config)).toBe('fr-FR');
  });

  it('takes the first supported ui_locales tag (OIDC Core §3.1.2.1)', () => {
    expect(pickLocale('tlh de-CH fr', 'es', config)).toBe('de-DE');
  });

  it('then Accept-Language by quality, not by position (RFC 9110 §12.5.4)', () => {
    expect(pickLocale(undefined, 'fr;q=0.5, de;q=0.9, en;q=0.1', config)).toBe('de-DE');
    expect(pickLocale(undefined, 'pt-PT, fr;q=0.8', config)).toBe('pt-PT');
    // A region we lack falls to a supported one of its language (RFC 4647 lookup).
    expect(pickLocale(undefined, 'pt-AO, fr;q=0.8', config)).toMatch(/^pt-/);
  });

  it('never takes a language the header refuses with q=0, nor the wildcard', () => {
    expect(pickLocale(undefined, 'fr;q=0, *;q=0.5, es;q=0.1', config)).toBe('es-ES');
    // Even when it is the only language named: q=0 is "not this", not "this, last".
    expect(pickLocale(undefined, 'fr;q=0', config)).toBe('en-US');
  });

  it('falls back to the default environment’s locale', () => {
    const fallback = config.environment(undefined)?.defaultLocale;
    expect(pickLocale(undefined, undefined, config)).toBe(fallback);
    expect(pickLocale('tlh', 'x-klingon, q;q=abc', config)).toBe(fallback);
  });

  it('reads at most 10 ui_locales tags and 20 Accept-Language entries (a long header costs nothing)', () => {
    const unknown = (count: number) => Array.from({ length: count }, (_, index) => `x${index}`);
    expect(pickLocale([...unknown(9), 'de'].join(' '), undefined, config)).toBe('de-DE');
    expect(pickLocale([...unknown(10), 'de'].join(' '), undefined, config)).toBe('en-US');
    expect(pickLocale(undefined, [...unknown(19), 'de'].join(', '), config)).toBe('de-DE');
    expect(pickLocale(undefined, [...unknown(20), 'de'].join(', '), config)).toBe('en-US');
  });

  it('keeps the header’s order among equal qualities, reads Q= in any case, and a tag with an underscore', () => {
    expect(pickLocale(undefined, 'fr;q=0.5, de;q=0.5', config)).toBe('fr-FR');
    expect(pickLocale(undefined, 'fr;Q=0.1, de;Q=0.9', config)).toBe('de-DE');
    expect(pickLocale(undefined, 'fr; q=0, de', config)).toBe('de-DE');
    expect(pickLocale('de_AT', undefined, config)).toBe('de-DE');
  });

  it.each(SUPPORTED_LOCALES)('picks %s when asked for it', (locale) => {
    expect(pickLocale(locale, undefined, config)).toBe(locale);
  });
});

describe('the masked destination', () => {
  it('shows an email’s first character and domain', () => {
    expect(maskDestination({ authType: 'email', value: 'alice@example.com' })).toBe('a•••@example.com');
  });

  it('shows a phone’s country code and last four digits', () => {
    expect(maskDestination({ authType: 'sms', value: '+14155552671' })).toBe('+1 ••• 2671');
    expect(maskDestination({ authType: 'sms', value: '+4930123456789' })).toBe('+49 ••• 6789');
  });
});

describe('the retry time the page shows', () => {
  it('says seconds below 90 s, minutes below 90 min, hours from there, rounded up and never less than 1', () => {
    const cases: Array<[number, ReturnType<typeof relativeTime>]> = [
      [0, [1, 'second']],
      [1, [1, 'second']],
      [89, [89, 'second']],
      [90, [2, 'minute']],
      [91, [2, 'minute']],
      [121, [3, 'minute']],
      [5399, [90, 'minute']],
      [5400, [2, 'hour']],
      [7201, [3, 'hour']],
    ];
    expect(cases.map(([seconds]) => [seconds, relativeTime(seconds)])).toEqual(cases);
  });
});

describe('the redirect (RFC 6749 §4.1.2)', () => {
  it('keeps the redirect URI’s own query and adds the parameters, leaving out absent ones', () => {
    const location = new URL(
      redirectWith('https://app.example/cb?tenant=7', { code: 'abc', state: undefined, iss: 'https://idp.example' }),
    );
    expect([...location.searchParams]).toEqual([
      ['tenant', '7'],
      ['code', 'abc'],
      ['iss', 'https://idp.example'],
    ]);
  });

  it('encodes what it adds', () => {
    expect(redirectWith('https://app.example/cb', { state: 'a b&c=d' })).toBe('https://app.example/cb?state=a+b%26c%3Dd');
  });
});

describe('authorization codes', () => {
  it('are 256 random bits, base64url', () => {
    const codes = new Set(Array.from({ length: 100 }, () => mintAuthorizationCode()));
    expect(codes.size).toBe(100);
    for (const code of codes) expect(code).toMatch(AUTHORIZATION_CODE_PATTERN);
  });

  it.each([
    ['one character more', `${'A'.repeat(43)}B`],
    ['a character before it', `.${'A'.repeat(43)}`],
    ['a line break after it', `${'A'.repeat(43)}\n`],
  ])('are not a code with %s', (_name, text) => {
    expect(text).not.toMatch(AUTHORIZATION_CODE_PATTERN);
  });

  it('are stored by a keyed hash that depends on the key', () => {
    const code = mintAuthorizationCode();
    expect(authorizationCodeHash(keys, code)).toBe(authorizationCodeHash(keys, code));
    expect(authorizationCodeHash(keys, code)).not.toBe(authorizationCodeHash(otherKeys, code));
    expect(authorizationCodeHash(keys, code)).not.toContain(code);
    expect(authorizationCodeHash(keys, code)).not.toBe(authorizationCodeHash(keys, mintAuthorizationCode()));
  });
});

describe('the page’s markup (WCAG 2.2 AA basics)', () => {
  const user = (extra: { error?: string; userId?: string; offerVoice?: boolean } = {}) =>
    renderLoginPage({ view: 'user', locale: 'fr-FR', service: 'Acme', csrf: 'tok', offerVoice: false, ...extra });
  const code = (extra: { error?: string; notice?: string } = {}) =>
    renderLoginPage({
      view: 'code',
      locale: 'en-US',
      service: 'Acme',
      csrf: 'tok',
      destination: 'a•••@example.com',
      channel: 'email',
      ...extra,
    });

  it('declares its language and a title (WCAG 3.1.1, 2.4.2)', () => {
    expect(user()).toMatch(/<html lang="fr-FR">/);
    expect(user()).toMatch(/<title>[^<]*Acme[^<]*<\/title>/);
  });

  it('labels every visible input (WCAG 1.3.1, 4.1.2)', () => {
    for (const html of [user({ offerVoice: true }), code()]) {
      for (const [input] of html.matchAll(/<input [^>]*>/g)) {
        if (input.includes('type="hidden"')) continue;
        const id = /id="([^"]+)"/.exec(input)?.[1];
        const wrapped = new RegExp(`<label><input [^>]*value="${/value="([^"]*)"/.exec(input)?.[1]}"`).test(html);
        expect({ input, labelled: (id !== undefined && html.includes(`<label for="${id}">`)) || wrapped }).toEqual({
          input,
          labelled: true,
        });
      }
    }
  });

  it('ties an error to its input and announces it (WCAG 3.3.1)', () => {
    const html = user({ error: 'Bad & wrong', userId: 'x' });
    expect(html).toContain('<p class="error" id="user_id-error" role="alert">Bad &amp; wrong</p>');
    expect(html).toMatch(/<input id="user_id"[^>]*aria-describedby="user_id-hint user_id-error"[^>]*aria-invalid="true"/);
    expect(code({ error: 'Wrong' })).toMatch(/<input id="code"[^>]*aria-describedby="destination code-error"[^>]*aria-invalid="true"/);
    expect(user()).not.toMatch(/<input[^>]*aria-invalid/);
  });

  it('asks for the code as a one-time code on a numeric keypad', () => {
    expect(code()).toMatch(/<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code"/);
  });

  it('offers the voice call only when asked to', () => {
    expect(user()).not.toContain('name="channel"');
    expect(user({ offerVoice: true })).toContain('<input type="radio" name="channel" value="voice">');
  });

  it('escapes every value it shows', () => {
    const html = user({ userId: '"><script>alert(1)</script>' });
    expect(html).not.toContain('<script>');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it('carries the CSRF token in every form', () => {
    for (const html of [user(), code()]) {
      const forms = html.match(/<form /g)?.length ?? 0;
      expect(html.match(/<input type="hidden" name="csrf" value="tok">/g)?.length).toBe(forms);
    }
  });

  it('has one stylesheet, the one its hash allows, and no script', () => {
    expect(user().match(/<style>/g)).toHaveLength(1);
    expect(user()).toContain(`<style>${STYLESHEET}</style>`);
    expect(STYLE_HASH).toMatch(/^'sha256-[A-Za-z0-9+/]{43}='$/);
    expect(user()).not.toMatch(/<script|\son[a-z]+=/i);
  });

  it('shows a status for a resend and an alert for an expired transaction', () => {
    expect(code({ notice: 'Sent again' })).toContain('<p class="notice" role="status">Sent again</p>');
    expect(renderLoginPage({ view: 'expired', locale: 'en-US' })).toMatch(/role="alert"/);
    expect(renderLoginPage({ view: 'invalid', locale: 'en-US' })).toMatch(/<h1>/);
  });

  describe('each view, as the exact document a browser receives', () => {
    const strings = LOGIN_PAGES['en-US'];
    const text = escapeHtml;
    const documentOf = (title: string, body: readonly string[]) =>
      [
        '<!DOCTYPE html>',
        '<html lang="en-US">',
        '<head>',
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        `<title>${text(title)}</title>`,
        `<style>${STYLESHEET}</style>`,
        '</head>',
        '<body>',
        '<main>',
        ...body,
        '</main>',
        '</body>',
        '</html>',
        '',
      ].join('\n');
    const title = strings.title('Acme');
    // Step 1's title and form up to its input: the same on every user page.
    const userFormStart = [
      `<h1>${text(title)}</h1>`,
      '<form method="post" action="authorize">',
      '<input type="hidden" name="csrf" value="tok">',
      `<label for="user_id">${text(strings.userIdLabel)}</label>`,
      `<p class="hint" id="user_id-hint">${text(strings.userIdHint)}</p>`,
    ];

    it('asks for the user: with a login hint and no error, no voice offered', () => {
      expect(
        renderLoginPage({ view: 'user', locale: 'en-US', service: 'Acme', csrf: 'tok', userId: 'a@example.com', offerVoice: false }),
      ).toBe(
        documentOf(title, [
          ...userFormStart,
          '<input id="user_id" name="user_id" type="text" autocomplete="username" autocapitalize="off" spellcheck="false" required autofocus aria-describedby="user_id-hint" value="a@example.com">',
          `<button type="submit" name="action" value="send">${text(strings.sendCode)}</button>`,
          '</form>',
        ]),
      );
    });

    it('asks for the user again after an error, offering SMS or a voice call', () => {
      expect(renderLoginPage({ view: 'user', locale: 'en-US', service: 'Acme', csrf: 'tok', offerVoice: true, error: 'Bad' })).toBe(
        documentOf(title, [
          ...userFormStart,
          '<p class="error" id="user_id-error" role="alert">Bad</p>',
          '<input id="user_id" name="user_id" type="text" autocomplete="username" autocapitalize="off" spellcheck="false" required autofocus aria-describedby="user_id-hint user_id-error" aria-invalid="true" value="">',
          '<fieldset>',
          `<legend>${text(strings.channelLegend)}</legend>`,
          `<label><input type="radio" name="channel" value="sms" checked> ${text(strings.channelSms)}</label>`,
          `<label><input type="radio" name="channel" value="voice"> ${text(strings.channelVoice)}</label>`,
          '</fieldset>',
          `<button type="submit" name="action" value="send">${text(strings.sendCode)}</button>`,
          '</form>',
        ]),
      );
    });

    it('asks for the code sent by email, then for a code called, with a notice and an error', () => {
      const codeForm = (describedBy: string, error: string[]) => [
        '<form method="post" action="authorize">',
        '<input type="hidden" name="csrf" value="tok">',
        `<label for="code">${text(strings.codeLabel)}</label>`,
        ...error,
        `<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus aria-describedby="${describedBy}"${error.length > 0 ? ' aria-invalid="true"' : ''}>`,
        `<button type="submit" name="action" value="verify">${text(strings.signIn)}</button>`,
        '</form>',
        '<form method="post" action="authorize" class="secondary">',
        '<input type="hidden" name="csrf" value="tok">',
        `<button type="submit" name="action" value="resend">${text(strings.resend)}</button>`,
        `<button type="submit" name="action" value="restart">${text(strings.changeUser)}</button>`,
        '</form>',
      ];
      const base = { view: 'code', locale: 'en-US', service: 'Acme', csrf: 'tok', destination: 'a•••@example.com' } as const;
      expect(renderLoginPage({ ...base, channel: 'email' })).toBe(
        documentOf(title, [
          `<h1>${text(title)}</h1>`,
          `<p id="destination">${text(strings.codeSent('a•••@example.com'))}</p>`,
          ...codeForm('destination', []),
        ]),
      );
      expect(renderLoginPage({ ...base, channel: 'voice', notice: 'Sent again', error: 'Wrong' })).toBe(
        documentOf(title, [
          `<h1>${text(title)}</h1>`,
          '<p class="notice" role="status">Sent again</p>',
          `<p id="destination">${text(strings.codeCalled('a•••@example.com'))}</p>`,
          ...codeForm('destination code-error', ['<p class="error" id="code-error" role="alert">Wrong</p>']),
        ]),
      );
    });

    it('says a request is invalid, and a transaction expired', () => {
      expect(renderLoginPage({ view: 'invalid', locale: 'en-US' })).toBe(
        documentOf(strings.invalidRequestTitle, [
          `<h1>${text(strings.invalidRequestTitle)}</h1>`,
          `<p>${text(strings.invalidRequestBody)}</p>`,
        ]),
      );
      expect(renderLoginPage({ view: 'expired', locale: 'en-US' })).toBe(
        documentOf(strings.invalidRequestTitle, [
          `<h1>${text(strings.invalidRequestTitle)}</h1>`,
          `<p role="alert">${text(strings.expired)}</p>`,
        ]),
      );
    });
  });

  it.each(SUPPORTED_LOCALES)('is small in %s: under 4 KB of HTML and CSS for any page (measured 1.7–2.8 KB)', (locale) => {
    const pages = [
      renderLoginPage({
        view: 'user',
        locale,
        service: 'Example',
        csrf: 'tok',
        offerVoice: true,
        error: 'x'.repeat(80),
        userId: 'x'.repeat(40),
      }),
      renderLoginPage({
        view: 'code',
        locale,
        service: 'Example',
        csrf: 'tok',
        destination: 'x•••@example.com',
        channel: 'voice',
        error: 'x'.repeat(80),
        notice: 'y',
      }),
      renderLoginPage({ view: 'invalid', locale }),
      renderLoginPage({ view: 'expired', locale }),
    ];
    for (const html of pages) expect(Buffer.byteLength(html)).toBeLessThan(4 * 1024);
  });
});
