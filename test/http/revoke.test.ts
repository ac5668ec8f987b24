/**
 * POST /idp/v1/account/revoke (RFC 7009) over HTTP: each kind of token, introspection and UserInfo
 * after a revocation, what another client's request does, client authentication, and the requests
 * each revocation costs.
 */
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import { LOG_EVENTS } from '../../lib/platform/log-events';
import { capturedLogs, rememberSecret } from '../support/log-capture';
import {
  LOCAL_API_KEY,
  logEntries,
  SEND_PATH,
  sendBody,
  startTestService,
  TOKEN_PATH,
  exchangeBody,
  uniqueEmail,
  withLimits,
  type TestResponse,
  type TestService,
} from '../support/harness';

const REVOKE = '/idp/v1/account/revoke';
const INTROSPECT = '/idp/v1/account/introspect';
const USERINFO = '/idp/v1/account/userinfo';
const REFUSED_REFRESH = {
  error: 'invalid_grant',
  error_description: 'The refresh token is invalid, expired, revoked, or was already used.',
};
const basic = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;

let service: TestService;
let jwks: { keys: JWK[] };
beforeAll(async () => {
  service = await startTestService({ config: withLimits({ token: { maxAttempts: 50 } }) });
  jwks = (await service.get('/.well-known/jwks.json')).body as { keys: JWK[] };
});
afterAll(async () => service.stop());

async function login(clientId = 'local-web'): Promise<TestResponse> {
  const response = await service.signIn(uniqueEmail('revoke'), { clientId });
  expect(response.status).toBe(200);
  return response;
}

/** A login of local-backend: a confidential client (API key), JWT access tokens, no refresh tokens. */
async function backendLogin(): Promise<string> {
  const user = uniqueEmail('backend');
  await service.post(SEND_PATH, sendBody(user, 'local-backend'), { headers: { Authorization: `Bearer ${LOCAL_API_KEY}` } });
  const response = await service.post(TOKEN_PATH, exchangeBody(user, await service.latestCode(user), 'local-backend'), {
    headers: { Authorization: basic('local-backend', LOCAL_API_KEY) },
  });
  rememberSecret(response.body.access_token);
  return response.body.access_token as string;
}

async function revoke(
  token: unknown,
  clientId: string | undefined,
  headers: Record<string, string> = {},
  extra: Record<string, string> = {},
) {
  return service.postForm(
    REVOKE,
    { token: token as string, ...(clientId === undefined ? {} : { client_id: clientId }), ...extra },
    headers,
  );
}

async function refresh(token: unknown, clientId = 'local-web'): Promise<TestResponse> {
  const response = await service.postForm(TOKEN_PATH, { grant_type: 'refresh_token', refresh_token: token as string, client_id: clientId });
  for (const name of ['access_token', 'refresh_token']) if (typeof response.body[name] === 'string') rememberSecret(response.body[name]);
  return response;
}

async function introspect(token: unknown): Promise<Record<string, unknown>> {
  return (await service.postForm(INTROSPECT, { token: token as string }, { Authorization: `Bearer ${LOCAL_API_KEY}` })).body;
}

/** The DynamoDB requests `run` makes. */
async function operationsOf(run: () => Promise<TestResponse>): Promise<readonly string[]> {
  service.dynamodb.reset();
  const response = await run();
  expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: {} });
  return [...service.dynamodb.operations()];
}

describe('a refresh token', () => {
  it('is revoked with its whole family: 200, then neither it nor any token of the family refreshes, and its access tokens are inactive', async () => {
    const first = await login();
    const second = await refresh(first.body.refresh_token);
    const response = await revoke(second.body.refresh_token, 'local-web');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({});
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect((await refresh(second.body.refresh_token)).body).toEqual(REFUSED_REFRESH);
    expect((await refresh(first.body.refresh_token)).body).toEqual(REFUSED_REFRESH);
    // RFC 7009 §2.1: "SHOULD also invalidate all access tokens based on the same authorization grant".
    for (const token of [first.body.access_token, second.body.access_token]) expect(await introspect(token)).toEqual({ active: false });
  });

  it('of an opaque client: its family’s opaque access tokens are inactive too', async () => {
    const first = await login('local-opaque');
    expect(await introspect(first.body.access_token)).toMatchObject({ active: true });
    expect((await revoke(first.body.refresh_token, 'local-opaque')).status).toBe(200);
    expect(await introspect(first.body.access_token)).toEqual({ active: false });
  });

  it('is revoked by one write, whichever kind the hint names (RFC 7009 §2.1: the server may ignore it)', async () => {
    const first = await login();
    expect(await operationsOf(() => revoke(first.body.refresh_token, 'local-web', {}, { token_type_hint: 'access_token' }))).toEqual([
      'UpdateItem',
    ]);
    expect((await refresh(first.body.refresh_token)).body).toEqual(REFUSED_REFRESH);
  });
});

