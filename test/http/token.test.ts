/**
 * POST /idp/v1/account/token (and the well-known documents) as a client sees them: over HTTP
 * through the local runtime, against DynamoDB Local, with codes read from the outbox.
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { s256Challenge } from '../../lib/otp/codes';
import { capturedLogs, rememberSecret } from '../support/log-capture';
import {
  LOCAL_API_KEY,
  logEntries,
  REDIRECT_URI,
  serviceHeaders,
  startTestService,
  uniqueEmail,
  uniquePhone,
  type TestService,
  type TestResponse,
} from '../support/harness';

const SEND = '/idp/v1/otp/send';
const TOKEN = '/idp/v1/account/token';
const GRANT_REFUSED = { error: 'invalid_grant', error_description: 'The code is invalid, expired, or was already used.' };

let service: TestService;
beforeAll(async () => {
  // A second environment that local-web may also use: a code is bound to the one it was sent in.
  // And an opaque client without refresh tokens.
  service = await startTestService({
    config: (config) => {
      const { refreshTokens: _none, ...opaque } = config.clients.find((client) => client.id === 'local-opaque')!;
      return {
        ...config,
        environments: [...config.environments, { ...config.environments[0]!, id: 'second' }],
        clients: [
          ...config.clients.map((client) => (client.id === 'local-web' ? { ...client, environments: ['local', 'second'] } : client)),
          { ...opaque, id: 'plain-opaque' },
        ],
      };
    },
  });
});
afterAll(async () => service.stop());

async function sendCode(userId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const authType = userId.includes('@') ? 'email' : 'sms';
  const response = await service.post(SEND, {
    auth_type: authType,
    client_id: 'local-web',
    redirect_uri: REDIRECT_URI,
    user_id: userId,
    ...extra,
  });
  expect(response.status).toBe(200);
  return service.latestCode(userId);
}

function exchangeBody(userId: string, code: string, extra: Record<string, unknown> = {}) {
  return {
    grant_type: 'authorization_code',
    code,
    client_id: 'local-web',
    redirect_uri: REDIRECT_URI,
    auth_type: userId.includes('@') ? 'email' : 'sms',
    user_id: userId,
    ...extra,
  };
}

async function exchange(userId: string, code: string, extra: Record<string, unknown> = {}): Promise<TestResponse> {
  return service.post(TOKEN, exchangeBody(userId, code, extra));
}

/** What a resource server does with nothing but the JWKS and RFC 9068 §4. */
async function verifyAsResourceServer(token: string, audience = 'http://127.0.0.1:3000/api'): Promise<JWTPayload> {
  const jwks = createRemoteJWKSet(new URL(`${service.url}/.well-known/jwks.json`));
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: service.url,
    audience,
    typ: 'at+jwt',
    algorithms: ['ES256'],
    currentDate: new Date(service.clock.now()),
  });
  expect(protectedHeader).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
  return payload;
}

