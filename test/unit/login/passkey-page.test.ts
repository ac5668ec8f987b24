/**
 * The hosted login page's passkey parts (lib/login/login-page.ts, lib/login/html.ts): the first
 * page's passkey sign-in (conditional mediation's `autocomplete="username webauthn"`, the button
 * the script shows), the page without a code form (`acr_values=phr`), the code form's `webauthn`
 * field, the passkeys page after a code login, and the Content-Security-Policy that allows the page
 * script, by its hash, on exactly the pages that include it. The script itself runs in Chromium in
 * test/browser/; its generation is test/unit/login/passkey-script.test.ts.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { htmlResponse, pagePolicy } from '../../../lib/login/html';
import { PAGE_SCRIPT_ELEMENT, renderLoginPage, STYLESHEET, STYLE_HASH, type LoginPageModel } from '../../../lib/login/login-page';
import { renderLogoutPage } from '../../../lib/login/logout-page';
import { PASSKEY_SCRIPT, PASSKEY_SCRIPT_HASH } from '../../../lib/login/passkey-script';
import { LOGIN_PAGES } from '../../../lib/messages/locales';
import { escapeHtml } from '../../../lib/messages/markup';
import { SUPPORTED_LOCALES, type Locale } from '../../../lib/platform/vocabulary';
import { apiEvent } from '../../support/api-event';

const strings = LOGIN_PAGES['en-US'];
const text = escapeHtml;
/** Request options as the server writes them, with characters that must not end the attribute. */
const OPTIONS = JSON.stringify({
  challenge: 'Y2hhbGxlbmdl',
  rpId: 'login.example',
  userVerification: 'required',
  hints: ["\"><x a='b'>&"],
});
const ESCAPED_OPTIONS =
  '{&quot;challenge&quot;:&quot;Y2hhbGxlbmdl&quot;,&quot;rpId&quot;:&quot;login.example&quot;,&quot;userVerification&quot;:&quot;required&quot;,&quot;hints&quot;:[&quot;\\&quot;&gt;&lt;x a=&#39;b&#39;&gt;&amp;&quot;]}';
const REGISTRATION = JSON.stringify({
  challenge: 'cmVn',
  rp: { id: 'login.example', name: 'Acme <&>' },
  user: { id: 'dXNlcg', name: 'a@example.com' },
});

const user = (extra: Partial<Extract<LoginPageModel, { view: 'user' }>> = {}): string =>
  renderLoginPage({ view: 'user', locale: 'en-US', service: 'Acme', csrf: 'tok', offerVoice: false, ...extra });
const code = (extra: Partial<Extract<LoginPageModel, { view: 'code' }>> = {}): string =>
  renderLoginPage({
    view: 'code',
    locale: 'en-US',
    service: 'Acme',
    csrf: 'tok',
    destination: 'a•••@example.com',
    channel: 'email',
    ...extra,
  });
const passkeys = (extra: Partial<Extract<LoginPageModel, { view: 'passkeys' }>> = {}): string =>
  renderLoginPage({
    view: 'passkeys',
    locale: 'en-US',
    service: 'Acme',
    csrf: 'tok',
    destination: 'a•••@example.com',
    passkeys: [
      { id: 'cred-1', name: 'iCloud Keychain', createdAt: Date.UTC(2025, 0, 5, 12), lastUsedAt: Date.UTC(2025, 5, 30, 8) },
      { id: 'cred-"2"', name: undefined, createdAt: Date.UTC(2025, 2, 1), lastUsedAt: undefined },
    ],
    registration: REGISTRATION,
    offerLater: true,
    ...extra,
  });

/** The document around a body, as renderLoginPage writes it (hosted-login.test.ts checks the other views the same way). */
const documentOf = (title: string, body: readonly string[], script: boolean): string =>
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
    ...(script ? [`<script>${PASSKEY_SCRIPT}</script>`] : []),
    '</body>',
    '</html>',
    '',
  ].join('\n');