describe('an opaque access token', () => {
  it('is revoked at once: introspection says inactive, and UserInfo refuses it; one conditional delete', async () => {
    const first = await login('local-opaque');
    expect(await introspect(first.body.access_token)).toMatchObject({ active: true });
    expect(await operationsOf(() => revoke(first.body.access_token, 'local-opaque'))).toEqual(['DeleteItem']);
    expect(await introspect(first.body.access_token)).toEqual({ active: false });
    expect((await service.get(USERINFO, { Authorization: `Bearer ${first.body.access_token as string}` })).status).toBe(401);
    // An access token's revocation leaves the refresh token alone (RFC 7009 §2.1 makes that a MAY).
    expect((await refresh(first.body.refresh_token, 'local-opaque')).status).toBe(200);
  });
});

describe('a JWT access token', () => {
  it('is recorded as revoked until it expires, in its refresh token family: introspection says inactive; one write; a local verifier still accepts it until exp', async () => {
    const first = await login();
    expect(await operationsOf(() => revoke(first.body.access_token, 'local-web', {}, { token_type_hint: 'access_token' }))).toEqual([
      'UpdateItem',
    ]);
    expect(await introspect(first.body.access_token)).toEqual({ active: false });
    // UserInfo: 401 invalid_token for the revoked token (an active one without openid would get 403).
    const userinfo = await service.get(USERINFO, { Authorization: `Bearer ${first.body.access_token as string}` });
    expect({ status: userinfo.status, error: userinfo.body.error }).toEqual({ status: 401, error: 'invalid_token' });
    // What README says: a resource server that verifies locally with the JWKS cannot know.
    await expect(
      jwtVerify(first.body.access_token as string, createLocalJWKSet(jwks), { typ: 'at+jwt', currentDate: new Date(service.clock.now()) }),
    ).resolves.toBeDefined();
    // The refresh token lives on, and the next access token is active.
    const next = await refresh(first.body.refresh_token);
    expect(await introspect(next.body.access_token)).toMatchObject({ active: true });
  });

  it('of a confidential client (no refresh tokens), which authenticates with client_secret_basic or its Bearer API key: one write of its own', async () => {
    for (const headers of [{ Authorization: basic('local-backend', LOCAL_API_KEY) }, { Authorization: `Bearer ${LOCAL_API_KEY}` }]) {
      const token = await backendLogin();
      expect(await introspect(token)).toMatchObject({ active: true, client_id: 'local-backend' });
      expect(await operationsOf(() => revoke(token, undefined, headers))).toEqual(['PutItem']);
      expect(await introspect(token)).toEqual({ active: false });
    }
  });

  it('revoked alone leaves the other access tokens of its family active', async () => {
    const first = await login();
    const second = await refresh(first.body.refresh_token);
    expect((await revoke(first.body.access_token, 'local-web')).status).toBe(200);
    expect(await introspect(first.body.access_token)).toEqual({ active: false });
    expect(await introspect(second.body.access_token)).toMatchObject({ active: true });
  });

  it('that is expired, tampered with or not ours is left alone, with no request at all', async () => {
    const first = await login();
    const [header, payload] = (first.body.access_token as string).split('.') as [string, string];
    expect(await operationsOf(() => revoke(`${header}.${payload}.${'A'.repeat(86)}`, 'local-web'))).toEqual([]);
    expect(await operationsOf(() => revoke('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl', 'local-web'))).toEqual([]);
    service.clock.advanceSeconds(3600);
    expect(await operationsOf(() => revoke(first.body.access_token, 'local-web'))).toEqual([]);
  });
});