describe('the full flow: send → outbox → exchange → verify against the JWKS', () => {
  it('issues an RFC 9068 JWT access token for a JSON request', async () => {
    const user = uniqueEmail('flow');
    const code = await sendCode(user);
    const response = await exchange(user, code);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      // local-web is issued refresh tokens (test/http/refresh.test.ts).
      refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/),
    });
    rememberSecret(response.body.refresh_token);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');

    const claims = await verifyAsResourceServer(response.body.access_token as string);
    const now = Math.floor(service.clock.now() / 1000);
    expect(claims).toEqual({
      iss: service.url,
      sub: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      aud: 'http://127.0.0.1:3000/api',
      client_id: 'local-web',
      env_id: 'local',
      iat: now,
      exp: now + 3600,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      auth_time: now,
      amr: ['otp'],
      // The refresh token family the token was issued with (its key, not the token).
      sid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(JSON.stringify(claims)).not.toContain(user);
    expect(response.body.refresh_token as string).not.toContain(claims.sid as string);
  });

  it('accepts the same exchange form-encoded (RFC 6749 §4.1.3), as an OAuth client library sends it', async () => {
    const user = uniquePhone();
    const code = await sendCode(user);
    const response = await service.postForm(TOKEN, {
      grant_type: 'authorization_code',
      code,
      client_id: 'local-web',
      redirect_uri: REDIRECT_URI,
      user_id: user,
    });
    expect(response.status).toBe(200);
    const claims = await verifyAsResourceServer(response.body.access_token as string);
    expect(claims.amr).toEqual(['otp', 'sms']);
  });

  it('infers auth_type from user_id when absent, and records a voice code as amr tel', async () => {
    const user = uniquePhone();
    const code = await sendCode(user, { method: 'voice_with_otp' });
    const response = await exchange(user, code, { auth_type: undefined });
    expect(response.status).toBe(200);
    expect((await verifyAsResourceServer(response.body.access_token as string)).amr).toEqual(['otp', 'tel']);
  });

  it('gives one user the same sub at every login, and different users different subs; case variants are one user', async () => {
    const user = uniqueEmail('stable');
    const first = await exchange(user, await sendCode(user));
    const second = await exchange(user.toUpperCase(), await sendCode(user));
    const other = uniqueEmail('other');
    const third = await exchange(other, await sendCode(other));
    const sub = async (response: TestResponse) => (await verifyAsResourceServer(response.body.access_token as string)).sub;
    expect(await sub(first)).toBe(await sub(second));
    expect(await sub(third)).not.toBe(await sub(first));
  });

  it('gives one user a different sub in each environment, so tenants cannot correlate users', async () => {
    const user = uniqueEmail('pairwise');
    const inLocal = await exchange(user, await sendCode(user));
    await service.post(`${SEND}?env_id=second`, { auth_type: 'email', client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: user });
    const code = await service.latestCode(user);
    const inSecond = await service.post(`${TOKEN}?env_id=second`, exchangeBody(user, code));
    const subOf = async (response: TestResponse) => (await verifyAsResourceServer(response.body.access_token as string)).sub;
    expect(await subOf(inLocal)).not.toBe(await subOf(inSecond));
  });

  it('makes exactly two DynamoDB requests for a JWT client without refresh tokens: the attempt and the guess that spends a try', async () => {
    const user = uniqueEmail('budget');
    const headers = { Authorization: `Bearer ${LOCAL_API_KEY}` };
    await service.post(SEND, { auth_type: 'email', client_id: 'local-backend', redirect_uri: REDIRECT_URI, user_id: user }, { headers });
    const code = await service.latestCode(user);
    service.dynamodb.reset();
    // A confidential client authenticates at the token endpoint too (RFC 6749 §3.2.1): no request more.
    const response = await service.post(TOKEN, exchangeBody(user, code, { client_id: 'local-backend' }), { headers });
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('refresh_token');
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem']);
  });

  it('makes exactly three with refresh tokens: the attempt, the guess, the new family', async () => {
    const user = uniqueEmail('family-budget');
    const code = await sendCode(user);
    service.dynamodb.reset();
    const response = await exchange(user, code);
    expect(response.status).toBe(200);
    rememberSecret(response.body.refresh_token);
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'PutItem']);
  });

  it('makes exactly three for an opaque token (the attempt, the guess, the token with its family in one transaction) and three for a failure (the attempt, the guess, the failure count)', async () => {
    const user = uniqueEmail('opaque-budget');
    await service.post(SEND, { auth_type: 'email', client_id: 'local-opaque', redirect_uri: REDIRECT_URI, user_id: user });
    const code = await service.latestCode(user);
    service.dynamodb.reset();
    const response = await exchange(user, code, { client_id: 'local-opaque' });
    expect(response.status).toBe(200);
    rememberSecret(response.body.refresh_token);
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'TransactWriteItems']);

    const failing = uniqueEmail('failing-budget');
    const real = await sendCode(failing);
    service.dynamodb.reset();
    expect((await exchange(failing, real === '000000' ? '000001' : '000000')).status).toBe(400);
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
  });

  it('makes exactly three for an opaque token without refresh tokens: the attempt, the guess, the token', async () => {
    const user = uniqueEmail('plain-opaque-budget');
    await service.post(SEND, { auth_type: 'email', client_id: 'plain-opaque', redirect_uri: REDIRECT_URI, user_id: user });
    const code = await service.latestCode(user);
    service.dynamodb.reset();
    const response = await exchange(user, code, { client_id: 'plain-opaque' });
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('refresh_token');
    rememberSecret(response.body.access_token);
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'PutItem']);
  });

  it('does the same work whether or not the user has a live code, so timing does not tell (regression: one request fewer without a code)', async () => {
    const withCode = uniqueEmail('timing-with');
    await sendCode(withCode);
    service.dynamodb.reset();
    await exchange(withCode, '000000');
    const live = service.dynamodb.operations();
    service.dynamodb.reset();
    await exchange(uniqueEmail('timing-without'), '000000');
    expect(service.dynamodb.operations()).toEqual(live);
  });

  it.each([
    ['local-web', 'jwt', true],
    ['plain-opaque', 'opaque', false],
  ])('logs the issuance to %s with ids only, and what it issued', async (clientId, format, refreshToken) => {
    const user = uniqueEmail('logged');
    const code = await sendCode(user, { client_id: clientId });
    const logsBefore = capturedLogs().length;
    const response = await exchange(user, code, { client_id: clientId });
    expect(response.status).toBe(200);
    const lines = capturedLogs().slice(logsBefore);
    // The API flow's scope is the client's configured one, here none: no ID token.
    expect(logEntries(lines, 'token issued')).toEqual([
      expect.objectContaining({
        client: clientId,
        environment: 'local',
        user: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
        format,
        channel: 'email',
        idToken: false,
        refreshToken,
      }),
    ]);
    const logs = lines.join('\n');
    expect(logs).not.toContain(response.body.access_token as string);
    expect(logs).not.toContain(user);
  });
});

