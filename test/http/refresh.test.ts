/**
 * Refresh tokens (RFC 6749 §6) with rotation and reuse detection (RFC 9700 §4.14.2, OAuth 2.1
 * §4.3.1), and their lifetimes, scope, limits, concurrency and request budget, over HTTP
 * through the local runtime against DynamoDB Local (docs/decisions/009-refresh-token-families.md).
 * Revocation (RFC 7009) is test/http/revoke.test.ts.
 */
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JWK, type JWTPayload } from 'jose';
import * as client from 'openid-client';
import { atHash } from '../../lib/oauth/id-tokens';
import { LOCAL_AWS } from '../../local/dynamodb';
import { capturedLogs, rememberSecret } from '../support/log-capture';
import {
  LOCAL_API_KEY,
  logEntries,
  REDIRECT_URI,
  requiredEnv,
  startTestService,
  uniqueEmail,
  withLimits,
  type TestResponse,
  type TestService,
} from '../support/harness';
import { LoginSession } from '../support/login-flow';

const TOKEN = '/idp/v1/account/token';
const INTROSPECT = '/idp/v1/account/introspect';
const REFRESH_TOKEN = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;
const REFUSED = { error: 'invalid_grant', error_description: 'The refresh token is invalid, expired, revoked, or was already used.' };
const DAY = 86_400;

/** Every token of a response, remembered as a secret the logs must not show. */
function remember(response: TestResponse): TestResponse {
  for (const name of ['access_token', 'refresh_token', 'id_token']) {
    const token = response.body[name];
    if (typeof token === 'string') rememberSecret(token);
  }
  return response;
}

/** A login by the API flow (otp/send, then the code at the token endpoint): its tokens. */
async function login(service: TestService, clientId = 'local-web', user = uniqueEmail('refresh')): Promise<TestResponse> {
  const response = await service.signIn(user, { clientId });
  expect(response.status).toBe(200);
  return response;
}

/** A login on the hosted page with `scope`, the code exchanged: its tokens (with an ID token for openid). */
async function pageLogin(service: TestService, clientId = 'local-web', scope = 'openid email phone'): Promise<TestResponse> {
  const session = new LoginSession(service, clientId);
  const redirect = await session.signIn(uniqueEmail('page'), { scope });
  const response = await service.postForm(TOKEN, {
    grant_type: 'authorization_code',
    code: redirect.location?.searchParams.get('code') ?? '',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_verifier: session.verifier,
  });
  expect(response.status).toBe(200);
  return remember(response);
}

/** A refresh, form-encoded as OAuth libraries send it. */
async function refresh(service: TestService, token: unknown, clientId = 'local-web', extra: Record<string, string> = {}) {
  return remember(
    await service.postForm(TOKEN, { grant_type: 'refresh_token', refresh_token: token as string, client_id: clientId, ...extra }),
  );
}

async function introspect(service: TestService, token: unknown): Promise<Record<string, unknown>> {
  return (await service.postForm(INTROSPECT, { token: token as string }, { Authorization: `Bearer ${LOCAL_API_KEY}` })).body;
}

function claimsOf(token: unknown): JWTPayload {
  return decodeJwt(token as string);
}

