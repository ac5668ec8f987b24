/**
 * Discovery: the RFC 8414 authorization server metadata and the OpenID Connect Discovery 1.0
 * provider metadata, checked field by field against their specifications, against each other,
 * and by client libraries nobody on the team wrote (openid-client, oauth4webapi).
 */
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { LOCAL_API_KEY, startTestService, uniqueEmail, type TestService } from '../support/harness';

let service: TestService;
let rfc8414: Record<string, unknown>;
let oidc: Record<string, unknown>;
beforeAll(async () => {
  service = await startTestService();
  rfc8414 = (await service.get('/.well-known/oauth-authorization-server')).body;
  oidc = (await service.get('/.well-known/openid-configuration')).body;
});
afterAll(async () => service.stop());

/** An absolute URL under the issuer, with no fragment and no query (RFC 8414 §2). */
function isEndpointOf(issuer: string, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const url = new URL(value);
  return value.startsWith(`${issuer}/`) && url.hash === '' && url.search === '';
}

/**
 * A strict check of RFC 8414 §2 / OpenID Connect Discovery 1.0 §3 for what the service does.
 * Both documents carry the same fields (RFC 8414 §2 registers the OpenID ones too). Returns
 * every problem, so a failure names them all.
 */
function problemsOf(document: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const issuer = document.issuer;
  // RFC 8414 §2 / OIDC Discovery §3: issuer REQUIRED, a URL with no query or fragment; §3.3 / §4.3: it equals the URL it was fetched under.
  if (issuer !== service.url) problems.push(`issuer ${String(issuer)} is not ${service.url}`);
  for (const field of [
    'authorization_endpoint',
    'token_endpoint',
    'userinfo_endpoint',
    'jwks_uri',
    'introspection_endpoint',
    'revocation_endpoint',
    // RP-Initiated Logout 1.0 §2.1 (and §7.1 registers it for RFC 8414 documents).
    'end_session_endpoint',
  ]) {
    if (!isEndpointOf(service.url, document[field])) problems.push(`${field} is not an endpoint URL of the issuer`);
  }
  // REQUIRED in both (RFC 8414 §2, OIDC Discovery §3), an array of strings; the service answers `code` only.
  if (JSON.stringify(document.response_types_supported) !== '["code"]') problems.push('response_types_supported must be ["code"]');
  for (const field of [
    'scopes_supported',
    'response_modes_supported',
    'grant_types_supported',
    'token_endpoint_auth_methods_supported',
    'code_challenge_methods_supported',
    'introspection_endpoint_auth_methods_supported',
    'revocation_endpoint_auth_methods_supported',
    'claims_supported',
    'ui_locales_supported',
  ]) {
    const value = document[field];
    if (!Array.isArray(value) || value.length === 0 || !value.every((item) => typeof item === 'string'))
      problems.push(`${field} must be a non-empty array of strings`);
  }
  // OIDC Discovery §3: "The server MUST support the openid scope value."
  if (!(document.scopes_supported as string[]).includes('openid')) problems.push('scopes_supported must include openid');
  // OIDC Discovery §3: id_token_signing_alg_values_supported is REQUIRED and "The algorithm RS256 MUST be included."
  if (!(document.id_token_signing_alg_values_supported as string[] | undefined)?.includes('RS256'))
    problems.push('id_token_signing_alg_values_supported must include RS256');
  // OIDC Discovery §3: subject_types_supported REQUIRED; OIDC Core §8 defines the types, and each
  // client is one or the other (test/http/openid-defaults.test.ts, the test below).
  if (JSON.stringify(document.subject_types_supported) !== '["public","pairwise"]')
    problems.push('subject_types_supported must be ["public","pairwise"]');
  // OIDC Discovery §3 defaults response_modes_supported to ["query","fragment"]: say which are true.
  if (JSON.stringify(document.response_modes_supported) !== '["query","form_post"]')
    problems.push('response_modes_supported must be ["query","form_post"]');
  // RFC 9207 §3: the authorization response carries iss, and the metadata says so.
  if (document.authorization_response_iss_parameter_supported !== true) problems.push('authorization_response_iss_parameter_supported');
  // OIDC Discovery §3 defaults request_uri_parameter_supported to true; the service takes no request objects.
  for (const field of ['request_parameter_supported', 'request_uri_parameter_supported', 'claims_parameter_supported']) {
    if (document[field] !== false) problems.push(`${field} must say false`);
  }
  // Advertise exactly what is implemented, in registered names only (RFC 7591 §2, the IANA
  // registry): public clients, confidential ones by their secret or a key; no client_secret_jwt.
  const authMethods = '["none","client_secret_basic","client_secret_post","private_key_jwt"]';
  if (JSON.stringify(document.token_endpoint_auth_methods_supported) !== authMethods)
    problems.push('token_endpoint_auth_methods_supported');
  if (JSON.stringify(document.code_challenge_methods_supported) !== '["S256"]') problems.push('code_challenge_methods_supported');
  // An extension (RFC 8414 §2 allows them): where the API flow requests codes.
  if (!isEndpointOf(service.url, document.otp_send_endpoint)) problems.push('otp_send_endpoint is not an endpoint URL of the issuer');
  // RFC 8414 §2: the grant types the token endpoint takes, here the code and (RFC 6749 §6) refresh tokens.
  if (JSON.stringify(document.grant_types_supported) !== '["authorization_code","refresh_token"]')
    problems.push('grant_types_supported must be ["authorization_code","refresh_token"]');
  // RFC 8414 §2 (revocation_endpoint_auth_methods_supported, RFC 7009 §2.1): as at the token endpoint.
  if (JSON.stringify(document.revocation_endpoint_auth_methods_supported) !== authMethods)
    problems.push('revocation_endpoint_auth_methods_supported');
  // Registered names only: the Bearer API key is a documented extension, in no list.
  if (JSON.stringify(document.introspection_endpoint_auth_methods_supported) !== '["client_secret_basic"]')
    problems.push('introspection_endpoint_auth_methods_supported');
  // Back-Channel Logout 1.0 §2.1: supported, and every logout token carries the session's sid
  // (both default to false when absent, so they must say true).
  for (const field of ['backchannel_logout_supported', 'backchannel_logout_session_supported']) {
    if (document[field] !== true) problems.push(`${field} must say true`);
  }
  return problems;
}

