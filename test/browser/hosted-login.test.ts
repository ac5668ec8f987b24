/**
 * The hosted login as a person meets it: a real headless Chromium (Debian's, driven by
 * playwright-core) goes from the demo client (local/demo-client.ts, as `npm start` serves it) to
 * the login page, reads the code from the outbox like a user reads their email, and comes back to
 * the demo's callback, where openid-client has exchanged the code and the page shows the tokens.
 * Also: SMS and voice, wrong codes, the block, a tampered CSRF token, error redirects, a
 * keyboard-only login, and an unmodified openid-client that does every check itself. A screenshot
 * of each distinct page goes to test-output/screenshots/ (git-ignored).
 *
 * The rules behind each page are tested over HTTP in test/http/authorize.test.ts; this file checks
 * that a browser really gets through them (cookies across the two host names, CSP form-action on
 * the redirect, autofocus, implicit submission), without fixed sleeps: every step waits for its
 * navigation or its element.
 */
import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { focusedElement, launchBrowser, screenshot, startDemoService, type DemoService } from '../support/browser';
import { uniqueEmail, uniquePhone, withLimits } from '../support/harness';
import { rememberSecret } from '../support/log-capture';
import { AUTHORIZE_PATH } from '../support/login-flow';

let browser: Browser;
let demo: DemoService;
beforeAll(async () => {
  [browser, demo] = await Promise.all([launchBrowser(), startDemoService()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await demo?.service.stop();
});

let context: BrowserContext;
let page: Page;
beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
});
afterEach(async () => context.close());

/** Runs `act` (a click, a key) and waits for the page it navigates to; returns that page's response. */
async function navigation(act: () => Promise<void>): Promise<Response | null> {
  const [response] = await Promise.all([page.waitForNavigation(), act()]);
  return response;
}

/** From the demo's home page through "Log in" to step 1; returns the authorization request it made. */
async function startLogin(on: DemoService = demo): Promise<URL> {
  await page.goto(on.demoUrl);
  await navigation(() => page.click('#login'));
  await page.waitForSelector('#user_id');
  return new URL(page.url());
}

async function sendCode(userId: string, channel?: 'sms' | 'voice'): Promise<void> {
  await page.fill('#user_id', userId);
  if (channel !== undefined) await page.check(`input[name="channel"][value="${channel}"]`);
  await navigation(() => page.click('button[value="send"]'));
  await page.waitForSelector('#code');
}

async function enterCode(code: string): Promise<Response | null> {
  await page.fill('#code', code);
  return navigation(() => page.click('button[value="verify"]'));
}

/** The JSON a demo callback page shows in the element `id`. */
async function shown(id: string): Promise<Record<string, unknown>> {
  return JSON.parse((await page.textContent(`#${id}`)) ?? 'null') as Record<string, unknown>;
}

/** What the callback page's own script (local/demo-browser.ts) got from UserInfo, once it has an answer. */
async function browserUserInfo(): Promise<{ outcome: string | null; shown: Record<string, unknown> }> {
  await page.waitForSelector('#browser-userinfo[data-outcome]');
  return { outcome: await page.getAttribute('#browser-userinfo', 'data-outcome'), shown: await shown('browser-userinfo') };
}

async function text(selector: string): Promise<string> {
  return ((await page.textContent(selector)) ?? '').trim();
}

/** The callback's URL, its authorization code remembered as a secret the logs must not show. */
function callbackUrl(): URL {
  const url = new URL(page.url());
  const code = url.searchParams.get('code');
  if (code !== null) rememberSecret(code);
  return url;
}

const wrong = (code: string, offset: number) => String((Number(code) + offset) % 1_000_000).padStart(6, '0');

