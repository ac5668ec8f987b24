/**
 * POST /idp/v1/account/introspect (RFC 7662) over HTTP: live, expired and unknown opaque tokens,
 * JWTs, and the resource server's authentication.
 */
import { DeleteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { familyItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { LOCAL_AWS } from '../../local/dynamodb';
import { LOCAL_API_KEY, logEntries, REDIRECT_URI, startTestService, uniqueEmail, type TestService } from '../support/harness';
import { capturedLogs, rememberSecret } from '../support/log-capture';

const INTROSPECT = '/idp/v1/account/introspect';
const AUTH = { Authorization: `Bearer ${LOCAL_API_KEY}` };
const basic = (clientId: string, secret: string) => `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    // An opaque client without refresh tokens: its tokens belong to no family.
    config: (config) => {
      const { refreshTokens: _none, ...opaque } = config.clients.find((client) => client.id === 'local-opaque')!;
      return { ...config, clients: [...config.clients, { ...opaque, id: 'local-opaque-plain' }] };
    },
  });
});
afterAll(async () => service.stop());

/** `ConsistentRead` of each GetItem since the proxy's last reset. */
function consistentReads(): unknown[] {
  return service.dynamodb
    .requests()
    .filter((request) => request.operation === 'GetItem')
    .map((request) => request.body.ConsistentRead);
}

async function tokenFor(clientId: 'local-opaque' | 'local-opaque-plain' | 'local-web', userId: string): Promise<string> {
  await service.post('/idp/v1/otp/send', { auth_type: 'email', client_id: clientId, redirect_uri: REDIRECT_URI, user_id: userId });
  const code = await service.latestCode(userId);
  const response = await service.post('/idp/v1/account/token', {
    grant_type: 'authorization_code',
    code,
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    auth_type: 'email',
    user_id: userId,
  });
  expect(response.status).toBe(200);
  const token = response.body.access_token as string;
  rememberSecret(token);
  return token;
}

describe('introspecting an opaque token', () => {
  it('answers active with its claims while it lives (form-encoded, as RFC 7662 §2.1 sends it)', async () => {
    const token = await tokenFor('local-opaque', uniqueEmail('live'));
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const now = Math.floor(service.clock.now() / 1000);
    const response = await service.postForm(INTROSPECT, { token, token_type_hint: 'access_token' }, AUTH);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      active: true,
      token_type: 'Bearer',
      iss: service.url,
      sub: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      aud: 'http://127.0.0.1:3000/api',
      client_id: 'local-opaque',
      iat: now,
      exp: now + 3600,
      jti: expect.any(String),
      auth_time: now,
      amr: ['otp'],
    });
  });

  it('reads its record and, for a token issued with a refresh token family, the family (revoked with it, RFC 7009 §2.1): 2 requests', async () => {
    const token = await tokenFor('local-opaque', uniqueEmail('family'));
    service.dynamodb.reset();
    expect(await service.postForm(INTROSPECT, { token }, AUTH)).toMatchObject({ body: { active: true } });
    expect(service.dynamodb.operations()).toEqual(['GetItem', 'GetItem']);
    // Both strongly consistent: a revocation counts from the moment its write returned. DynamoDB
    // Local is always consistent, so only the request on the wire shows it.
    expect(consistentReads()).toEqual([true, true]);
  });

  it('reads its record alone when it belongs to no refresh token family: 1 request', async () => {
    const token = await tokenFor('local-opaque-plain', uniqueEmail('no-family'));
    service.dynamodb.reset();
    expect(await service.postForm(INTROSPECT, { token }, AUTH)).toMatchObject({ body: { active: true, client_id: 'local-opaque-plain' } });
    expect(service.dynamodb.operations()).toEqual(['GetItem']);
  });

  it('answers inactive once it has expired, though the item is still in the table (the clock, not TTL, decides)', async () => {
    const token = await tokenFor('local-opaque', uniqueEmail('expiring'));
    service.clock.advanceSeconds(3600);
    const response = await service.postForm(INTROSPECT, { token }, AUTH);
    expect(response.body).toEqual({ active: false });
  });

  it('answers inactive for an unknown token, with one read by key', async () => {
    service.dynamodb.reset();
    const response = await service.post(INTROSPECT, { token: 'x'.repeat(43) }, { headers: AUTH });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ active: false });
    expect(service.dynamodb.operations()).toEqual(['GetItem']);
  });
});

describe('introspecting a JWT access token', () => {
  it('verifies it with the service keys and answers active, with one read: its refresh token family, which says whether it was revoked', async () => {
    const token = await tokenFor('local-web', uniqueEmail('jwt'));
    service.dynamodb.reset();
    const response = await service.postForm(INTROSPECT, { token }, AUTH);
    // The token's own times, subject and id, as it carries them (RFC 7662 §2.2).
    const { sub, iat, exp, jti } = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    expect(response.body).toMatchObject({
      active: true,
      client_id: 'local-web',
      token_type: 'Bearer',
      iss: service.url,
      amr: ['otp'],
      sub,
      iat,
      exp,
      jti,
    });
    expect(service.dynamodb.operations()).toEqual(['GetItem']);
    expect(consistentReads()).toEqual([true]);
  });

  it('answers for the token alone when its refresh token family item is gone (TTL): active while it lives, never a 500, one read', async () => {
    // The family item outlives every access token of its family by a day, so on AWS this is a token
    // that is already expired; deleted early here, the answer must still come from the token itself.
    const token = await tokenFor('local-web', uniqueEmail('jwt-family-gone'));
    const { sid } = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as { sid: string };
    const raw = new DynamoDBClient({ endpoint: service.services.dynamodbEndpoint, ...LOCAL_AWS });
    try {
      await raw.send(new DeleteItemCommand({ TableName: service.services.tableName, Key: { pk: { S: familyItemKey(sid) } } }));
    } finally {
      raw.destroy();
    }
    service.dynamodb.reset();
    const response = await service.postForm(INTROSPECT, { token }, AUTH);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ active: true, client_id: 'local-web' });
    expect(service.dynamodb.operations()).toEqual(['GetItem']);
  });

  it('answers inactive for an expired, a tampered or a foreign JWT', async () => {
    const token = await tokenFor('local-web', uniqueEmail('jwt-bad'));
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'someone-else' })).toString('base64url')}.${signature}`;
    expect((await service.postForm(INTROSPECT, { token: tampered }, AUTH)).body).toEqual({ active: false });
    const foreign = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    expect((await service.postForm(INTROSPECT, { token: foreign }, AUTH)).body).toEqual({ active: false });
    service.clock.advanceSeconds(3600);
    expect((await service.postForm(INTROSPECT, { token }, AUTH)).body).toEqual({ active: false });
  });
});

