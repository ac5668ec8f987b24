/**
 * Rules that no test held (docs/security.md): one-line breaks of these security rules passed the
 * whole suite. Each describe below is one rule, driven through the HTTP path a client uses, and
 * fails when its rule is broken (each was checked by making the break by hand):
 *
 * 1. PKCE is S256 only: the challenge presented as its own verifier (a `plain` downgrade) is
 *    refused, at the hosted page's authorization-code exchange (which spends the code) and at the
 *    one-time-code exchange;
 * 2. no personal data in logs: a provider's refusal that quotes the recipient (SES, SNS,
 *    SMS-voice) reaches no log line, only its error name does;
 * 3. CSRF on the hosted page: a form post without the `csrf` field at all is refused and sends,
 *    spends and writes nothing (send, resend, verify);
 * 4. exact redirect URI matching at the authorization endpoint: every variant of a registered URI
 *    gets the error page, never a redirect, also where the request would earn an error redirect;
 * 5. the per-IP SMS guard counts API Gateway's source IP only: rotating X-Forwarded-For,
 *    X-Real-IP or Forwarded changes nothing (otp/send and the hosted page);
 * 6. a code is bound to its redirect URI among the client's registered ones (both grants).
 *
 * The providers' refusals come from real HTTP servers speaking each protocol (test/support/
 * fault-servers.ts `startWireProxy` with `answer`) in front of the real stand-ins; no AWS client is
 * mocked.
 */
import { randomUUID } from 'node:crypto';
import { escapeHtml } from '../../lib/messages/markup';
import { LOG_EVENTS } from '../../lib/platform/log-events';
import { LOGIN_PAGES } from '../../lib/messages/locales';
import { closedPort, startWireProxy, type ProxyAnswer, type RecordedRequest, type WireProxy } from '../support/fault-servers';
import {
  logEntries,
  REDIRECT_URI,
  SEND_PATH,
  sendBody,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  uniquePhone,
  withLimits,
  type TestResponse,
  type TestService,
} from '../support/harness';
import { capturedLogs, logLeaks, rememberSecret } from '../support/log-capture';
import { LoginSession, pkce, type PageResponse } from '../support/login-flow';

const GRANT_REFUSED = { error: 'invalid_grant', error_description: 'The code is invalid, expired, or was already used.' };
const STRINGS = LOGIN_PAGES['en-US'];

/** A JSON refusal as a client sees it: status, body and the headers of every error. */
function jsonAnswer(response: TestResponse) {
  return {
    status: response.status,
    body: response.body,
    contentType: response.headers.get('content-type'),
    cacheControl: response.headers.get('cache-control'),
  };
}

const refusedGrant = { status: 400, body: GRANT_REFUSED, contentType: 'application/json; charset=utf-8', cacheControl: 'no-store' };

/** Remembers a token response's tokens as secrets the logs must not show; returns the response. */
function tokensOf(response: TestResponse): TestResponse {
  for (const name of ['access_token', 'id_token', 'refresh_token']) rememberSecret(response.body[name]);
  return response;
}

/** The reasons the token endpoint logged for its refusals in `lines` (never told to the client). */
function refusalReasons(lines: readonly string[]): unknown[] {
  return logEntries(lines, LOG_EVENTS.grantRefused).map((entry) => entry.reason);
}

