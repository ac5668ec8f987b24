/**
 * The hosted login page as a way around client keys and the send guards (docs/security.md, "The
 * third review"; docs/decisions/010-hosted-login-abuse.md), over HTTP as a browser without
 * JavaScript, or a script, sends it: a client whose codes only its servers may request is refused
 * at the authorization endpoint; the page never skips a per-source guard; a client with keys that
 * uses the page presents one at the token endpoint; one transaction, and one source, can only send
 * so many codes; a transaction that would not fit in a cookie is refused on the redirect.
 */
import { escapeHtml } from '../../lib/messages/markup';
import { apiKeyDigest } from '../../lib/oauth/api-keys';
import { LOGIN_PAGES } from '../../lib/messages/locales';
import { capturedLogs, rememberSecret } from '../support/log-capture';
import {
  LOCAL_API_KEY,
  logEntries,
  REDIRECT_URI,
  sendBody,
  SEND_PATH,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  uniquePhone,
  withLimits,
  type TestService,
} from '../support/harness';
import { LoginSession, type PageResponse } from '../support/login-flow';

/** A client with API keys (it may introspect) that uses the hosted page: it must present a key for its tokens. */
const KEYED = 'page-keyed';
const KEYED_SECRET = 'page-keyed-secret-0123456789abcdef';

let service: TestService;
beforeAll(async () => {
  rememberSecret(KEYED_SECRET);
  service = await startTestService({
    config: (config) => {
      const web = config.clients.find((client) => client.id === 'local-web')!;
      const keyed = { ...web, id: KEYED, refreshTokens: undefined, apiKeySha256: [apiKeyDigest(KEYED_SECRET)], mayIntrospect: true };
      // Three sends an hour per source, for SMS and voice and for email: the guards at a size a test can reach.
      return withLimits({ sendPerIp: { maxSends: 3 }, emailPerIp: { maxSends: 3 } })({ ...config, clients: [...config.clients, keyed] });
    },
  });
});
afterAll(async () => service.stop());

function shows(page: PageResponse, text: string): void {
  expect(page.html).toContain(escapeHtml(text));
}

/** A page send from `from` (its own transaction), as a browser there would post it. */
async function sendFromPage(user: string, from: string, clientId = 'local-web', channel?: 'sms' | 'voice'): Promise<PageResponse> {
  const session = new LoginSession(service, clientId, { from });
  return session.post(await session.start(), 'send', { user_id: user, ...(channel === undefined ? {} : { channel }) });
}

describe('a client whose codes only its servers may request (sendRequiresApiKey)', () => {
  it('regression: is refused at the authorization endpoint with the error page, never a redirect (the page sent its codes for anyone, without its key)', async () => {
    const since = capturedLogs().length;
    const page = await new LoginSession(service, 'local-backend').start();
    expect({ status: page.status, location: page.location, cookie: page.headers.get('set-cookie') }).toEqual({
      status: 400,
      location: undefined,
      cookie: null,
    });
    shows(page, LOGIN_PAGES['en-US'].invalidRequestTitle);
    expect(logEntries(capturedLogs().slice(since), 'authorization refused')).toEqual([
      expect.objectContaining({ reason: 'hosted login not allowed', client: 'local-backend', environment: 'local' }),
    ]);
  });

  it('ends a transaction begun before its client lost the page (a later deployment over the same table): the expired page, nothing sent', async () => {
    const earlier = new LoginSession(service);
    const page = await earlier.start();
    const later = await startTestService({
      tableName: service.services.tableName,
      config: (config) => ({
        ...config,
        clients: config.clients.map((client) => (client.id === 'local-web' ? { ...client, hostedLogin: false } : client)),
      }),
    });
    try {
      const user = uniqueEmail('moved');
      later.dynamodb.reset();
      const answer = await earlier.continuedAt(later).post(page, 'send', { user_id: user });
      expect(answer.status).toBe(400);
      shows(answer, LOGIN_PAGES['en-US'].expired);
      expect(later.dynamodb.operations()).toEqual([]);
      expect(await later.outbox(user)).toEqual([]);
    } finally {
      await later.stop();
    }
  });
});

