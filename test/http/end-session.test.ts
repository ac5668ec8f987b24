/**
 * The end-session endpoint (OpenID Connect RP-Initiated Logout 1.0) over HTTP, as a browser sends
 * it after a relying party's redirect or form post: when it ends the session at once, when it asks
 * first (§2, logout CSRF), where it sends the user afterwards (§3, §3.1) and never (§4), what the
 * confirmation page's answer may do and from where, and what a logout ends (the session, its
 * refresh tokens, the cookie). The browser's logins go through the hosted page (LoginSession), so
 * the ID token hints are the ones relying parties really hold.
 */
import { decodeJwt } from 'jose';
import { LOGIN_PAGES } from '../../lib/messages/locales';
import { pagePolicy } from '../../lib/login/html';
import { LOGOUT_CONFIRMATION_TTL_SECONDS } from '../../lib/login/logout-confirmation';
import { capturedLogs, rememberSecret } from '../support/log-capture';
import { logEntries, REDIRECT_URI, startTestService, TOKEN_PATH, uniqueEmail, type TestService } from '../support/harness';
import { LoginSession } from '../support/login-flow';

const LOGOUT_PATH = '/idp/v1/account/logout';
const SIGNED_OUT = 'http://127.0.0.1:3000/signed-out';
/** A registered URI with a query of its own, which the redirect keeps (§3: the OP adds `state`). */
const SIGNED_OUT_WITH_QUERY = 'http://127.0.0.1:3000/bye?from=idp';
const OTHER_ENVIRONMENT = 'other';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    config: (config) => {
      const local = config.environments.find((environment) => environment.id === 'local')!;
      return {
        ...config,
        environments: [...config.environments, { ...local, id: OTHER_ENVIRONMENT }],
        clients: config.clients.map((client) =>
          client.id === 'local-web'
            ? { ...client, environments: ['local', OTHER_ENVIRONMENT], postLogoutRedirectUris: [SIGNED_OUT, SIGNED_OUT_WITH_QUERY] }
            : client.id === 'local-opaque'
              ? { ...client, postLogoutRedirectUris: ['http://127.0.0.1:3000/opaque-signed-out'] }
              : client,
        ),
      };
    },
  });
});
afterAll(async () => service.stop());

/** What the end-session endpoint answered the browser. */
interface LogoutResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly html: string;
  readonly location: URL | undefined;
}

/** A browser: its single sign-on cookies (shared with its LoginSessions), its logins and its visits to the end-session endpoint. */
class Browser {
  readonly cookies = new Map<string, string>();

  /** A login at `clientId` through the hosted page, and the tokens its code exchanges for. */
  async login(
    clientId = 'local-web',
    userId = uniqueEmail('logout'),
    extra: Record<string, string> = {},
  ): Promise<{ idToken: string; refreshToken: string; userId: string }> {
    const page = new LoginSession(service, clientId, { sessionCookies: this.cookies });
    const redirect = await page.signIn(userId, extra);
    expect(redirect.status).toBe(302);
    const tokens = await service.postForm(TOKEN_PATH, {
      grant_type: 'authorization_code',
      code: redirect.location?.searchParams.get('code') ?? '',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_verifier: page.verifier,
    });
    expect(tokens.status).toBe(200);
    for (const name of ['access_token', 'id_token', 'refresh_token']) rememberSecret(tokens.body[name]);
    return { idToken: tokens.body.id_token as string, refreshToken: tokens.body.refresh_token as string, userId };
  }

  /** Whether the browser still has a session in `environment`: `prompt=none` answers a code only then (OIDC Core §3.1.2.1). */
  async signedIn(clientId = 'local-web', environment?: string): Promise<boolean> {
    const page = new LoginSession(service, clientId, { sessionCookies: this.cookies });
    const answer = await page.start({ prompt: 'none', ...(environment === undefined ? {} : { env_id: environment }) });
    return answer.status === 302 && answer.location?.searchParams.has('code') === true;
  }