describe('rotation (RFC 6749 §6)', () => {
  let service: TestService;
  let jwks: { keys: JWK[] };
  beforeAll(async () => {
    // The per-user limit raised: these tests refresh one user many times a minute. A second
    // environment local-web may also use: a family belongs to the one its login was in.
    service = await startTestService({
      config: (config) =>
        withLimits({ token: { maxAttempts: 50 } })({
          ...config,
          environments: [...config.environments, { ...config.environments[0]!, id: 'second' }],
          clients: config.clients.map((entry) => (entry.id === 'local-web' ? { ...entry, environments: ['local', 'second'] } : entry)),
        }),
    });
    jwks = (await service.get('/.well-known/jwks.json')).body as { keys: JWK[] };
  });
  afterAll(async () => service.stop());

  it('issues a refresh token with the code exchange, and a refresh returns a new access token and a new refresh token', async () => {
    const first = await login(service);
    expect(first.body.refresh_token).toMatch(REFRESH_TOKEN);
    service.clock.advanceSeconds(60);

    const second = await refresh(service, first.body.refresh_token);
    expect(second.status).toBe(200);
    expect(second.headers.get('cache-control')).toBe('no-store');
    expect(second.headers.get('pragma')).toBe('no-cache');
    expect(second.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(REFRESH_TOKEN),
    });
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(second.body.access_token).not.toBe(first.body.access_token);

    // The access token belongs to the same login: same sub, auth_time, amr, family; a new iat and jti.
    const before = claimsOf(first.body.access_token);
    const after = claimsOf(second.body.access_token);
    expect(after).toEqual({ ...before, iat: before.iat! + 60, exp: before.exp! + 60, jti: expect.any(String) });
    expect(after.jti).not.toBe(before.jti);
    expect(await introspect(service, second.body.access_token)).toMatchObject({ active: true, auth_time: before.auth_time });
  });

  it('spends the presented token: the successor works, and the chain goes on', async () => {
    let current = (await login(service)).body.refresh_token;
    for (let step = 0; step < 3; step += 1) {
      const next = await refresh(service, current);
      expect(next.status).toBe(200);
      current = next.body.refresh_token;
    }
  });

  it('takes JSON too, and the same parameters', async () => {
    const first = await login(service);
    const response = remember(
      await service.post(TOKEN, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: 'local-web' }),
    );
    expect(response.status).toBe(200);
    expect(response.body.refresh_token).toMatch(REFRESH_TOKEN);
  });

  it('gives an ID token (openid) that keeps the original login’s sub, auth_time and amr (OIDC Core §12.2), with the new access token’s at_hash', async () => {
    const first = await pageLogin(service);
    const original = await jwtVerify(first.body.id_token as string, createLocalJWKSet(jwks), {
      issuer: service.url,
      audience: 'local-web',
      currentDate: new Date(service.clock.now()),
    });
    service.clock.advanceSeconds(600);
    const second = await refresh(service, first.body.refresh_token);
    expect(second.body).toMatchObject({ scope: 'openid email phone', id_token: expect.any(String) });
    const { payload } = await jwtVerify(second.body.id_token as string, createLocalJWKSet(jwks), {
      issuer: service.url,
      audience: 'local-web',
      currentDate: new Date(service.clock.now()),
    });
    const now = Math.floor(service.clock.now() / 1000);
    // OIDC Core §12.2: iss, sub, aud the same; iat the new one; auth_time the original authentication's.
    // No nonce: it belonged to the authorization request.
    const { nonce: _nonce, ...kept } = original.payload;
    expect(payload).toEqual({ ...kept, iat: now, exp: now + 3600, at_hash: atHash(second.body.access_token as string, 'ES256') });
    expect(payload.auth_time).toBe(now - 600);
  });

  it.each([
    ['no refresh_token', { refresh_token: undefined }, 400, { error: 'invalid_request', error_description: 'refresh_token is required.' }],
    [
      'no client_id (a public client names itself, RFC 6749 §3.2.1)',
      { client_id: undefined },
      401,
      { error: 'invalid_client', error_description: 'Unknown client: name it with client_id, or authenticate.' },
    ],
    ['a scope that is not text', { scope: 42 }, 400, { error: 'invalid_request', error_description: 'scope must be a string.' }],
    [
      'an unknown client',
      { client_id: 'nobody' },
      401,
      { error: 'invalid_client', error_description: 'Unknown client: name it with client_id, or authenticate.' },
    ],
    [
      'a client that is not issued refresh tokens (it authenticates first)',
      { client_id: 'local-backend', client_secret: LOCAL_API_KEY },
      400,
      { error: 'unauthorized_client', error_description: 'This client is not issued refresh tokens.' },
    ],
  ])('refuses %s', async (_name, change, status, body) => {
    const first = await login(service);
    const fields: Record<string, unknown> = {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: 'local-web',
    };
    for (const [name, value] of Object.entries(change)) {
      if (value === undefined) delete fields[name];
      else fields[name] = value;
    }
    const response = await service.post(TOKEN, fields);
    expect({ status: response.status, body: response.body }).toEqual({ status, body: expect.objectContaining(body) });
    // A refused request changes nothing: the token still refreshes.
    expect((await refresh(service, first.body.refresh_token)).status).toBe(200);
  });

  it('refuses another client’s token (invalid_grant) without spending it (RFC 6749 §6: issued to the authenticated client)', async () => {
    const first = await login(service);
    expect((await refresh(service, first.body.refresh_token, 'local-rs256')).body).toEqual(REFUSED);
    expect((await refresh(service, first.body.refresh_token)).status).toBe(200);
  });

  it('refuses an unknown env_id (400) and another environment the client may use (invalid_grant), and takes its own', async () => {
    const first = await login(service);
    const fields = { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string, client_id: 'local-web' };
    expect((await service.postForm(`${TOKEN}?env_id=nowhere`, fields)).body).toMatchObject({ error: 'invalid_request' });
    expect((await service.postForm(`${TOKEN}?env_id=second`, fields)).body).toEqual(REFUSED);
    expect(remember(await service.postForm(`${TOKEN}?env_id=local`, fields)).status).toBe(200);
  });

  it('refuses a token of an environment the configuration no longer has (invalid_grant, reason binding), counting nothing', async () => {
    const user = uniqueEmail('gone');
    const first = await service.signIn(user, { environmentId: 'second' });
    expect(first.status).toBe(200);
    // A later deployment of the stack, over the same table, without the environment.
    const later = await startTestService({ tableName: service.services.tableName });
    try {
      const logsBefore = capturedLogs().length;
      expect((await refresh(later, first.body.refresh_token)).body).toEqual(REFUSED);
      const lines = capturedLogs().slice(logsBefore);
      expect(logEntries(lines, 'grant refused')).toEqual([expect.objectContaining({ reason: 'binding', environment: 'second' })]);
      expect(logEntries(lines, 'attempt refused')).toEqual([]);
    } finally {
      await later.stop();
    }
  });

  it.each([
    ['an unknown token of the right shape', 'A'.repeat(22) + '.' + 'B'.repeat(43)],
    ['a string that is not a refresh token', 'not-a-refresh-token'],
    ['an access token', 'x'.repeat(43)],
  ])('answers %s with invalid_grant', async (_name, token) => {
    expect((await refresh(service, token)).body).toEqual(REFUSED);
  });
});