describe('the demo client and the hosted login page', () => {
  it('logs a user in by email: demo → login page → code from the outbox → the demo shows the tokens', async () => {
    const user = uniqueEmail('browser');
    await page.goto(demo.demoUrl);
    expect(await text('#demo-banner')).toContain('Demo client');
    await screenshot(page, 'demo-home');

    await navigation(() => page.click('#login'));
    await page.waitForSelector('#user_id');
    const request = new URL(page.url());
    // A standard authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC Core §3.1.2.1), built by openid-client.
    expect(`${request.origin}${request.pathname}`).toBe(`${demo.issuer}${AUTHORIZE_PATH}`);
    expect(Object.fromEntries(request.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'local-web',
      redirect_uri: demo.demo.redirectUri,
      scope: 'openid email phone',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(await text('h1')).toBe('Sign in to Identity Dev');
    await screenshot(page, 'login-user');

    await sendCode(user);
    expect(await text('#destination')).toMatch(/^We sent a 6-digit code to .•••@example\.com\.$/);
    expect(await page.getAttribute('#code', 'autocomplete')).toBe('one-time-code');
    expect(await page.getAttribute('#code', 'inputmode')).toBe('numeric');
    await screenshot(page, 'login-code');

    const outbox = await demo.service.outbox(user);
    expect(outbox.map((message) => message.channel)).toEqual(['email']);
    const response = await enterCode(await demo.service.latestCode(user));
    expect(response?.status()).toBe(200);

    // RFC 6749 §4.1.2 and RFC 9207: the code, the request's state and the issuer, at the registered redirect URI.
    const callback = callbackUrl();
    expect(`${callback.origin}${callback.pathname}`).toBe(demo.demo.redirectUri);
    expect([...callback.searchParams.keys()].sort()).toEqual(['code', 'iss', 'state']);
    expect(callback.searchParams.get('state')).toBe(request.searchParams.get('state'));
    expect(callback.searchParams.get('iss')).toBe(demo.issuer);

    expect(await text('h1')).toBe(`Logged in as ${user}`);
    expect(await text('#checks')).toContain('at_hash');
    const idToken = await shown('id-token-claims');
    expect(idToken).toMatchObject({
      iss: demo.issuer,
      aud: 'local-web',
      nonce: request.searchParams.get('nonce'),
      amr: ['otp'],
      at_hash: expect.any(String),
      email: user,
      email_verified: true,
    });
    expect(idToken.sub).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]{43}$/));
    expect(await shown('access-token-claims')).toMatchObject({
      iss: demo.issuer,
      sub: idToken.sub,
      aud: 'http://127.0.0.1:3000/api',
      client_id: 'local-web',
      scope: 'openid email phone',
      email: user,
    });
    expect(await shown('userinfo')).toEqual({ sub: idToken.sub, email: user, email_verified: true });
    // The page itself asked UserInfo again, cross-origin, through the typed client (local/demo-browser.ts):
    // the browser sent the preflight and let the page read an answer that allows its origin.
    expect(await browserUserInfo()).toEqual({ outcome: 'ok', shown: { sub: idToken.sub, email: user, email_verified: true } });
    await screenshot(page, 'demo-callback');

    // Reloading the callback exchanges nothing: the demo's login was used up, and it says so.
    await page.reload();
    expect(await text('#error')).toBe('No login in progress');
  });

  it('calls the API from the page only as CORS allows: the same page on an origin the stage does not allow cannot read UserInfo', async () => {
    const closed = await startDemoService({ allowDemoOrigin: false });
    try {
      const user = uniqueEmail('browser-cors');
      await startLogin(closed);
      await sendCode(user);
      await enterCode(await closed.service.latestCode(user));
      callbackUrl();
      expect(await text('h1')).toBe(`Logged in as ${user}`);
      // The server-side UserInfo (openid-client, no browser) worked; the browser's was withheld.
      expect(await shown('userinfo')).toMatchObject({ email: user });
      expect((await browserUserInfo()).outcome).toBe('blocked');
      await screenshot(page, 'demo-callback-cors-refused');
    } finally {
      await closed.service.stop();
    }
  });

  it.each([
    ['sms', 'We sent a 6-digit code to +1 •••', ['otp', 'sms']],
    ['voice', 'We are calling +1 •••', ['otp', 'tel']],
  ] as const)('logs a phone user in by %s, the code read from the SMS/voice capture', async (channel, said, amr) => {
    const phone = uniquePhone();
    await startLogin();
    await sendCode(phone, channel);
    expect(await text('#destination')).toContain(said);
    if (channel === 'voice') await screenshot(page, 'login-code-voice');
    const [message] = await demo.service.outbox(phone);
    expect(message).toMatchObject({ channel, to: phone });
    await enterCode(await demo.service.latestCode(phone));
    callbackUrl();
    expect(await text('h1')).toBe(`Logged in as ${phone}`);
    const idToken = await shown('id-token-claims');
    expect(idToken).toMatchObject({ phone_number: phone, phone_number_verified: true, amr });
    expect(idToken).not.toHaveProperty('email');
    expect(await shown('userinfo')).toEqual({ sub: idToken.sub, phone_number: phone, phone_number_verified: true });
  });

  it('says a wrong code is wrong, on the input; the 3rd wrong code says the code is dead, and a new one works', async () => {
    const user = uniqueEmail('wrong');
    await startLogin();
    await sendCode(user);
    const code = await demo.service.latestCode(user);
    for (const offset of [1, 2, 3]) {
      expect((await enterCode(wrong(code, offset)))?.status()).toBe(400);
      // WCAG 2.2 SC 3.3.1 and 1.3.1: the error is text, announced, and tied to its input.
      // The 3rd spends the code's last try, and says so at once.
      expect(await text('#code-error')).toBe(
        offset < 3 ? 'That code is not correct. Check it and try again.' : 'This code can no longer be used. Send a new code.',
      );
      expect(await page.getAttribute('#code-error', 'role')).toBe('alert');
      expect((await page.getAttribute('#code', 'aria-describedby'))?.split(' ')).toContain('code-error');
      expect(await page.getAttribute('#code', 'aria-invalid')).toBe('true');
      expect(await focusedElement(page)).toBe('code');
      // The message a person sees for a wrong code with tries left (after the 3rd it is the dead one, below).
      if (offset === 1) await screenshot(page, 'login-code-wrong');
    }

    // The right code, now too late: 3 tries were spent.
    expect((await enterCode(code))?.status()).toBe(400);
    expect(await text('#code-error')).toBe('This code can no longer be used. Send a new code.');
    expect(page.url()).toBe(`${demo.issuer}${AUTHORIZE_PATH}`);
    await screenshot(page, 'login-code-dead');

    await navigation(() => page.click('button[value="resend"]'));
    expect(await text('.notice')).toBe('A new code is on its way.');
    await screenshot(page, 'login-code-resent');
    const fresh = await demo.service.latestCode(user);
    await enterCode(fresh);
    callbackUrl();
    expect(await text('h1')).toBe(`Logged in as ${user}`);
  });

  it('shows the block page with its retry time once the per-user limit is reached, and lets the user in after it', async () => {
    // The per-user limit of the token endpoint, lowered to 2 code checks a minute for this service.
    const limited = await startDemoService({ config: withLimits({ token: { maxAttempts: 2 } }) });
    try {
      const user = uniqueEmail('blocked');
      await startLogin(limited);
      await sendCode(user);
      for (let attempt = 0; attempt < 2; attempt += 1) expect((await enterCode('000000'))?.status()).toBe(400);
      const blocked = await enterCode('000000');
      expect(blocked?.status()).toBe(429);
      expect(await blocked?.headerValue('retry-after')).toBe('300');
      expect(await text('#code-error')).toBe('Too many attempts. Try again in 5 minutes.');
      await screenshot(page, 'login-blocked');

      // Time is the service's clock, moved on rather than waited for: the block lifts by itself.
      // The code has expired meanwhile (300 s), so the user asks for a new one.
      limited.service.clock.advanceSeconds(301);
      await navigation(() => page.click('button[value="resend"]'));
      await enterCode(await limited.service.latestCode(user));
      callbackUrl();
      expect(await text('h1')).toBe(`Logged in as ${user}`);
    } finally {
      await limited.service.stop();
    }
  });

  it('refuses a form post with a tampered CSRF token: a friendly page, and nothing sent', async () => {
    const user = uniqueEmail('csrf');
    await startLogin();
    // What a forged post from another site would carry: a token it had to guess.
    await page.evaluate("document.querySelector('input[name=csrf]').value = 'tampered-token-from-another-site'");
    await page.fill('#user_id', user);
    const response = await navigation(() => page.click('button[value="send"]'));
    expect(response?.status()).toBe(400);
    expect(await text('h1')).toBe('This sign-in link is not valid');
    expect(await text('p[role="alert"]')).toBe('This sign-in page has expired. Go back to the app and start again.');
    expect(await page.$('form')).toBeNull();
    await screenshot(page, 'login-expired');
    expect(await demo.service.outbox(user)).toEqual([]);
  });

  it('shows an error page, never a redirect, for a client it does not know', async () => {
    const response = await page.goto(
      `${demo.issuer}${AUTHORIZE_PATH}?response_type=code&client_id=nobody&redirect_uri=${encodeURIComponent(demo.demo.redirectUri)}`,
    );
    expect(response?.status()).toBe(400);
    expect(page.url().startsWith(`${demo.issuer}${AUTHORIZE_PATH}`)).toBe(true);
    expect(await text('h1')).toBe('This sign-in link is not valid');
    await screenshot(page, 'login-invalid');
  });

  it.each([
    ['prompt=none (there is no session to reuse)', 'prompt=none', 'login_required'],
    ['a scope that is not scope tokens', 'scope=openid%20%22admin%22', 'invalid_scope'],
  ])(
    'brings an error redirect for %s to the demo’s callback, with state and iss (RFC 6749 §4.1.2.1, RFC 9207)',
    async (_name, query, error) => {
      await page.goto(`${demo.demoUrl}login?${query}`);
      await page.waitForSelector('#error');
      const callback = callbackUrl();
      expect(`${callback.origin}${callback.pathname}`).toBe(demo.demo.redirectUri);
      expect(callback.searchParams.get('error')).toBe(error);
      expect(callback.searchParams.get('error_description')).toEqual(expect.any(String));
      expect(callback.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(callback.searchParams.get('iss')).toBe(demo.issuer);
      expect(callback.searchParams.has('code')).toBe(false);
      // openid-client checked iss and state before it read the error; the demo shows it rather than failing.
      expect(await text('#error')).toBe(`The issuer answered ${error}`);
      expect(await text('#note')).toContain('iss and state matched');
      if (error === 'login_required') await screenshot(page, 'demo-callback-error');
    },
  );

  it('can be completed with the keyboard alone: Tab and Enter, in the order input → channel → submit', async () => {
    const user = uniqueEmail('keyboard');
    await page.goto(demo.demoUrl);
    for (let presses = 0; presses < 10 && (await focusedElement(page)) !== 'login'; presses += 1) await page.keyboard.press('Tab');
    expect(await focusedElement(page)).toBe('login');
    await navigation(() => page.keyboard.press('Enter'));
    await page.waitForSelector('#user_id');

    // Step 1: the input has the focus on arrival (autofocus), then the channel choice, then the button.
    expect(await focusedElement(page)).toBe('user_id');
    await page.keyboard.type(user);
    const order = [];
    for (let presses = 0; presses < 2; presses += 1) {
      await page.keyboard.press('Tab');
      order.push(await focusedElement(page));
    }
    expect(order).toEqual(['channel=sms', 'button=send']);
    await navigation(() => page.keyboard.press('Enter'));
    await page.waitForSelector('#code');

    // Step 2: the code input has the focus on arrival, then "Sign in".
    expect(await focusedElement(page)).toBe('code');
    await page.keyboard.type(await demo.service.latestCode(user));
    await page.keyboard.press('Tab');
    expect(await focusedElement(page)).toBe('button=verify');
    await navigation(() => page.keyboard.press('Enter'));
    callbackUrl();
    expect(await text('h1')).toBe(`Logged in as ${user}`);
    expect(await shown('id-token-claims')).toMatchObject({ email: user });
  });
});

