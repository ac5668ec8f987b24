/**
 * The end-session endpoint's pages (lib/login/logout-page.ts) and its sealed confirmation
 * (lib/login/logout-confirmation.ts): every text from the locale and escaped, one form that posts
 * back to the endpoint, and a confirmation that opens only as itself, unaltered and in time. The
 * endpoint over HTTP is test/http/end-session.test.ts.
 */
import { deriveHmacKeys } from '../../../lib/keys/hmac-keys';
import { LOGIN_PAGES } from '../../../lib/messages/locales';
import { renderLogoutPage } from '../../../lib/login/logout-page';
import {
  LOGOUT_CONFIRMATION_TTL_SECONDS,
  openConfirmation,
  sealConfirmation,
  type LogoutConfirmation,
} from '../../../lib/login/logout-confirmation';
import { newCsrfToken, openTransaction, sealTransaction } from '../../../lib/login/login-transaction';
import { STYLESHEET } from '../../../lib/login/login-page';

const keys = deriveHmacKeys(Buffer.alloc(32, 7));
const NOW = Date.UTC(2026, 10, 23, 12);
const confirmation: LogoutConfirmation = {
  environmentId: 'local',
  sessionKey: 'session-key',
  clientId: 'local-web',
  redirectUri: 'https://app.example/signed-out',
  state: 's',
  locale: 'de-DE',
};

describe('renderLogoutPage', () => {
  it('asks in one form with the sealed request, signing out first (the default button), the service name escaped', () => {
    const html = renderLogoutPage({ view: 'confirm', locale: 'de-DE', service: 'A<b>&"', confirmation: 'sealed"<' });

    expect(html).toContain('<html lang="de-DE">');
    expect(html).toContain(`<style>${STYLESHEET}</style>`);
    expect(html).toContain('<h1>Von A&lt;b&gt;&amp;&quot; abmelden?</h1>');
    expect(html).toContain(`<p>${LOGIN_PAGES['de-DE'].logoutBody}</p>`);
    expect(html.match(/<form /g)).toHaveLength(1);
    expect(html).toContain('<form method="post" action="logout">');
    expect(html).toContain('<input type="hidden" name="confirmation" value="sealed&quot;&lt;">');
    const confirm = html.indexOf('value="logout">Abmelden</button>');
    const stay = html.indexOf('value="stay">Angemeldet bleiben</button>');
    expect(confirm).toBeGreaterThan(0);
    expect(stay).toBeGreaterThan(confirm);
    expect(html).not.toContain('<script');
  });

  it.each([
    ['signed_out', LOGIN_PAGES['fr-FR'].signedOutTitle('Acme'), LOGIN_PAGES['fr-FR'].closeWindow],
    ['still_signed_in', LOGIN_PAGES['fr-FR'].stillSignedInTitle('Acme'), LOGIN_PAGES['fr-FR'].closeWindow],
  ] as const)('shows the %s page with no form', (view, title, body) => {
    const html = renderLogoutPage({ view, locale: 'fr-FR', service: 'Acme' });

    expect(html).toContain(`<title>${title}</title>`);
    expect(html).toContain(`<p>${body}</p>`);
    expect(html).not.toContain('<form');
  });

  it('shows the error and the expired pages, the second announced (role="alert")', () => {
    const strings = LOGIN_PAGES['en-US'];
    expect(renderLogoutPage({ view: 'invalid', locale: 'en-US' })).toContain(
      `<h1>${strings.logoutInvalidTitle}</h1>\n<p>${strings.invalidRequestBody}</p>`,
    );
    expect(renderLogoutPage({ view: 'expired', locale: 'en-US' })).toContain(`<p role="alert">${strings.logoutExpired}</p>`);
  });
});

describe('the sealed confirmation', () => {
  it('opens as sealed within its lifetime, and not a second later', async () => {
    const sealed = await sealConfirmation(keys, confirmation, NOW);

    await expect(openConfirmation(keys, sealed, NOW + (LOGOUT_CONFIRMATION_TTL_SECONDS - 1) * 1000)).resolves.toEqual(confirmation);
    await expect(openConfirmation(keys, sealed, NOW + LOGOUT_CONFIRMATION_TTL_SECONDS * 1000)).resolves.toBeUndefined();
  });

  it('hides what it holds (encrypted, not only signed), and refuses an altered one or another key’s', async () => {
    const sealed = await sealConfirmation(keys, confirmation, NOW);
    const [header, key, iv, ciphertext = '', tag] = sealed.split('.');
    const altered = [header, key, iv, `${ciphertext.startsWith('A') ? 'B' : 'A'}${ciphertext.slice(1)}`, tag].join('.');

    expect(Buffer.from(sealed).toString()).not.toContain('app.example');
    await expect(openConfirmation(keys, altered, NOW)).resolves.toBeUndefined();
    await expect(openConfirmation(deriveHmacKeys(Buffer.alloc(32, 8)), sealed, NOW)).resolves.toBeUndefined();
    await expect(openConfirmation(keys, undefined, NOW)).resolves.toBeUndefined();
    await expect(openConfirmation(keys, '', NOW)).resolves.toBeUndefined();
  });

  it('is no login transaction, nor a login transaction one, under the same key (each has its own typ and members)', async () => {
    const transaction = await sealTransaction(
      keys,
      { environmentId: 'local', clientId: 'local-web', redirectUri: 'https://app.example/cb', locale: 'en-US', csrf: newCsrfToken() },
      NOW,
    );
    const sealed = await sealConfirmation(keys, confirmation, NOW);

    await expect(openConfirmation(keys, transaction, NOW)).resolves.toBeUndefined();
    await expect(openTransaction(keys, sealed, NOW)).resolves.toBeUndefined();
  });
});