describe('reuse detection (RFC 9700 §4.14.2)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ token: { maxAttempts: 50 } }) });
  });
  afterAll(async () => service.stop());

  it('revokes the whole family when a spent token comes back: the attacker’s replay and the legitimate user’s next refresh both fail', async () => {
    const first = await login(service);
    const stolen = first.body.refresh_token; // the attacker's copy
    const legitimate = await refresh(service, stolen); // the user rotates first
    expect(legitimate.status).toBe(200);

    const logsBefore = capturedLogs().length;
    expect((await refresh(service, stolen)).body).toEqual(REFUSED); // the attacker replays: reuse
    expect((await refresh(service, legitimate.body.refresh_token)).body).toEqual(REFUSED); // the user's next refresh
    expect((await refresh(service, stolen)).body).toEqual(REFUSED);
    const [reused, ...more] = logEntries(capturedLogs().slice(logsBefore), 'refresh token reused');
    expect(more).toEqual([]);
    expect(reused).toMatchObject({
      level: 'WARN',
      client: 'local-web',
      family: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
      generation: 1,
    });
  });

  it('also when the attacker rotates first: then the user’s own (spent) token is the reuse', async () => {
    const first = await login(service);
    const attacker = await refresh(service, first.body.refresh_token);
    expect(attacker.status).toBe(200);
    expect((await refresh(service, first.body.refresh_token)).body).toEqual(REFUSED);
    expect((await refresh(service, attacker.body.refresh_token)).body).toEqual(REFUSED);
  });

  it('makes the access tokens issued with the family inactive at introspection (RFC 7009 §2.1), JWT and opaque', async () => {
    for (const clientId of ['local-web', 'local-opaque']) {
      const first = await login(service, clientId);
      const second = await refresh(service, first.body.refresh_token, clientId);
      expect(await introspect(service, second.body.access_token)).toMatchObject({ active: true });
      expect((await refresh(service, first.body.refresh_token, clientId)).status).toBe(400);
      for (const token of [first.body.access_token, second.body.access_token]) {
        expect({ clientId, answer: await introspect(service, token) }).toEqual({ clientId, answer: { active: false } });
      }
    }
  });

  it('treats a forged secret with the family’s id as reuse (only a holder of one of its tokens knows the id)', async () => {
    const first = await login(service);
    const [familyId] = (first.body.refresh_token as string).split('.');
    expect((await refresh(service, `${familyId}.${'x'.repeat(43)}`)).body).toEqual(REFUSED);
    expect((await refresh(service, first.body.refresh_token)).body).toEqual(REFUSED);
  });

  it('regression: of two simultaneous refreshes of one token, each on its own clock, exactly one gets tokens and the family ends revoked (40 races per client; both got the same successor in 7 of 40)', async () => {
    const realTime = await startTestService({ dynamodbRequestTimeoutMs: 10_000 });
    realTime.clock.runInRealTime();
    try {
      for (const clientId of ['local-web', 'local-opaque']) {
        const outcomes: string[] = [];
        for (let race = 0; race < 40; race += 1) {
          const first = await login(realTime, clientId);
          const pair = await Promise.all([0, 1].map(() => refresh(realTime, first.body.refresh_token, clientId)));
          const granted = pair.filter((response) => response.status === 200);
          const successorRefused =
            granted.length === 1 && (await refresh(realTime, granted[0]?.body.refresh_token, clientId)).status === 400;
          outcomes.push(`${granted.length} granted, family ${successorRefused ? 'revoked' : 'live'}`);
        }
        expect({ clientId, outcomes: [...new Set(outcomes)] }).toEqual({ clientId, outcomes: ['1 granted, family revoked'] });
      }
    } finally {
      await realTime.stop();
    }
    // About 400 requests in real time: 15 s on an idle 2-core machine, past 30 s under load.
  }, 120_000);

  it('lets exactly one of 20 concurrent refreshes of one token succeed; the others are reuse, so the family is revoked', async () => {
    for (const clientId of ['local-web', 'local-opaque']) {
      const first = await login(service, clientId);
      const responses = await Promise.all(Array.from({ length: 20 }, () => refresh(service, first.body.refresh_token, clientId)));
      const granted = responses.filter((response) => response.status === 200);
      expect({ clientId, granted: granted.length }).toEqual({ clientId, granted: 1 });
      expect(responses.filter((response) => response.status !== 200).every((response) => response.body.error === 'invalid_grant')).toBe(
        true,
      );
      expect((await refresh(service, granted[0]?.body.refresh_token, clientId)).body).toEqual(REFUSED);
      if (clientId === 'local-opaque') expect(await introspect(service, granted[0]?.body.access_token)).toEqual({ active: false });
    }
  });
});

