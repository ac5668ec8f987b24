/**
 * The hosted login page and the standard authorization-code flow, over HTTP as a browser without
 * JavaScript sends them: the authorization endpoint's rules (RFC 6749 §4.1, OpenID Connect Core
 * §3.1.2, RFC 9207), the page's steps and their attempt rules, the transaction cookie against
 * tampering and replay, the authorization code's single use and binding (RFC 7636), the ID token
 * (OIDC Core §3.1.3.6) and UserInfo (§5.3). A real browser and openid-client drive the same flow in
 * test/browser/.
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { logHandleOf, userKeyOf } from '../../lib/keys/hmac-keys';
import { atHash } from '../../lib/oauth/id-tokens';
import { capturedLogs, rememberSecret } from '../support/log-capture';
import {
  logEntries,
  REDIRECT_URI,
  serviceHeaders,
  startTestService,
  toTestResponse,
  uniqueEmail,
  uniquePhone,
  withLimits,
  type TestService,
} from '../support/harness';
import { AUTHORIZE_PATH, csrfOf, LoginSession, type PageResponse } from '../support/login-flow';
import { closedPort } from '../support/fault-servers';
import { escapeHtml } from '../../lib/messages/markup';
import { pagePolicy } from '../../lib/login/html';
import { PASSKEY_SCRIPT_HASH } from '../../lib/login/passkey-script';
import { LOGIN_PAGES } from '../../lib/messages/locales';

const TOKEN = '/idp/v1/account/token';

/** A JWT client without refresh tokens that uses the page (local-backend requires an API key to send, so the page refuses it). */
const PAGE_JWT_CLIENT = 'page-jwt';

let service: TestService;
let jwks: { keys: JWK[] };
beforeAll(async () => {
  service = await startTestService({
    config: (config) => {
      const web = config.clients.find((client) => client.id === 'local-web')!;
      return { ...config, clients: [...config.clients, { ...web, id: PAGE_JWT_CLIENT, refreshTokens: undefined }] };
    },
  });
  jwks = (await service.get('/.well-known/jwks.json')).body as { keys: JWK[] };
});
afterAll(async () => service.stop());

function exchangeForm(session: LoginSession, code: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    grant_type: 'authorization_code',
    code,
    client_id: session.clientId,
    redirect_uri: REDIRECT_URI,
    code_verifier: session.verifier,
    ...extra,
  };
}

async function tokensFor(session: LoginSession, redirect: PageResponse): Promise<Record<string, unknown>> {
  const response = await service.postForm(TOKEN, exchangeForm(session, redirect.location?.searchParams.get('code') ?? ''));
  expect(response.status).toBe(200);
  for (const token of [response.body.access_token, response.body.id_token, response.body.refresh_token]) {
    if (typeof token === 'string') rememberSecret(token);
  }
  return response.body;
}

