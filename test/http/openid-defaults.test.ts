/**
 * What OpenID Connect relying parties assume of a provider unless told otherwise (issue 27), over
 * the HTTP path a client uses: ID tokens signed RS256 by default (OIDC Registration §2) with a
 * lifetime of their own and the login's `sid`; `sub` per the client's subject type, pairwise per
 * sector (OIDC Core §8.1); `response_mode=form_post` (OAuth 2.0 Form Post Response Mode); and PKCE
 * optional for a confidential client that registered so and sends a nonce (RFC 9700 §2.1.1).
 */
import { createHash } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWK, type JWTPayload } from 'jose';
import type { StageConfig } from '../../lib/platform/config';
import { atHash } from '../../lib/oauth/id-tokens';
import { SUBMIT_SCRIPT_HASH } from '../../lib/login/form-post';
import { rememberSecret } from '../support/log-capture';
import { REDIRECT_URI, startTestService, TOKEN_PATH, uniqueEmail, type TestResponse, type TestService } from '../support/harness';
import { LoginSession, type PageResponse } from '../support/login-flow';

const USERINFO_PATH = '/idp/v1/account/userinfo';
/** The confidential client's secret; the stage file holds its SHA-256 only. */
const SECRET = 'nonce-client-secret';
/** A native app's redirect URI (RFC 8252 §7.1: a private-use URI scheme). */
const NATIVE_REDIRECT = 'com.example.app:/callback';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** Clients copied from local-web (public, refresh tokens) with the registration each test is about. */
const registered = (config: StageConfig): StageConfig => {
  const web = config.clients.find((client) => client.id === 'local-web')!;
  const pairwise = { ...web, subjectType: 'pairwise' as const };
  return {
    ...config,
    clients: [
      ...config.clients,
      { ...web, id: 'es256-short', idTokenSignedResponseAlg: 'ES256' as const, idTokenTtlSeconds: 600 },
      { ...pairwise, id: 'pairwise-a' },
      // Same host as pairwise-a on another port: the same sector (the host, §8.1).
      { ...pairwise, id: 'pairwise-a-port', redirectUris: ['http://127.0.0.1:4000/callback'] },
      { ...pairwise, id: 'pairwise-b', redirectUris: ['http://localhost:3000/callback'] },
      { ...web, id: 'native-app', redirectUris: [NATIVE_REDIRECT] },
      {
        ...web,
        id: 'nonce-client',
        apiKeySha256: [createHash('sha256').update(SECRET).digest('hex')],
        requirePkce: false,
        refreshTokens: undefined,
      },
    ],
  };
};

let service: TestService;
let jwks: { keys: JWK[] };
beforeAll(async () => {
  service = await startTestService({ config: registered });
  jwks = (await service.get('/.well-known/jwks.json')).body as { keys: JWK[] };
});
afterAll(async () => service.stop());

function remember(response: TestResponse): TestResponse {
  for (const name of ['access_token', 'refresh_token', 'id_token']) {
    if (typeof response.body[name] === 'string') rememberSecret(response.body[name]);
  }
  return response;
}

/** The code of a page response: the redirect's query, or the form post page's hidden field. */
function codeOf(response: PageResponse): string {
  const code = response.location?.searchParams.get('code') ?? /name="code" value="([^"]+)"/.exec(response.html)?.[1];
  if (code === undefined || code === null) throw new Error(`no code: ${response.status}`);
  return code;
}

/** Signs `user` in on the page for `clientId` and exchanges the code as a public client. */
async function login(clientId: string, user: string, redirectUri = REDIRECT_URI): Promise<TestResponse> {
  const session = new LoginSession(service, clientId);
  const code = codeOf(await session.signIn(user, { redirect_uri: redirectUri }));
  return remember(
    await service.postForm(TOKEN_PATH, {
      grant_type: 'authorization_code',
      code,
      client_id: clientId,
      redirect_uri: redirectUri,
      code_verifier: session.verifier,
    }),
  );
}

async function verifiedIdToken(response: TestResponse, audience: string): Promise<JWTPayload> {
  expect(response.status).toBe(200);
  const { payload } = await jwtVerify(response.body.id_token as string, createLocalJWKSet(jwks), {
    issuer: service.url,
    audience,
    currentDate: new Date(service.clock.now()),
  });
  return payload;
}