describe('the reuse interval (reuseIntervalSeconds: a retry that lost its response)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      config: (config) => ({
        ...withLimits({ token: { maxAttempts: 50 } })(config),
        clients: config.clients.map((entry) =>
          entry.refreshTokens === undefined ? entry : { ...entry, refreshTokens: { ...entry.refreshTokens, reuseIntervalSeconds: 10 } },
        ),
      }),
      dynamodbRequestTimeoutMs: 10_000,
    });
  });
  afterAll(async () => service.stop());

  it('gives a retry within the interval the same successor, and the family lives on', async () => {
    const first = await login(service);
    const second = await refresh(service, first.body.refresh_token);
    service.clock.advanceSeconds(9);
    const logsBefore = capturedLogs().length;
    const retry = await refresh(service, first.body.refresh_token);
    expect(retry.status).toBe(200);
    expect(logEntries(capturedLogs().slice(logsBefore), 'token issued')).toEqual([
      expect.objectContaining({ client: 'local-web', grant: 'refresh_token', reuseInterval: true }),
    ]);
    expect(retry.body.refresh_token).toBe(second.body.refresh_token);
    expect(retry.body.access_token).not.toBe(second.body.access_token);
    expect((await refresh(service, second.body.refresh_token)).status).toBe(200);
  });

  it('answers a retry in 1 DynamoDB request (the read): nothing to rotate; 2 for an opaque token (+ its record)', async () => {
    for (const [clientId, expected] of [
      ['local-web', ['GetItem']],
      ['local-opaque', ['GetItem', 'PutItem']],
    ] as const) {
      const first = await login(service, clientId);
      await refresh(service, first.body.refresh_token, clientId);
      service.dynamodb.reset();
      expect((await refresh(service, first.body.refresh_token, clientId)).status).toBe(200);
      expect({ clientId, operations: service.dynamodb.operations() }).toEqual({ clientId, operations: expected });
    }
  });

  it('treats the retry as reuse once the interval has passed (10 s after the rotation)', async () => {
    const first = await login(service);
    const second = await refresh(service, first.body.refresh_token);
    service.clock.advanceSeconds(10);
    expect((await refresh(service, first.body.refresh_token)).body).toEqual(REFUSED);
    expect((await refresh(service, second.body.refresh_token)).body).toEqual(REFUSED);
  });

  it('treats a token two rotations old as reuse, even within the interval', async () => {
    const first = await login(service);
    const second = await refresh(service, first.body.refresh_token);
    await refresh(service, second.body.refresh_token);
    expect((await refresh(service, first.body.refresh_token)).body).toEqual(REFUSED);
  });

  it('answers all of 20 concurrent refreshes of one token with the same successor, which then works', async () => {
    for (const clientId of ['local-web', 'local-opaque']) {
      const first = await login(service, clientId);
      const responses = await Promise.all(Array.from({ length: 20 }, () => refresh(service, first.body.refresh_token, clientId)));
      expect({ clientId, statuses: [...new Set(responses.map((response) => response.status))] }).toEqual({ clientId, statuses: [200] });
      const successors = new Set(responses.map((response) => response.body.refresh_token));
      expect(successors.size).toBe(1);
      if (clientId === 'local-opaque') {
        for (const response of responses) expect(await introspect(service, response.body.access_token)).toMatchObject({ active: true });
      }
      expect((await refresh(service, [...successors][0], clientId)).status).toBe(200);
    }
  });
});