describe('the two metadata documents', () => {
  it('pass a strict RFC 8414 §2 check', () => {
    expect(problemsOf(rfc8414)).toEqual([]);
  });

  it('pass a strict OpenID Connect Discovery 1.0 §3 check, as far as the service goes', () => {
    expect(problemsOf(oidc)).toEqual([]);
  });

  it('agree field by field where they overlap', () => {
    for (const [field, value] of Object.entries(rfc8414)) expect({ field, value: oidc[field] }).toEqual({ field, value });
  });

  it('name the algorithms tokens are signed with, and the JWKS holds keys for each', async () => {
    expect(oidc.access_token_signing_alg_values_supported).toEqual(['ES256', 'RS256']);
    const jwks = (await service.get('/.well-known/jwks.json')).body as { keys: Array<{ alg: string }> };
    for (const alg of ['ES256', 'RS256']) expect(jwks.keys.some((key) => key.alg === alg)).toBe(true);
  });

  it('are cacheable for an hour, and every endpoint they name answers', async () => {
    const response = await service.get('/.well-known/openid-configuration');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect((await fetch(oidc.jwks_uri as string)).status).toBe(200);
    expect(
      (await fetch(oidc.token_endpoint as string, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status,
    ).toBe(400);
    // No client_id: an error page, never a redirect (RFC 6749 §4.1.2.1).
    const authorize = await fetch(oidc.authorization_endpoint as string, { redirect: 'manual' });
    expect({ status: authorize.status, type: authorize.headers.get('content-type') }).toEqual({
      status: 400,
      type: 'text/html; charset=utf-8',
    });
    // No client: 401 invalid_client (RFC 7009 §2.2.1, RFC 6749 §5.2).
    const revocation = await fetch(oidc.revocation_endpoint as string, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'token=x',
    });
    expect({ status: revocation.status, body: await revocation.json() }).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: expect.any(String) },
    });
    // No hint: the end-session endpoint asks the user (RP-Initiated Logout §2): a page, never a redirect.
    const endSession = await fetch(oidc.end_session_endpoint as string, { redirect: 'manual' });
    expect({ status: endSession.status, type: endSession.headers.get('content-type') }).toEqual({
      status: 200,
      type: 'text/html; charset=utf-8',
    });
    // No token: 401 with the RFC 6750 §3 challenge.
    const userinfo = await fetch(oidc.userinfo_endpoint as string);
    expect({ status: userinfo.status, challenge: userinfo.headers.get('www-authenticate') }).toEqual({
      status: 401,
      challenge: expect.stringMatching(/^Bearer /),
    });
  });
});