describe('the authorization request', () => {
  it('shows step 1: one input for an email or a phone, with the page’s security headers and a transaction cookie', async () => {
    const session = new LoginSession(service);
    const page = await session.start();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    // One script, by its hash: the passkey sign-in's (docs/decisions/016-passkeys.md), nothing inline unhashed.
    expect(csp).toContain(`script-src ${PASSKEY_SCRIPT_HASH}`);
    expect(page.html.match(/<script/g)).toEqual(['<script']);
    expect(page.html).toContain('name="user_id"');
    expect(page.html).toMatch(/<label for="user_id">/);
    expect(session.transactionCookie).toBeDefined();
    expect(page.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax/);
  });

  it.each<[string, Record<string, string | undefined>]>([
    ['an unknown client', { client_id: 'nobody' }],
    ['an unregistered redirect URI', { redirect_uri: 'https://attacker.example/callback' }],
    ['no redirect URI', { redirect_uri: undefined }],
  ])('answers %s with an error page, never a redirect (RFC 6749 §4.1.2.1)', async (_name, extra) => {
    const logsBefore = capturedLogs().length;
    const page = await new LoginSession(service).start(extra);
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
    expect(page.html).toContain('This sign-in link is not valid');
    const refused = logEntries(capturedLogs().slice(logsBefore), 'authorization refused');
    expect(refused.map(({ reason, client }) => ({ reason, client }))).toEqual([
      { reason: 'client or redirect_uri', client: extra.client_id === 'nobody' ? undefined : 'local-web' },
    ]);
  });

  it.each([
    ['no response_type', { response_type: undefined }, 'invalid_request', 'response_type is required.'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type', "response_type must be 'code'."],
    ['no PKCE challenge', { code_challenge: undefined }, 'invalid_request', 'code_challenge is required (PKCE, RFC 7636).'],
    ['PKCE plain', { code_challenge_method: 'plain' }, 'invalid_request', "code_challenge_method must be 'S256'."],
    [
      'a scope that is not scope tokens (RFC 6749 §3.3: a quote is not a scope character)',
      { scope: 'openid "admin"' },
      'invalid_scope',
      'The scope must be scope tokens separated by spaces (RFC 6749 section 3.3).',
    ],
    ['prompt=none in a browser without a session (OIDC Core §3.1.2.6)', { prompt: 'none' }, 'login_required', 'The user must sign in.'],
    ['a request object', { request: 'eyJhbGciOiJub25lIn0.e30.' }, 'request_not_supported', 'Request objects are not supported.'],
    [
      'a request object by reference (OIDC Core §6.2)',
      { request_uri: 'https://client.example/request.jwt' },
      'request_uri_not_supported',
      'Request objects are not supported.',
    ],
    [
      'response_mode fragment (query and form_post are)',
      { response_mode: 'fragment' },
      'invalid_request',
      "response_mode must be 'query' or 'form_post'.",
    ],
    [
      'a code_challenge that is not 43 base64url characters (RFC 7636 §4.2)',
      { code_challenge: 'short' },
      'invalid_request',
      'code_challenge must be 43 characters of base64url.',
    ],
    [
      'prompt=none together with another prompt (OIDC Core §3.1.2.1)',
      { prompt: 'none login' },
      'invalid_request',
      'prompt none cannot be combined with another value.',
    ],
    [
      'a max_age that is not a whole number of seconds (OIDC Core §3.1.2.1)',
      { max_age: '1.5' },
      'invalid_request',
      'max_age must be a whole number of seconds.',
    ],
    ['an unknown prompt value', { prompt: 'select_account_of_mars' }, 'invalid_request', 'prompt has an unknown value.'],
    ['a parameter longer than the endpoint takes', { nonce: 'n'.repeat(5000) }, 'invalid_request', 'A parameter is too long.'],
  ])('redirects %s back to the client with error, state and iss (RFC 9207), and logs why', async (_name, extra, error, description) => {
    const logsBefore = capturedLogs().length;
    const page = await new LoginSession(service).start(extra);
    expect(page.status).toBe(302);
    expect(Object.fromEntries(page.location?.searchParams ?? [])).toEqual({
      error,
      error_description: description,
      state: 'state-123',
      iss: service.url,
    });
    expect(`${page.location?.origin}${page.location?.pathname}`).toBe(REDIRECT_URI);
    expect(logEntries(capturedLogs().slice(logsBefore), 'authorization refused')).toEqual([
      expect.objectContaining({ reason: error, client: 'local-web', environment: 'local' }),
    ]);
    expect(logEntries(capturedLogs().slice(logsBefore), 'authorization started')).toEqual([]);
  });

  it('refuses a repeated parameter (RFC 6749 §3.1)', async () => {
    const session = new LoginSession(service);
    const response = await fetch(`${session.authorizationUrl()}&scope=openid`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toBe('A parameter is repeated (RFC 6749 section 3.1 allows each once).');
  });

  it('takes acr_values (OIDC Core §3.1.2.1): an unknown value is ignored (voluntary), one given twice or too long is refused', async () => {
    const ignored = await new LoginSession(service).start({ acr_values: 'urn:example:gold silver' });
    expect(ignored.status).toBe(200);
    expect(ignored.html).toContain('name="user_id"');
    const long = await new LoginSession(service).start({ acr_values: 'p'.repeat(2049) });
    expect(long.location?.searchParams.get('error_description')).toBe('A parameter is too long.');
    const session = new LoginSession(service);
    const repeated = await fetch(`${session.authorizationUrl({ acr_values: 'phr' })}&acr_values=phr`, { redirect: 'manual' });
    expect(new URL(repeated.headers.get('location') ?? '').searchParams.get('error_description')).toBe(
      'A parameter is repeated (RFC 6749 section 3.1 allows each once).',
    );
  });

  it('is localised by ui_locales, then Accept-Language, and prefills login_hint', async () => {
    const german = await new LoginSession(service).start({ ui_locales: 'xx de-DE', login_hint: 'a@example.com' });
    expect(german.html).toContain('<html lang="de-DE">');
    expect(german.html).toContain('value="a@example.com"');
    // fr-CA has texts of its own since the 22 locales; a region without its own gets its language's.
    const canadian = await new LoginSession(service).start({}, { 'Accept-Language': 'fr-CA,fr;q=0.9,en;q=0.5' });
    expect(canadian.html).toContain('<html lang="fr-CA">');
    const belgian = await new LoginSession(service).start({}, { 'Accept-Language': 'fr-BE,fr;q=0.9,en;q=0.5' });
    expect(belgian.html).toContain('<html lang="fr-FR">');
  });
});

describe('the whole flow: page, authorization code, tokens', () => {
  it('signs a user in by email and hands the client a code it exchanges with PKCE and nothing else', async () => {
    const session = new LoginSession(service);
    const user = uniqueEmail('page');
    const first = await session.start();
    const second = await session.post(first, 'send', { user_id: user });
    expect(second.status).toBe(200);
    expect(second.html).toContain('autocomplete="one-time-code"');
    expect(second.html).toContain('inputmode="numeric"');
    expect(second.html).toMatch(/We sent a 6-digit code to .•••@example\.com\./);
    expect(second.html).not.toContain(user);

    const redirect = await session.post(second, 'verify', { code: await service.latestCode(user) });
    expect(redirect.status).toBe(302);
    expect(`${redirect.location?.origin}${redirect.location?.pathname}`).toBe(REDIRECT_URI);
    const parameters = Object.fromEntries(redirect.location?.searchParams ?? []);
    expect(parameters).toEqual({ code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), state: 'state-123', iss: service.url });
    expect(session.transactionCookie).toBeUndefined();

    service.dynamodb.reset();
    const tokens = await tokensFor(session, redirect);
    // RFC 6749 §5.1; OIDC Core §3.1.3.3.
    expect(tokens).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'openid email phone',
      id_token: expect.any(String),
      // local-web is issued refresh tokens (test/http/refresh.test.ts).
      refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/),
    });
    // The code consumed, the refresh token family started (an exchange counts no attempt).
    expect(service.dynamodb.operations()).toEqual(['DeleteItem', 'PutItem']);

    const idToken = await jwtVerify(tokens.id_token as string, createLocalJWKSet(jwks), {
      issuer: service.url,
      audience: 'local-web',
      currentDate: new Date(service.clock.now()),
    });
    const access = await jwtVerify(tokens.access_token as string, createLocalJWKSet(jwks), {
      issuer: service.url,
      typ: 'at+jwt',
      currentDate: new Date(service.clock.now()),
    });
    const now = Math.floor(service.clock.now() / 1000);
    expect(idToken.payload).toEqual({
      iss: service.url,
      sub: access.payload.sub,
      aud: 'local-web',
      iat: now,
      exp: now + 3600,
      auth_time: now,
      nonce: 'nonce-456',
      amr: ['otp'],
      at_hash: atHash(tokens.access_token as string, 'RS256'),
      // The login's session (OIDC Front-Channel Logout §3): test/http/openid-defaults.test.ts.
      sid: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      email: user,
      email_verified: true,
    });
    // RS256 by default (OIDC Registration §2), whatever the access token's algorithm (ES256 here).
    expect(decodeProtectedHeader(tokens.id_token as string)).toEqual({ alg: 'RS256', typ: 'JWT', kid: expect.any(String) });
    expect(access.payload).toMatchObject({ scope: 'openid email phone', email: user, auth_time: now });
  });

  it('signs an RS256 client’s ID token with RS256, and a phone user by SMS gets phone claims', async () => {
    const session = new LoginSession(service, 'local-rs256');
    const phone = uniquePhone();
    const tokens = await tokensFor(session, await session.signIn(phone));
    expect(decodeProtectedHeader(tokens.id_token as string).alg).toBe('RS256');
    const { payload } = await jwtVerify(tokens.id_token as string, createLocalJWKSet(jwks), { currentDate: new Date(service.clock.now()) });
    expect(payload).toMatchObject({ phone_number: phone, phone_number_verified: true, amr: ['otp', 'sms'] });
    expect(payload).not.toHaveProperty('email');
  });

  it('calls a phone when the user chooses a voice call, and the amr says tel', async () => {
    const session = new LoginSession(service);
    const phone = uniquePhone();
    const page = await session.post(await session.start(), 'send', { user_id: phone, channel: 'voice' });
    expect(page.html).toContain('We are calling +1 •••');
    expect((await service.outbox(phone))[0]?.channel).toBe('voice');
    const redirect = await session.post(page, 'verify', { code: await service.latestCode(phone) });
    const tokens = await tokensFor(session, redirect);
    expect(
      (await jwtVerify(tokens.id_token as string, createLocalJWKSet(jwks), { currentDate: new Date(service.clock.now()) })).payload.amr,
    ).toEqual(['otp', 'tel']);
  });

  it('gives no ID token and no address without openid, email or phone in the scope', async () => {
    const session = new LoginSession(service);
    const tokens = await tokensFor(session, await session.signIn(uniqueEmail('plain'), { scope: undefined }));
    expect(tokens).not.toHaveProperty('id_token');
    expect(tokens).not.toHaveProperty('scope');
    const { payload } = await jwtVerify(tokens.access_token as string, createLocalJWKSet(jwks), {
      currentDate: new Date(service.clock.now()),
    });
    expect(payload).not.toHaveProperty('email');
  });
});