describe('lifetimes, by the application’s clock', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ token: { maxAttempts: 50 } }) });
  });
  afterAll(async () => service.stop());

  it('ends a token left unused for the idle lifetime (30 days): a second earlier it still works, and each rotation restarts it', async () => {
    const first = await login(service);
    service.clock.advanceSeconds(30 * DAY - 1);
    const second = await refresh(service, first.body.refresh_token);
    expect(second.status).toBe(200);
    service.clock.advanceSeconds(30 * DAY - 1);
    const third = await refresh(service, second.body.refresh_token);
    expect(third.status).toBe(200);
    service.clock.advanceSeconds(30 * DAY);
    expect((await refresh(service, third.body.refresh_token)).body).toEqual(REFUSED);
  });

  it('ends the family at the absolute lifetime (90 days after the login), however recently it was used', async () => {
    const first = await login(service);
    let current = first.body.refresh_token;
    for (let step = 0; step < 3; step += 1) {
      service.clock.advanceSeconds(29 * DAY);
      const next = await refresh(service, current);
      expect(next.status).toBe(200);
      current = next.body.refresh_token;
    }
    // 87 days after the login: 3 days to go.
    service.clock.advanceSeconds(3 * DAY - 1);
    const last = await refresh(service, current);
    expect(last.status).toBe(200);
    service.clock.advanceSeconds(1);
    expect((await refresh(service, last.body.refresh_token)).body).toEqual(REFUSED);
  });
});

describe('scope (RFC 6749 §6: narrower, never wider)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ token: { maxAttempts: 50 } }) });
  });
  afterAll(async () => service.stop());

  it('narrows the access token (and drops the claims only the dropped scope granted), while the family keeps the original scope', async () => {
    const first = await pageLogin(service);
    expect(claimsOf(first.body.access_token)).toMatchObject({ scope: 'openid email phone', email: expect.any(String) });

    const narrowed = await refresh(service, first.body.refresh_token, 'local-web', { scope: 'openid' });
    expect(narrowed.body).toMatchObject({ scope: 'openid', id_token: expect.any(String) });
    expect(claimsOf(narrowed.body.access_token)).toMatchObject({ scope: 'openid' });
    expect(claimsOf(narrowed.body.access_token)).not.toHaveProperty('email');
    expect(claimsOf(narrowed.body.id_token)).not.toHaveProperty('email');

    const withoutOpenId = await refresh(service, narrowed.body.refresh_token, 'local-web', { scope: 'email' });
    expect(withoutOpenId.body).toMatchObject({ scope: 'email' });
    expect(withoutOpenId.body).not.toHaveProperty('id_token');
    expect(claimsOf(withoutOpenId.body.access_token)).toMatchObject({ email: expect.any(String), email_verified: true });

    // "If omitted is treated as equal to the scope originally granted."
    const full = await refresh(service, withoutOpenId.body.refresh_token);
    expect(full.body).toMatchObject({ scope: 'openid email phone', id_token: expect.any(String) });
  });

  it('refuses a wider scope with invalid_scope (RFC 6749 §5.2), and the token stays live', async () => {
    const first = await pageLogin(service, 'local-web', 'openid');
    for (const scope of ['openid email', 'profile', 'openid offline_access']) {
      const response = await refresh(service, first.body.refresh_token, 'local-web', { scope });
      expect({ scope, status: response.status, body: response.body }).toEqual({
        scope,
        status: 400,
        body: { error: 'invalid_scope', error_description: 'The requested scope exceeds the scope originally granted.' },
      });
    }
    expect((await refresh(service, first.body.refresh_token)).status).toBe(200);
  });

  it('still detects reuse when a spent token comes with a wider scope', async () => {
    const first = await pageLogin(service, 'local-web', 'openid');
    const second = await refresh(service, first.body.refresh_token);
    expect((await refresh(service, first.body.refresh_token, 'local-web', { scope: 'openid email' })).body).toEqual(REFUSED);
    expect((await refresh(service, second.body.refresh_token)).body).toEqual(REFUSED);
  });
});

