/**
 * Client authentication at the token endpoint, every grant (RFC 6749 §2.3, §3.2.1; issue 27): a
 * confidential client (one with a secret: `local-server`, a web app on the hosted page, and
 * `local-backend`, the API's server client) authenticates with `client_secret_basic` or
 * `client_secret_post`; a public one (`local-web`) names itself and presents no secret. Each wrong
 * or missing credential is 401 invalid_client, and spends nothing: the code or refresh token it
 * came with still works with the right credential. Through the HTTP path a client uses, and with an
 * unmodified openid-client (v6) for each secret method.
 */
import * as client from 'openid-client';
import { rememberSecret } from '../support/log-capture';
import {
  exchangeBody,
  LOCAL_API_KEY,
  SEND_PATH,
  sendBody,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  type TestResponse,
  type TestService,
} from '../support/harness';
import { LoginSession } from '../support/login-flow';

/** local-server's secret (config/local.json holds only its SHA-256). */
const SERVER_SECRET = 'local-server-secret';
/** RFC 6749 §2.3.1: the id and secret, each form-urlencoded, joined by a colon, in base64. */
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

/** A code from the hosted page for `clientId`, with the session whose PKCE verifier goes with it. */
async function pageCode(clientId: string): Promise<{ code: string; verifier: string }> {
  const session = new LoginSession(service, clientId);
  const redirect = await session.signIn(uniqueEmail('client-auth'));
  const code = redirect.location?.searchParams.get('code');
  if (code === null || code === undefined) throw new Error(`no code: ${redirect.status}`);
  return { code, verifier: session.verifier };
}

const codeBody = (clientId: string | undefined, code: string, verifier: string, extra: Record<string, string> = {}) => ({
  grant_type: 'authorization_code',
  code,
  redirect_uri: 'http://127.0.0.1:3000/callback',
  code_verifier: verifier,
  ...(clientId === undefined ? {} : { client_id: clientId }),
  ...extra,
});

function remember(response: TestResponse): TestResponse {
  for (const name of ['access_token', 'refresh_token', 'id_token']) {
    if (typeof response.body[name] === 'string') rememberSecret(response.body[name]);
  }
  return response;
}

describe('a confidential client at the authorization code grant (RFC 6749 §4.1.3)', () => {
  it('authenticates with client_secret_basic, client_id then optional, and gets a refresh token it refreshes with the same method', async () => {
    const { code, verifier } = await pageCode('local-server');
    const tokens = remember(
      await service.postForm(TOKEN_PATH, codeBody(undefined, code, verifier), { Authorization: basic('local-server', SERVER_SECRET) }),
    );
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toEqual(expect.any(String));

    const refreshed = remember(
      await service.postForm(
        TOKEN_PATH,
        { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string },
        { Authorization: basic('local-server', SERVER_SECRET) },
      ),
    );
    expect(refreshed.status).toBe(200);
  });

  it('authenticates with client_secret_post (the secret in the body beside client_id)', async () => {
    const { code, verifier } = await pageCode('local-server');
    const tokens = remember(await service.postForm(TOKEN_PATH, codeBody('local-server', code, verifier, { client_secret: SERVER_SECRET })));
    expect(tokens.status).toBe(200);
  });

  it.each([
    ['no credential at all', {}, {}, 'Bearer realm="identity"'],
    ['a wrong secret by Basic', { Authorization: basic('local-server', 'wrong') }, {}, 'Basic realm="identity"'],
    ['a wrong secret in the body', {}, { client_secret: 'wrong' }, 'Bearer realm="identity"'],
    ['another client’s secret', { Authorization: basic('local-server', LOCAL_API_KEY) }, {}, 'Basic realm="identity"'],
    [
      'a client assertion (it registered no private_key_jwt: test/http/private-key-jwt.test.ts)',
      {},
      { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: 'e30.e30.sig' },
      'Bearer realm="identity"',
    ],
  ])('refuses %s with 401 invalid_client, and the code is not spent', async (_case, headers, extra, challenge) => {
    const { code, verifier } = await pageCode('local-server');
    const refused = await service.postForm(TOKEN_PATH, codeBody('local-server', code, verifier, extra), headers);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: 'invalid_client' });
    expect(refused.headers.get('www-authenticate')).toBe(challenge);
    expect(refused.body).not.toHaveProperty('access_token');

    const taken = remember(await service.postForm(TOKEN_PATH, codeBody('local-server', code, verifier, { client_secret: SERVER_SECRET })));
    expect(taken.status).toBe(200);
  });

  it('refuses two methods at once with 400 invalid_request (RFC 6749 §2.3, §5.2), and the code is not spent', async () => {
    const { code, verifier } = await pageCode('local-server');
    const both = await service.postForm(TOKEN_PATH, codeBody('local-server', code, verifier, { client_secret: SERVER_SECRET }), {
      Authorization: basic('local-server', SERVER_SECRET),
    });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({
      error: 'invalid_request',
      error_description: 'Authenticate the client by one method per request (RFC 6749 section 2.3).',
    });
    expect(
      remember(await service.postForm(TOKEN_PATH, codeBody('local-server', code, verifier, { client_secret: SERVER_SECRET }))).status,
    ).toBe(200);
  });

  it('refuses a Basic client id that differs from the body’s client_id', async () => {
    const { code, verifier } = await pageCode('local-server');
    const refused = await service.postForm(TOKEN_PATH, codeBody('local-web', code, verifier), {
      Authorization: basic('local-server', SERVER_SECRET),
    });
    expect(refused.status).toBe(401);
  });
});