const passkeyForm = (describedBy: string) => [
  `<form id="passkey-form" method="post" action="authorize" class="passkey" data-options="${ESCAPED_OPTIONS}">`,
  '<input type="hidden" name="csrf" value="tok">',
  '<input type="hidden" name="action" value="passkey">',
  '<input type="hidden" name="credential" value="">',
  `<button type="button" id="passkey-sign-in"${describedBy} hidden>${text(strings.passkeySignIn)}</button>`,
  '</form>',
];

/** What the page shows: inside <main>, without the stylesheet and the script. */
const bodyOf = (html: string): string => html.slice(html.indexOf('<main>'), html.indexOf('</main>'));

/** The page without its one allowed script: what must hold no script and no handler. */
const withoutPageScript = (html: string): string => html.replace(PAGE_SCRIPT_ELEMENT, '');

describe('the first page with passkeys', () => {
  it('is the code form with the input open to passkey autofill, then the passkey form, its button hidden, then the script', () => {
    expect(user({ passkey: { options: OPTIONS, codeAllowed: true } })).toBe(
      documentOf(
        strings.title('Acme'),
        [
          `<h1>${text(strings.title('Acme'))}</h1>`,
          '<form method="post" action="authorize">',
          '<input type="hidden" name="csrf" value="tok">',
          `<label for="user_id">${text(strings.userIdLabel)}</label>`,
          `<p class="hint" id="user_id-hint">${text(strings.userIdHint)}</p>`,
          '<input id="user_id" name="user_id" type="text" autocomplete="username webauthn" autocapitalize="off" spellcheck="false" required autofocus aria-describedby="user_id-hint" value="">',
          `<button type="submit" name="action" value="send">${text(strings.sendCode)}</button>`,
          '</form>',
          ...passkeyForm(''),
        ],
        true,
      ),
    );
  });

  it('keeps `webauthn` out of autocomplete, the passkey form and the script out of the page, when passkeys are not offered', () => {
    const html = user();
    expect(html).toContain('autocomplete="username" ');
    expect(bodyOf(html)).not.toMatch(/webauthn|passkey/);
    expect(html).not.toContain('<script');
  });

  it('has no code form when the client asked for a phishing-resistant login: why, the error announced, a line for no script', () => {
    expect(user({ passkey: { options: OPTIONS, codeAllowed: false }, error: strings.passkeyFailed, userId: 'a@example.com' })).toBe(
      documentOf(
        strings.title('Acme'),
        [
          `<h1>${text(strings.title('Acme'))}</h1>`,
          `<p id="passkey-required">${text(strings.passkeyRequired)}</p>`,
          `<p class="error" id="passkey-error" role="alert">${text(strings.passkeyFailed)}</p>`,
          `<noscript><p class="error">${text(strings.passkeyNeedsScript)}</p></noscript>`,
          ...passkeyForm(' aria-describedby="passkey-required"'),
        ],
        true,
      ),
    );
    const bare = user({ passkey: { options: OPTIONS, codeAllowed: false } });
    expect(bare).not.toMatch(/name="user_id"|value="send"|role="alert"/);
  });

  it('escapes the options in data-options: the attribute never ends early', () => {
    const html = user({ passkey: { options: OPTIONS, codeAllowed: true } });
    const attribute = /data-options="([^"]*)"/.exec(html)?.[1] ?? '';
    expect(attribute).toBe(ESCAPED_OPTIONS);
    const decoded = attribute.replace(
      /&(quot|lt|gt|#39|amp);/g,
      (_, entity: string) => ({ quot: '"', lt: '<', gt: '>', '#39': "'", amp: '&' })[entity] ?? '',
    );
    expect(JSON.parse(decoded)).toEqual(JSON.parse(OPTIONS));
  });
});

describe('the code page', () => {
  it('carries an empty webauthn field in the code form, for the script to fill, when passkeys are offered', () => {
    const html = code({ offerPasskeys: true });
    expect(html).toContain(
      [
        '<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus aria-describedby="destination">',
        '<input type="hidden" name="webauthn" value="">',
        `<button type="submit" name="action" value="verify">${text(strings.signIn)}</button>`,
      ].join('\n'),
    );
    expect(html.match(/name="webauthn"/g)).toHaveLength(1);
    expect(html.endsWith(`</main>\n${PAGE_SCRIPT_ELEMENT}\n</body>\n</html>\n`)).toBe(true);
  });

  it('has neither the field nor the script otherwise: the code login needs no script', () => {
    for (const html of [code(), code({ offerPasskeys: false })]) expect(html).not.toMatch(/webauthn|<script/);
  });
});