describe('limits: the family’s own, never the user’s (a refresh presents an unguessable token, not a one-time code)', () => {
  let service: TestService;
  beforeAll(async () => {
    // The defaults: 5 attempts per user per 60 s (a 300 s block), 10 refreshes per family per 60 s.
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  it('regression: a burst of refreshes never counts into the user’s limit (the 4th refresh in a minute was 429, and the app’s user was locked out of the page)', async () => {
    const user = uniqueEmail('refresh-burst');
    const first = await login(service, 'local-web', user); // attempt 1 of 5: the code exchange
    let current = first.body.refresh_token;
    for (let index = 0; index < 9; index += 1) {
      const next = await refresh(service, current);
      expect({ index, status: next.status }).toEqual({ index, status: 200 });
      current = next.body.refresh_token;
    }
    // Four more code exchanges in the same minute: attempts 2 to 5 of the user's 5.
    for (let index = 0; index < 4; index += 1) expect((await login(service, 'local-web', user)).status).toBe(200);
  });

  it('holds for a confidential client too: a 6-refresh burst (Basic-authenticated) never blocks the user’s next login, and the 11th rotation in a minute is the family’s 429', async () => {
    const basic = { Authorization: `Basic ${Buffer.from('local-server:local-server-secret').toString('base64')}` };
    const user = uniqueEmail('confidential-burst');
    const session = new LoginSession(service, 'local-server');
    const code = (await session.signIn(user)).location?.searchParams.get('code') ?? '';
    const first = remember(
      await service.postForm(
        TOKEN,
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: session.verifier },
        basic,
      ),
    );
    expect(first.status).toBe(200);
    let current = first.body.refresh_token as string;
    const rotate = async () => remember(await service.postForm(TOKEN, { grant_type: 'refresh_token', refresh_token: current }, basic));
    for (let index = 0; index < 6; index += 1) {
      const next = await rotate();
      expect({ index, status: next.status }).toEqual({ index, status: 200 });
      current = next.body.refresh_token as string;
    }
    // The user's next login on the page goes through: the burst counted nothing of theirs.
    expect((await new LoginSession(service, 'local-server').signIn(user)).status).toBe(302);
    for (let index = 6; index < 10; index += 1) {
      const next = await rotate();
      expect({ index, status: next.status }).toEqual({ index, status: 200 });
      current = next.body.refresh_token as string;
    }
    expect((await rotate()).status).toBe(429);
  });

  it('regression: a stranger who blocks the user’s code logins cannot cut off their sessions (refreshes are neither refused by the block nor by the failure cap)', async () => {
    const capped = await startTestService({ config: withLimits({ failures: { maxConsecutive: 3 } }) });
    try {
      const user = uniqueEmail('victim');
      const first = await login(capped, 'local-web', user);
      // Six wrong codes in a minute: the 6th starts the user's 300 s block; 3 failures reach the cap.
      for (let index = 0; index < 6; index += 1) {
        await capped.post(TOKEN, {
          grant_type: 'authorization_code',
          code: '000000',
          client_id: 'local-web',
          redirect_uri: REDIRECT_URI,
          user_id: user,
        });
      }
      expect(
        (
          await capped.post(TOKEN, {
            grant_type: 'authorization_code',
            code: '000000',
            client_id: 'local-web',
            redirect_uri: REDIRECT_URI,
            user_id: user,
          })
        ).status,
      ).toBe(429);
      const refreshed = await refresh(capped, first.body.refresh_token);
      expect(refreshed.status).toBe(200);
      capped.clock.advanceSeconds(301);
      // The block has lifted; the failure cap (its 24 h run) still refuses code exchanges, never refreshes.
      expect((await refresh(capped, refreshed.body.refresh_token)).status).toBe(200);
    } finally {
      await capped.stop();
    }
  });

  it('refuses the 11th rotation of one family within 60 s with 429 and Retry-After, without spending the token; after the window it rotates', async () => {
    const first = await login(service);
    let current = first.body.refresh_token;
    for (let index = 0; index < 10; index += 1) {
      service.clock.advanceSeconds(1); // rotations at +1 s … +10 s
      const next = await refresh(service, current);
      expect({ index, status: next.status }).toEqual({ index, status: 200 });
      current = next.body.refresh_token;
    }
    service.clock.advanceSeconds(20); // +30 s: the oldest of the 10 (at +1 s) leaves the window at +61 s
    const since = capturedLogs().length;
    const refused = await refresh(service, current);
    expect({ status: refused.status, body: refused.body, retryAfter: refused.headers.get('retry-after') }).toEqual({
      status: 429,
      body: { error: 'too_many_requests', error_description: 'This refresh token was refreshed too often. Try again in 31 seconds.' },
      retryAfter: '31',
    });
    expect(logEntries(capturedLogs().slice(since), 'grant refused')).toEqual([
      expect.objectContaining({ grant: 'refresh_token', reason: 'family_limit', retryAfterSeconds: 31 }),
    ]);
    service.clock.advanceSeconds(30); // +60 s: still in the window, by a millisecond's rule (half-open)
    expect((await refresh(service, current)).status).toBe(429);
    service.clock.advance(1000); // +61 s
    const rotated = await refresh(service, current);
    expect(rotated.status).toBe(200);
    // The refused presentations spent nothing: the token they presented was live until now, and is spent now.
    expect((await refresh(service, rotated.body.refresh_token)).status).toBe(429);
  });

  it('holds the family’s limit per client setting (refreshTokens.limit)', async () => {
    const strict = await startTestService({
      config: (config) => ({
        ...config,
        clients: config.clients.map((entry) =>
          entry.id === 'local-web'
            ? { ...entry, refreshTokens: { ...entry.refreshTokens!, limit: { maxRefreshes: 2, windowSeconds: 5 } } }
            : entry,
        ),
      }),
    });
    try {
      const first = await login(strict);
      const second = await refresh(strict, first.body.refresh_token);
      const third = await refresh(strict, second.body.refresh_token);
      expect([second.status, third.status]).toEqual([200, 200]);
      const refused = await refresh(strict, third.body.refresh_token);
      expect({ status: refused.status, retryAfter: refused.headers.get('retry-after') }).toEqual({ status: 429, retryAfter: '5' });
      strict.clock.advanceSeconds(5);
      expect((await refresh(strict, third.body.refresh_token)).status).toBe(200);
    } finally {
      await strict.stop();
    }
  });

  it('counts an unknown token against no one: it writes nothing that takes effect', async () => {
    const items = async () => {
      const dynamodb = new DynamoDBClient({ endpoint: requiredEnv('TEST_DYNAMODB_ENDPOINT'), ...LOCAL_AWS });
      try {
        return (await dynamodb.send(new ScanCommand({ TableName: service.services.tableName, Select: 'COUNT', ConsistentRead: true })))
          .Count;
      } finally {
        dynamodb.destroy();
      }
    };
    const before = await items();
    for (let index = 0; index < 10; index += 1) {
      expect((await refresh(service, `${'A'.repeat(21)}${index}.${'B'.repeat(43)}`)).body).toEqual(REFUSED);
    }
    expect(await items()).toBe(before);
  });
});

describe('DynamoDB requests per refresh', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ token: { maxAttempts: 50 } }) });
  });
  afterAll(async () => service.stop());

  async function operationsOf(run: () => Promise<TestResponse>, status: number): Promise<readonly string[]> {
    service.dynamodb.reset();
    expect((await run()).status).toBe(status);
    return [...service.dynamodb.operations()];
  }

  it('refreshes in 2: the family read, the rotation (for an opaque token, one transaction with the token)', async () => {
    for (const [clientId, rotation] of [
      ['local-web', 'UpdateItem'],
      ['local-rs256', 'UpdateItem'],
      ['local-opaque', 'TransactWriteItems'],
    ] as const) {
      const first = await login(service, clientId);
      const operations = await operationsOf(() => refresh(service, first.body.refresh_token, clientId), 200);
      expect({ clientId, operations }).toEqual({ clientId, operations: ['GetItem', rotation] });
      // Strongly consistent (DynamoDB Local always is; DynamoDB only when asked): a rotation or a
      // revocation counts from the moment it is written, so a spent token is never read as live.
      expect(service.dynamodb.requests()[0]?.body.ConsistentRead).toBe(true);
    }
  });

  it('detects a reuse in 2: the read, the family’s revocation', async () => {
    const first = await login(service);
    await refresh(service, first.body.refresh_token);
    expect(await operationsOf(() => refresh(service, first.body.refresh_token), 400)).toEqual(['GetItem', 'UpdateItem']);
  });

  it('gives an unknown token the requests a known one’s refusal makes, so timing does not tell whether a family exists', async () => {
    const revoked = await login(service);
    await service.postForm('/idp/v1/account/revoke', { token: revoked.body.refresh_token as string, client_id: 'local-web' });
    const known = await operationsOf(() => refresh(service, revoked.body.refresh_token), 400);
    expect(known).toEqual(['GetItem']);
    expect(await operationsOf(() => refresh(service, `${'C'.repeat(22)}.${'D'.repeat(43)}`), 400)).toEqual(known);
    expect(await operationsOf(() => refresh(service, 'not-a-refresh-token'), 400)).toEqual(known);
  });
});