describe('ID tokens', () => {
  it('are RS256 unless the client registered otherwise (OIDC Registration §2: id_token_signed_response_alg defaults to RS256), whatever the access token’s algorithm', async () => {
    const response = await login('local-web', uniqueEmail('rs256'));

    expect(decodeProtectedHeader(response.body.id_token as string).alg).toBe('RS256');
    expect(decodeProtectedHeader(response.body.access_token as string).alg).toBe('ES256');
    // §3.1.3.6: at_hash with the hash of the ID token's own algorithm.
    expect((await verifiedIdToken(response, 'local-web')).at_hash).toBe(atHash(response.body.access_token as string, 'RS256'));
  });

  it('are signed as the client registered (ES256), and live idTokenTtlSeconds, not the access token’s lifetime', async () => {
    const response = await login('es256-short', uniqueEmail('es256'));

    expect(decodeProtectedHeader(response.body.id_token as string).alg).toBe('ES256');
    const payload = await verifiedIdToken(response, 'es256-short');
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(response.body.expires_in).toBe(3600);
  });

  it('carry the login’s sid (OIDC Front-Channel Logout §3): one per login, kept by the ID tokens of its refreshes', async () => {
    const user = uniqueEmail('sid');
    const first = await login('local-web', user);
    const second = await login('local-web', user);
    const sid = (await verifiedIdToken(first, 'local-web')).sid;

    expect(sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect((await verifiedIdToken(second, 'local-web')).sid).not.toBe(sid);
    const refreshed = remember(
      await service.postForm(TOKEN_PATH, {
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token as string,
        client_id: 'local-web',
      }),
    );
    expect((await verifiedIdToken(refreshed, 'local-web')).sid).toBe(sid);
  });
});

describe('pairwise subjects (OIDC Core §8.1)', () => {
  it('give one sub per sector: the same for clients on one host (any port), another on another host, and neither the public one', async () => {
    const user = uniqueEmail('pairwise');
    const subOf = async (clientId: string, redirectUri = REDIRECT_URI) =>
      (await verifiedIdToken(await login(clientId, user, redirectUri), clientId)).sub;

    const a = await subOf('pairwise-a');
    expect(await subOf('pairwise-a')).toBe(a);
    expect(await subOf('pairwise-a-port', 'http://127.0.0.1:4000/callback')).toBe(a);
    const b = await subOf('pairwise-b', 'http://localhost:3000/callback');
    expect(b).not.toBe(a);
    // Five logins: the user's send limit (5 a minute) allows no sixth.
    const publicSub = await subOf('local-web');
    expect(publicSub).not.toBe(a);
    expect(publicSub).not.toBe(b);
  });

  it('is the sub of the access token and of UserInfo too (OIDC Core §5.3.2: UserInfo’s sub MUST be the ID token’s)', async () => {
    const response = await login('pairwise-b', uniqueEmail('pairwise-userinfo'), 'http://localhost:3000/callback');
    const sub = (await verifiedIdToken(response, 'pairwise-b')).sub;

    expect(decodeJwt(response.body.access_token as string).sub).toBe(sub);
    const userinfo = await service.get(USERINFO_PATH, { Authorization: `Bearer ${response.body.access_token as string}` });
    expect(userinfo.status).toBe(200);
    expect(userinfo.body.sub).toBe(sub);
  });
});

describe('response_mode=form_post (OAuth 2.0 Form Post Response Mode)', () => {
  /** The parameters the form post page posts, and where. */
  function formOf(page: PageResponse): { action: string; fields: Record<string, string> } {
    const action = /<form method="post" action="([^"]+)">/.exec(page.html)?.[1] ?? '';
    const fields = Object.fromEntries(
      [...page.html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
    );
    return { action, fields };
  }

  it('answers the login with a page that posts code, state and iss to the redirect URI, by a script its CSP allows by hash, uncached (§2, §4)', async () => {
    const session = new LoginSession(service);
    const page = await session.signIn(uniqueEmail('form-post'), { response_mode: 'form_post' });

    expect(page.status).toBe(200);
    expect(page.location).toBeUndefined();
    expect(formOf(page)).toEqual({
      action: REDIRECT_URI,
      fields: { code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), state: 'state-123', iss: service.url },
    });
    expect(page.html).toContain('<script>document.forms[0].submit();</script>');
    expect(page.html).toMatch(/<noscript><button type="submit">Sign in<\/button><\/noscript>/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toBe(
      `default-src 'none'; script-src ${SUBMIT_SCRIPT_HASH}; form-action http://127.0.0.1:3000; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(session.transactionCookie).toBeUndefined();
    const exchanged = remember(
      await service.postForm(TOKEN_PATH, {
        grant_type: 'authorization_code',
        code: formOf(page).fields.code!,
        client_id: 'local-web',
        redirect_uri: REDIRECT_URI,
        code_verifier: session.verifier,
      }),
    );
    expect(exchanged.status).toBe(200);
  });

  it('posts an error of the request the same way, and escapes what it posts', async () => {
    const page = await new LoginSession(service).start({ response_mode: 'form_post', prompt: 'none', state: '"><script>x</script>' });

    expect(page.status).toBe(200);
    expect(formOf(page).fields).toMatchObject({
      error: 'login_required',
      state: '&quot;&gt;&lt;script&gt;x&lt;/script&gt;',
      iss: service.url,
    });
    expect(page.html).not.toContain('<script>x');
  });

  it('refuses form_post to a native app’s redirect URI (a private-use scheme no form can post to), as a redirect', async () => {
    const page = await new LoginSession(service, 'native-app').start({ redirect_uri: NATIVE_REDIRECT, response_mode: 'form_post' });

    expect(page.status).toBe(302);
    expect(`${page.location?.protocol}${page.location?.pathname}`).toBe(NATIVE_REDIRECT);
    expect(Object.fromEntries(page.location?.searchParams ?? [])).toMatchObject({
      error: 'invalid_request',
      error_description: 'response_mode form_post needs an http or https redirect URI.',
    });
  });

  it('refuses a response mode it does not know with invalid_request, as a redirect (the default mode)', async () => {
    const page = await new LoginSession(service).start({ response_mode: 'fragment' });

    expect(page.status).toBe(302);
    expect(page.location?.searchParams.get('error')).toBe('invalid_request');
  });
});

describe('PKCE for confidential clients (RFC 9700 §2.1.1)', () => {
  /** A login for nonce-client, with `extra` on the authorization request; the code, or the refusal. */
  async function nonceLogin(extra: Record<string, string | undefined>): Promise<PageResponse> {
    const session = new LoginSession(service, 'nonce-client');
    return session.signIn(uniqueEmail('nonce'), extra);
  }
  const exchange = (code: string, extra: Record<string, string> = {}) =>
    service.postForm(
      TOKEN_PATH,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...extra },
      { Authorization: basic('nonce-client', SECRET) },
    );

  it('lets a confidential client registered requirePkce: false go without it when it sends a nonce, which the ID token then carries', async () => {
    const code = codeOf(await nonceLogin({ code_challenge: undefined, code_challenge_method: undefined, nonce: 'n-0S6_WzA2Mj' }));

    const response = remember(await exchange(code));
    expect((await verifiedIdToken(response, 'nonce-client')).nonce).toBe('n-0S6_WzA2Mj');
  });

  it('refuses a code_verifier for a code whose request had no code_challenge (RFC 9700 §2.1.1: a PKCE downgrade), spending the code', async () => {
    const code = codeOf(await nonceLogin({ code_challenge: undefined, code_challenge_method: undefined }));

    const response = await exchange(code, { code_verifier: 'a'.repeat(43) });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_grant');
    expect((await exchange(code)).body.error).toBe('invalid_grant');
  });

  it('still binds a code whose request had a challenge: no verifier is invalid_grant', async () => {
    const code = codeOf(await nonceLogin({}));

    expect((await exchange(code)).body.error).toBe('invalid_grant');
  });

  it.each([
    ['the confidential client without a nonce', 'nonce-client', { nonce: undefined }],
    ['the confidential client without openid (no ID token carries the nonce)', 'nonce-client', { scope: 'email' }],
    ['a public client, even with a nonce', 'local-web', {}],
  ])('requires code_challenge of %s (invalid_request)', async (_, clientId, extra) => {
    const page = await new LoginSession(service, clientId).start({ code_challenge: undefined, code_challenge_method: undefined, ...extra });

    expect(page.status).toBe(302);
    expect(Object.fromEntries(page.location?.searchParams ?? [])).toMatchObject({
      error: 'invalid_request',
      error_description: 'code_challenge is required (PKCE, RFC 7636).',
    });
  });
});