describe('an unmodified openid-client, with the browser doing the page steps', () => {
  /** Where the browser ends up: the redirect to the client, caught before any server answers it. */
  async function authorizeInBrowser(authorizationUrl: URL, user: string): Promise<URL> {
    await page.route(`${demo.demo.redirectUri}?*`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'redirected' }),
    );
    await page.goto(authorizationUrl.href);
    await sendCode(user);
    await enterCode(await demo.service.latestCode(user));
    return callbackUrl();
  }

  it('discovers the issuer, exchanges the code with PKCE, checks state, nonce and the ID token itself, and fetches UserInfo; a replayed code is invalid_grant', async () => {
    // Default discovery (OIDC Discovery §4: {issuer}/.well-known/openid-configuration); the local
    // issuer is plain HTTP, which openid-client refuses unless told otherwise.
    const config = await oidc.discovery(new URL(demo.issuer), 'local-web', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const user = uniqueEmail('openid-client');
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: demo.demo.redirectUri,
      scope: 'openid email',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });

    const callback = await authorizeInBrowser(authorizationUrl, user);
    // No extra token endpoint parameters: RFC 6749 §4.1.3's and the code_verifier are all it sends.
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: codeVerifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    rememberSecret(tokens.access_token);
    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: demo.issuer, aud: 'local-web', nonce, email: user, email_verified: true });

    // OIDC Core §3.1.3.6: at_hash is the left half of the SHA-256 (RS256's hash) of the access token.
    // openid-client does not check it in the code flow (it is optional there), so the test does.
    const digest = createHash('sha256').update(tokens.access_token, 'ascii').digest();
    expect(claims?.at_hash).toBe(digest.subarray(0, 16).toString('base64url'));

    const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, claims?.sub as string);
    expect(userInfo).toEqual({ sub: claims?.sub, email: user, email_verified: true });

    // RFC 6749 §4.1.2: the code is single use; the second exchange is refused.
    await expect(
      oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: codeVerifier, expectedState: state, expectedNonce: nonce }),
    ).rejects.toMatchObject({ name: 'ResponseBodyError', error: 'invalid_grant', status: 400 });
  });

  it('is refused by openid-client itself when the ID token’s nonce is not the one it sent (OIDC Core §3.1.3.7)', async () => {
    const config = await oidc.discovery(new URL(demo.issuer), 'local-web', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: demo.demo.redirectUri,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce: oidc.randomNonce(),
    });
    const callback = await authorizeInBrowser(authorizationUrl, uniqueEmail('nonce'));
    await expect(
      oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: codeVerifier,
        expectedState: state,
        expectedNonce: oidc.randomNonce(),
      }),
    ).rejects.toMatchObject({
      name: 'ClientError',
      code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
      cause: { message: 'unexpected ID Token "nonce" claim value', cause: { claim: 'nonce' } },
    });
  });
});