describe('logs', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ token: { maxAttempts: 50 } }) });
  });
  afterAll(async () => service.stop());

  /** The one `grant refused` entry `act` logs: who was refused and why (the client only sees invalid_grant). */
  async function refusalOf(act: () => Promise<unknown>): Promise<Record<string, unknown>> {
    const before = capturedLogs().length;
    await act();
    const entries = logEntries(capturedLogs().slice(before), 'grant refused');
    expect(entries).toHaveLength(1);
    const { client, grant, environment, user, family, reason } = entries[0]!;
    return { client, grant, environment, user, family, reason };
  }
  const HANDLE = expect.stringMatching(/^[A-Za-z0-9_-]{12}$/);
  const of = (reason: string, client = 'local-web') => ({
    client,
    grant: 'refresh_token',
    environment: 'local',
    user: HANDLE,
    family: HANDLE,
    reason,
  });

  it('name why each refusal was refused, and the user it was counted for (an unknown token has none)', async () => {
    expect(await refusalOf(() => refresh(service, 'A'.repeat(22) + '.' + 'B'.repeat(43)))).toEqual({
      ...of('not_found'),
      environment: undefined,
      user: undefined,
    });

    const first = await login(service);
    expect(await refusalOf(() => refresh(service, first.body.refresh_token, 'local-rs256'))).toEqual(of('binding', 'local-rs256'));
    const second = await refresh(service, first.body.refresh_token);
    expect(await refusalOf(() => refresh(service, first.body.refresh_token))).toEqual(of('reuse'));
    expect(await refusalOf(() => refresh(service, second.body.refresh_token))).toEqual(of('revoked'));

    const issuedBefore = capturedLogs().length;
    const narrow = await pageLogin(service, 'local-web', 'openid');
    expect(logEntries(capturedLogs().slice(issuedBefore), 'token issued')).toEqual([
      expect.objectContaining({ client: 'local-web', grant: 'authorization_code', idToken: true, refreshToken: true }),
    ]);
    expect(await refusalOf(() => refresh(service, narrow.body.refresh_token, 'local-web', { scope: 'openid email' }))).toEqual(
      of('invalid_scope'),
    );
  });

  it('tell the idle lifetime’s end from the absolute one’s, each at its exact edge', async () => {
    const idle = await login(service);
    const absolute = await login(service);
    const rotate = async (token: unknown) => {
      const next = await refresh(service, token);
      expect(next.status).toBe(200);
      return next.body.refresh_token;
    };
    service.clock.advanceSeconds(29 * DAY);
    let current = await rotate(absolute.body.refresh_token);
    // 30 days after the login: the unused token's idle lifetime ends exactly now.
    service.clock.advanceSeconds(DAY);
    expect(await refusalOf(() => refresh(service, idle.body.refresh_token))).toEqual(of('idle_expiry'));
    service.clock.advanceSeconds(28 * DAY);
    current = await rotate(current);
    service.clock.advanceSeconds(29 * DAY);
    current = await rotate(current);
    // 90 days after the login, 29 since the last rotation: the family's absolute lifetime ends exactly now.
    service.clock.advanceSeconds(3 * DAY);
    expect(await refusalOf(() => refresh(service, current))).toEqual(of('absolute_expiry'));
  });

  it('carry a family handle, never a token (the suite’s log capture fails on any token a test saw)', async () => {
    const logsBefore = capturedLogs().length;
    const first = await login(service);
    const second = await refresh(service, first.body.refresh_token);
    await refresh(service, first.body.refresh_token);
    await service.postForm('/idp/v1/account/revoke', { token: second.body.refresh_token as string, client_id: 'local-web' });
    const lines = capturedLogs().slice(logsBefore);
    const families = [
      ...logEntries(lines, 'token issued'),
      ...logEntries(lines, 'refresh token reused'),
      ...logEntries(lines, 'grant refused'),
      ...logEntries(lines, 'token revoked'),
    ].map((entry) => entry.family);
    expect(families).toHaveLength(5);
    expect(new Set(families).size).toBe(1);
    const [handle] = families as [string];
    expect(handle).toMatch(/^[A-Za-z0-9_-]{12}$/);
    for (const token of [first.body.refresh_token, second.body.refresh_token] as string[]) {
      expect(token).not.toContain(handle);
      for (const part of token.split('.')) expect(lines.join('\n')).not.toContain(part);
    }
  });
});