describe('PKCE S256 only (regression guard: a plain downgrade, the challenge presented as the verifier, passed every test)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  // An attacker who saw the authorization request knows the challenge, not the verifier. With
  // `plain` the challenge is the verifier; S256 only means it is never compared as one.
  const downgrades: Array<[string, Record<string, string>]> = [
    ['the challenge as the verifier', {}],
    ['the challenge as the verifier, with code_challenge_method=plain', { code_challenge_method: 'plain' }],
  ];

  it.each(downgrades)(
    'authorization code of the hosted page: %s is invalid_grant, and spends the code (RFC 7636 §4.6, §7.2)',
    async (_name, extra) => {
      const session = new LoginSession(service);
      const redirect = await session.signIn(uniqueEmail('plain-code'));
      const code = redirect.location?.searchParams.get('code') ?? '';
      const form = { grant_type: 'authorization_code', code, client_id: 'local-web', redirect_uri: REDIRECT_URI };
      const before = capturedLogs().length;

      const downgrade = await service.postForm(TOKEN_PATH, { ...form, code_verifier: session.challenge, ...extra });
      const genuine = await service.postForm(TOKEN_PATH, { ...form, code_verifier: session.verifier });

      expect(jsonAnswer(downgrade)).toEqual(refusedGrant);
      // Spent by the refusal: an interceptor's attempt costs the client its code (the grant's step 3).
      expect(jsonAnswer(genuine)).toEqual(refusedGrant);
      expect(refusalReasons(capturedLogs().slice(before))).toEqual(['binding', 'not_found_or_expired']);
    },
  );

  it.each(downgrades)(
    'one-time code sent with a challenge: %s is invalid_grant (one try spent); the verifier then exchanges',
    async (_name, extra) => {
      const { verifier, challenge } = pkce();
      const user = uniqueEmail('plain-otp');
      const sent = await service.post(SEND_PATH, sendBody(user, 'local-web', { code_challenge: challenge, code_challenge_method: 'S256' }));
      expect(sent.status).toBe(200);
      const code = await service.latestCode(user);
      const exchange = (more: Record<string, unknown>) =>
        service.post(TOKEN_PATH, {
          grant_type: 'authorization_code',
          code,
          client_id: 'local-web',
          redirect_uri: REDIRECT_URI,
          user_id: user,
          ...more,
        });
      const before = capturedLogs().length;

      const downgrade = await exchange({ code_verifier: challenge, ...extra });
      expect(jsonAnswer(downgrade)).toEqual(refusedGrant);
      expect(refusalReasons(capturedLogs().slice(before))).toEqual(['wrong_verifier']);

      const genuine = tokensOf(await exchange({ code_verifier: verifier }));
      expect(genuine.status).toBe(200);
      expect(genuine.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    },
  );
});

/** A provider's refusal in one of the three wire protocols, quoting the recipient as real ones do. */
interface QuotingProvider {
  readonly name: string;
  readonly channel: 'email' | 'sms' | 'voice';
  /** The recipient as the request named it. */
  recipientOf(request: RecordedRequest): string;
  refusal(recipient: string): ProxyAnswer;
  /** The error name the SDK gives the refusal, and the adapter's detail for it (the only part logs may have). */
  readonly errorName: string;
  readonly detail: string;
}