describe('the requests it costs', () => {
  it('adds no DynamoDB request: a confidential client’s code exchange makes the public one’s, Basic or post', async () => {
    const operations = async (act: () => Promise<TestResponse>) => {
      service.dynamodb.reset();
      expect(remember(await act()).status).toBe(200);
      return service.dynamodb.operations();
    };
    const publicCode = await pageCode('local-web');
    const basicCode = await pageCode('local-server');
    const postCode = await pageCode('local-server');
    const exchanges = [
      await operations(() => service.postForm(TOKEN_PATH, codeBody('local-web', publicCode.code, publicCode.verifier))),
      await operations(() =>
        service.postForm(TOKEN_PATH, codeBody(undefined, basicCode.code, basicCode.verifier), {
          Authorization: basic('local-server', SERVER_SECRET),
        }),
      ),
      await operations(() =>
        service.postForm(TOKEN_PATH, codeBody('local-server', postCode.code, postCode.verifier, { client_secret: SERVER_SECRET })),
      ),
    ];
    expect(exchanges[1]).toEqual(exchanges[0]);
    expect(exchanges[2]).toEqual(exchanges[0]);
  });
});

describe('a public client', () => {
  it.each([
    ['by Basic', { Authorization: basic('local-web', 'anything') }, {}],
    ['in the body', {}, { client_secret: 'anything' }],
  ])('presenting a secret %s is refused (it has none), and the code is not spent', async (_case, headers, extra) => {
    const { code, verifier } = await pageCode('local-web');
    const refused = await service.postForm(TOKEN_PATH, codeBody('local-web', code, verifier, extra), headers);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: 'invalid_client' });
    expect(remember(await service.postForm(TOKEN_PATH, codeBody('local-web', code, verifier))).status).toBe(200);
  });
});