describe('subject_types_supported (regression: it said ["pairwise"] while every client of an environment got one sub)', () => {
  /** The `sub` of an access token (a JWT) for `user` from `clientId`. */
  async function subjectFor(user: string, clientId: string): Promise<unknown> {
    const token = (await service.signIn(user, { clientId })).body.access_token as string;
    return decodeJwt(token).sub;
  }

  it('lists public and pairwise in both documents; public clients (the default) share one sub per user in an environment (OIDC Core §8)', async () => {
    // OIDC Discovery 1.0 §3 requires the field. OIDC Core §8: "public" gives every client the same
    // sub; "pairwise" a different one per sector identifier (test/http/openid-defaults.test.ts).
    const user = uniqueEmail('subject');
    const [web, rs256] = [await subjectFor(user, 'local-web'), await subjectFor(user, 'local-rs256')];
    expect(web).toEqual(expect.any(String));
    expect(rs256).toBe(web);
    expect({ rfc8414: rfc8414.subject_types_supported, oidc: oidc.subject_types_supported }).toEqual({
      rfc8414: ['public', 'pairwise'],
      oidc: ['public', 'pairwise'],
    });
  });
});

describe('client libraries', () => {
  it('openid-client’s default discovery (OpenID Connect) succeeds against the local issuer', async () => {
    const config = await client.discovery(new URL(service.url), 'local-web', undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    expect(config.serverMetadata()).toMatchObject({ issuer: service.url, token_endpoint: `${service.url}/idp/v1/account/token` });
  });

  it('openid-client’s buildEndSessionUrl finds the end-session endpoint (issue 28: it threw without one)', async () => {
    const config = await client.discovery(new URL(service.url), 'local-web', undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    const url = client.buildEndSessionUrl(config, { post_logout_redirect_uri: 'http://127.0.0.1:3000/', state: 's' });
    expect(`${url.origin}${url.pathname}`).toBe(`${service.url}/idp/v1/account/logout`);
  });

  it('oauth4webapi processes both documents (issuer validation included)', async () => {
    const issuer = new URL(service.url);
    for (const algorithm of ['oidc', 'oauth2'] as const) {
      const response = await oauth.discoveryRequest(issuer, { algorithm, [oauth.allowInsecureRequests]: true });
      await expect(oauth.processDiscoveryResponse(issuer, response)).resolves.toMatchObject({ issuer: service.url });
    }
  });

  it('openid-client’s tokenIntrospection works with its built-in client authentication (client_secret_basic)', async () => {
    const token = (await service.signIn(uniqueEmail('introspected'))).body.access_token as string;
    const config = await client.discovery(new URL(service.url), 'local-backend', undefined, client.ClientSecretBasic(LOCAL_API_KEY), {
      execute: [client.allowInsecureRequests],
    });
    await expect(client.tokenIntrospection(config, token)).resolves.toMatchObject({ active: true, client_id: 'local-web' });
  });
});

describe('a stage whose clients get no refresh tokens', () => {
  it('does not advertise the refresh_token grant (nothing is advertised that no client can do)', async () => {
    const plain = await startTestService({
      config: (config) => ({ ...config, clients: config.clients.map(({ refreshTokens: _dropped, ...client }) => client) }),
    });
    try {
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        expect((await plain.get(path)).body.grant_types_supported).toEqual(['authorization_code']);
      }
    } finally {
      await plain.stop();
    }
  });
});