describe('the authorization code', () => {
  async function codeOf(session: LoginSession): Promise<string> {
    return (await session.signIn(uniqueEmail('code'))).location?.searchParams.get('code') ?? '';
  }

  it('is single use: a replay is invalid_grant (RFC 6749 §4.1.2)', async () => {
    const session = new LoginSession(service);
    const code = await codeOf(session);
    expect((await service.postForm(TOKEN, exchangeForm(session, code))).status).toBe(200);
    expect((await service.postForm(TOKEN, exchangeForm(session, code))).body).toMatchObject({ error: 'invalid_grant' });
  });

  it.each<[string, Record<string, string>]>([
    ['a wrong verifier (RFC 7636 §4.6)', { code_verifier: 'x'.repeat(43) }],
    ['another redirect URI', { redirect_uri: 'http://127.0.0.1:3000/other' }],
    ['another client', { client_id: 'local-opaque' }],
  ])('is refused with %s, and spent', async (_name, extra) => {
    const session = new LoginSession(service);
    const code = await codeOf(session);
    const logsBefore = capturedLogs().length;
    expect((await service.postForm(TOKEN, exchangeForm(session, code, extra))).body).toMatchObject({ error: 'invalid_grant' });
    expect((await service.postForm(TOKEN, exchangeForm(session, code))).body).toMatchObject({ error: 'invalid_grant' });
    // Why, for the operator (the client is told neither): the code's user when the code was found.
    const lines = capturedLogs().slice(logsBefore);
    expect(logEntries(lines, 'request refused').map(({ detail }) => detail)).toEqual(['binding', 'not_found_or_expired']);
    const refusals = logEntries(lines, 'grant refused').map(({ client, grant, user, reason }) => ({
      client,
      grant,
      user,
      reason,
    }));
    expect(refusals).toEqual([
      {
        client: extra.client_id ?? 'local-web',
        grant: 'authorization_code',
        user: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
        reason: 'binding',
      },
      { client: 'local-web', grant: 'authorization_code', user: undefined, reason: 'not_found_or_expired' },
    ]);
  });

  it.each([
    [
      'a code_verifier outside RFC 7636 §4.1’s characters',
      { code_verifier: `${'x'.repeat(42)}!` },
      400,
      // (§ is outside error_description's character set, RFC 6749 §5.2.)
      { error: 'invalid_request', error_description: 'code_verifier must be 43-128 characters of [A-Z a-z 0-9 - . _ ~] (RFC 7636 4.1).' },
    ],
    [
      'an unknown client',
      { client_id: 'nobody' },
      401,
      { error: 'invalid_client', error_description: 'Unknown client: name it with client_id, or authenticate.' },
    ],
  ])('is not spent by a request with %s, refused before the code is looked at', async (_name, extra, status, body) => {
    const session = new LoginSession(service);
    const code = await codeOf(session);
    const refused = await service.postForm(TOKEN, exchangeForm(session, code, extra));
    expect({ status: refused.status, body: refused.body }).toEqual({ status, body });
    const taken = await service.postForm(TOKEN, exchangeForm(session, code));
    expect(taken.status).toBe(200);
    for (const name of ['access_token', 'id_token', 'refresh_token']) rememberSecret(taken.body[name]);
  });

  it('lives 60 s: taken at 59 s', async () => {
    const session = new LoginSession(service);
    const code = await codeOf(session);
    service.clock.advanceSeconds(59);
    const taken = await service.postForm(TOKEN, exchangeForm(session, code));
    expect(taken.status).toBe(200);
    for (const name of ['access_token', 'id_token', 'refresh_token']) rememberSecret(taken.body[name]);
  });

  it('dies after 60 s', async () => {
    const session = new LoginSession(service);
    const code = await codeOf(session);
    service.clock.advanceSeconds(60);
    expect((await service.postForm(TOKEN, exchangeForm(session, code))).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('requires the verifier (public clients, RFC 7636 §4.5), and refuses a request without it before spending the code', async () => {
    const session = new LoginSession(service);
    const code = await codeOf(session);
    const { code_verifier, ...withoutVerifier } = exchangeForm(session, code);

    service.dynamodb.reset();
    expect((await service.postForm(TOKEN, withoutVerifier)).body).toMatchObject({
      error: 'invalid_request',
      error_description: 'code_verifier is required (PKCE, RFC 7636).',
    });
    expect(service.dynamodb.operations()).toEqual([]);
    const retried = await service.postForm(TOKEN, exchangeForm(session, code));
    expect(retried.status).toBe(200);
    for (const name of ['access_token', 'id_token', 'refresh_token']) rememberSecret(retried.body[name]);
  });
});

describe('the authorization code’s environment', () => {
  let twoEnvironments: TestService;
  beforeAll(async () => {
    twoEnvironments = await startTestService({
      config: (config) => ({
        ...config,
        environments: [...config.environments, { ...config.environments[0]!, id: 'second' }],
        clients: config.clients.map((entry) => (entry.id === 'local-web' ? { ...entry, environments: ['local', 'second'] } : entry)),
      }),
    });
  });
  afterAll(async () => twoEnvironments.stop());

  async function secondCode(session: LoginSession): Promise<string> {
    return (await session.signIn(uniqueEmail('second'), { env_id: 'second' })).location?.searchParams.get('code') ?? '';
  }

  it('is the one it was issued in: another env_id at the token endpoint is invalid_grant, and spends it; its own is taken', async () => {
    const session = new LoginSession(twoEnvironments);
    const code = await secondCode(session);
    const logsBefore = capturedLogs().length;
    const elsewhere = await twoEnvironments.postForm(`${TOKEN}?env_id=local`, exchangeForm(session, code));
    expect(elsewhere.body).toMatchObject({ error: 'invalid_grant' });
    expect(logEntries(capturedLogs().slice(logsBefore), 'grant refused')).toEqual([expect.objectContaining({ reason: 'binding' })]);
    expect((await twoEnvironments.postForm(`${TOKEN}?env_id=second`, exchangeForm(session, code))).body).toMatchObject({
      error: 'invalid_grant',
    });

    const other = new LoginSession(twoEnvironments);
    const own = await twoEnvironments.postForm(`${TOKEN}?env_id=second`, exchangeForm(other, await secondCode(other)));
    expect(own.status).toBe(200);
    rememberSecret(own.body.access_token);
    rememberSecret(own.body.refresh_token);
  });

  it('is refused (invalid_grant, reason binding) once the configuration no longer has its environment, counting nothing', async () => {
    const session = new LoginSession(twoEnvironments);
    const code = await secondCode(session);
    // A later deployment of the stack, over the same table and secrets, without the environment.
    const later = await startTestService({ tableName: twoEnvironments.services.tableName });
    try {
      later.clock.set(twoEnvironments.clock.now());
      const logsBefore = capturedLogs().length;
      const refused = await later.postForm(TOKEN, exchangeForm(session, code));
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 400,
        body: expect.objectContaining({ error: 'invalid_grant' }),
      });
      const lines = capturedLogs().slice(logsBefore);
      expect(logEntries(lines, 'grant refused')).toEqual([expect.objectContaining({ reason: 'binding' })]);
    } finally {
      await later.stop();
    }
  });
});

describe('DynamoDB requests per step (docs/decisions/007-hosted-login.md)', () => {
  it('costs none for the page, the same as otp/send for step 1, and the token endpoint’s check plus one write (the session and the code) for step 2', async () => {
    const session = new LoginSession(service);
    const user = uniqueEmail('page-budget');
    service.dynamodb.reset();
    const first = await session.start();
    expect(service.dynamodb.operations()).toEqual([]);
    const second = await session.post(first, 'send', { user_id: user });
    expect(second.status).toBe(200);
    // otp/send's for a client without an API key: the attempt, the source's email window, the code.
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
    const code = await service.latestCode(user);
    service.dynamodb.reset();
    const wrong = await session.post(second, 'verify', { code: code === '000000' ? '000001' : '000000' });
    expect(wrong.status).toBe(400);
    // The token endpoint's failure: the attempt, the guess, the failure count.
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
    service.dynamodb.reset();
    const redirect = await session.post(wrong, 'verify', { code });
    expect(redirect.status).toBe(302);
    // After a failure the success also ends the user's failure run, as at the token endpoint; the
    // session and the authorization code are one transaction.
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem', 'TransactWriteItems']);

    const clean = new LoginSession(service);
    const cleanUser = uniqueEmail('page-budget-clean');
    const sent = await clean.post(await clean.start(), 'send', { user_id: cleanUser });
    const cleanCode = await service.latestCode(cleanUser);
    service.dynamodb.reset();
    expect((await clean.post(sent, 'verify', { code: cleanCode })).status).toBe(302);
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'TransactWriteItems']);
  });

  it('exchanges an authorization code in 1 request for a JWT client (the code’s consumption), 2 with refresh tokens or an opaque token (one write: the family, the token, or both in one transaction)', async () => {
    for (const [clientId, expected] of [
      [PAGE_JWT_CLIENT, ['DeleteItem']],
      ['local-web', ['DeleteItem', 'PutItem']],
      ['local-opaque', ['DeleteItem', 'TransactWriteItems']],
    ] as const) {
      const session = new LoginSession(service, clientId);
      const redirect = await session.signIn(uniqueEmail(`exchange-budget-${clientId}`));
      service.dynamodb.reset();
      await tokensFor(session, redirect);
      expect({ clientId, operations: service.dynamodb.operations() }).toEqual({ clientId, operations: expected });
    }
  });
});