const queryError = (namespace: string, code: string, message: string): ProxyAnswer => ({
  status: 400,
  headers: { 'Content-Type': 'text/xml', 'x-amzn-RequestId': randomUUID() },
  body:
    `<ErrorResponse xmlns="${namespace}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error>` +
    `<RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
});

const QUOTING_PROVIDERS: readonly QuotingProvider[] = [
  {
    name: 'SES',
    channel: 'email',
    recipientOf: (request) => new URLSearchParams(request.body).get('Destination.ToAddresses.member.1') ?? '',
    // What SES answers in its sandbox for an address that is not verified (AWS Query, SES API 2010-12-01).
    refusal: (to) =>
      queryError(
        'http://ses.amazonaws.com/doc/2010-12-01/',
        'MessageRejected',
        `Email address is not verified. The following identities failed the check in region US-EAST-1: ${to}`,
      ),
    errorName: 'MessageRejected',
    detail: 'SES SendEmail: MessageRejected',
  },
  {
    name: 'SNS',
    channel: 'sms',
    recipientOf: (request) => new URLSearchParams(request.body).get('PhoneNumber') ?? '',
    refusal: (to) =>
      queryError(
        'http://sns.amazonaws.com/doc/2010-03-31/',
        'InvalidParameter',
        `Invalid parameter: PhoneNumber Reason: ${to} is not valid to publish to`,
      ),
    errorName: 'InvalidParameterException',
    detail: 'SNS Publish: InvalidParameterException',
  },
  {
    name: 'SMS-voice',
    channel: 'voice',
    recipientOf: (request) => String((JSON.parse(request.body) as { DestinationPhoneNumber?: unknown }).DestinationPhoneNumber),
    // A number that opted out of voice messages (AWS JSON 1.0; the number in the message and as ResourceId).
    refusal: (to) => ({
      status: 400,
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': randomUUID() },
      body: JSON.stringify({
        __type: 'ConflictException',
        Message: `Destination phone number ${to} has opted out of voice messages.`,
        Reason: 'DESTINATION_PHONE_NUMBER_OPTED_OUT',
        ResourceType: 'opt-out',
        ResourceId: to,
      }),
    }),
    errorName: 'ConflictException',
    detail: 'SendVoiceMessage: ConflictException',
  },
];

describe('no personal data in logs (regression guard: a provider refusal that quoted the recipient could reach the logs unnoticed)', () => {
  let service: TestService;
  const proxies: WireProxy[] = [];
  /** Every refusal the providers gave, by provider name. */
  const refusals = new Map<string, string[]>();
  beforeAll(async () => {
    // Each provider is a server of its own that answers every request with its refusal; nothing
    // stands behind it (the proxy's target is a closed port, never reached).
    const quoting = async (provider: QuotingProvider) => {
      const proxy = await startWireProxy(await closedPort(), {
        answer: (request) => {
          const refusal = provider.refusal(provider.recipientOf(request));
          refusals.set(provider.name, [...(refusals.get(provider.name) ?? []), refusal.body]);
          return refusal;
        },
      });
      proxies.push(proxy);
      return proxy.url;
    };
    const [ses, sns, voice] = QUOTING_PROVIDERS as [QuotingProvider, QuotingProvider, QuotingProvider];
    service = await startTestService({ sesUrl: await quoting(ses), snsUrl: await quoting(sns), smsVoiceUrl: await quoting(voice) });
  });
  afterAll(async () => {
    await service.stop();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
  });

  /** The recipient, and the strings of it a log must not hold (the address or its local part; the number with or without +). */
  function recipientFor(channel: QuotingProvider['channel']): { user: string; forms: string[] } {
    if (channel === 'email') {
      const user = uniqueEmail('quoted');
      return { user, forms: [user, user.split('@')[0] as string] };
    }
    const user = uniquePhone();
    return { user, forms: [user, user.slice(1), user.slice(2)] };
  }

  function expectNoPersonalData(provider: QuotingProvider, user: string, forms: readonly string[], lines: readonly string[]): void {
    // The fault is real: the provider's refusal quoted the recipient.
    expect(refusals.get(provider.name)?.at(-1)).toContain(user);
    expect(lines.filter((line) => forms.some((form) => line.includes(form)))).toEqual([]);
    expect(logLeaks(lines)).toEqual([]);
    // What the logs do say: the error's name, from the adapter's detail.
    expect(logEntries(lines, LOG_EVENTS.deliveryFailed).map(({ channel, detail }) => ({ channel, detail }))).toEqual([
      { channel: provider.channel, detail: provider.detail },
    ]);
  }

  it.each(QUOTING_PROVIDERS.map((provider) => [provider.name, provider] as const))(
    'otp/send, %s refuses quoting the recipient: 502, and the logs name the error, never the recipient',
    async (_name, provider) => {
      const { user, forms } = recipientFor(provider.channel);
      const before = capturedLogs().length;

      const response = await service.post(
        SEND_PATH,
        sendBody(user, 'local-web', provider.channel === 'voice' ? { method: 'voice_with_otp' } : {}),
      );

      expect(jsonAnswer(response)).toEqual({
        status: 502,
        body: { error: 'delivery_failed', error_description: 'The code could not be delivered. Try again later.' },
        contentType: 'application/json; charset=utf-8',
        cacheControl: 'no-store',
      });
      const lines = capturedLogs().slice(before);
      expectNoPersonalData(provider, user, forms, lines);
      expect(logEntries(lines, LOG_EVENTS.requestFailed)).toEqual([
        expect.objectContaining({ error: 'delivery_failed', status: 502, detail: provider.detail, cause: { name: provider.errorName } }),
      ]);
    },
  );

  it.each(QUOTING_PROVIDERS.map((provider) => [provider.name, provider] as const))(
    'the hosted page, %s refuses quoting the recipient: 502 page, and the logs name the error, never the recipient',
    async (_name, provider) => {
      const { user, forms } = recipientFor(provider.channel);
      const session = new LoginSession(service);
      const first = await session.start();
      const before = capturedLogs().length;

      const page = await session.post(first, 'send', { user_id: user, ...(provider.channel === 'voice' ? { channel: 'voice' } : {}) });

      expect(page.status).toBe(502);
      expect(page.html).toContain(`>${escapeHtml(STRINGS.deliveryFailed)}</p>`);
      expectNoPersonalData(provider, user, forms, capturedLogs().slice(before));
    },
  );
});

describe('CSRF on the hosted page (regression guard: a post without the csrf field at all was never tried)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  /** A session at the step where `action` is offered, and the code delivered for it (if any). */
  async function sessionFor(action: 'send' | 'resend' | 'verify', user: string): Promise<{ session: LoginSession; page: PageResponse }> {
    const session = new LoginSession(service);
    const first = await session.start();
    if (action === 'send') return { session, page: first };
    const second = await session.post(first, 'send', { user_id: user });
    expect(second.status).toBe(200);
    return { session, page: second };
  }

  it.each(['send', 'resend', 'verify'] as const)(
    '%s without a csrf field: the expired page, the transaction cleared, nothing sent, spent or written',
    async (action) => {
      const user = uniqueEmail(`no-csrf-${action}`);
      const { session, page } = await sessionFor(action, user);
      const cookie = session.transactionCookie;
      const delivered = (await service.outbox(user)).length;
      const code = action === 'verify' ? await service.latestCode(user) : undefined;
      const fields: Record<string, string> = action === 'send' ? { user_id: user } : code === undefined ? {} : { code };
      service.dynamodb.reset();
      const before = capturedLogs().length;

      const answer = await session.post(page, action, fields, { csrf: false });

      expect({
        status: answer.status,
        location: answer.location,
        contentType: answer.headers.get('content-type'),
        setCookie: answer.headers.get('set-cookie'),
        expired: answer.html.includes(escapeHtml(STRINGS.expired)),
      }).toEqual({
        status: 400,
        location: undefined,
        contentType: 'text/html; charset=utf-8',
        setCookie: expect.stringMatching(/^idp_login=; Max-Age=0; /),
        expired: true,
      });
      expect(service.dynamodb.operations()).toEqual([]);
      expect(await service.outbox(user)).toHaveLength(delivered);
      expect(logEntries(capturedLogs().slice(before), LOG_EVENTS.authorizationRefused).map(({ reason }) => reason)).toEqual([
        'transaction or csrf',
      ]);
      if (code !== undefined) {
        // Nothing was spent: the same browser, with its token, still signs in with the code.
        session.transactionCookie = cookie;
        expect((await session.post(page, 'verify', { code })).status).toBe(302);
      }
    },
  );
});

describe('exact redirect URI matching at the authorization endpoint (regression guard: only a foreign URI was tried)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  // Each is a string other than the registered one, however a URL parser would read it.
  const variants: Array<[string, string]> = [
    ['dot segments that leave it', `${REDIRECT_URI}/../../elsewhere`],
    ['dot segments that resolve to it', 'http://127.0.0.1:3000/x/../callback'],
    ['a suffix', `${REDIRECT_URI}extra`],
    ['a trailing slash', `${REDIRECT_URI}/`],
    ['a longer path', `${REDIRECT_URI}/more`],
    ['a query', `${REDIRECT_URI}?x=1`],
    ['an empty query', `${REDIRECT_URI}?`],
    ['a fragment', `${REDIRECT_URI}#f`],
    ['an upper-case scheme', 'HTTP://127.0.0.1:3000/callback'],
    ['the address in short form', 'http://127.1:3000/callback'],
    ['the address in hexadecimal', 'http://0x7f.0.0.1:3000/callback'],
    ['the address as IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]:3000/callback'],
    ['an upper-case path', 'http://127.0.0.1:3000/Callback'],
    ['a percent-encoded path character', 'http://127.0.0.1:3000/%63allback'],
    ['a percent-encoded slash', 'http://127.0.0.1:3000%2Fcallback'],
    ['a percent-encoded dot segment', `${REDIRECT_URI}/%2E%2E/elsewhere`],
    ['the whole URI percent-encoded', encodeURIComponent(REDIRECT_URI)],
    ['a port with a leading zero', 'http://127.0.0.1:03000/callback'],
    ['another scheme', 'https://127.0.0.1:3000/callback'],
    ['a trailing dot on the address', 'http://127.0.0.1.:3000/callback'],
    ['user info', 'http://user@127.0.0.1:3000/callback'],
    ['a backslash for the slash', 'http://127.0.0.1:3000\\callback'],
    ['a doubled slash', 'http://127.0.0.1:3000//callback'],
    ['surrounding spaces', ` ${REDIRECT_URI} `],
    ['a prefix of it', REDIRECT_URI.slice(0, -1)],
  ];
  // Each would otherwise earn step 1 (no extra) or an error redirect to the redirect URI.
  const requests: Array<Record<string, string>> = [
    {},
    { prompt: 'none' },
    { response_type: 'token' },
    { code_challenge_method: 'plain' },
    { scope: 'openid "admin"' },
  ];

  it.each(variants)('%s (%j): the error page, never a Location, for every request', async (_name, redirectUri) => {
    const answers = [];
    for (const extra of requests) {
      const page = await new LoginSession(service).start({ ...extra, redirect_uri: redirectUri });
      answers.push({
        extra,
        status: page.status,
        location: page.headers.get('location'),
        setCookie: page.headers.get('set-cookie'),
        invalid: page.html.includes(escapeHtml(STRINGS.invalidRequestTitle)),
      });
    }
    expect(answers).toEqual(requests.map((extra) => ({ extra, status: 400, location: null, setCookie: null, invalid: true })));
  });

  it('takes the registered URI itself (the control): step 1, and its error redirect with prompt=none', async () => {
    expect((await new LoginSession(service).start()).status).toBe(200);
    const refused = await new LoginSession(service).start({ prompt: 'none' });
    expect(refused.status).toBe(302);
    expect(`${refused.location?.origin}${refused.location?.pathname}`).toBe(REDIRECT_URI);
  });
});