describe('answers 200 whatever the token (RFC 7009 §2.2: invalid tokens do not cause an error response)', () => {
  it.each([
    ['an unknown opaque token', 'x'.repeat(43)],
    ['an unknown refresh token', `${'A'.repeat(22)}.${'B'.repeat(43)}`],
    ['any string', 'not a token at all'],
  ])('%s', async (_name, token) => {
    const response = await revoke(token, 'local-web');
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: {} });
  });

  it('a token already revoked', async () => {
    const first = await login();
    for (let index = 0; index < 2; index += 1) {
      for (const token of [first.body.refresh_token, first.body.access_token]) expect((await revoke(token, 'local-web')).status).toBe(200);
    }
  });

  it('logs whether it revoked: yes for the client’s own token, no for another client’s or an opaque token already deleted', async () => {
    const opaque = await login('local-opaque');
    const access = opaque.body.access_token as string;
    const refreshToken = opaque.body.refresh_token as string;
    const jwt = (await login()).body.access_token as string;
    const since = capturedLogs().length;
    for (const [token, by] of [
      [access, 'local-web'],
      [refreshToken, 'local-web'],
      [jwt, 'local-rs256'],
      [access, 'local-opaque'],
      [refreshToken, 'local-opaque'],
      [jwt, 'local-web'],
      [access, 'local-opaque'],
      [refreshToken, 'local-opaque'],
    ] as const) {
      expect((await revoke(token, by)).status).toBe(200);
    }
    const logged = logEntries(capturedLogs().slice(since), LOG_EVENTS.tokenRevoked).map(({ client, kind, format, family, revoked }) => ({
      client,
      kind,
      format,
      family,
      revoked,
    }));
    const access_token = (format: string) => ({ kind: 'access_token', format, family: undefined });
    const refresh_token = { kind: 'refresh_token', format: undefined, family: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/) };
    expect(logged).toEqual([
      { client: 'local-web', ...access_token('opaque'), revoked: false },
      { client: 'local-web', ...refresh_token, revoked: false },
      { client: 'local-rs256', ...access_token('jwt'), revoked: false },
      { client: 'local-opaque', ...access_token('opaque'), revoked: true },
      { client: 'local-opaque', ...refresh_token, revoked: true },
      { client: 'local-web', ...access_token('jwt'), revoked: true },
      { client: 'local-opaque', ...access_token('opaque'), revoked: false },
      // A family stays revoked: the write holds again, keeping the first revocation's time and reason.
      { client: 'local-opaque', ...refresh_token, revoked: true },
    ]);
  });

  it('another client’s token, which it does not revoke (§2.1: issued to the client making the request)', async () => {
    const web = await login();
    const opaque = await login('local-opaque');
    for (const [token, by] of [
      [web.body.refresh_token, 'local-opaque'],
      [web.body.access_token, 'local-rs256'],
      [opaque.body.access_token, 'local-web'],
      [opaque.body.refresh_token, 'local-web'],
    ] as const) {
      expect((await revoke(token, by)).status).toBe(200);
    }
    expect(await introspect(web.body.access_token)).toMatchObject({ active: true });
    expect(await introspect(opaque.body.access_token)).toMatchObject({ active: true });
    expect((await refresh(web.body.refresh_token)).status).toBe(200);
    expect((await refresh(opaque.body.refresh_token, 'local-opaque')).status).toBe(200);
  });

  it('takes JSON too', async () => {
    const first = await login();
    const response = await service.post(REVOKE, { token: first.body.refresh_token, client_id: 'local-web' });
    expect(response.status).toBe(200);
    expect((await refresh(first.body.refresh_token)).body).toEqual(REFUSED_REFRESH);
  });
});

describe('client authentication (RFC 7009 §2.1; failures are 401 invalid_client, §2.2.1 and RFC 6749 §5.2)', () => {
  it.each<[string, Record<string, string>, Record<string, string>, string]>([
    ['no client at all', {}, {}, 'Bearer realm="identity"'],
    ['an unknown client_id', {}, { client_id: 'nobody' }, 'Bearer realm="identity"'],
    ['a confidential client naming itself without its credentials', {}, { client_id: 'local-backend' }, 'Bearer realm="identity"'],
    ['a wrong secret', { Authorization: basic('local-backend', 'wrong') }, {}, 'Basic realm="identity"'],
    ['Basic for a public client (it has no secret)', { Authorization: basic('local-web', LOCAL_API_KEY) }, {}, 'Basic realm="identity"'],
    [
      'Basic for another client than client_id',
      { Authorization: basic('local-backend', LOCAL_API_KEY) },
      { client_id: 'local-web' },
      'Basic realm="identity"',
    ],
    ['malformed Basic credentials', { Authorization: 'Basic !!!' }, {}, 'Basic realm="identity"'],
    ['a wrong Bearer API key', { Authorization: 'Bearer wrong-key' }, {}, 'Bearer realm="identity"'],
    [
      'a Bearer key of another client than client_id',
      { Authorization: `Bearer ${LOCAL_API_KEY}` },
      { client_id: 'local-web' },
      'Bearer realm="identity"',
    ],
    ['another scheme', { Authorization: 'Digest x' }, {}, 'Bearer realm="identity"'],
  ])('refuses %s', async (_name, headers, fields, challenge) => {
    const first = await login();
    const response = await service.postForm(REVOKE, { token: first.body.refresh_token as string, ...fields }, headers);
    expect({ status: response.status, body: response.body, challenge: response.headers.get('www-authenticate') }).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: expect.any(String) },
      challenge,
    });
    // Nothing was revoked.
    expect((await refresh(first.body.refresh_token)).status).toBe(200);
  });

  it('requires the token (400 invalid_request)', async () => {
    const response = await service.postForm(REVOKE, { client_id: 'local-web' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', error_description: 'token is required.' });
  });

  it('refuses a token_type_hint longer than any kind of token’s name (400 invalid_request), revoking nothing', async () => {
    const first = await login();
    const response = await revoke(first.body.refresh_token, 'local-web', {}, { token_type_hint: 'h'.repeat(65) });
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: 'token_type_hint must be at most 64 characters.' },
    });
    expect((await refresh(first.body.refresh_token)).status).toBe(200);
  });

  it('answers only POST', async () => {
    expect((await service.get(REVOKE)).status).toBe(405);
  });
});