describe('step 2’s rules: the token endpoint’s, on the page', () => {
  it('says a wrong code is wrong, and on the 3rd wrong code at once that the code is dead', async () => {
    const session = new LoginSession(service);
    const user = uniqueEmail('wrong');
    const page = await session.post(await session.start(), 'send', { user_id: user });
    const code = await service.latestCode(user);
    const wrong = (offset: number) => String((Number(code) + offset) % 1_000_000).padStart(6, '0');
    for (const offset of [1, 2, 3]) {
      const answer = await session.post(page, 'verify', { code: wrong(offset) });
      expect(answer.status).toBe(400);
      // Regression: the 3rd said "Check it and try again" although it had spent the code's last try.
      expect(answer.html).toContain(offset < 3 ? 'That code is not correct' : 'This code can no longer be used');
      expect(answer.html).toMatch(/<input id="code"[^>]*aria-describedby="destination code-error"[^>]*aria-invalid="true"/);
    }
    const dead = await session.post(page, 'verify', { code });
    expect(dead.html).toContain('This code can no longer be used');
  });

  it('shows the block with its retry time once the per-user limit is reached (429, Retry-After)', async () => {
    const limited = await startTestService({ config: withLimits({ token: { maxAttempts: 2 } }) });
    try {
      const session = new LoginSession(limited);
      const user = uniqueEmail('blocked');
      const page = await session.post(await session.start(), 'send', { user_id: user });
      for (let index = 0; index < 2; index += 1) await session.post(page, 'verify', { code: '000000' });
      const blocked = await session.post(page, 'verify', { code: '000000' });
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('retry-after')).toBe('300');
      expect(blocked.html).toContain('Too many attempts. Try again in 5 minutes.');
    } finally {
      await limited.stop();
    }
  });

  it('regression: a login that needed all 5 code checks of the per-user limit on the page is not refused at the exchange (it was 429, the code spent)', async () => {
    // 3 wrong codes, the right one too late (dead), a new code, the right one: 5 checks, the limit.
    const session = new LoginSession(service);
    const user = uniqueEmail('five-checks');
    const page = await session.post(await session.start(), 'send', { user_id: user });
    const code = await service.latestCode(user);
    for (const offset of [1, 2, 3]) {
      expect((await session.post(page, 'verify', { code: String((Number(code) + offset) % 1_000_000).padStart(6, '0') })).status).toBe(400);
    }
    expect((await session.post(page, 'verify', { code })).html).toContain('This code can no longer be used');
    const resent = await session.post(page, 'resend');
    const redirect = await session.post(resent, 'verify', { code: await service.latestCode(user) });
    expect(redirect.status).toBe(302);

    service.dynamodb.reset();
    const since = capturedLogs().length;
    const exchanged = await service.postForm(TOKEN, exchangeForm(session, redirect.location?.searchParams.get('code') ?? ''));
    expect(exchanged.status).toBe(200);
    if (typeof exchanged.body.access_token === 'string') rememberSecret(exchanged.body.access_token);
    // The exchange neither counts into nor is refused by the user's limit: the code, the family.
    expect(service.dynamodb.operations()).toEqual(['DeleteItem', 'PutItem']);
    expect(logEntries(capturedLogs().slice(since), 'attempt refused')).toEqual([]);
    // The limit still holds for the page: a sixth check in the minute is refused.
    const again = new LoginSession(service);
    const next = await again.post(await again.start(), 'send', { user_id: user });
    expect((await again.post(next, 'verify', { code: await service.latestCode(user) })).status).toBe(429);
  });

  it('regression: neither a bound nor a refused exchange counts into its user’s limit (an unguessable code: counting it let exchanges lock the user out of the page)', async () => {
    const limited = await startTestService({ config: withLimits({ token: { maxAttempts: 3 } }) });
    try {
      const user = uniqueEmail('uncounted-exchange');
      const session = new LoginSession(limited);
      const redirect = await session.signIn(user); // the page's check: 1 of 3
      const exchanged = await limited.postForm(TOKEN, exchangeForm(session, redirect.location?.searchParams.get('code') ?? ''));
      expect(exchanged.status).toBe(200);
      for (const name of ['access_token', 'id_token', 'refresh_token']) rememberSecret(exchanged.body[name]);
      const unbound = new LoginSession(limited);
      const unboundRedirect = await unbound.signIn(user); // 2 of 3
      const refused = await limited.postForm(TOKEN, {
        ...exchangeForm(unbound, unboundRedirect.location?.searchParams.get('code') ?? ''),
        code_verifier: 'x'.repeat(43),
      });
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'The code is invalid, expired, or was already used.' },
      });
      // Had the exchanges counted, the refused one would have been 429 and this third check too.
      const third = new LoginSession(limited);
      expect((await third.signIn(user)).status).toBe(302);
    } finally {
      await limited.stop();
    }
  });

  it('resends a code, and the old one no longer works', async () => {
    const session = new LoginSession(service);
    const user = uniqueEmail('resend');
    const page = await session.post(await session.start(), 'send', { user_id: user });
    const first = await service.latestCode(user);
    const resent = await session.post(page, 'resend');
    expect(resent.html).toContain('A new code is on its way.');
    const second = await service.latestCode(user);
    if (first !== second) expect((await session.post(resent, 'verify', { code: first })).status).toBe(400);
    expect((await session.post(resent, 'verify', { code: second })).status).toBe(302);
  });

  it('never says whether an address is known: every valid address gets the same step 2', async () => {
    const session = new LoginSession(service);
    const answer = await session.post(await session.start(), 'send', { user_id: 'never-seen-before@example.com' });
    expect(answer.status).toBe(200);
    expect(answer.html).toContain('We sent a 6-digit code');
  });

  it('asks again for an address that is neither an email nor an international phone number', async () => {
    const session = new LoginSession(service);
    const answer = await session.post(await session.start(), 'send', { user_id: 'not an address' });
    expect(answer.status).toBe(400);
    expect(answer.html).toContain('Enter an email address, or a phone number');
    expect(answer.html).toMatch(/aria-describedby="user_id-hint user_id-error"/);
  });
});

