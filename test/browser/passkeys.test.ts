/**
 * Passkeys as a person meets them (issue 30, docs/decisions/016-passkeys.md), in Chromium with its
 * virtual authenticator (CDP `WebAuthn.enable` / `WebAuthn.addVirtualAuthenticator`: CTAP2, the
 * internal transport, resident keys and user verification, as a phone or a laptop's platform
 * authenticator is), driven by playwright-core through the demo client as `npm start` serves it:
 * the first login is a code, the page offers a passkey, and every later login is the passkey with
 * no code at all.
 *
 * The refusals a browser cannot be made to produce (an assertion for another RP ID, without user
 * verification, with a forged signature or an older sign count) are made here from the virtual
 * authenticator's own private key (CDP `WebAuthn.getCredentials`) and put in place of the page's
 * real assertion as its form posts it; the server-side rules behind each are tested over HTTP in
 * test/http/passkeys.test.ts with a software authenticator.
 */
import { createHash, createPrivateKey, sign } from 'node:crypto';
import type { Browser, BrowserContext, CDPSession, Page, Request, Route } from 'playwright-core';
import { focusedElement, launchBrowser, screenshot, startDemoService, type DemoService } from '../support/browser';
import { uniqueEmail } from '../support/harness';
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
let cdp: CDPSession;
let authenticatorId: string;
beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
  cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }));
  rewrite = undefined;
  await page.route(`**${AUTHORIZE_PATH}`, onPasskeyPost);
});
afterEach(async () => context.close());

async function text(selector: string): Promise<string> {
  return ((await page.textContent(selector)) ?? '').trim();
}

/** Whether the virtual authenticator answers at once, as a person who picks the passkey does. */
async function presence(enabled: boolean): Promise<void> {
  await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled });
}

/**
 * From the demo's home page through "Log in" to the page's first step. With a passkey enrolled,
 * the virtual authenticator would answer the page's conditional (autofill) request as soon as it
 * loads, so the page loads with presence off and gets it back once it is shown: what follows is
 * the button's modal request. The autofill itself has its own test.
 */
async function startLogin(): Promise<void> {
  await presence(false);
  await page.goto(demo.demoUrl);
  await Promise.all([page.waitForURL((url) => url.href.startsWith(demo.issuer)), page.click('#login')]);
  await page.waitForSelector('#user_id');
  await page.waitForSelector('#passkey-sign-in:not([hidden])');
  await presence(true);
}

/** Step 1 and 2 by code, up to the response of the code's check. */
async function loginByCode(user: string): Promise<void> {
  await page.fill('#user_id', user);
  await Promise.all([page.waitForSelector('#code'), page.click('button[value="send"]')]);
  const code = await demo.service.latestCode(user);
  await page.fill('#code', code);
  await Promise.all([page.waitForNavigation(), page.click('button[value="verify"]')]);
}

/** The claims of the ID token the demo's callback got (decoded by the demo after openid-client checked it). */
async function idTokenClaims(): Promise<Record<string, unknown>> {
  await page.waitForSelector('#id-token-claims');
  const callback = new URL(page.url());
  const code = callback.searchParams.get('code');
  if (code !== null) rememberSecret(code);
  return JSON.parse((await page.textContent('#id-token-claims')) ?? 'null') as Record<string, unknown>;
}

/** Logs out at the demo (RP-initiated logout with its ID token): the session at the service ends. */
async function logout(): Promise<void> {
  await Promise.all([page.waitForURL((url) => url.href.startsWith(demo.demoUrl) && url.searchParams.has('state')), page.click('#logout')]);
}

/** A code login that enrols a passkey on the page the service offers after it, then continues to the demo. */
async function enrol(user: string): Promise<Record<string, unknown>> {
  await startLogin();
  await loginByCode(user);
  await page.waitForSelector('#passkey-register-form');
  await page.waitForSelector('#passkey-register:not([hidden])');
  await Promise.all([page.waitForNavigation(), page.click('#passkey-register')]);
  await page.waitForSelector('[role="status"]');
  await Promise.all([page.waitForURL((url) => url.pathname === '/callback'), page.click('button[value="continue"]')]);
  return idTokenClaims();
}

/** "Sign in with a passkey" on the first step, up to the navigation it ends in. */
async function signInWithPasskey(): Promise<void> {
  await page.waitForSelector('#passkey-sign-in:not([hidden])');
  await Promise.all([page.waitForNavigation(), page.click('#passkey-sign-in')]);
}