describe('the passkeys page', () => {
  it('is the exact document: heading, who is signed in, the offer and its hidden button, the list, continue or not now', () => {
    expect(passkeys({ notice: strings.passkeyCreated })).toBe(
      documentOf(
        strings.passkeysTitle,
        [
          `<h1>${text(strings.passkeysTitle)}</h1>`,
          `<p class="notice" role="status">${text(strings.passkeyCreated)}</p>`,
          `<p class="hint">${text(strings.signedInAs('a•••@example.com'))}</p>`,
          `<p id="passkey-offer">${text(strings.passkeyOffer)}</p>`,
          `<form id="passkey-register-form" method="post" action="authorize" data-options="${text(REGISTRATION)}">`,
          '<input type="hidden" name="csrf" value="tok">',
          '<input type="hidden" name="action" value="passkey_register">',
          '<input type="hidden" name="credential" value="">',
          `<button type="button" id="passkey-register" aria-describedby="passkey-offer" hidden>${text(strings.createPasskey)}</button>`,
          '</form>',
          `<h2>${text(strings.yourPasskeys)}</h2>`,
          '<ul class="passkeys">',
          '<li>',
          '<p>iCloud Keychain</p>',
          '<p class="hint" id="passkey-0-dates">Created Jan 5, 2025<br>Last used Jun 30, 2025</p>',
          '<form method="post" action="authorize" class="secondary">',
          '<input type="hidden" name="csrf" value="tok">',
          '<input type="hidden" name="passkey" value="cred-1">',
          '<button type="submit" name="action" value="passkey_remove" aria-describedby="passkey-0-dates">Remove iCloud Keychain</button>',
          '</form>',
          '</li>',
          '<li>',
          '<p>Passkey</p>',
          '<p class="hint" id="passkey-1-dates">Created Mar 1, 2025<br>Not used yet</p>',
          '<form method="post" action="authorize" class="secondary">',
          '<input type="hidden" name="csrf" value="tok">',
          '<input type="hidden" name="passkey" value="cred-&quot;2&quot;">',
          '<button type="submit" name="action" value="passkey_remove" aria-describedby="passkey-1-dates">Remove Passkey</button>',
          '</form>',
          '</li>',
          '</ul>',
          '<form method="post" action="authorize" class="secondary">',
          '<input type="hidden" name="csrf" value="tok">',
          `<button type="submit" name="action" value="continue">${text(strings.continueToApp)}</button>`,
          `<button type="submit" name="action" value="later">${text(strings.notNow)}</button>`,
          '</form>',
        ],
        true,
      ),
    );
  });

  it('names the passkey in each remove button (its accessible name), and escapes the name', () => {
    const html = passkeys({ passkeys: [{ id: 'x', name: 'Key <b>&', createdAt: 0, lastUsedAt: undefined }] });
    expect(html).toContain('aria-describedby="passkey-0-dates">Remove Key &lt;b&gt;&amp;</button>');
    expect(html).toContain('<p>Key &lt;b&gt;&amp;</p>');
    const french = renderLoginPage({
      view: 'passkeys',
      locale: 'fr-FR',
      service: 'Acme',
      csrf: 'tok',
      destination: 'd',
      passkeys: [{ id: 'x', name: undefined, createdAt: 0, lastUsedAt: undefined }],
      registration: undefined,
      offerLater: false,
    });
    expect(french).toContain(`>${text(LOGIN_PAGES['fr-FR'].removePasskey(LOGIN_PAGES['fr-FR'].unnamedPasskey))}</button>`);
  });

  it.each([
    ['en-US', 'Created Jan 5, 2025', 'Last used Jun 30, 2025'],
    ['de-DE', 'Erstellt am 05.01.2025', 'Zuletzt verwendet am 30.06.2025'],
    ['fr-FR', 'Créée le 5 janv. 2025', 'Dernière utilisation le 30 juin 2025'],
    ['ja-JP', '作成日：2025/01/05', '最終使用日：2025/06/30'],
  ] as const)('writes dates as the locale does (Intl, medium, UTC): %s', (locale: Locale, created, used) => {
    const html = renderLoginPage({
      view: 'passkeys',
      locale,
      service: 'Acme',
      csrf: 'tok',
      destination: 'd',
      passkeys: [{ id: 'x', name: 'K', createdAt: Date.UTC(2025, 0, 5, 23, 59), lastUsedAt: Date.UTC(2025, 5, 30) }],
      registration: undefined,
      offerLater: false,
    });
    expect(html).toContain(`<p class="hint" id="passkey-0-dates">${text(created)}<br>${text(used)}</p>`);
  });

  it('without registration options: no offer and no create form; continue is then the primary button; without offerLater, no "Not now"', () => {
    const html = passkeys({ registration: undefined, offerLater: false, passkeys: [] });
    expect(bodyOf(html)).not.toMatch(/passkey-register|passkey-offer|data-options|<ul|<h2/);
    expect(html).not.toContain('<script');
    expect(html).toContain(
      [
        '<form method="post" action="authorize">',
        '<input type="hidden" name="csrf" value="tok">',
        `<button type="submit" name="action" value="continue">${text(strings.continueToApp)}</button>`,
        '</form>',
      ].join('\n'),
    );
    expect(html).not.toContain('value="later"');
  });

  it('announces an error (a passkey not created) as an alert', () => {
    expect(passkeys({ error: strings.passkeyCreateFailed })).toContain(
      `<p class="error" role="alert">${text(strings.passkeyCreateFailed)}</p>`,
    );
  });

  it('carries the CSRF token in every form', () => {
    const html = passkeys();
    expect(html.match(/<input type="hidden" name="csrf" value="tok">/g)?.length).toBe(html.match(/<form /g)?.length);
    expect(html.match(/<form /g)).toHaveLength(4);
  });

  it('makes every control a real button, and shows none that needs the script before the script does', () => {
    for (const html of [passkeys(), user({ passkey: { options: OPTIONS, codeAllowed: true } })]) {
      const scripted = [...html.matchAll(/<button type="button"[^>]*>/g)].map(([button]) => button);
      expect(scripted.length).toBeGreaterThan(0);
      for (const button of scripted) expect(button).toMatch(/ hidden>$/);
      expect(withoutPageScript(html)).not.toMatch(/<(a|div|span)[^>]*(role="button"|tabindex)/);
    }
  });
});