describe('the page never skips a per-source guard, whatever the client’s keys', () => {
  it('counts a keyed client’s SMS and voice sends by the source IP: the page never asks a client’s settings whether to skip it (10 of 10 went out with the limit at 3)', async () => {
    const statuses: number[] = [];
    let last: PageResponse | undefined;
    for (const channel of ['sms', 'voice', 'sms', 'voice', 'sms'] as const) {
      last = await sendFromPage(uniquePhone(), '127.0.40.1', KEYED, channel);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last?.headers.get('retry-after')).toBe('3600');
    shows(last!, LOGIN_PAGES['en-US'].tooManySends('in 60 minutes'));
  });

  it('counts email sends by the source IP too, with otp/send’s from the same IP; another IP and a client’s servers count apart', async () => {
    const from = '127.0.40.2';
    expect((await sendFromPage(uniqueEmail('page-mail'), from)).status).toBe(200);
    expect((await service.post(SEND_PATH, sendBody(uniqueEmail('api-mail')), { from })).status).toBe(200);
    expect((await sendFromPage(uniqueEmail('page-mail'), from, KEYED)).status).toBe(200);
    service.clock.advanceSeconds(600);

    const victim = uniqueEmail('victim');
    const refused = await sendFromPage(victim, from);
    expect({ status: refused.status, retryAfter: refused.headers.get('retry-after') }).toEqual({ status: 429, retryAfter: '3000' });
    shows(refused, LOGIN_PAGES['en-US'].blocked('in 50 minutes'));
    const byApi = await service.post(SEND_PATH, sendBody(victim), { from });
    expect({ status: byApi.status, body: byApi.body, retryAfter: byApi.headers.get('retry-after') }).toEqual({
      status: 429,
      body: { error: 'too_many_requests', error_description: 'Too many codes by email were requested. Try again in 3000 seconds.' },
      retryAfter: '3000',
    });
    expect(await service.outbox(victim)).toEqual([]);

    expect((await sendFromPage(uniqueEmail('elsewhere'), '127.0.40.3')).status).toBe(200);
    const byServer = await service.post(SEND_PATH, sendBody(uniqueEmail('server'), 'local-backend'), {
      from,
      headers: { Authorization: `Bearer ${LOCAL_API_KEY}` },
    });
    expect(byServer.status).toBe(200);
  });

  it('logs an email refusal with the source’s handle, never the address', async () => {
    const from = '127.0.40.4';
    for (let index = 0; index < 3; index += 1) await sendFromPage(uniqueEmail('logged'), from);
    const since = capturedLogs().length;
    expect((await sendFromPage(uniqueEmail('logged'), from)).status).toBe(429);
    expect(logEntries(capturedLogs().slice(since), 'email send refused')).toEqual([
      expect.objectContaining({ level: 'WARN', environment: 'local', guard: 'ip', source: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/) }),
    ]);
  });
});