describe('enrolment and sign-in in Chromium with a virtual authenticator', () => {
  it('code login → the page offers a passkey → created → logout → the passkey signs in with no code → tokens say so', async () => {
    const user = uniqueEmail('passkey');
    await startLogin();
    // The first step offers the passkey in the field (conditional mediation, WebAuthn L3 §5.1.4.1) and as a button.
    expect(await page.getAttribute('#user_id', 'autocomplete')).toBe('username webauthn');
    await page.waitForSelector('#passkey-sign-in:not([hidden])');
    await screenshot(page, 'passkey-user-step');

    await loginByCode(user);
    // Not yet at the demo: the page offers a passkey, since this browser has a user-verifying platform authenticator.
    expect(new URL(page.url()).pathname).toBe(AUTHORIZE_PATH);
    await page.waitForSelector('#passkey-register:not([hidden])');
    expect(await page.$$('ul.passkeys li')).toHaveLength(0);
    await screenshot(page, 'passkey-offer');

    await Promise.all([page.waitForNavigation(), page.click('#passkey-register')]);
    await page.waitForSelector('[role="status"]');
    expect(await page.$$('ul.passkeys li')).toHaveLength(1);
    await screenshot(page, 'passkey-created');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    // user.id is random, never the address (WebAuthn L3 §14.6.1).
    const userHandle = Buffer.from(credentials[0]?.userHandle ?? '', 'base64');
    expect(userHandle.length).toBeGreaterThanOrEqual(16);
    expect(userHandle.toString('utf8')).not.toContain(user);

    await Promise.all([page.waitForURL((url) => url.pathname === '/callback'), page.click('button[value="continue"]')]);
    const first = await idTokenClaims();
    expect(first.amr).toEqual(['otp']);
    expect(first.acr).toBeUndefined();

    await logout();
    const codesBefore = (await demo.service.outbox(user)).length;
    await startLogin();
    await signInWithPasskey();
    await page.waitForURL((url) => url.pathname === '/callback');
    const second = await idTokenClaims();
    // RFC 8176 §2: a device-bound key (the virtual authenticator is not backup eligible), the user's verification, two factors.
    expect(second.amr).toEqual(['hwk', 'user', 'mfa']);
    expect(second.acr).toBe('phr');
    expect(second.sub).toBe(first.sub);
    expect(second.email).toBe(user);
    expect((await demo.service.outbox(user)).length).toBe(codesBefore);
  });

  it('conditional mediation: the passkey is offered in the field, and choosing it signs in', async () => {
    const user = uniqueEmail('passkey-autofill');
    await enrol(user);
    await logout();
    // With presence on, the virtual authenticator answers the page's conditional request as a
    // person choosing the suggested passkey does: the page posts it with no click at all.
    await page.goto(demo.demoUrl);
    await Promise.all([page.waitForURL((url) => url.pathname === '/callback', { timeout: 15_000 }), page.click('#login')]);
    const claims = await idTokenClaims();
    expect(claims.amr).toEqual(['hwk', 'user', 'mfa']);
  });

  it('"Not now" skips the offer, and the next code login in this browser goes straight back', async () => {
    const user = uniqueEmail('passkey-later');
    await startLogin();
    await loginByCode(user);
    await page.waitForSelector('button[value="later"]');
    await Promise.all([page.waitForURL((url) => url.pathname === '/callback'), page.click('button[value="later"]')]);
    await logout();
    await startLogin();
    await loginByCode(user);
    expect(new URL(page.url()).pathname).toBe('/callback');
  });

  it('a removed passkey no longer signs in', async () => {
    const user = uniqueEmail('passkey-removed');
    await enrol(user);
    await logout();
    // A code login shows the page again (no "Not now" was chosen): the passkey is listed with its remove button.
    await startLogin();
    await loginByCode(user);
    await page.waitForSelector('ul.passkeys li');
    await Promise.all([page.waitForNavigation(), page.click('ul.passkeys li button')]);
    expect(await page.$$('ul.passkeys li')).toHaveLength(0);
    await screenshot(page, 'passkey-removed');
    await Promise.all([page.waitForURL((url) => url.pathname === '/callback'), page.click('button[value="continue"]')]);
    await logout();

    await startLogin();
    await signInWithPasskey();
    expect(new URL(page.url()).pathname).toBe(AUTHORIZE_PATH);
    expect(await page.textContent('[role="alert"]')).toBeTruthy();
    await screenshot(page, 'passkey-refused');
  });

  it('keyboard alone: Tab reaches "Create a passkey" and "Sign in with a passkey", Enter presses them', async () => {
    /** Tabs from the current focus until `id` has it; the ids passed on the way. */
    async function tabTo(id: string): Promise<string[]> {
      const passed: string[] = [];
      for (let step = 0; step < 8; step += 1) {
        await page.keyboard.press('Tab');
        const focused = await focusedElement(page);
        passed.push(focused);
        if (focused === id) return passed;
      }
      throw new Error(`Tab never reached #${id}: ${passed.join(' → ')}`);
    }
    const user = uniqueEmail('passkey-keyboard');
    await startLogin();
    await loginByCode(user);
    await page.waitForSelector('#passkey-register:not([hidden])');
    // The page's first control: the one primary action, before the list and "Continue".
    expect(await tabTo('passkey-register')).toEqual(['passkey-register']);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await page.waitForSelector('[role="status"]');
    expect(await page.$$('ul.passkeys li')).toHaveLength(1);
    await Promise.all([page.waitForURL((url) => url.pathname === '/callback'), page.click('button[value="continue"]')]);
    await logout();

    await startLogin();
    await page.focus('#user_id');
    // After the field, the channel and "Send code" (the code login's order), then the passkey.
    expect(await tabTo('passkey-sign-in')).toEqual(['channel=sms', 'button=send', 'passkey-sign-in']);
    await Promise.all([page.waitForURL((url) => url.pathname === '/callback'), page.keyboard.press('Enter')]);
    expect((await idTokenClaims()).amr).toEqual(['hwk', 'user', 'mfa']);
  });

  it('JavaScript off: the code login works as before, with no passkey parts', async () => {
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noScript.newPage();
    try {
      const user = uniqueEmail('passkey-noscript');
      await plain.goto(demo.demoUrl);
      await Promise.all([plain.waitForURL((url) => url.href.startsWith(demo.issuer)), plain.click('#login')]);
      await plain.fill('#user_id', user);
      await Promise.all([plain.waitForSelector('#code'), plain.click('button[value="send"]')]);
      await plain.fill('#code', await demo.service.latestCode(user));
      await Promise.all([plain.waitForURL((url) => url.pathname === '/callback'), plain.click('button[value="verify"]')]);
      expect(await plain.isVisible('#passkey-sign-in')).toBe(false);
    } finally {
      await noScript.close();
    }
  });
});