describe('a JWT stamped in the future', () => {
  it('answers inactive when iat is more than 5 s ahead of the clock (regression: any iat was accepted), active within the skew', async () => {
    service.clock.advanceSeconds(6);
    const ahead = await tokenFor('local-web', uniqueEmail('future'));
    service.clock.advanceSeconds(-6);
    expect((await service.postForm(INTROSPECT, { token: ahead }, AUTH)).body).toEqual({ active: false });

    service.clock.advanceSeconds(5);
    const skewed = await tokenFor('local-web', uniqueEmail('skewed'));
    service.clock.advanceSeconds(-5);
    expect((await service.postForm(INTROSPECT, { token: skewed }, AUTH)).body).toMatchObject({ active: true });
  });
});

describe('who may introspect', () => {
  it('requires a Bearer API key (401 invalid_token with WWW-Authenticate)', async () => {
    const missing = await service.postForm(INTROSPECT, { token: 'x' });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: 'invalid_token', error_description: expect.any(String) });
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="identity"');

    const wrong = await service.postForm(INTROSPECT, { token: 'x' }, { Authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(wrong.body).toEqual({ error: 'invalid_token', error_description: 'The API key is not valid for introspection.' });

    // A Bearer key that happens to read "basic" is a Bearer key: the scheme is the header's first word.
    const bearer = await service.postForm(INTROSPECT, { token: 'x' }, { Authorization: 'Bearer basic' });
    expect({ status: bearer.status, error: bearer.body.error }).toEqual({ status: 401, error: 'invalid_token' });
    expect(bearer.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('takes client_secret_basic (RFC 7662 §2.1, RFC 6749 §2.3.1): the client id and one of its API keys', async () => {
    const response = await service.postForm(INTROSPECT, { token: 'x' }, { Authorization: basic('local-backend', LOCAL_API_KEY) });
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { active: false } });
  });

  it.each([
    ['a wrong key', basic('local-backend', 'wrong'), 'Client authentication failed.', 'introspection: basic credentials refused'],
    ['an unknown client id', basic('nobody', LOCAL_API_KEY), 'Client authentication failed.', 'introspection: basic credentials refused'],
    ['a malformed Basic header', 'Basic', 'The Authorization header must be: Basic base64(client_id:secret).', undefined],
    [
      'credentials that are not base64(client_id:secret)',
      'Basic !!',
      'The Authorization header must be: Basic base64(client_id:secret).',
      undefined,
    ],
  ])(
    'refuses Basic with %s: 401 invalid_client with a Basic challenge (RFC 6749 §5.2)',
    async (_case, authorization, description, detail) => {
      const logsBefore = capturedLogs().length;
      const response = await service.postForm(INTROSPECT, { token: 'x' }, { Authorization: authorization });
      expect({ status: response.status, body: response.body, challenge: response.headers.get('www-authenticate') }).toEqual({
        status: 401,
        body: { error: 'invalid_client', error_description: description },
        challenge: 'Basic realm="identity"',
      });
      const [refused] = logEntries(capturedLogs().slice(logsBefore), 'request refused');
      expect(refused?.detail).toBe(detail);
    },
  );

  it('logs who asked and whether the token was active, never the token', async () => {
    const user = uniqueEmail('introspected');
    const token = await tokenFor('local-opaque-plain', user);
    const logsBefore = capturedLogs().length;
    await service.postForm(INTROSPECT, { token }, AUTH);
    await service.postForm(INTROSPECT, { token: 'x' }, { Authorization: basic('local-backend', LOCAL_API_KEY) });
    const lines = capturedLogs().slice(logsBefore);
    expect(logEntries(lines, 'token introspected').map(({ caller, active }) => ({ caller, active }))).toEqual([
      { caller: 'local-backend', active: true },
      { caller: 'local-backend', active: false },
    ]);
    expect(lines.join('\n')).not.toContain(user);
  });

  it('refuses the key of a client not allowed to introspect', async () => {
    const service2 = await startTestService({
      config: (config) => ({
        ...config,
        clients: config.clients.map((client) => (client.id === 'local-backend' ? { ...client, mayIntrospect: false } : client)),
      }),
    });
    try {
      const response = await service2.postForm(INTROSPECT, { token: 'x' }, AUTH);
      expect(response.status).toBe(401);
      const viaBasic = await service2.postForm(INTROSPECT, { token: 'x' }, { Authorization: basic('local-backend', LOCAL_API_KEY) });
      expect({ status: viaBasic.status, challenge: viaBasic.headers.get('www-authenticate') }).toEqual({
        status: 401,
        challenge: 'Basic realm="identity"',
      });
    } finally {
      await service2.stop();
    }
  });

  it("answers inactive for another environment's tokens: a caller sees only its tenants' users", async () => {
    const partitioned = await startTestService({
      config: (config) => ({
        ...config,
        environments: [...config.environments, { ...config.environments[0]!, id: 'partner' }],
        clients: [
          ...config.clients,
          { ...config.clients.find((client) => client.id === 'local-opaque')!, id: 'partner-opaque', environments: ['partner'] },
          { ...config.clients.find((client) => client.id === 'local-web')!, id: 'partner-web', environments: ['partner'] },
        ],
      }),
    });
    try {
      const tokens: string[] = [];
      for (const clientId of ['partner-opaque', 'partner-web']) {
        const user = uniqueEmail('partner');
        await partitioned.post('/idp/v1/otp/send?env_id=partner', {
          auth_type: 'email',
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          user_id: user,
        });
        const code = await partitioned.latestCode(user);
        const response = await partitioned.post('/idp/v1/account/token?env_id=partner', {
          grant_type: 'authorization_code',
          code,
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          user_id: user,
        });
        tokens.push(response.body.access_token as string);
        rememberSecret(response.body.access_token);
      }
      for (const token of tokens) {
        expect((await partitioned.postForm(INTROSPECT, { token }, AUTH)).body).toEqual({ active: false });
      }
    } finally {
      await partitioned.stop();
    }
  });

  it('requires the token parameter', async () => {
    const response = await service.postForm(INTROSPECT, {}, AUTH);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', error_description: 'token is required.' });
  });
});