describe('a client with API keys that uses the page (RFC 6749 §3.2.1: a client with credentials authenticates)', () => {
  async function codeFor(user: string): Promise<{ session: LoginSession; code: string }> {
    const session = new LoginSession(service, KEYED, { from: '127.0.41.1' });
    const redirect = await session.signIn(user);
    expect(redirect.status).toBe(302);
    return { session, code: redirect.location?.searchParams.get('code') ?? '' };
  }

  function exchange(session: LoginSession, code: string, headers: Record<string, string> = {}) {
    return service.postForm(
      TOKEN_PATH,
      { grant_type: 'authorization_code', code, client_id: KEYED, redirect_uri: REDIRECT_URI, code_verifier: session.verifier },
      headers,
    );
  }

  it('regression: gets no tokens with its client id alone (401 invalid_client, the code not spent), and tokens with its key', async () => {
    const { session, code } = await codeFor(uniqueEmail('keyed'));
    const anonymous = await exchange(session, code);
    expect({
      status: anonymous.status,
      body: anonymous.body,
      challenge: anonymous.headers.get('www-authenticate'),
    }).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: 'This client must authenticate: HTTP Basic with its client id and secret.' },
      challenge: 'Bearer realm="identity"',
    });
    const wrong = await exchange(session, code, { Authorization: `Basic ${Buffer.from(`${KEYED}:not-the-key`).toString('base64')}` });
    expect({ status: wrong.status, challenge: wrong.headers.get('www-authenticate') }).toEqual({
      status: 401,
      challenge: 'Basic realm="identity"',
    });
    const basic = await exchange(session, code, { Authorization: `Basic ${Buffer.from(`${KEYED}:${KEYED_SECRET}`).toString('base64')}` });
    expect(basic.status).toBe(200);
    rememberSecret(basic.body.access_token);
    rememberSecret(basic.body.id_token);
  });

  it('may present its key as a Bearer credential instead', async () => {
    const { session, code } = await codeFor(uniqueEmail('keyed-bearer'));
    const bearer = await exchange(session, code, { Authorization: `Bearer ${KEYED_SECRET}` });
    expect(bearer.status).toBe(200);
    rememberSecret(bearer.body.access_token);
    rememberSecret(bearer.body.id_token);
  });
});

describe('sends per transaction', () => {
  let wide: TestService;
  beforeAll(async () => {
    // The local configuration's email window (100 an hour per source): only the transaction's cap is in play.
    wide = await startTestService();
  });
  afterAll(async () => wide.stop());

  it('regression: one transaction cannot mail many addresses: its 6th send ends it (the expired page), and nothing more is sent (60 addresses got 60 emails in 0.6 s)', async () => {
    const session = new LoginSession(wide, 'local-web', { from: '127.0.42.1' });
    const first = await session.start();
    const addresses = Array.from({ length: 60 }, () => uniqueEmail('bombed'));
    const statuses: number[] = [];
    let refusal: PageResponse | undefined;
    for (const address of addresses) {
      // A script posts step 1's form again and again with the transaction's CSRF token.
      const answer = await session.post(first, 'send', { user_id: address }, { offered: false });
      statuses.push(answer.status);
      if (statuses.length === 6) refusal = answer;
    }
    expect(statuses.slice(0, 6)).toEqual([200, 200, 200, 200, 200, 400]);
    // The 6th ended the transaction: every later post has no cookie.
    expect(new Set(statuses.slice(6))).toEqual(new Set([400]));
    shows(refusal!, LOGIN_PAGES['en-US'].expired);
    expect(refusal?.headers.get('set-cookie')).toMatch(/^idp_login=; .*Max-Age=0/);
    const delivered = await Promise.all(addresses.map(async (address) => (await wide.outbox(address)).length));
    expect(delivered).toEqual([1, 1, 1, 1, 1, ...Array<number>(55).fill(0)]);
  });

  it('counts resends too: a send and 4 resends, then the transaction ends', async () => {
    const session = new LoginSession(wide, 'local-web', { from: '127.0.42.2' });
    const user = uniqueEmail('resends');
    let page = await session.post(await session.start(), 'send', { user_id: user });
    for (let index = 0; index < 4; index += 1) page = await session.post(page, 'resend');
    expect(page.status).toBe(200);
    const sixth = await session.post(page, 'resend');
    expect(sixth.status).toBe(400);
    shows(sixth, LOGIN_PAGES['en-US'].expired);
    expect(await wide.outbox(user)).toHaveLength(5);
  });

  it('counts a send a limit refused: the cap bounds the requests a transaction makes, not only what reaches a user', async () => {
    const capped = await startTestService({
      config: withLimits({ sendsPerTransaction: 2, emailPerIp: { maxSends: 1, windowSeconds: 60 } }),
    });
    try {
      const session = new LoginSession(capped, 'local-web', { from: '127.0.42.3' });
      const first = await session.start();
      expect((await session.post(first, 'send', { user_id: uniqueEmail('one') })).status).toBe(200);
      // The source's window is full: refused, and counted as the transaction's 2nd send.
      expect((await session.post(first, 'send', { user_id: uniqueEmail('two') }, { offered: false })).status).toBe(429);
      capped.clock.advanceSeconds(60);
      const third = await session.post(first, 'send', { user_id: uniqueEmail('three') }, { offered: false });
      expect(third.status).toBe(400);
      shows(third, LOGIN_PAGES['en-US'].expired);
    } finally {
      await capped.stop();
    }
  });
});