describe('refresh (RFC 6749 §6: a confidential client authenticates to refresh)', () => {
  it('refuses a refresh without the credential, or with another method’s wrong one, and the token stays live', async () => {
    const { code, verifier } = await pageCode('local-server');
    const tokens = remember(await service.postForm(TOKEN_PATH, codeBody('local-server', code, verifier, { client_secret: SERVER_SECRET })));
    const refresh = { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string, client_id: 'local-server' };

    for (const [headers, extra] of [
      [{}, {}],
      [{}, { client_secret: 'wrong' }],
      [{ Authorization: basic('local-server', 'wrong') }, {}],
    ] as const) {
      const refused = await service.postForm(TOKEN_PATH, { ...refresh, ...extra }, headers);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ error: 'invalid_client' });
    }
    expect(remember(await service.postForm(TOKEN_PATH, { ...refresh, client_secret: SERVER_SECRET })).status).toBe(200);
  });

  it('refuses another client’s refresh token as invalid_grant, authenticated or not (the family is bound to its client)', async () => {
    const { code, verifier } = await pageCode('local-web');
    const tokens = remember(await service.postForm(TOKEN_PATH, codeBody('local-web', code, verifier)));
    const stolen = await service.postForm(TOKEN_PATH, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      client_id: 'local-server',
      client_secret: SERVER_SECRET,
    });
    expect(stolen.status).toBe(400);
    expect(stolen.body).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('the OTP grant (the seed’s request) for a confidential client', () => {
  async function backendCode(user: string): Promise<string> {
    const sent = await service.post(SEND_PATH, sendBody(user, 'local-backend'), { headers: { Authorization: `Bearer ${LOCAL_API_KEY}` } });
    expect(sent.status).toBe(200);
    return service.latestCode(user);
  }

  it('takes the client’s credential by Basic, in the body, or as the Bearer API key it sent the code with', async () => {
    for (const [headers, extra] of [
      [{ Authorization: basic('local-backend', LOCAL_API_KEY) }, {}],
      [{}, { client_secret: LOCAL_API_KEY }],
      [{ Authorization: `Bearer ${LOCAL_API_KEY}` }, {}],
    ] as const) {
      const user = uniqueEmail('otp-confidential');
      const code = await backendCode(user);
      const response = remember(await service.post(TOKEN_PATH, exchangeBody(user, code, 'local-backend', extra), { headers }));
      expect(response.status).toBe(200);
    }
  });

  it('refuses the exchange without the credential (401), and the code still works with it', async () => {
    const user = uniqueEmail('otp-confidential');
    const code = await backendCode(user);
    const refused = await service.post(TOKEN_PATH, exchangeBody(user, code, 'local-backend'));
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: 'invalid_client' });
    const taken = await service.post(TOKEN_PATH, exchangeBody(user, code, 'local-backend'), {
      headers: { Authorization: basic('local-backend', LOCAL_API_KEY) },
    });
    expect(remember(taken).status).toBe(200);
  });

  it('keeps the seed’s request unchanged for a public client (no credential)', async () => {
    const user = uniqueEmail('otp-public');
    expect((await service.post(SEND_PATH, sendBody(user, 'local-web'))).status).toBe(200);
    expect(remember(await service.post(TOKEN_PATH, exchangeBody(user, await service.latestCode(user)))).status).toBe(200);
  });
});

describe('an unmodified openid-client (v6), for each secret method', () => {
  it.each([
    ['client_secret_basic', client.ClientSecretBasic(SERVER_SECRET)],
    ['client_secret_post', client.ClientSecretPost(SERVER_SECRET)],
  ])('signs in on the hosted page with %s, and refreshes', async (_method, authentication) => {
    // The suite's clock runs ahead of the real one: tell the library, as a client with a skewed clock would.
    const skew = Math.round((service.clock.now() - Date.now()) / 1000);
    const config = await client.discovery(new URL(service.url), 'local-server', { [client.clockSkew]: skew }, authentication, {
      execute: [client.allowInsecureRequests],
    });
    const session = new LoginSession(service, 'local-server');
    const redirect = await session.signIn(uniqueEmail('openid-client-confidential'));
    const tokens = await client.authorizationCodeGrant(config, redirect.location!, {
      pkceCodeVerifier: session.verifier,
      expectedState: 'state-123',
      expectedNonce: 'nonce-456',
    });
    for (const token of [tokens.access_token, tokens.refresh_token!, tokens.id_token!]) rememberSecret(token);
    expect(tokens.claims()?.aud).toBe('local-server');

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    for (const token of [refreshed.access_token, refreshed.refresh_token!]) rememberSecret(token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  });

  it('is refused with a wrong secret (401 with a Basic challenge), as the library reports it', async () => {
    const skew = Math.round((service.clock.now() - Date.now()) / 1000);
    const config = await client.discovery(
      new URL(service.url),
      'local-server',
      { [client.clockSkew]: skew },
      client.ClientSecretBasic('wrong'),
      {
        execute: [client.allowInsecureRequests],
      },
    );
    const session = new LoginSession(service, 'local-server');
    const redirect = await session.signIn(uniqueEmail('openid-client-wrong'));
    await expect(
      client.authorizationCodeGrant(config, redirect.location!, {
        pkceCodeVerifier: session.verifier,
        expectedState: 'state-123',
        expectedNonce: 'nonce-456',
      }),
    ).rejects.toMatchObject({
      // oauth4webapi reads the challenge first: RFC 6749 §5.2's Basic one, after Basic credentials.
      code: 'OAUTH_WWW_AUTHENTICATE_CHALLENGE',
      status: 401,
      cause: [expect.objectContaining({ scheme: 'basic' })],
    });
  });
});