  /** GET the endpoint with `parameters` in the query (a relying party's redirect). */
  async get(parameters: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}): Promise<LogoutResponse> {
    return this.visit(`${service.url}${LOGOUT_PATH}?${new URLSearchParams(parameters).toString()}`, { headers });
  }

  /** POST the endpoint a form (a relying party's form post, or the confirmation page's answer). */
  async post(fields: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}): Promise<LogoutResponse> {
    return this.visit(`${service.url}${LOGOUT_PATH}`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Presses a button of the confirmation page `page`, as the browser would: its form, its hidden field. */
  async answer(page: LogoutResponse, action: 'logout' | 'stay'): Promise<LogoutResponse> {
    expect(page.html).toContain(`<button type="submit" name="action" value="${action}">`);
    expect(page.html).toContain('<form method="post" action="logout">');
    return this.post({ confirmation: confirmationOf(page), action });
  }

  private async visit(url: string, init: RequestInit): Promise<LogoutResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie === '' ? {} : { Cookie: cookie }) },
    });
    for (const setCookie of response.headers.getSetCookie()) {
      const [, name = '', value = ''] = /^([^=]*)=([^;]*)/.exec(setCookie) ?? [];
      if (/Max-Age=0/.test(setCookie) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      headers: response.headers,
      html: await response.text(),
      location: location === null ? undefined : new URL(location),
    };
  }
}

/** The sealed confirmation of a confirmation page. */
function confirmationOf(page: LogoutResponse): string {
  const sealed = /name="confirmation" value="([^"]*)"/.exec(page.html)?.[1];
  if (sealed === undefined) throw new Error('the page is not the confirmation page');
  return sealed;
}

const en = LOGIN_PAGES['en-US'];
/** The local environment's service name, as its pages say it. */
const serviceName = (): string => service.deps.config.environment('local')?.serviceName ?? '';

function expectConfirmationPage(page: LogoutResponse): void {
  expect({ status: page.status, location: page.location, type: page.headers.get('content-type') }).toEqual({
    status: 200,
    location: undefined,
    type: 'text/html; charset=utf-8',
  });
  expect(page.html).toContain(en.logoutTitle(serviceName()));
  // Nothing ended, nothing cleared, before the user answers.
  expect(page.headers.getSetCookie()).toEqual([]);
}

async function refreshWorks(refreshToken: string): Promise<boolean> {
  const response = await service.postForm(TOKEN_PATH, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'local-web' });
  for (const name of ['access_token', 'id_token', 'refresh_token']) rememberSecret(response.body[name]);
  return response.status === 200;
}