describe('the page script on the page', () => {
  const scripted = [
    user({ passkey: { options: OPTIONS, codeAllowed: true } }),
    user({ passkey: { options: OPTIONS, codeAllowed: false } }),
    code({ offerPasskeys: true }),
    passkeys(),
  ];
  const plain = [
    user(),
    user({ offerVoice: true, error: 'x' }),
    code(),
    code({ channel: 'voice', notice: 'n' }),
    renderLoginPage({ view: 'account', locale: 'en-US', service: 'Acme', csrf: 'tok', destination: 'd' }),
    renderLoginPage({ view: 'invalid', locale: 'en-US' }),
    renderLoginPage({ view: 'expired', locale: 'en-US' }),
    passkeys({ registration: undefined }),
    renderLogoutPage({ view: 'confirm', locale: 'en-US', service: 'Acme', confirmation: 'c' }),
  ];

  it('is the only script a page with passkey parts has, once, with no attributes, and no page has an inline handler', () => {
    for (const html of scripted) {
      expect(html.match(/<script/g)).toHaveLength(1);
      expect(html).toContain(`\n${PAGE_SCRIPT_ELEMENT}\n</body>`);
      expect(withoutPageScript(html)).not.toMatch(/<script|\son[a-z]+=|javascript:/i);
    }
    for (const html of plain) expect(html).not.toMatch(/<script|\son[a-z]+=|javascript:/i);
  });

  it('is safe between <script> and </script>: nothing in it ends the element or opens a comment', () => {
    expect(PASSKEY_SCRIPT).not.toMatch(/<\/|<!--/);
    expect(PASSKEY_SCRIPT_HASH).toBe(`'sha256-${createHash('sha256').update(PASSKEY_SCRIPT, 'utf8').digest('base64')}'`);
  });
});