describe('the request’s and the page’s edges', () => {
  const refusedPage = (page: PageResponse) => ({ status: page.status, redirected: page.location !== undefined });

  it('takes an empty parameter as absent: an empty state is not sent back', async () => {
    const page = await new LoginSession(service).start({ response_type: 'token', state: '' });
    expect(Object.fromEntries(page.location?.searchParams ?? [])).toEqual({
      error: 'unsupported_response_type',
      error_description: "response_type must be 'code'.",
      iss: service.url,
    });
  });

  it('answers an unknown env_id, or a repeated client_id or redirect_uri, with the error page, never a redirect (§4.1.2.1)', async () => {
    const session = new LoginSession(service);
    expect(refusedPage(await session.start({ env_id: 'nowhere' }))).toEqual({ status: 400, redirected: false });
    for (const repeated of [`client_id=local-web`, `redirect_uri=${encodeURIComponent(REDIRECT_URI)}`]) {
      const response = await fetch(`${session.authorizationUrl()}&${repeated}`, { redirect: 'manual' });
      expect({ status: response.status, location: response.headers.get('location') }).toEqual({ status: 400, location: null });
    }
  });

  it('takes response_mode=query, the prompts it can honour, and a parameter of exactly 2048 characters', async () => {
    for (const extra of [{ response_mode: 'query' }, { prompt: 'login consent select_account' }, { nonce: 'n'.repeat(2048) }]) {
      const page = await new LoginSession(service).start(extra);
      expect({ extra, status: page.status }).toEqual({ extra, status: 200 });
    }
  });

  it('refuses a parameter it does not know when any of its values is too long', async () => {
    const session = new LoginSession(service);
    const response = await fetch(`${session.authorizationUrl()}&extra=short&extra=${'x'.repeat(2049)}`, { redirect: 'manual' });
    const location = new URL(response.headers.get('location') ?? '');
    expect({ error: location.searchParams.get('error'), description: location.searchParams.get('error_description') }).toEqual({
      error: 'invalid_request',
      description: 'A parameter is too long.',
    });
  });

  it('answers a form post without the transaction cookie with the expired page in the default locale', async () => {
    const session = new LoginSession(service);
    const page = await session.start({ ui_locales: 'de' });
    session.transactionCookie = undefined;
    const answer = await session.post(page, 'send', { user_id: uniqueEmail('no-cookie') });
    expect(answer.status).toBe(400);
    expect(answer.html).toContain('<html lang="en-US">');
    expect(answer.html).toContain('This sign-in page has expired');
  });

  it('starts over when step 2’s buttons are posted before any code was sent (a stale or forged form)', async () => {
    for (const action of ['verify', 'resend']) {
      const session = new LoginSession(service);
      const answer = await session.post(await session.start(), action, { code: '123456' }, { offered: false });
      expect({ action, status: answer.status, asksForUser: answer.html.includes('name="user_id"') }).toEqual({
        action,
        status: 200,
        asksForUser: true,
      });
    }
  });

  it('calls again on a resend after a voice call', async () => {
    const session = new LoginSession(service);
    const phone = uniquePhone();
    const page = await session.post(await session.start(), 'send', { user_id: phone, channel: 'voice' });
    const resent = await session.post(page, 'resend');
    expect(resent.status).toBe(200);
    expect(resent.html).toContain('We are calling');
    expect((await service.outbox(phone)).map((message) => message.channel)).toEqual(['voice', 'voice']);
  });

  it('takes a code with spaces around it, and asks for 6 digits when given anything else or nothing', async () => {
    const user = uniqueEmail('code-shape');
    const session = new LoginSession(service);
    const page = await session.post(await session.start(), 'send', { user_id: user });
    const malformed = await session.post(page, 'verify', { code: 'abc' });
    expect(malformed.status).toBe(400);
    expect(malformed.html).toContain('Enter the 6 digits of the code.');
    // A forged form without the field is asked the same.
    const missing = await session.post(malformed, 'verify', {});
    expect(missing.status).toBe(400);
    expect(missing.html).toContain('Enter the 6 digits of the code.');
    const redirect = await session.post(malformed, 'verify', { code: ` ${await service.latestCode(user)} ` });
    expect(redirect.status).toBe(302);
    expect(redirect.location?.searchParams.get('code')).toEqual(expect.any(String));
  });
});

