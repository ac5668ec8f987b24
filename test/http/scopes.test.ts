/**
 * Scopes as the relying-party libraries ask for them (issue 27): `openid profile email` (the
 * default of express-openid-connect, Auth.js and Authlib's examples) and `offline_access` (OIDC Core
 * §11, how Auth0 and Okta clients ask for a refresh token) are understood; any other value is
 * ignored and left out of the granted scope, which the token response states (OIDC Core §3.1.2.1,
 * RFC 6749 §3.3 and §5.1).
 */
import type { StageConfig } from '../../lib/platform/config';
import { rememberSecret } from '../support/log-capture';
import { startTestService, TOKEN_PATH, uniqueEmail, type TestResponse, type TestService } from '../support/harness';
import { LoginSession } from '../support/login-flow';

/** local-web issues refresh tokens only to OpenID requests that ask for offline_access; local-opaque issues none. */
const offlineOnly = (config: StageConfig): StageConfig => ({
  ...config,
  clients: config.clients.map((client) => {
    if (client.id === 'local-opaque') return { ...client, refreshTokens: undefined };
    if (client.id === 'local-web' && client.refreshTokens !== undefined) {
      return { ...client, refreshTokens: { ...client.refreshTokens, issue: 'offline_access' as const } };
    }
    return client;
  }),
});

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ config: offlineOnly });
});
afterAll(async () => service.stop());

/** Signs in on the page with `scope`, and exchanges the code. */
async function tokensFor(clientId: string, scope: string): Promise<TestResponse> {
  const session = new LoginSession(service, clientId);
  const redirect = await session.signIn(uniqueEmail('scopes'), { scope });
  const code = redirect.location?.searchParams.get('code') ?? '';
  const response = await service.postForm(TOKEN_PATH, {
    grant_type: 'authorization_code',
    code,
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:3000/callback',
    code_verifier: session.verifier,
  });
  for (const name of ['access_token', 'refresh_token', 'id_token']) {
    if (typeof response.body[name] === 'string') rememberSecret(response.body[name]);
  }
  return response;
}

it('grants `openid profile email` (profile releases no claim the service does not have: it has none)', async () => {
  const response = await tokensFor('local-rs256', 'openid profile email');
  expect(response.status).toBe(200);
  expect(response.body.scope).toBe('openid profile email');
  expect(response.body.id_token).toEqual(expect.any(String));
});

it('ignores a value it does not understand and says what it granted (RFC 6749 §3.3: the response names the scope when it differs)', async () => {
  const response = await tokensFor('local-rs256', 'openid email admin calendar.read');
  expect(response.status).toBe(200);
  expect(response.body.scope).toBe('openid email');
});

describe('offline_access (OIDC Core §11) for a client whose refresh tokens follow it', () => {
  it('gives no refresh token to an OpenID request without it', async () => {
    const response = await tokensFor('local-web', 'openid email');
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('refresh_token');
  });

  it('gives a refresh token to one that asks for it, and grants it in the scope', async () => {
    const response = await tokensFor('local-web', 'openid email offline_access');
    expect(response.body.refresh_token).toEqual(expect.any(String));
    expect(response.body.scope).toBe('openid email offline_access');
  });

  it('leaves it out of the scope of a client that is not issued refresh tokens', async () => {
    const response = await tokensFor('local-opaque', 'openid offline_access');
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('refresh_token');
    expect(response.body.scope).toBe('openid');
  });
});

it('gives a client whose refresh tokens are `always` (the default) one without offline_access, as before', async () => {
  const response = await tokensFor('local-rs256', 'openid email');
  expect(response.body.refresh_token).toEqual(expect.any(String));
});