describe('the Content-Security-Policy of a page with passkey parts', () => {
  const event = apiEvent({
    path: '/idp/v1/account/authorize',
    requestContext: { requestId: 'unit', path: '/idp/v1/account/authorize' } as APIGatewayProxyEvent['requestContext'],
  });
  const policyOf = (html: string) =>
    htmlResponse(event, 200, html, { formTargets: [], cookie: undefined }).headers?.['Content-Security-Policy'];

  it('allows exactly the page script, by its hash, besides what every page allows', () => {
    expect(pagePolicy([], { script: true })).toBe(
      `default-src 'none'; script-src ${PASSKEY_SCRIPT_HASH}; style-src ${STYLE_HASH}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(pagePolicy(['https://app.example'], { script: false })).toBe(pagePolicy(['https://app.example']));
  });

  it('follows the page: the script allowed where the page includes it, and only there', () => {
    expect(policyOf(user({ passkey: { options: OPTIONS, codeAllowed: true } }))).toBe(pagePolicy([], { script: true }));
    expect(policyOf(code({ offerPasskeys: true }))).toBe(pagePolicy([], { script: true }));
    expect(policyOf(passkeys())).toBe(pagePolicy([], { script: true }));
    expect(policyOf(passkeys({ registration: undefined }))).toBe(pagePolicy([]));
    expect(policyOf(user())).toBe(pagePolicy([]));
    expect(policyOf(code())).toBe(pagePolicy([]));
    expect(policyOf(user())).not.toContain('script-src');
    // Another script, or the page script with an attribute, gets no policy for it.
    expect(policyOf(`<script>${PASSKEY_SCRIPT.slice(1)}</script>`)).toBe(pagePolicy([]));
    expect(policyOf(`<script async>${PASSKEY_SCRIPT}</script>`)).toBe(pagePolicy([]));
  });
});

describe('the passkey texts', () => {
  it('are in every locale, non-empty, and place their value', () => {
    for (const locale of SUPPORTED_LOCALES) {
      const texts = LOGIN_PAGES[locale];
      for (const value of [
        texts.passkeySignIn,
        texts.passkeyFailed,
        texts.passkeyRequired,
        texts.passkeyNeedsScript,
        texts.passkeysTitle,
        texts.passkeyOffer,
        texts.createPasskey,
        texts.notNow,
        texts.continueToApp,
        texts.yourPasskeys,
        texts.passkeyNotUsed,
        texts.passkeyCreated,
        texts.passkeyRemoved,
        texts.passkeyCreateFailed,
        texts.unnamedPasskey,
      ]) {
        expect({ locale, value: value.trim() === value && value.length > 0 }).toEqual({ locale, value: true });
      }
      for (const placed of [
        texts.signedInAs('«1»'),
        texts.passkeyCreatedOn('«1»'),
        texts.passkeyLastUsed('«1»'),
        texts.removePasskey('«1»'),
      ]) {
        expect({ locale, placed: placed.includes('«1»') }).toEqual({ locale, placed: true });
      }
    }
  });

  it('are translated: no locale of another language reuses the English sign-in button, the offer or the error', () => {
    for (const locale of SUPPORTED_LOCALES.filter((tag) => !tag.startsWith('en-'))) {
      const texts = LOGIN_PAGES[locale];
      expect({
        locale,
        same: [texts.passkeySignIn, texts.passkeyOffer, texts.passkeyFailed].filter(
          (value, at) => value === [strings.passkeySignIn, strings.passkeyOffer, strings.passkeyFailed][at],
        ),
      }).toEqual({
        locale,
        same: [],
      });
    }
  });
});