describe('the page’s headers: where its forms may post, and the cookie', () => {
  const formAction = (page: PageResponse) =>
    (page.headers.get('content-security-policy') ?? '').split('; ').filter((directive) => directive.startsWith('form-action'));

  it('lets the error page and the expired page post only to the endpoint, and step 1 (its passkey sign-in) and step 2 also end at the client’s origin (CSP form-action)', async () => {
    const session = new LoginSession(service);
    const first = await session.start();
    // A passkey sign-in on step 1 ends in the redirect to the client, as step 2's code form does.
    expect(formAction(first)).toEqual(["form-action 'self' http://127.0.0.1:3000"]);
    expect(formAction(await new LoginSession(service).start({ client_id: 'nobody' }))).toEqual(["form-action 'self'"]);
    const again = await session.post(first, 'send', { user_id: 'not an address' });
    expect(again.status).toBe(400);
    expect(formAction(again)).toEqual(["form-action 'self' http://127.0.0.1:3000"]);
    const second = await session.post(again, 'send', { user_id: uniqueEmail('csp') });
    // The code form's success is a redirect to the client, and browsers apply form-action to it.
    expect(formAction(second)).toEqual(["form-action 'self' http://127.0.0.1:3000"]);
    const retried = await session.post(second, 'verify', { code: 'abc' });
    expect(formAction(retried)).toEqual(["form-action 'self' http://127.0.0.1:3000"]);
    const expired = await new LoginSession(service).post(first, 'send', { user_id: uniqueEmail('csp') });
    expect(expired.status).toBe(400);
    expect(formAction(expired)).toEqual(["form-action 'self'"]);
    expect(expired.headers.get('set-cookie')).toMatch(/^idp_login=;.*Max-Age=0/);
  });

  it('leaves the transaction cookie alone on an error redirect of the request, and clears it on the redirect with the code', async () => {
    const refused = await new LoginSession(service).start({ response_type: 'token' });
    expect(refused.status).toBe(302);
    expect(refused.headers.get('set-cookie')).toBeNull();
    const granted = await new LoginSession(service).signIn(uniqueEmail('cleared'));
    expect(granted.status).toBe(302);
    expect(granted.headers.get('set-cookie')).toMatch(/^idp_login=;.*Max-Age=0/);
  });
});