describe('invalid_grant: every cause gets the same answer, which does not say which part was wrong', () => {
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  const causes: Array<[string, (user: string, code: string) => Promise<TestResponse>]> = [
    ['a wrong code', (user, code) => exchange(user, wrong(code))],
    ['another client', (user, code) => exchange(user, code, { client_id: 'local-opaque' })],
    ['an unregistered redirect URI', (user, code) => exchange(user, code, { redirect_uri: 'http://127.0.0.1:3000/other' })],
    ['another user', (_user, code) => exchange(uniqueEmail('intruder'), code)],
    ['another auth type for the same string', (user, code) => exchange(user, code, { auth_type: 'sms', user_id: '+14155552671' })],
    ['a code that is not six digits', (user, code) => exchange(user, `${code}0`)],
    [
      'expired, with the item still in the table',
      async (user, code) => {
        service.clock.advanceSeconds(300);
        return exchange(user, code);
      },
    ],
    [
      'already used',
      async (user, code) => {
        expect((await exchange(user, code)).status).toBe(200);
        return exchange(user, code);
      },
    ],
    [
      'replaced by a newer send',
      async (user, code) => {
        await service.post(SEND, { auth_type: 'email', client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: user });
        return exchange(user, code);
      },
    ],
    ['another environment the client may use', (user, code) => service.post(`${TOKEN}?env_id=second`, exchangeBody(user, code))],
  ];

  it.each(causes)('%s', async (_name, attempt) => {
    const user = uniqueEmail('grant');
    const code = await sendCode(user);
    const response = await attempt(user, code);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(GRANT_REFUSED);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('kills a code after 3 wrong tries: even the right code then fails', async () => {
    const user = uniqueEmail('tries');
    const code = await sendCode(user);
    for (let index = 1; index <= 3; index += 1) {
      expect((await exchange(user, String((Number(code) + index) % 1_000_000).padStart(6, '0'))).body).toEqual(GRANT_REFUSED);
    }
    expect((await exchange(user, code)).body).toEqual(GRANT_REFUSED);
  });

  it('counts a wrong try only against the code it was aimed at: a new send starts a fresh code', async () => {
    const user = uniqueEmail('fresh');
    const first = await sendCode(user);
    await exchange(user, wrong(first));
    await exchange(user, wrong(first));
    const second = await sendCode(user);
    expect((await exchange(user, second)).status).toBe(200);
  });

  it('does not reset the user attempt count when a new code is sent', async () => {
    const user = uniqueEmail('noreset');
    const code = await sendCode(user);
    for (let index = 0; index < 4; index += 1) await exchange(user, wrong(code));
    const fresh = await sendCode(user);
    expect((await exchange(user, fresh)).status).toBe(200); // the 5th
    const again = await sendCode(user);
    const sixth = await exchange(user, again);
    expect(sixth.status).toBe(429);
  });
});

describe('PKCE (RFC 7636)', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' };

  it('exchanges a code sent with a challenge only with the matching verifier', async () => {
    const user = uniqueEmail('pkce');
    const code = await sendCode(user, challenge);
    expect((await exchange(user, code, { code_verifier: verifier })).status).toBe(200);
  });

  it('refuses a wrong verifier and a missing one, and counts them against the code', async () => {
    const user = uniqueEmail('pkce-wrong');
    const code = await sendCode(user, challenge);
    expect((await exchange(user, code, { code_verifier: `${verifier.slice(0, -1)}A` })).body).toEqual(GRANT_REFUSED);
    expect((await exchange(user, code)).body).toEqual(GRANT_REFUSED);
    expect((await exchange(user, code, { code_verifier: `${verifier.slice(0, -1)}B` })).body).toEqual(GRANT_REFUSED);
    expect((await exchange(user, code, { code_verifier: verifier })).body).toEqual(GRANT_REFUSED); // three wrong tries killed it
  });

  it('refuses a verifier for a code sent without a challenge (a downgrade)', async () => {
    const user = uniqueEmail('pkce-downgrade');
    const code = await sendCode(user);
    expect((await exchange(user, code, { code_verifier: verifier })).body).toEqual(GRANT_REFUSED);
  });

  it('rejects a malformed verifier as invalid_request', async () => {
    const user = uniqueEmail('pkce-malformed');
    const code = await sendCode(user, challenge);
    const response = await exchange(user, code, { code_verifier: 'too-short' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
  });
});

describe('the per-user attempt limit on the token endpoint', () => {
  it('processes 5 in a minute, answers the 6th 429 with Retry-After 300, keeps the block without extending it, and lifts it', async () => {
    const user = uniqueEmail('limit');
    const code = await sendCode(user);
    const bad = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let index = 0; index < 5; index += 1) {
      expect((await exchange(user, bad, { client_id: index % 2 === 0 ? 'local-web' : 'local-opaque' })).status).toBe(400);
      service.clock.advanceSeconds(10);
    }
    const sixth = await exchange(user, code);
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('retry-after')).toBe('300');
    expect(sixth.body).toEqual({ error: 'too_many_requests', error_description: expect.any(String) });

    service.clock.advanceSeconds(299);
    const during = await exchange(user, code);
    expect(during.status).toBe(429);
    expect(during.headers.get('retry-after')).toBe('1');

    service.clock.advanceSeconds(1);
    const fresh = await sendCode(user);
    expect((await exchange(user, fresh)).status).toBe(200);
  });

  it('counts across clients, before anything else is checked (an unknown client, a bad grant type)', async () => {
    const user = uniqueEmail('across');
    const attempts = [
      exchangeBody(user, '123456', { client_id: 'nobody' }),
      exchangeBody(user, '123456', { grant_type: 'password' }),
      exchangeBody(user, '123456', { code: undefined }),
      exchangeBody(user, '123456', { client_id: 'local-opaque' }),
      exchangeBody(user, '123456'),
    ];
    const statuses = [];
    for (const body of attempts) statuses.push((await service.post(TOKEN, body)).status);
    expect(statuses).toEqual([401, 400, 400, 400, 400]);
    expect((await service.post(TOKEN, exchangeBody(user, '123456'))).status).toBe(429);
  });

  it('of 20 concurrent attempts for one user, exactly 5 are processed', async () => {
    const user = uniqueEmail('concurrent');
    const code = await sendCode(user);
    const responses = await Promise.all(Array.from({ length: 20 }, () => exchange(user, code)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status !== 429)).toHaveLength(5);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
  });
});

describe('single use under concurrency', () => {
  it('of 20 concurrent exchanges of one valid code, exactly one gets a token (limit raised so all 20 are processed)', async () => {
    const roomy = await startTestService({
      config: (config) => ({
        ...config,
        environments: config.environments.map((environment) => ({
          ...environment,
          limits: { ...environment.limits, token: { maxAttempts: 50, windowSeconds: 60, blockSeconds: 300 } },
        })),
      }),
    });
    try {
      const user = uniqueEmail('race');
      await roomy.post(SEND, { auth_type: 'email', client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: user });
      const code = await roomy.latestCode(user);
      const responses = await Promise.all(Array.from({ length: 20 }, () => roomy.post(TOKEN, exchangeBody(user, code))));
      expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
      expect(responses.filter((response) => response.status === 400).map((response) => response.body)).toEqual(
        Array(19).fill(GRANT_REFUSED),
      );
    } finally {
      await roomy.stop();
    }
  });
});

describe('a repeated query parameter (regression: ?env_id=second&env_id=local was read as the last one)', () => {
  it('is refused 400 invalid_request before any work: no attempt counted, the code not spent', async () => {
    const user = uniqueEmail('repeated-query');
    const code = await sendCode(user);
    service.dynamodb.reset();
    const refused = await service.post(`${TOKEN}?env_id=second&env_id=local`, exchangeBody(user, code));

    expect({ status: refused.status, headers: serviceHeaders(refused.headers), body: refused.body }).toEqual({
      status: 400,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        vary: 'Origin',
      },
      body: { error: 'invalid_request', error_description: 'A query parameter is repeated (RFC 6749 section 3.1 allows each once).' },
    });
    expect(service.dynamodb.operations()).toEqual([]);
    // Not spent, and in the environment it was sent in.
    expect((await service.post(`${TOKEN}?env_id=local`, exchangeBody(user, code))).status).toBe(200);
  });
});