describe('the per-IP SMS guard counts API Gateway’s source IP only (regression guard: no test sent a forwarding header)', () => {
  const LIMIT = 3;
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ sendPerIp: { maxSends: LIMIT, windowSeconds: 3600 } }) });
  });
  afterAll(async () => service.stop());

  /** Headers that claim another client address on every request (the n-th from TEST-NET-3). */
  const rotations: Array<[string, (n: number) => Record<string, string>]> = [
    ['X-Forwarded-For', (n) => ({ 'X-Forwarded-For': `203.0.113.${n}` })],
    ['X-Forwarded-For with a chain', (n) => ({ 'X-Forwarded-For': `203.0.113.${n}, 198.51.100.${n}` })],
    ['X-Real-IP', (n) => ({ 'X-Real-IP': `203.0.113.${n}` })],
    ['Forwarded', (n) => ({ Forwarded: `for=203.0.113.${n};proto=https` })],
    ['all of them', (n) => ({ 'X-Forwarded-For': `203.0.113.${n}`, 'X-Real-IP': `203.0.113.${n}`, Forwarded: `for="[2001:db8:${n}::1]"` })],
  ];
  /** One loopback source per case, so the cases never share a window. */
  const sources = rotations.map((_rotation, index) => [`127.0.10.${index + 1}`, `127.0.11.${index + 1}`] as const);

  it.each(rotations.map(([name, headers], index) => [name, headers, sources[index]?.[0] ?? ''] as const))(
    'otp/send with a new %s on every request from one source: refused at the limit, nothing sent',
    async (_name, headers, from) => {
      const users = Array.from({ length: LIMIT + 1 }, () => uniquePhone());
      const statuses: number[] = [];
      let last: TestResponse | undefined;
      for (const [index, user] of users.entries()) {
        last = await service.post(SEND_PATH, sendBody(user), { from, headers: headers(index + 1) });
        statuses.push(last.status);
      }

      expect(statuses).toEqual([200, 200, 200, 429]);
      expect({ ...jsonAnswer(last as TestResponse), retryAfter: last?.headers.get('retry-after') }).toEqual({
        status: 429,
        body: {
          error: 'too_many_requests',
          error_description: 'Too many codes by SMS or voice call were requested. Try again in 3600 seconds.',
        },
        contentType: 'application/json; charset=utf-8',
        cacheControl: 'no-store',
        retryAfter: '3600',
      });
      expect(await service.outbox(users[LIMIT] as string)).toEqual([]);
    },
  );

  it.each(rotations.map(([name, headers], index) => [name, headers, sources[index]?.[1] ?? ''] as const))(
    'the hosted page with a new %s on every request from one source: refused at the limit, nothing sent',
    async (_name, headers, from) => {
      const users = Array.from({ length: LIMIT + 1 }, () => uniquePhone());
      const statuses: number[] = [];
      let last: PageResponse | undefined;
      for (const [index, user] of users.entries()) {
        const session = new LoginSession(service, 'local-web', { from });
        const first = await session.start({}, headers(index + 1));
        last = await session.post(first, 'send', { user_id: user }, { headers: headers(index + 1) });
        statuses.push(last.status);
      }

      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(last?.headers.get('retry-after')).toBe('3600');
      expect(last?.html).toContain(`>${escapeHtml(STRINGS.tooManySends('in 60 minutes'))}</p>`);
      expect(await service.outbox(users[LIMIT] as string)).toEqual([]);
    },
  );
});