describe('the page’s channels, failures and configuration changes', () => {
  /** Numbers whose SMS and voice deliveries the capture refuses while listed. */
  const failing = new Set<string>();
  let variants: TestService;
  beforeAll(async () => {
    variants = await startTestService({
      capture: { failFor: (to) => failing.has(to) },
      config: (config) => {
        const { voice: _voice, ...withoutVoice } = config.environments[0]!;
        return {
          ...config,
          environments: [...config.environments, { ...withoutVoice, id: 'no-voice' }],
          clients: [
            ...config.clients.map((entry) => (entry.id === 'local-web' ? { ...entry, environments: ['local', 'no-voice'] } : entry)),
            { ...config.clients[0]!, id: 'local-no-voice', channels: ['email', 'sms'] },
          ],
        };
      },
    });
  });
  afterAll(async () => variants.stop());

  const offersVoice = (page: PageResponse) => page.html.includes('name="channel" value="voice"');
  const shows = (page: PageResponse, text: string) => expect(page.html).toContain(`>${escapeHtml(text)}</p>`);

  it('offers a voice call only where the client may call and the environment has voice', async () => {
    expect(offersVoice(await new LoginSession(variants).start())).toBe(true);
    expect(offersVoice(await new LoginSession(variants, 'local-no-voice').start())).toBe(false);
    expect(offersVoice(await new LoginSession(variants).start({ env_id: 'no-voice' }))).toBe(false);
  });

  it.each([
    ['a client that may not call', 'local-no-voice', {}],
    ['an environment without voice', 'local-web', { env_id: 'no-voice' }],
  ])('refuses a forged voice call for %s: step 1 again, nothing counted, nothing sent', async (_name, clientId, extra) => {
    const session = new LoginSession(variants, clientId);
    const first = await session.start(extra);
    const phone = uniquePhone();
    variants.dynamodb.reset();
    const refused = await session.post(first, 'send', { user_id: phone, channel: 'voice' }, { offered: false });
    expect(refused.status).toBe(400);
    shows(refused, LOGIN_PAGES['en-US'].invalidUserId);
    expect(refused.html).toContain(`value="${phone}"`);
    expect(variants.dynamodb.operations()).toEqual([]);
    expect(await variants.outbox(phone)).toEqual([]);
    // The same number by SMS goes through.
    expect((await session.post(refused, 'send', { user_id: phone })).status).toBe(200);
  });

  it('says a delivery failed (502) on step 1, and on a resend keeps step 2, whose delivered code still works', async () => {
    const phone = uniquePhone();
    const session = new LoginSession(variants);
    failing.add(phone);
    const failed = await session.post(await session.start(), 'send', { user_id: phone });
    expect(failed.status).toBe(502);
    shows(failed, LOGIN_PAGES['en-US'].deliveryFailed);
    expect(failed.html).toContain(`value="${phone}"`);
    // Regression: the page's 502 had no Retry-After (otp/send's neither): the page's exact headers.
    expect(serviceHeaders(failed.headers)).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'content-security-policy': pagePolicy([new URL(REDIRECT_URI).origin], { script: true }),
      'retry-after': '15',
      'set-cookie': expect.stringMatching(/^idp_login=[\w.-]+; Max-Age=600; Path=\/idp\/v1\/account\/authorize; HttpOnly; SameSite=Lax$/),
    });

    failing.delete(phone);
    const sent = await session.post(failed, 'send', { user_id: phone });
    expect(sent.status).toBe(200);
    const code = await variants.latestCode(phone);
    failing.add(phone);
    const resendFailed = await session.post(sent, 'resend');
    failing.delete(phone);
    expect(resendFailed.status).toBe(502);
    expect(resendFailed.headers.get('retry-after')).toBe('15');
    shows(resendFailed, LOGIN_PAGES['en-US'].deliveryFailed);
    expect(resendFailed.html).toContain('<input id="code"');
    expect((await session.post(resendFailed, 'verify', { code })).status).toBe(302);
  });

  it('says the service is unavailable (503, Retry-After) when storage does not answer, on a send and on a code check', async () => {
    const down = await startTestService({ dynamodbEndpoint: await closedPort() });
    try {
      const session = new LoginSession(down);
      const first = await session.start({ ui_locales: 'de-DE' });
      expect(first.status).toBe(200);
      const refused = await session.post(first, 'send', { user_id: uniqueEmail('nodb-page') });
      expect({ status: refused.status, retryAfter: refused.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '1' });
      shows(refused, LOGIN_PAGES['de-DE'].unavailable);
      expect(refused.html).toContain('name="user_id"');

      // Step 2 of a transaction begun while storage answered (the same secrets open its cookie).
      const earlier = new LoginSession(variants);
      const sent = await earlier.post(await earlier.start(), 'send', { user_id: uniqueEmail('nodb-check') });
      const moved = earlier.continuedAt(down);
      down.clock.set(variants.clock.now());
      const check = await moved.post(sent, 'verify', { code: '123456' });
      expect({ status: check.status, retryAfter: check.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '1' });
      shows(check, LOGIN_PAGES['en-US'].unavailable);
      expect(check.html).toContain('<input id="code"');
    } finally {
      await down.stop();
    }
  });

  it('shows the expired page, counting nothing, for a transaction whose environment or client the configuration no longer has', async () => {
    const inEnvironment = new LoginSession(variants);
    const environmentPage = await inEnvironment.start({ env_id: 'no-voice' });
    const ofClient = new LoginSession(variants, 'local-no-voice');
    const clientPage = await ofClient.start();
    // A later deployment of the stack, over the same table and secrets, without either.
    // Its default environment now speaks German.
    const later = await startTestService({
      tableName: variants.services.tableName,
      config: (config) => ({
        ...config,
        environments: config.environments.map((environment) => ({ ...environment, defaultLocale: 'de-DE' as const })),
      }),
    });
    try {
      later.clock.set(variants.clock.now());
      for (const [session, page] of [
        [inEnvironment, environmentPage],
        [ofClient, clientPage],
      ] as const) {
        const moved = session.continuedAt(later);
        later.dynamodb.reset();
        const answer = await moved.post(page, 'send', { user_id: uniqueEmail('moved') });
        // In the transaction's language, not the default environment's.
        expect({ status: answer.status, expired: answer.html.includes(escapeHtml(LOGIN_PAGES['en-US'].expired)) }).toEqual({
          status: 400,
          expired: true,
        });
        expect(answer.html).toContain('<html lang="en-US">');
        expect(later.dynamodb.operations()).toEqual([]);
      }
      // Without a transaction, and on a new request, the page speaks the default environment's language.
      const fresh = new LoginSession(later);
      const first = await fresh.start();
      expect(first.html).toContain('<html lang="de-DE">');
      fresh.transactionCookie = undefined;
      const expired = await fresh.post(first, 'send', { user_id: uniqueEmail('moved') });
      expect(expired.html).toContain('<html lang="de-DE">');
      expect(expired.html).toContain(escapeHtml(LOGIN_PAGES['de-DE'].expired));
    } finally {
      await later.stop();
    }
  });

  it('takes at most 320 characters of what was typed, and asks again for a form without the field', async () => {
    const session = new LoginSession(variants);
    const first = await session.start();
    const long = await session.post(first, 'send', { user_id: 'x'.repeat(1000) });
    expect(long.status).toBe(400);
    expect(long.html).toContain(`value="${'x'.repeat(320)}"`);
    expect(long.html).not.toContain('x'.repeat(321));
    const missing = await session.post(long, 'send', {});
    expect(missing.status).toBe(400);
    shows(missing, LOGIN_PAGES['en-US'].invalidUserId);
    expect(missing.html).toMatch(/<input id="user_id"[^>]* value="">/);
  });
});