describe('bad requests: a documented 4xx with the error JSON, never a 5xx', () => {
  const cases: Array<{
    name: string;
    body?: (user: string) => unknown;
    raw?: string;
    contentType?: string;
    method?: string;
    query?: string;
    status: number;
    error: string;
    notEchoed?: string;
  }> = [
    {
      name: 'grant_type password',
      body: (u) => exchangeBody(u, '123456', { grant_type: 'password' }),
      status: 400,
      error: 'unsupported_grant_type',
    },
    { name: 'no grant_type', body: (u) => exchangeBody(u, '123456', { grant_type: undefined }), status: 400, error: 'invalid_request' },
    { name: 'no code', body: (u) => exchangeBody(u, '123456', { code: undefined }), status: 400, error: 'invalid_request' },
    { name: 'no client_id', body: (u) => exchangeBody(u, '123456', { client_id: undefined }), status: 400, error: 'invalid_request' },
    { name: 'no redirect_uri', body: (u) => exchangeBody(u, '123456', { redirect_uri: undefined }), status: 400, error: 'invalid_request' },
    { name: 'no user_id', body: (u) => exchangeBody(u, '123456', { user_id: undefined }), status: 400, error: 'invalid_request' },
    { name: 'an invalid user_id', body: (u) => exchangeBody(u, '123456', { user_id: 'nobody' }), status: 400, error: 'invalid_request' },
    { name: 'auth_type fax', body: (u) => exchangeBody(u, '123456', { auth_type: 'fax' }), status: 400, error: 'invalid_request' },
    { name: 'an unknown client', body: (u) => exchangeBody(u, '123456', { client_id: 'nobody' }), status: 401, error: 'invalid_client' },
    { name: 'code as a number', body: (u) => exchangeBody(u, '123456', { code: 123456 }), status: 400, error: 'invalid_request' },
    {
      name: 'a repeated form parameter',
      raw: 'grant_type=authorization_code&grant_type=authorization_code&code=1',
      contentType: 'application/x-www-form-urlencoded',
      status: 400,
      error: 'invalid_request',
    },
    {
      name: 'a repeated parameter of any name, not echoed back',
      raw: '<script>=1&<script>=2',
      contentType: 'application/x-www-form-urlencoded',
      status: 400,
      error: 'invalid_request',
      notEchoed: '<script>',
    },
    { name: 'text/plain', raw: 'hello', contentType: 'text/plain', status: 415, error: 'invalid_request' },
    { name: 'malformed JSON', raw: '{', contentType: 'application/json', status: 400, error: 'invalid_request' },
    { name: 'GET', method: 'GET', status: 405, error: 'method_not_allowed' },
    { name: 'an unknown env_id', body: (u) => exchangeBody(u, '123456'), query: '?env_id=nowhere', status: 400, error: 'invalid_request' },
  ];

  it.each(cases)('$name → $status $error', async ({ body, raw, contentType, method, query, status, error, notEchoed }) => {
    const user = uniqueEmail('badtoken');
    const init: RequestInit = { method: method ?? 'POST', headers: { 'Content-Type': contentType ?? 'application/json' } };
    if (init.method === 'POST') init.body = raw ?? JSON.stringify(body?.(user));
    const response = await fetch(`${service.url}${TOKEN}${query ?? ''}`, init);
    expect(response.status).toBe(status);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error, error_description: expect.any(String) });
    if (notEchoed !== undefined) expect(text).not.toContain(notEchoed);
    if (status === 401) expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });
});