describe('a code is bound to its redirect URI among the client’s registered ones (regression guard: only an unregistered URI was tried)', () => {
  const A = REDIRECT_URI;
  const B = 'http://127.0.0.1:3000/second-callback';
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      config: (config) => ({
        ...config,
        clients: config.clients.map((client) => (client.id === 'local-web' ? { ...client, redirectUris: [A, B] } : client)),
      }),
    });
  });
  afterAll(async () => service.stop());

  const pairs: Array<[string, string]> = [
    [A, B],
    [B, A],
  ];

  it.each(pairs)('one-time code sent for %s: invalid_grant with %s, and then exchanged with its own', async (own, other) => {
    const user = uniqueEmail('bound-otp');
    expect((await service.post(SEND_PATH, { ...sendBody(user), redirect_uri: own })).status).toBe(200);
    const code = await service.latestCode(user);
    const exchange = (redirectUri: string) =>
      service.post(TOKEN_PATH, {
        grant_type: 'authorization_code',
        code,
        client_id: 'local-web',
        redirect_uri: redirectUri,
        user_id: user,
      });
    const before = capturedLogs().length;

    expect(jsonAnswer(await exchange(other))).toEqual(refusedGrant);
    expect(refusalReasons(capturedLogs().slice(before))).toEqual(['wrong_code']);
    const taken = tokensOf(await exchange(own));
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ token_type: 'Bearer' });
  });

  it.each(pairs)(
    'authorization code issued for %s: invalid_grant with %s (and spent); another one exchanged with its own',
    async (own, other) => {
      const exchange = (session: LoginSession, code: string, redirectUri: string) =>
        service.postForm(TOKEN_PATH, {
          grant_type: 'authorization_code',
          code,
          client_id: 'local-web',
          redirect_uri: redirectUri,
          code_verifier: session.verifier,
        });
      const signIn = async () => {
        const session = new LoginSession(service);
        const redirect = await session.signIn(uniqueEmail('bound-page'), { redirect_uri: own });
        expect(`${redirect.location?.origin}${redirect.location?.pathname}`).toBe(own);
        return { session, code: redirect.location?.searchParams.get('code') ?? '' };
      };

      const refused = await signIn();
      const before = capturedLogs().length;
      expect(jsonAnswer(await exchange(refused.session, refused.code, other))).toEqual(refusedGrant);
      expect(jsonAnswer(await exchange(refused.session, refused.code, own))).toEqual(refusedGrant);
      expect(refusalReasons(capturedLogs().slice(before))).toEqual(['binding', 'not_found_or_expired']);

      const taken = await signIn();
      const tokens = tokensOf(await exchange(taken.session, taken.code, own));
      expect(tokens.status).toBe(200);
      expect(tokens.body).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String) });
    },
  );
});