describe('a request whose ID token hint names the browser’s session (§2)', () => {
  it('ends the session at once and redirects to the registered post_logout_redirect_uri with state (§3), clearing the cookie', async () => {
    const browser = new Browser();
    const { idToken, refreshToken } = await browser.login();

    const response = await browser.get({ id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT, state: 'st-1' });

    expect({ status: response.status, location: response.location?.toString() }).toEqual({
      status: 302,
      location: `${SIGNED_OUT}?state=st-1`,
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.getSetCookie()).toEqual(['idp_sso_local=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
    // The session serves no login any more, and the refresh token of its login (no offline_access) is revoked (OIDC Core §11).
    expect(await browser.signedIn()).toBe(false);
    expect(await refreshWorks(refreshToken)).toBe(false);
    expect(logEntries(capturedLogs(), 'logged out').at(-1)).toMatchObject({
      environment: 'local',
      client: 'local-web',
      confirmed: false,
      ended: true,
      redirected: true,
    });
  });

  it('takes the same request as a POST form (§2: "OPs MUST support the use of the HTTP GET and POST methods")', async () => {
    const browser = new Browser();
    const { idToken } = await browser.login();

    const response = await browser.post({ id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT, state: 'st-post' });

    expect({ status: response.status, location: response.location?.toString() }).toEqual({
      status: 302,
      location: `${SIGNED_OUT}?state=st-post`,
    });
    expect(await browser.signedIn()).toBe(false);
  });

  it('keeps the registered URI’s own query and adds state (§3), and leaves state out when none was sent', async () => {
    const browser = new Browser();
    const { idToken } = await browser.login();

    const response = await browser.get({ id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT_WITH_QUERY });

    expect(response.location?.toString()).toBe(SIGNED_OUT_WITH_QUERY);
  });

  it('accepts an expired ID token (§2: "even when the exp time has passed")', async () => {
    const browser = new Browser();
    const { idToken } = await browser.login();
    const { exp, iat } = decodeJwt(idToken) as { exp: number; iat: number };
    service.clock.advanceSeconds(exp - iat + 60);

    const response = await browser.get({ id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT, state: 'late' });

    expect({ status: response.status, location: response.location?.toString() }).toEqual({
      status: 302,
      location: `${SIGNED_OUT}?state=late`,
    });
  });

  it('without a post_logout_redirect_uri, shows the signed-out page in the user’s language: ui_locales, then Accept-Language', async () => {
    const first = new Browser();
    const german = await first.login();
    const second = new Browser();
    const french = await second.login();

    const byUiLocales = await first.get({ id_token_hint: german.idToken, ui_locales: 'de-DE en' }, { 'Accept-Language': 'fr-FR' });
    const byHeader = await second.get({ id_token_hint: french.idToken }, { 'Accept-Language': 'fr-CH, en;q=0.5' });

    const name = serviceName();
    expect(byUiLocales.status).toBe(200);
    expect(byUiLocales.html).toContain('<html lang="de-DE">');
    expect(byUiLocales.html).toContain(LOGIN_PAGES['de-DE'].signedOutTitle(name));
    expect(byUiLocales.html).toContain(LOGIN_PAGES['de-DE'].closeWindow);
    expect(byUiLocales.headers.getSetCookie()).toEqual(['idp_sso_local=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
    expect(byHeader.html).toContain('<html lang="fr-FR">');
    expect(await first.signedIn()).toBe(false);
    expect(await second.signedIn()).toBe(false);
  });

  it('is idempotent: with no session left, a proven request still returns to the client (§4: not an error)', async () => {
    const browser = new Browser();
    const { idToken } = await browser.login();
    await browser.get({ id_token_hint: idToken });

    const again = await browser.get({ id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT, state: 'again' });

    expect({ status: again.status, location: again.location?.toString() }).toEqual({ status: 302, location: `${SIGNED_OUT}?state=again` });
  });

  it('takes the client from client_id when it agrees with the hint’s aud, and logs no personal data', async () => {
    const browser = new Browser();
    const { idToken, userId } = await browser.login();

    const response = await browser.get({ id_token_hint: idToken, client_id: 'local-web', post_logout_redirect_uri: SIGNED_OUT });

    expect(response.status).toBe(302);
    const ended = logEntries(capturedLogs(), 'session ended').at(-1);
    expect(ended).toMatchObject({ environment: 'local', reason: 'logout', families: 1, user: expect.any(String) });
    expect(JSON.stringify(ended)).not.toContain(userId);
  });
});

describe('a request that does not prove it is the session’s relying party asks the user first (§2, logout CSRF)', () => {
  it('without a hint: the confirmation page; "Sign out" then ends the session and redirects with state', async () => {
    const browser = new Browser();
    const { refreshToken } = await browser.login();

    const page = await browser.get({ client_id: 'local-web', post_logout_redirect_uri: SIGNED_OUT, state: 'asked' });

    expectConfirmationPage(page);
    // The answer may end in a redirect to the client: the page's CSP lets its form go there, and nowhere else.
    expect(page.headers.get('content-security-policy')).toBe(pagePolicy(['http://127.0.0.1:3000']));
    expect(await browser.signedIn()).toBe(true);
    expect(logEntries(capturedLogs(), 'logout asked').at(-1)).toMatchObject({ reason: 'no_hint', client: 'local-web' });

    const confirmed = await browser.answer(page, 'logout');

    expect({ status: confirmed.status, location: confirmed.location?.toString() }).toEqual({
      status: 302,
      location: `${SIGNED_OUT}?state=asked`,
    });
    expect(confirmed.headers.getSetCookie()).toEqual(['idp_sso_local=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
    expect(await browser.signedIn()).toBe(false);
    expect(await refreshWorks(refreshToken)).toBe(false);
    expect(logEntries(capturedLogs(), 'logged out').at(-1)).toMatchObject({ confirmed: true, ended: true, redirected: true });
  });

  it('"Stay signed in" ends nothing: back to the validated URI with state, or a page saying the user is still signed in', async () => {
    const browser = new Browser();
    const { refreshToken } = await browser.login();

    const withRedirect = await browser.answer(
      await browser.get({ client_id: 'local-web', post_logout_redirect_uri: SIGNED_OUT, state: 'stay' }),
      'stay',
    );
    const withoutRedirect = await browser.answer(await browser.get({ client_id: 'local-web' }), 'stay');

    expect({ status: withRedirect.status, location: withRedirect.location?.toString() }).toEqual({
      status: 302,
      location: `${SIGNED_OUT}?state=stay`,
    });
    expect(withRedirect.headers.getSetCookie()).toEqual([]);
    expect(withoutRedirect.status).toBe(200);
    expect(withoutRedirect.html).toContain(en.stillSignedInTitle(serviceName()));
    expect(await browser.signedIn()).toBe(true);
    expect(await refreshWorks(refreshToken)).toBe(true);
  });

  it.each([
    ['an unregistered post_logout_redirect_uri (§3.1)', 'https://evil.example/landing', 'unregistered_redirect'],
    ['another client’s registered URI (§3.1: the client’s own)', 'http://127.0.0.1:3000/opaque-signed-out', 'unregistered_redirect'],
  ])('with %s: asks, and never redirects there, even once the user confirms', async (_name, uri, reason) => {
    const browser = new Browser();
    const { idToken } = await browser.login();

    const page = await browser.get({ id_token_hint: idToken, post_logout_redirect_uri: uri, state: 'x' });

    expectConfirmationPage(page);
    expect(page.headers.get('content-security-policy')).toBe(pagePolicy([]));
    expect(logEntries(capturedLogs(), 'logout asked').at(-1)).toMatchObject({ reason });
    const confirmed = await browser.answer(page, 'logout');
    expect({ status: confirmed.status, location: confirmed.location }).toEqual({ status: 200, location: undefined });
    expect(confirmed.html).toContain(en.signedOutTitle(serviceName()));
    expect(await browser.signedIn()).toBe(false);
  });

  it('with a forged hint: asks, and never redirects, not even to a registered URI (§4: a validation failed)', async () => {
    const browser = new Browser();
    const { idToken } = await browser.login();
    const [header, payload, signature = ''] = idToken.split('.');
    const forged = `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;

    const page = await browser.get({ id_token_hint: forged, post_logout_redirect_uri: SIGNED_OUT, state: 'forged' });

    expectConfirmationPage(page);
    expect(logEntries(capturedLogs(), 'logout asked').at(-1)).toMatchObject({ reason: 'invalid_hint' });
    const confirmed = await browser.answer(page, 'logout');
    expect({ status: confirmed.status, location: confirmed.location }).toEqual({ status: 200, location: undefined });
  });

  it('with an access token or a string that is no token as the hint: asks (an access token is not an ID token)', async () => {
    const browser = new Browser();
    await browser.login();
    const api = await service.signIn(uniqueEmail('logout-api'));

    const withAccessToken = await browser.get({ id_token_hint: api.body.access_token as string, client_id: 'local-web' });
    const withGarbage = await browser.get({ id_token_hint: 'not-a-token', client_id: 'local-web' });

    expectConfirmationPage(withAccessToken);
    expectConfirmationPage(withGarbage);
    expect(await browser.signedIn()).toBe(true);
  });

  it('with the ID token of another session (another browser’s login): asks, and the other session lives on', async () => {
    const mine = new Browser();
    await mine.login();
    const theirs = new Browser();
    const other = await theirs.login();

    const page = await mine.get({ id_token_hint: other.idToken, post_logout_redirect_uri: SIGNED_OUT });

    expectConfirmationPage(page);
    expect(logEntries(capturedLogs(), 'logout asked').at(-1)).toMatchObject({ reason: 'other_session' });
    expect(await mine.signedIn()).toBe(true);
    expect(await theirs.signedIn()).toBe(true);
  });
});

describe('the confirmation cannot be forged or replayed elsewhere', () => {
  it('refuses a confirmation another browser obtained (a cross-site post): bound to its own cookie, it ends nothing here', async () => {
    const victim = new Browser();
    await victim.login();
    const attacker = new Browser();
    await attacker.login();
    const attackersPage = await attacker.get({ client_id: 'local-web', post_logout_redirect_uri: SIGNED_OUT });
    const anonymousPage = await new Browser().get({ client_id: 'local-web' });

    const replayed = await victim.post({ confirmation: confirmationOf(attackersPage), action: 'logout' });
    const anonymous = await victim.post({ confirmation: confirmationOf(anonymousPage), action: 'logout' });

    for (const answer of [replayed, anonymous]) {
      expect({ status: answer.status, location: answer.location, cookies: answer.headers.getSetCookie() }).toEqual({
        status: 400,
        location: undefined,
        cookies: [],
      });
      expect(answer.html).toContain(en.logoutExpired);
    }
    expect(logEntries(capturedLogs(), 'logout expired').at(-1)).toMatchObject({ reason: 'other_session' });
    expect(await victim.signedIn()).toBe(true);
    expect(await attacker.signedIn()).toBe(true);
  });

  it('refuses an altered confirmation, one answered after its 10 minutes, and a login transaction presented as one', async () => {
    const browser = new Browser();
    await browser.login();
    const page = await browser.get({ client_id: 'local-web' });
    const sealed = confirmationOf(page);
    const altered = `${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'BB' : 'AA'}`;
    const loginPage = new LoginSession(service, 'local-web', { sessionCookies: new Map() });
    await loginPage.start();

    const answers = [
      await browser.post({ confirmation: altered, action: 'logout' }),
      await browser.post({ confirmation: loginPage.transactionCookie ?? '', action: 'logout' }),
    ];
    service.clock.advanceSeconds(LOGOUT_CONFIRMATION_TTL_SECONDS + 1);
    answers.push(await browser.answer(page, 'logout'));

    for (const answer of answers) {
      expect({ status: answer.status, location: answer.location }).toEqual({ status: 400, location: undefined });
      expect(answer.html).toContain(en.logoutExpired);
    }
    expect(await browser.signedIn()).toBe(true);
  });

  it('refuses a confirmation once the browser’s session is another one (a new login since the page was shown)', async () => {
    const browser = new Browser();
    await browser.login();
    const page = await browser.get({ client_id: 'local-web' });
    await browser.login('local-web', uniqueEmail('logout-switch'), { prompt: 'login' });

    const answer = await browser.answer(page, 'logout');

    expect(answer.status).toBe(400);
    expect(await browser.signedIn()).toBe(true);
  });
});

describe('requests it cannot answer get the error page, never a redirect (§4) and never a 5xx', () => {
  it.each([
    ['a client_id that is not the hint’s aud (§2: "MUST verify that the Client Identifier matches")', 'mismatch'],
    ['an unknown client_id', 'unknown'],
    ['an unknown env_id', 'environment'],
    ['a repeated parameter', 'repeated'],
    ['a parameter far too long', 'long'],
  ])('%s', async (_name, kind) => {
    const browser = new Browser();
    const { idToken } = await browser.login();
    const base = { id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT, state: 's' };
    const parameters = {
      mismatch: new URLSearchParams({ ...base, client_id: 'local-opaque' }),
      unknown: new URLSearchParams({ client_id: 'nobody', post_logout_redirect_uri: SIGNED_OUT }),
      environment: new URLSearchParams({ ...base, env_id: 'nowhere' }),
      repeated: new URLSearchParams([...Object.entries(base), ['state', 'again']]),
      long: new URLSearchParams({ ...base, state: 's'.repeat(5000) }),
    }[kind] as URLSearchParams;

    for (const response of [await browser.get(parameters), await browser.post(parameters)]) {
      expect({ status: response.status, location: response.location, type: response.headers.get('content-type') }).toEqual({
        status: 400,
        location: undefined,
        type: 'text/html; charset=utf-8',
      });
      expect(response.html).toContain(en.logoutInvalidTitle);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    expect(await browser.signedIn()).toBe(true);
  });

  it('answers a confirmation form with an unknown action with the error page, ending nothing', async () => {
    const browser = new Browser();
    await browser.login();
    const page = await browser.get({ client_id: 'local-web' });

    const answer = await browser.post({ confirmation: confirmationOf(page), action: 'maybe' });

    expect(answer.status).toBe(400);
    expect(await browser.signedIn()).toBe(true);
  });
});

describe('environments: a session is its environment’s (docs/decisions/014-sso-sessions.md)', () => {
  it('a logout in another environment leaves this one’s session alone', async () => {
    const browser = new Browser();
    const { idToken } = await browser.login();

    const response = await browser.get({ id_token_hint: idToken, env_id: OTHER_ENVIRONMENT, post_logout_redirect_uri: SIGNED_OUT });

    // The other environment's cookie names no session: nothing to end there, and the hint is ours.
    expect(response.status).toBe(302);
    expect(response.headers.getSetCookie()).toEqual([`idp_sso_${OTHER_ENVIRONMENT}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`]);
    expect(await browser.signedIn()).toBe(true);
  });
});

describe('DynamoDB requests', () => {
  it('asking costs one read; a proven logout the read, the delete, the index query and one update per family; a confirmed one no read', async () => {
    const browser = new Browser();
    const { idToken } = await browser.login();
    service.dynamodb.reset();
    await browser.get({ client_id: 'local-web' });
    expect(service.dynamodb.operations()).toEqual(['GetItem']);

    service.dynamodb.reset();
    await browser.get({ id_token_hint: idToken });
    expect(service.dynamodb.operations()).toEqual(['GetItem', 'DeleteItem', 'Query', 'UpdateItem']);

    const again = new Browser();
    await again.login();
    const page = await again.get({ client_id: 'local-web' });
    service.dynamodb.reset();
    await again.answer(page, 'logout');
    expect(service.dynamodb.operations()).toEqual(['DeleteItem', 'Query', 'UpdateItem']);
  });
});