describe('an unmodified openid-client (v6)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ token: { maxAttempts: 50 } }) });
  });
  afterAll(async () => service.stop());

  it('signs in on the hosted page, refreshes (refreshTokenGrant, its ID token validated) and revokes (tokenRevocation)', async () => {
    // The suite's clock runs a day ahead of the real one: tell the library, as a client with a skewed clock would.
    const skew = Math.round((service.clock.now() - Date.now()) / 1000);
    const config = await client.discovery(new URL(service.url), 'local-web', { [client.clockSkew]: skew }, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    const session = new LoginSession(service, 'local-web');
    const redirect = await session.signIn(uniqueEmail('openid-client'));
    const tokens = await client.authorizationCodeGrant(config, redirect.location!, {
      pkceCodeVerifier: session.verifier,
      expectedState: 'state-123',
      expectedNonce: 'nonce-456',
    });
    for (const token of [tokens.access_token, tokens.refresh_token!, tokens.id_token!]) rememberSecret(token);
    expect(tokens.refresh_token).toMatch(REFRESH_TOKEN);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    for (const token of [refreshed.access_token, refreshed.refresh_token!, refreshed.id_token!]) rememberSecret(token);
    expect(refreshed.claims()).toMatchObject({ sub: tokens.claims()?.sub, auth_time: tokens.claims()?.auth_time });
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    await client.tokenRevocation(config, refreshed.refresh_token!, { token_type_hint: 'refresh_token' });
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await introspect(service, refreshed.access_token)).toEqual({ active: false });
  });
});