/** The first credential of the virtual authenticator, with its private key (PKCS#8). */
async function storedCredential(): Promise<{ credentialId: string; privateKey: string; signCount: number; userHandle: string }> {
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  const credential = credentials[0];
  if (credential === undefined) throw new Error('no credential');
  return {
    credentialId: credential.credentialId,
    privateKey: credential.privateKey,
    signCount: credential.signCount,
    userHandle: credential.userHandle ?? '',
  };
}

/** What the page's next passkey post carries instead of its assertion (set by a refusal test). */
let rewrite: ((assertion: Assertion) => Assertion) | undefined;

/**
 * Every passkey post of the page passes here: presence goes off before it reaches the service, so
 * the page it gets back (the first step again, after a refusal) is not answered at once by the
 * virtual authenticator's autofill; and a refusal test's `rewrite` replaces the assertion.
 */
async function onPasskeyPost(route: Route, request: Request): Promise<void> {
  const form = new URLSearchParams(request.postData() ?? '');
  if (request.method() !== 'POST' || form.get('action') !== 'passkey') return route.continue();
  await presence(false);
  if (rewrite !== undefined) form.set('credential', JSON.stringify(rewrite(JSON.parse(form.get('credential') ?? '{}') as Assertion)));
  rewrite = undefined;
  return route.continue({ postData: form.toString() });
}

/**
 * The page's passkey sign-in, with its assertion rewritten by `replace` (re-signed with the
 * virtual authenticator's key where the rewrite changes what is signed); returns the status of
 * the page it ends in.
 */
async function postRewritten(replace: (assertion: Assertion) => Assertion): Promise<number | undefined> {
  rewrite = replace;
  const [response] = await Promise.all([page.waitForNavigation(), page.click('#passkey-sign-in')]);
  return response?.status();
}