describe('the transaction: CSRF, tampering, replay', () => {
  it('refuses a form without the transaction’s CSRF token (and shows the expired page, no redirect)', async () => {
    const session = new LoginSession(service);
    const page = await session.start();
    const forged = { ...page, html: page.html.replace(csrfOf(page.html), 'forged-token') };
    const answer = await session.post(forged, 'send', { user_id: uniqueEmail('csrf') });
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
    expect(answer.html).toContain('This sign-in page has expired');
  });

  it('refuses a tampered cookie, and one from another session', async () => {
    const session = new LoginSession(service);
    const page = await session.start();
    const cookie = session.transactionCookie as string;
    session.transactionCookie = `${cookie.slice(0, -4)}AAAA`;
    expect((await session.post(page, 'send', { user_id: uniqueEmail('tamper') })).html).toContain('This sign-in page has expired');

    const other = new LoginSession(service);
    await other.start();
    session.transactionCookie = other.transactionCookie;
    expect((await session.post(page, 'send', { user_id: uniqueEmail('swap') })).status).toBe(400);
  });

  it('refuses a cookie older than 10 minutes', async () => {
    const session = new LoginSession(service);
    const page = await session.start();
    service.clock.advanceSeconds(601);
    expect((await session.post(page, 'send', { user_id: uniqueEmail('old') })).html).toContain('This sign-in page has expired');
  });

  it('gives no second authorization code for a replayed step 2 (the one-time code is spent)', async () => {
    const session = new LoginSession(service);
    const user = uniqueEmail('replay');
    const page = await session.post(await session.start(), 'send', { user_id: user });
    const savedCookie = session.transactionCookie;
    const code = await service.latestCode(user);
    expect((await session.post(page, 'verify', { code })).status).toBe(302);
    session.transactionCookie = savedCookie;
    const replay = await session.post(page, 'verify', { code });
    expect(replay.status).toBe(400);
    expect(replay.location).toBeUndefined();
  });

  it('keeps the user’s address only encrypted in the cookie, never in clear', async () => {
    const session = new LoginSession(service);
    const user = uniqueEmail('sealed');
    await session.post(await session.start(), 'send', { user_id: user });
    expect(Buffer.from(session.transactionCookie ?? '', 'base64url').toString('latin1')).not.toContain(user);
    expect(session.transactionCookie).toMatch(/^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });
});

describe('UserInfo (OpenID Connect Core §5.3)', () => {
  it('answers the subject and the granted claims, for a JWT (header) and an opaque token (form body)', async () => {
    const session = new LoginSession(service);
    const user = uniqueEmail('userinfo');
    const tokens = await tokensFor(session, await session.signIn(user));
    const header = await service.get('/idp/v1/account/userinfo', { Authorization: `Bearer ${tokens.access_token as string}` });
    expect(header.status).toBe(200);
    const sub = (await jwtVerify(tokens.access_token as string, createLocalJWKSet(jwks), { currentDate: new Date(service.clock.now()) }))
      .payload.sub;
    expect(header.body).toEqual({ sub, email: user, email_verified: true });

    const opaque = new LoginSession(service, 'local-opaque');
    const opaqueTokens = await tokensFor(opaque, await opaque.signIn(user));
    const body = await service.postForm('/idp/v1/account/userinfo', { access_token: opaqueTokens.access_token as string });
    expect(body.body).toEqual({ sub: expect.any(String), email: user, email_verified: true });
  });

  it('answers a POST that carries the token in Authorization alone, without a body (OIDC Core §5.3.1, RFC 6750 §2.1)', async () => {
    const session = new LoginSession(service);
    const user = uniqueEmail('userinfo-post');
    const tokens = await tokensFor(session, await session.signIn(user));
    const url = `${service.url}/idp/v1/account/userinfo`;
    const authorization = `Bearer ${tokens.access_token as string}`;
    const bare = await toTestResponse(await fetch(url, { method: 'POST', headers: { Authorization: authorization } }));
    expect(bare.status).toBe(200);
    expect(bare.body).toEqual({ sub: expect.any(String), email: user, email_verified: true });
    // Content without a media type is still refused: only an absent body needs none.
    const untyped = await toTestResponse(
      await fetch(url, { method: 'POST', headers: { Authorization: authorization }, body: new Blob(['access_token=x']) }),
    );
    expect(untyped.status).toBe(415);
    expect(untyped.body).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses a token without openid (403 insufficient_scope) and a bad one (401 invalid_token)', async () => {
    const session = new LoginSession(service);
    const tokens = await tokensFor(session, await session.signIn(uniqueEmail('no-openid'), { scope: 'email' }));
    const noOpenid = await service.get('/idp/v1/account/userinfo', { Authorization: `Bearer ${tokens.access_token as string}` });
    expect(noOpenid.status).toBe(403);
    expect(noOpenid.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(noOpenid.headers.get('www-authenticate')).toContain('scope="openid"');
    expect(noOpenid.body).toEqual({
      error: 'insufficient_scope',
      error_description: "The access token was not granted the 'openid' scope.",
    });
    const logsBefore = capturedLogs().length;
    const bad = await service.get('/idp/v1/account/userinfo', { Authorization: 'Bearer not-a-token' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(bad.body).toEqual({ error: 'invalid_token', error_description: 'The access token is not valid.' });
    expect(logEntries(capturedLogs().slice(logsBefore), 'request refused')).toEqual([
      expect.objectContaining({ status: 401, detail: 'userinfo: inactive token' }),
    ]);
  });

  it('takes the token once (RFC 6750 §2: one method per request), and answers a request without one with a bare challenge (§3.1)', async () => {
    const session = new LoginSession(service);
    const tokens = await tokensFor(session, await session.signIn(uniqueEmail('userinfo-twice')));
    const token = tokens.access_token as string;
    const twice = await service.postForm('/idp/v1/account/userinfo', { access_token: token }, { Authorization: `Bearer ${token}` });
    expect({ status: twice.status, body: twice.body }).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: 'Present the access token once: in the Authorization header or the body.' },
    });
    // An empty access_token is no token (RFC 6749 §3.1: a parameter without a value is omitted).
    const empty = await service.postForm('/idp/v1/account/userinfo', { access_token: '' });
    expect({ status: empty.status, body: empty.body, challenge: empty.headers.get('www-authenticate') }).toEqual({
      status: 401,
      body: { error: 'invalid_token', error_description: 'An access token is required: Authorization: Bearer <token>.' },
      challenge: 'Bearer realm="identity"',
    });
  });

  it('logs whose token it answered for: client and environment, never the user', async () => {
    const session = new LoginSession(service, 'local-opaque');
    const user = uniqueEmail('userinfo-log');
    const tokens = await tokensFor(session, await session.signIn(user));
    const logsBefore = capturedLogs().length;
    const answered = await service.get('/idp/v1/account/userinfo', { Authorization: `Bearer ${tokens.access_token as string}` });
    expect(answered.status).toBe(200);
    const lines = capturedLogs().slice(logsBefore);
    expect(logEntries(lines, 'userinfo served')).toEqual([expect.objectContaining({ client: 'local-opaque', environment: 'local' })]);
    expect(lines.join('\n')).not.toContain(user);
  });
});

it('logs the page’s decisions with ids only: started, refused with its reason, granted to a user handle', async () => {
  const user = uniqueEmail('page-logs');
  const logsBefore = capturedLogs().length;
  const session = new LoginSession(service);
  await session.signIn(user);
  await new LoginSession(service).start({ client_id: 'nobody' });
  const expired = new LoginSession(service);
  const page = await expired.start();
  await expired.post({ ...page, html: page.html.replace(csrfOf(page.html), 'forged-token') }, 'send', { user_id: user });
  const lines = capturedLogs().slice(logsBefore);
  const handle = logHandleOf(userKeyOf(await service.deps.hmacKeys(), { authType: 'email', value: user }));
  const ids = { client: 'local-web', environment: 'local' };
  expect(logEntries(lines, 'authorization started')).toEqual([expect.objectContaining(ids), expect.objectContaining(ids)]);
  expect(logEntries(lines, 'authorization granted')).toEqual([expect.objectContaining({ ...ids, user: handle })]);
  expect(logEntries(lines, 'authorization refused').map(({ reason, client }) => ({ reason, client }))).toEqual([
    { reason: 'client or redirect_uri', client: undefined },
    { reason: 'transaction or csrf', client: undefined },
  ]);
  expect(lines.join('\n')).not.toContain(user);
  expect(AUTHORIZE_PATH).toBe('/idp/v1/account/authorize');
});