describe('well-known documents', () => {
  it('publishes the public keys, cacheable, with no private member', async () => {
    const response = await service.get('/.well-known/jwks.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const keys = (response.body as { keys: Array<Record<string, unknown>> }).keys.filter((key) => key.alg === 'ES256');
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const key of keys) {
      expect(key).toEqual({
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String),
        y: expect.any(String),
        kid: expect.any(String),
        alg: 'ES256',
        use: 'sig',
      });
    }
  });

  it('publishes RFC 8414 metadata whose URLs are this server and answer', async () => {
    const response = await service.get('/.well-known/oauth-authorization-server');
    expect(response.status).toBe(200);
    // The whole document is checked field by field in test/http/discovery.test.ts.
    expect(response.body).toMatchObject({
      issuer: service.url,
      authorization_endpoint: `${service.url}/idp/v1/account/authorize`,
      token_endpoint: `${service.url}/idp/v1/account/token`,
      jwks_uri: `${service.url}/.well-known/jwks.json`,
      introspection_endpoint: `${service.url}/idp/v1/account/introspect`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      code_challenge_methods_supported: ['S256'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic'],
      revocation_endpoint: `${service.url}/idp/v1/account/revoke`,
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      otp_send_endpoint: `${service.url}/idp/v1/otp/send`,
    });
    expect((await fetch(response.body.jwks_uri as string)).status).toBe(200);
  });

  it('answers 405 for POST and 404 for an unknown document', async () => {
    const post = await fetch(`${service.url}/.well-known/jwks.json`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect((await service.get('/.well-known/security.txt')).status).toBe(404);
  });

  it('signs with the current key and the JWKS verifies it locally too', async () => {
    const user = uniqueEmail('kid');
    const token = (await exchange(user, await sendCode(user))).body.access_token as string;
    const jwks = (await service.get('/.well-known/jwks.json')).body as { keys: Array<{ kid: string }> };
    const { kid } = decodeProtectedHeader(token);
    expect(jwks.keys.map((key) => key.kid)).toContain(kid);
    await expect(
      jwtVerify(token, createLocalJWKSet(jwks as never), { typ: 'at+jwt', currentDate: new Date(service.clock.now()) }),
    ).resolves.toBeDefined();
  });
});