interface Assertion {
  id: string;
  rawId: string;
  type: string;
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
  clientExtensionResults: Record<string, unknown>;
  authenticatorAttachment?: string;
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

/** Re-signs an assertion over new authenticator data (WebAuthn L3 §6.3.3: the signature covers authData ‖ SHA-256(clientDataJSON)). */
function resigned(assertion: Assertion, privateKey: string, authData: Buffer): Assertion {
  const key = createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' });
  const clientData = Buffer.from(assertion.response.clientDataJSON, 'base64url');
  const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), key);
  return { ...assertion, response: { ...assertion.response, authenticatorData: b64url(authData), signature: b64url(signature) } };
}

/** Authenticator data (WebAuthn L3 §6.1): the RP ID hash, the flags, the sign count. */
function authenticatorData(rpId: string, flags: number, signCount: number): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(signCount);
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), count]);
}

const UP = 0x01;
const UV = 0x04;

describe('refused assertions (each shows the same page, and no code or session comes of it)', () => {
  let user: string;
  beforeEach(async () => {
    user = uniqueEmail('passkey-refusal');
    await enrol(user);
    await logout();
    await startLogin();
    await page.waitForSelector('#passkey-sign-in:not([hidden])');
  });

  async function expectRefused(status: number | undefined): Promise<void> {
    expect(status).toBe(400);
    expect(new URL(page.url()).pathname).toBe(AUTHORIZE_PATH);
    expect(await text('[role="alert"]')).not.toBe('');
    // The demo got nothing: no session was started for this browser.
    const demoCookies = (await context.cookies(demo.issuer)).map((cookie) => cookie.name);
    expect(demoCookies.some((name) => name.startsWith('idp_sso_'))).toBe(false);
  }

  it('an assertion for another RP ID (WebAuthn L3 §7.2 step 15)', async () => {
    const stored = await storedCredential();
    await expectRefused(
      await postRewritten((assertion) =>
        resigned(assertion, stored.privateKey, authenticatorData('evil.localhost', UP | UV, stored.signCount + 1)),
      ),
    );
  });

  it('an assertion without user verification (WebAuthn L3 §7.2 step 17)', async () => {
    const stored = await storedCredential();
    await expectRefused(
      await postRewritten((assertion) => resigned(assertion, stored.privateKey, authenticatorData('localhost', UP, stored.signCount + 1))),
    );
  });

  it('a forged signature (WebAuthn L3 §7.2 step 20)', async () => {
    await expectRefused(
      await postRewritten((assertion) => {
        const signature = Buffer.from(assertion.response.signature, 'base64url');
        const last = signature.length - 1;
        signature.writeUInt8(signature.readUInt8(last) ^ 0x01, last);
        return { ...assertion, response: { ...assertion.response, signature: b64url(signature) } };
      }),
    );
  });

  it('a sign count that went back (a cloned authenticator, WebAuthn L3 §7.2 step 21)', async () => {
    const stored = await storedCredential();
    expect(stored.signCount).toBeGreaterThan(0);
    await expectRefused(
      await postRewritten((assertion) =>
        resigned(assertion, stored.privateKey, authenticatorData('localhost', UP | UV, stored.signCount - 1)),
      ),
    );
  });

  it('a replayed challenge: the same form post again, with the same cookie, after it signed in', async () => {
    let replay: { body: string; cookie: string } | undefined;
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URLSearchParams(request.postData() ?? '').get('action') === 'passkey') {
        replay = { body: request.postData() ?? '', cookie: request.headers().cookie ?? '' };
      }
    });
    await signInWithPasskey();
    await page.waitForURL((url) => url.pathname === '/callback');
    if (replay === undefined) throw new Error('no passkey post seen');
    const again = await fetch(`${demo.issuer}${AUTHORIZE_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: replay.cookie },
      body: replay.body,
      redirect: 'manual',
    });
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
  });
});

describe('a client that asks for a phishing-resistant login (acr_values=phr)', () => {
  it('shows no code form, and the passkey signs in with acr phr', async () => {
    const user = uniqueEmail('passkey-phr');
    await enrol(user);
    await logout();
    await startLogin();
    const request = new URL(page.url());
    request.searchParams.set('acr_values', 'phr');
    await presence(false);
    await page.goto(request.href);
    await page.waitForSelector('#passkey-sign-in:not([hidden])');
    expect(await page.$('button[value="send"]')).toBeNull();
    expect(await text('#passkey-required')).not.toBe('');
    await screenshot(page, 'passkey-required');
    await presence(true);
    await signInWithPasskey();
    await page.waitForURL((url) => url.pathname === '/callback');
    expect((await idTokenClaims()).acr).toBe('phr');
  });
});