describe('response_mode=form_post in the browser (OAuth 2.0 Form Post Response Mode §2)', () => {
  /** Signs in on the page with `response_mode=form_post`; returns what reached the redirect URI, and how. */
  async function formPostLogin(user: string): Promise<{ method: string; body: URLSearchParams }> {
    const config = await oidc.discovery(new URL(demo.issuer), 'local-web', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const received = new Promise<{ method: string; body: URLSearchParams }>((resolve) => {
      void page.route(demo.demo.redirectUri, async (route) => {
        resolve({ method: route.request().method(), body: new URLSearchParams(route.request().postData() ?? '') });
        await route.fulfill({ status: 200, contentType: 'text/plain', body: 'posted' });
      });
    });
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: demo.demo.redirectUri,
      scope: 'openid email',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      state: 'form-post-state',
      response_mode: 'form_post',
    });
    await page.goto(authorizationUrl.href);
    await sendCode(user);
    await page.fill('#code', await demo.service.latestCode(user));
    await page.click('button[value="verify"]');
    const posted = await received;
    rememberSecret(posted.body.get('code') ?? '');
    return posted;
  }

  it('posts code, state and iss to the redirect URI by the page’s own script, which its CSP allows (no violation reported)', async () => {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });

    const posted = await formPostLogin(uniqueEmail('form-post'));

    expect(posted.method).toBe('POST');
    expect(Object.fromEntries(posted.body)).toEqual({
      code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: 'form-post-state',
      iss: demo.issuer,
    });
    expect(violations).toEqual([]);
  });

  it('offers a button that posts the same form where scripts are off', async () => {
    await context.close();
    context = await browser.newContext({ javaScriptEnabled: false });
    page = await context.newPage();
    const user = uniqueEmail('form-post-noscript');
    const posted = formPostLogin(user);
    await page.waitForSelector('noscript button, button[type="submit"]:not([value])');
    await screenshot(page, 'form-post-noscript');
    await page.click('button[type="submit"]:not([value])');

    expect(Object.fromEntries((await posted).body)).toMatchObject({ state: 'form-post-state', iss: demo.issuer });
  });
});
