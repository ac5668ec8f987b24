/**
 * `private_key_jwt` client authentication (RFC 7523 §2.2, §3; OIDC Core §9) at the token and
 * revocation endpoints, through the HTTP path a client uses, over DynamoDB Local: an unmodified
 * openid-client (v6) and an Authlib-shaped assertion sign in; each wrong assertion is 401
 * invalid_client, writes nothing and spends nothing (the code still works with a right one); a
 * `jti` is single use, by one conditional write, the one request the method adds. The rules one by
 * one: test/unit/oauth/client-assertions.test.ts.
 */
import { randomUUID } from 'node:crypto';
import * as client from 'openid-client';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { rememberSecret } from '../support/log-capture';
import { startTestService, TOKEN_PATH, uniqueEmail, type TestResponse, type TestService } from '../support/harness';
import type { StageConfig } from '../../lib/platform/config';
import { LoginSession } from '../support/login-flow';
import { clientAssertionItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { ASSERTION_CLOCK_SKEW_SECONDS, assertionJtiHash, JWT_BEARER_ASSERTION_TYPE } from '../../lib/oauth/client-assertions';

/** The client registered `private_key_jwt` for this file (config/local.json has none), with an EC and an RSA key. */
const SIGNER = 'local-signer';
/** local-server's secret (config/local.json holds only its SHA-256). */
const SERVER_SECRET = 'local-server-secret';
const REVOKE_PATH = '/idp/v1/account/revoke';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

let service: TestService;
let ecKey: CryptoKey;
let rsaKey: CryptoKey;
let strangerKey: CryptoKey;
/** The issuer and endpoints, as discovery says them. */
let issuer: string;
let tokenEndpoint: string;
let revocationEndpoint: string;

beforeAll(async () => {
  const ec = await generateKeyPair('ES256');
  const rsa = await generateKeyPair('RS256');
  ecKey = ec.privateKey;
  rsaKey = rsa.privateKey;
  strangerKey = (await generateKeyPair('ES256')).privateKey;
  const keys = [
    { ...(await exportJWK(ec.publicKey)), kid: 'ec-1' },
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1' },
  ];
  service = await startTestService({
    config: (config) => {
      const server = config.clients.find((candidate) => candidate.id === 'local-server')!;
      const signer = {
        ...server,
        id: SIGNER,
        apiKeySha256: [],
        tokenEndpointAuthMethod: 'private_key_jwt' as const,
        jwks: { keys } as StageConfig['clients'][number]['jwks'],
      };
      return { ...config, clients: [...config.clients, signer] };
    },
  });
  const discovered = await service.get('/.well-known/openid-configuration');
  ({
    issuer,
    token_endpoint: tokenEndpoint,
    revocation_endpoint: revocationEndpoint,
  } = discovered.body as {
    issuer: string;
    token_endpoint: string;
    revocation_endpoint: string;
  });
});
afterAll(async () => service.stop());

/** The service's time, in epoch seconds (its clock runs a day ahead of the real one). */
const now = () => Math.floor(service.clock.now() / 1000);

/**
 * An assertion as openid-client signs one (aud the issuer, exp 60 s ahead, a fresh jti), with
 * `overrides` (undefined removes a claim); remembered as a secret the logs must not show.
 */
async function assertion(
  overrides: Record<string, unknown> = {},
  { key = ecKey, header = { alg: 'ES256', kid: 'ec-1' } }: { key?: CryptoKey | Uint8Array; header?: { alg: string; kid?: string } } = {},
): Promise<string> {
  const claims: Record<string, unknown> = { iss: SIGNER, sub: SIGNER, aud: issuer, iat: now(), exp: now() + 60, jti: randomUUID() };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete claims[name];
    else claims[name] = value;
  }
  const signed = await new SignJWT(claims).setProtectedHeader(header).sign(key);
  rememberSecret(signed);
  return signed;
}