describe('one source through many transactions, with the default email window (30 an hour)', () => {
  it('regression: of 60 transactions from one IP that each send to a new address, exactly 30 send (60 emails in 0.6 s before)', async () => {
    const defaults = await startTestService({ config: withLimits({ emailPerIp: { maxSends: 30, windowSeconds: 3600 } }) });
    try {
      const addresses = Array.from({ length: 60 }, () => uniqueEmail('swept'));
      const answers = await Promise.all(
        addresses.map(async (address) => {
          const session = new LoginSession(defaults, 'local-web', { from: '127.0.43.1' });
          return (await session.post(await session.start(), 'send', { user_id: address })).status;
        }),
      );
      expect(answers.filter((status) => status === 200)).toHaveLength(30);
      expect(answers.filter((status) => status === 429)).toHaveLength(30);
      const delivered = await Promise.all(addresses.map(async (address) => (await defaults.outbox(address)).length));
      expect(delivered.reduce((sum, count) => sum + count, 0)).toBe(30);
    } finally {
      await defaults.stop();
    }
  });
});

describe('the transaction cookie’s size (RFC 6265 §6.1: browsers keep at least 4,096 bytes of name, value and attributes)', () => {
  /** The GET of the authorization request with `state` (and nonce) of these lengths. */
  function start(state: number, nonce = 0): Promise<PageResponse> {
    return new LoginSession(service).start({ state: 's'.repeat(state), nonce: nonce === 0 ? undefined : 'n'.repeat(nonce) });
  }

  it('regression: refuses on the redirect with invalid_request a request whose transaction would not fit (state and nonce of 1,500 made a 4.5 KB cookie Chromium dropped)', async () => {
    const refused = await start(1500, 1500);
    expect(refused.status).toBe(302);
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect(`${refused.location?.origin}${refused.location?.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(refused.location?.searchParams ?? [])).toEqual({
      error: 'invalid_request',
      error_description: 'The request is too large: its state, nonce, scope and other values must be shorter.',
      state: 's'.repeat(1500),
      iss: service.url,
    });
  });

  it('keeps every cookie of the largest request it accepts within 4,096 bytes, through step 2 with the longest address', async () => {
    // The longest state and nonce (of one length) accepted, found by bisection: the cookie's cap
    // decides it, well below the 2,048 characters each parameter may have.
    let [accepted, refused] = [0, 2048];
    while (refused - accepted > 1) {
      const middle = Math.floor((accepted + refused) / 2);
      if ((await start(middle, middle)).status === 200) accepted = middle;
      else refused = middle;
    }
    expect(accepted).toBeGreaterThan(1000);
    expect(accepted).toBeLessThan(1500);
    const session = new LoginSession(service, 'local-web', { from: '127.0.44.1' });
    const first = await session.start({ state: 's'.repeat(accepted), nonce: 'n'.repeat(accepted) });
    // 254 characters: the longest address lib/platform/email-address.ts accepts.
    const longest = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(longest).toHaveLength(254);
    const second = await session.post(first, 'send', { user_id: longest });
    expect(second.status).toBe(200);
    for (const page of [first, second]) {
      const cookie = page.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/^idp_login=/);
      expect(Buffer.byteLength(cookie)).toBeLessThanOrEqual(4096);
    }
  });
});