/** An unsigned JWT (`alg: none`) with these claims. */
function unsignedAssertion(claims: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'none' })}.${part(claims)}.`;
  rememberSecret(unsigned);
  return unsigned;
}

const credentials = (signed: string, extra: Record<string, string> = {}) => ({
  client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
  client_assertion: signed,
  ...extra,
});

/** A code from the hosted page for `clientId`, with the session whose PKCE verifier goes with it. */
async function pageCode(clientId = SIGNER): Promise<{ code: string; verifier: string }> {
  const session = new LoginSession(service, clientId);
  const redirect = await session.signIn(uniqueEmail('private-key-jwt'));
  const code = redirect.location?.searchParams.get('code');
  if (code === null || code === undefined) throw new Error(`no code: ${redirect.status}`);
  return { code, verifier: session.verifier };
}

const codeBody = (code: { code: string; verifier: string }, extra: Record<string, string> = {}) => ({
  grant_type: 'authorization_code',
  code: code.code,
  redirect_uri: 'http://127.0.0.1:3000/callback',
  code_verifier: code.verifier,
  ...extra,
});

function remember(response: TestResponse): TestResponse {
  for (const name of ['access_token', 'refresh_token', 'id_token']) rememberSecret(response.body[name]);
  return response;
}

/** The DynamoDB operations a request makes, and its response. */
async function counted(act: () => Promise<TestResponse>): Promise<{ response: TestResponse; operations: readonly string[] }> {
  service.dynamodb.reset();
  const response = remember(await act());
  return { response, operations: [...service.dynamodb.operations()] };
}

describe('an unmodified openid-client (v6) with PrivateKeyJwt', () => {
  it('signs in on the hosted page, refreshes and revokes, a new assertion each time (aud: the issuer)', async () => {
    // The suite's clock runs ahead of the real one: tell the library, as a client with a skewed clock would.
    const skew = Math.round((service.clock.now() - Date.now()) / 1000);
    const config = await client.discovery(
      new URL(service.url),
      SIGNER,
      { [client.clockSkew]: skew },
      client.PrivateKeyJwt({ key: ecKey, kid: 'ec-1' }),
      { execute: [client.allowInsecureRequests] },
    );
    const session = new LoginSession(service, SIGNER);
    const redirect = await session.signIn(uniqueEmail('openid-client-private-key-jwt'));
    const tokens = await client.authorizationCodeGrant(config, redirect.location!, {
      pkceCodeVerifier: session.verifier,
      expectedState: 'state-123',
      expectedNonce: 'nonce-456',
    });
    for (const token of [tokens.access_token, tokens.refresh_token!, tokens.id_token!]) rememberSecret(token);
    expect(tokens.claims()?.aud).toBe(SIGNER);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    for (const token of [refreshed.access_token, refreshed.refresh_token!]) rememberSecret(token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    // RFC 7009 §2.1: revocation authenticates the client as the token endpoint does.
    await client.tokenRevocation(config, refreshed.refresh_token!);
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('reads the algorithms it may sign with from discovery (RFC 8414 §2: required with private_key_jwt)', async () => {
    const metadata = (await service.get('/.well-known/oauth-authorization-server')).body;
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA']);
    expect(metadata.revocation_endpoint_auth_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA']);
  });
});

describe('the assertions other libraries sign', () => {
  it('accepts Authlib’s: aud the token endpoint, exp iat + 3600, RS256, no client_id in the body, no nbf', async () => {
    const code = await pageCode();
    const signed = await assertion({ aud: tokenEndpoint, exp: now() + 3600 }, { key: rsaKey, header: { alg: 'RS256', kid: 'rsa-1' } });
    const response = remember(await service.postForm(TOKEN_PATH, codeBody(code, credentials(signed))));
    expect(response.status).toBe(200);
    expect(response.body.refresh_token).toEqual(expect.any(String));
  });

  it('accepts Auth.js’s: aud [issuer, token endpoint], with client_id in the body', async () => {
    const code = await pageCode();
    const signed = await assertion({ aud: [issuer, tokenEndpoint] });
    expect(remember(await service.postForm(TOKEN_PATH, codeBody(code, credentials(signed, { client_id: SIGNER })))).status).toBe(200);
  });

  it('spends no jti on a malformed revocation (no token): the request is checked before the client, and the assertion then still works', async () => {
    const signed = await assertion({ aud: revocationEndpoint });

    const { response, operations } = await counted(() => service.postForm(REVOKE_PATH, credentials(signed)));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_request' });
    expect(operations).toEqual([]);
    expect((await service.postForm(REVOKE_PATH, { token: 'unknown', ...credentials(signed) })).status).toBe(200);
  });

  it('accepts the revocation endpoint’s URL as aud at revocation', async () => {
    const code = await pageCode();
    const tokens = remember(await service.postForm(TOKEN_PATH, codeBody(code, credentials(await assertion()))));
    const revoked = await service.postForm(REVOKE_PATH, {
      token: tokens.body.refresh_token as string,
      ...credentials(await assertion({ aud: revocationEndpoint })),
    });
    expect(revoked.status).toBe(200);
    const refresh = { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string };
    expect((await service.postForm(TOKEN_PATH, { ...refresh, ...credentials(await assertion()) })).body).toMatchObject({
      error: 'invalid_grant',
    });
  });
});

describe('a wrong credential: 401 invalid_client, no write, and the code still works with a right one', () => {
  const hs256 = () =>
    new SignJWT({ iss: SIGNER, sub: SIGNER, aud: issuer, exp: now() + 60, jti: randomUUID() })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('a shared secret the service never holds'))
      .then((signed) => (rememberSecret(signed), signed));

  it.each<[string, () => Promise<Record<string, string>>, string]>([
    [
      'an assertion signed by a key the client did not register (RFC 7523 §3 item 9)',
      async () => credentials(await assertion({}, { key: strangerKey })),
      'The client assertion is not signed by a key registered for this client.',
    ],
    [
      'an expired assertion (item 4)',
      async () => credentials(await assertion({ iat: now() - 180, exp: now() - 120 })),
      'The client assertion has expired.',
    ],
    [
      'an exp more than an hour ahead',
      async () => credentials(await assertion({ exp: now() + 7200 })),
      'The client assertion must expire within 3600 seconds of being used.',
    ],
    [
      'no jti (OIDC Core §9: REQUIRED)',
      async () => credentials(await assertion({ jti: undefined })),
      'The client assertion must carry aud, exp and jti (RFC 7523 section 3).',
    ],
    [
      'no exp (item 4: MUST contain)',
      async () => credentials(await assertion({ exp: undefined })),
      'The client assertion must carry aud, exp and jti (RFC 7523 section 3).',
    ],
    [
      'an aud that is not this server (item 3)',
      async () => credentials(await assertion({ aud: `${issuer}/idp/v1/account/userinfo` })),
      "The client assertion's aud must name this server: its issuer or the endpoint's URL.",
    ],
    [
      'iss ≠ sub (items 1-2)',
      async () => credentials(await assertion({ sub: 'local-server' })),
      'The client assertion must have iss and sub, both the client id (RFC 7523 section 3).',
    ],
    [
      'an iss that names no client (an address, which must not reach the logs)',
      async () => credentials(await assertion({ iss: 'someone@example.com', sub: 'someone@example.com' })),
      'The client assertion names no registered client in iss and sub.',
    ],
    [
      'alg none',
      () => Promise.resolve(credentials(unsignedAssertion({ iss: SIGNER, sub: SIGNER, aud: issuer, exp: now() + 60, jti: randomUUID() }))),
      'The client assertion must be signed with one of RS256, PS256, ES256, EdDSA.',
    ],
    ['HS256', async () => credentials(await hs256()), 'The client assertion must be signed with one of RS256, PS256, ES256, EdDSA.'],
    [
      'a client_id that is not the assertion’s',
      async () => credentials(await assertion(), { client_id: 'local-server' }),
      "client_id must be the client assertion's iss and sub.",
    ],
    [
      'another assertion type',
      async () => ({
        ...credentials(await assertion()),
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer',
      }),
      'client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer (RFC 7523 section 2.2).',
    ],
    [
      'a secret (the client registered private_key_jwt only)',
      () => Promise.resolve({ client_id: SIGNER, client_secret: SERVER_SECRET }),
      'Client authentication failed.',
    ],
    [
      'no credential',
      () => Promise.resolve({ client_id: SIGNER }),
      'This client must authenticate: a client assertion (private_key_jwt, RFC 7523 section 2.2).',
    ],
  ])('refuses %s', async (_case, presented, description) => {
    const code = await pageCode();
    const fields = await presented();
    const { response, operations } = await counted(() => service.postForm(TOKEN_PATH, codeBody(code, fields)));
    expect({ status: response.status, body: response.body, challenge: response.headers.get('www-authenticate') }).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: description },
      challenge: 'Bearer realm="identity"',
    });
    // Refused before the jti's write and the code's consumption: nothing was written or spent.
    expect(operations).toEqual([]);

    expect(remember(await service.postForm(TOKEN_PATH, codeBody(code, credentials(await assertion()))))).toMatchObject({ status: 200 });
  });

  it('refuses HTTP Basic from a private_key_jwt client, with the Basic challenge (Basic was tried)', async () => {
    const code = await pageCode();
    const refused = await service.postForm(TOKEN_PATH, codeBody(code), { Authorization: basic(SIGNER, SERVER_SECRET) });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: 'invalid_client' });
    expect(refused.headers.get('www-authenticate')).toBe('Basic realm="identity"');
    expect(remember(await service.postForm(TOKEN_PATH, codeBody(code, credentials(await assertion())))).status).toBe(200);
  });

  it('refuses an assertion from a client registered for its secret (local-server), whose code then works with the secret', async () => {
    const code = await pageCode('local-server');
    const signed = await assertion({ iss: 'local-server', sub: 'local-server' });
    const refused = await service.postForm(TOKEN_PATH, codeBody(code, credentials(signed)));
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'invalid_client', error_description: 'This client does not authenticate with private_key_jwt.' });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="identity"');
    expect(
      remember(await service.postForm(TOKEN_PATH, codeBody(code, { client_id: 'local-server', client_secret: SERVER_SECRET }))).status,
    ).toBe(200);
  });

  it('refuses an assertion beside a secret: two methods, 400 invalid_request (RFC 6749 §2.3)', async () => {
    const code = await pageCode();
    const both = await service.postForm(TOKEN_PATH, codeBody(code, credentials(await assertion(), { client_secret: SERVER_SECRET })));
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ error: 'invalid_request' });
  });
});

describe('the jti: single use (RFC 7523 §3 item 7), one conditional write', () => {
  it('refuses the second use of an assertion, which wrote nothing; the code it came with still works', async () => {
    const first = await pageCode();
    const second = await pageCode();
    const signed = await assertion();
    expect(remember(await service.postForm(TOKEN_PATH, codeBody(first, credentials(signed)))).status).toBe(200);

    const { response, operations } = await counted(() => service.postForm(TOKEN_PATH, codeBody(second, credentials(signed))));
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: 'invalid_client',
      error_description: 'The client assertion was already used: its jti is single use (RFC 7523 section 3).',
    });
    // The refused conditional write, and nothing after it.
    expect(operations).toEqual(['PutItem']);
    expect(remember(await service.postForm(TOKEN_PATH, codeBody(second, credentials(await assertion())))).status).toBe(200);
  });

  it('lets exactly one of two concurrent uses of one assertion through', async () => {
    const codes = [await pageCode(), await pageCode()];
    const signed = await assertion();
    const responses = await Promise.all(codes.map((code) => service.postForm(TOKEN_PATH, codeBody(code, credentials(signed)))));
    expect(responses.map((response) => remember(response).status).sort()).toEqual([200, 401]);
  });

  it('keeps the jti until the assertion could no longer be accepted, then frees it (TTL deletes lazily)', async () => {
    const jti = randomUUID();
    const first = await pageCode();
    expect(remember(await service.postForm(TOKEN_PATH, codeBody(first, credentials(await assertion({ jti }))))).status).toBe(200);

    // Within exp + the skew, the same jti is a replay however the assertion is re-signed.
    service.clock.advanceSeconds(60 + ASSERTION_CLOCK_SKEW_SECONDS - 1);
    const second = await pageCode();
    expect((await service.postForm(TOKEN_PATH, codeBody(second, credentials(await assertion({ jti }))))).status).toBe(401);
    // Past it, the record is dead even before DynamoDB deletes it.
    service.clock.advanceSeconds(2);
    expect(remember(await service.postForm(TOKEN_PATH, codeBody(second, credentials(await assertion({ jti }))))).status).toBe(200);
  });
});

describe('the requests it costs', () => {
  it('adds exactly one DynamoDB request over client_secret_basic: the jti’s conditional PutItem, kept (TTL) until exp + skew', async () => {
    const basicCode = await pageCode('local-server');
    const signerCode = await pageCode();
    const byBasic = await counted(() =>
      service.postForm(TOKEN_PATH, codeBody(basicCode), { Authorization: basic('local-server', SERVER_SECRET) }),
    );
    const jti = randomUUID();
    const exp = now() + 60;
    const bySigner = await counted(async () =>
      service.postForm(TOKEN_PATH, codeBody(signerCode, credentials(await assertion({ jti, exp })))),
    );
    expect([byBasic.response.status, bySigner.response.status]).toEqual([200, 200]);
    expect(bySigner.operations).toEqual(['PutItem', ...byBasic.operations]);

    const [put] = service.dynamodb.requests();
    expect(put?.body).toMatchObject({
      Item: {
        pk: { S: clientAssertionItemKey(SIGNER, assertionJtiHash(jti)) },
        expires_at: { N: String(exp + ASSERTION_CLOCK_SKEW_SECONDS) },
      },
      ConditionExpression: 'attribute_not_exists(pk) OR #expires_at < :now',
    });
    // The jti itself is never stored.
    expect(JSON.stringify(put?.body)).not.toContain(jti);
  });
});
