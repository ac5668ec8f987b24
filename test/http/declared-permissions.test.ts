/**
 * The stack grants each function exactly the table actions lib/platform/routes.ts declares. This checks
 * the declarations against what the operations really do on the wire, over every path through
 * them (success, refusal, failure), so a declaration can be neither missing nor superfluous.
 */
import { FUNCTIONS, type FunctionName } from '../../lib/platform/routes';
import { LOCAL_API_KEY, REDIRECT_URI, startTestService, uniqueEmail, type TestService } from '../support/harness';
import { rememberSecret } from '../support/log-capture';
import { LoginSession } from '../support/login-flow';
import { SoftAuthenticator } from '../support/soft-authenticator';

const FAILING = '+14155550199';
let service: TestService;
beforeAll(async () => {
  service = await startTestService({ capture: { failFor: (to) => to === FAILING } });
});
afterAll(async () => service.stop());

const observed: Record<FunctionName, Set<string>> = {
  'otp-send': new Set(),
  token: new Set(),
  introspect: new Set(),
  revoke: new Set(),
  authorize: new Set(),
  userinfo: new Set(),
  logout: new Set(),
  admin: new Set(),
  'well-known': new Set(),
};
async function as(name: FunctionName, run: () => Promise<unknown>): Promise<void> {
  service.dynamodb.reset();
  await run();
  // IAM actions: a transaction's writes each need their own (PutItem, UpdateItem).
  for (const action of service.dynamodb.actions()) observed[name].add(action);
}

it('every operation uses exactly the table actions its function declares', async () => {
  const send = (user: string, clientId = 'local-web', authType = 'sms') =>
    service.post('/idp/v1/otp/send', { auth_type: authType, client_id: clientId, redirect_uri: REDIRECT_URI, user_id: user });
  const exchange = (user: string, code: string, clientId = 'local-web', headers: Record<string, string> = {}) =>
    service.post(
      '/idp/v1/account/token',
      { grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT_URI, user_id: user },
      { headers },
    );

  // otp/send: a success, a failed delivery (the capture refuses FAILING), a refusal.
  const phone = '+14155552671';
  await as('otp-send', () => send(phone));
  await as('otp-send', () => send(FAILING));
  await as('otp-send', () => send(uniqueEmail(), 'nobody', 'email'));

  // token: a JWT, an opaque token, a wrong code.
  const code = await service.latestCode(phone);
  await as('token', () => exchange(phone, code));
  await send(phone, 'local-opaque');
  const opaqueCode = await service.latestCode(phone);
  let opaque = '';
  await as('token', async () => {
    opaque = (await exchange(phone, opaqueCode, 'local-opaque')).body.access_token as string;
    rememberSecret(opaque);
  });
  await send(phone);
  const third = await service.latestCode(phone);
  await as('token', () => exchange(phone, third === '000000' ? '000001' : '000000'));

  await as('introspect', () =>
    service.postForm('/idp/v1/account/introspect', { token: opaque }, { Authorization: `Bearer ${LOCAL_API_KEY}` }),
  );
  // introspect: a JWT issued with a refresh token family (the family says whether it was revoked).
  const jwt = await service.signIn(uniqueEmail('permissions'));
  await as('introspect', () =>
    service.postForm(
      '/idp/v1/account/introspect',
      { token: jwt.body.access_token as string },
      { Authorization: `Bearer ${LOCAL_API_KEY}` },
    ),
  );

  // token: a refresh of a JWT client's token (read, attempt, rotation), of an opaque client's
  // (the rotation and the token in one transaction), a reused token (the family's revocation).
  const refresh = (token: unknown, clientId: string) =>
    service.postForm('/idp/v1/account/token', { grant_type: 'refresh_token', refresh_token: token as string, client_id: clientId });
  await as('token', async () => {
    const refreshed = await refresh(jwt.body.refresh_token, 'local-web');
    rememberSecret(refreshed.body.refresh_token);
  });
  await as('token', () => refresh(jwt.body.refresh_token, 'local-web'));
  const opaqueLogin = await service.signIn(uniqueEmail('permissions'), { clientId: 'local-opaque' });
  await as('token', async () => {
    const refreshed = await refresh(opaqueLogin.body.refresh_token, 'local-opaque');
    rememberSecret(refreshed.body.access_token);
    rememberSecret(refreshed.body.refresh_token);
  });

  // revoke: a refresh token's family, a JWT's jti (in its family, and on its own for a client
  // without refresh tokens), an opaque token.
  const revoke = (token: unknown, clientId: string) =>
    service.postForm('/idp/v1/account/revoke', { token: token as string, client_id: clientId });
  const other = await service.signIn(uniqueEmail('permissions'));
  await as('revoke', () => revoke(other.body.refresh_token, 'local-web'));
  await as('revoke', () => revoke(other.body.access_token, 'local-web'));
  await as('revoke', () => revoke(opaque, 'local-opaque'));
  const backendUser = uniqueEmail('permissions');
  await service.post(
    '/idp/v1/otp/send',
    { auth_type: 'email', client_id: 'local-backend', redirect_uri: REDIRECT_URI, user_id: backendUser },
    {
      headers: { Authorization: `Bearer ${LOCAL_API_KEY}` },
    },
  );
  const backend = await exchange(backendUser, await service.latestCode(backendUser), 'local-backend', {
    Authorization: `Bearer ${LOCAL_API_KEY}`,
  });
  rememberSecret(backend.body.access_token);
  await as('revoke', () =>
    service.postForm(
      '/idp/v1/account/revoke',
      { token: backend.body.access_token as string },
      { Authorization: `Bearer ${LOCAL_API_KEY}` },
    ),
  );
  // authorize: the page, a send, a wrong code, the right code (the authorization code).
  const session = new LoginSession(service, 'local-opaque');
  const user = uniqueEmail('permissions');
  const page = await session.start();
  const codePage = await session.post(page, 'send', { user_id: user });
  const otp = await service.latestCode(user);
  await as('authorize', () => session.post(codePage, 'verify', { code: otp === '000000' ? '000001' : '000000' }));
  let redirect: Awaited<ReturnType<typeof session.post>> | undefined;
  await as('authorize', async () => {
    redirect = await session.post(codePage, 'verify', { code: otp });
  });
  await as('authorize', () => session.post(page, 'send', { user_id: uniqueEmail('permissions') }));
  // authorize: a login the browser's session serves (its read; its touch and the code, one
  // transaction), and another user's code in that browser (the previous session ended: its
  // delete, the user index, its families).
  const sameBrowser = () => new LoginSession(service, 'local-web', { sessionCookies: session.sessionCookies });
  await as('authorize', () => sameBrowser().start());
  await as('authorize', () => sameBrowser().signIn(uniqueEmail('permissions'), { prompt: 'login' }));
  // authorize, passkeys (at the issuer's origin, localhost: an RP ID is a host name): the passkeys
  // page after a code (the user's passkeys: the user index, then their items), a passkey created
  // (its item, with the session in one transaction), one removed, a sign-in (the credential read;
  // its sign count, the session and the authorization code in one transaction), and a refused
  // assertion (the failure counted).
  const site = { url: service.url.replace('127.0.0.1', 'localhost'), latestCode: (userId: string) => service.latestCode(userId) };
  const device = new SoftAuthenticator({ origin: site.url });
  const enrolling = new LoginSession(site, 'local-web');
  const holder = uniqueEmail('permissions');
  const sentToHolder = await enrolling.post(await enrolling.start(), 'send', { user_id: holder });
  let passkeysPage: Awaited<ReturnType<typeof session.post>> | undefined;
  await as('authorize', async () => {
    passkeysPage = await enrolling.post(sentToHolder, 'verify', { code: await service.latestCode(holder), webauthn: '1' });
  });
  let created: Awaited<ReturnType<typeof session.post>> | undefined;
  await as('authorize', async () => {
    created = await enrolling.createPasskey(passkeysPage!, device);
  });
  expect(created?.status).toBe(200);
  const spare = new SoftAuthenticator({ origin: site.url });
  const second = await enrolling.createPasskey(created!, spare);
  await as('authorize', () => enrolling.removePasskey(second, spare.credentials[0]!.id));
  const signingIn = new LoginSession(site, 'local-web');
  await as('authorize', async () => {
    const signedIn = await signingIn.signInWithPasskey(await signingIn.start(), device);
    expect(signedIn.status).toBe(302);
  });
  const forging = new LoginSession(site, 'local-web');
  await as('authorize', async () => {
    const refused = await forging.signInWithPasskey(await forging.start(), device, { forgeSignature: true });
    expect(refused.status).toBe(400);
  });

  // token: the authorization code, consumed.
  let viaPage = '';
  await as('token', async () => {
    const response = await service.postForm('/idp/v1/account/token', {
      grant_type: 'authorization_code',
      code: redirect?.location?.searchParams.get('code') ?? '',
      client_id: 'local-opaque',
      redirect_uri: REDIRECT_URI,
      code_verifier: session.verifier,
    });
    viaPage = response.body.access_token as string;
    rememberSecret(viaPage);
  });
  // userinfo: an opaque token by its hash (and its family), a JWT (its family).
  await as('userinfo', () => service.get('/idp/v1/account/userinfo', { Authorization: `Bearer ${viaPage}` }));
  const jwtSession = new LoginSession(service, 'local-web');
  const jwtRedirect = await jwtSession.signIn(uniqueEmail('permissions'));
  const jwtTokens = await service.postForm('/idp/v1/account/token', {
    grant_type: 'authorization_code',
    code: jwtRedirect.location?.searchParams.get('code') ?? '',
    client_id: 'local-web',
    redirect_uri: REDIRECT_URI,
    code_verifier: jwtSession.verifier,
  });
  for (const token of [jwtTokens.body.access_token, jwtTokens.body.refresh_token, jwtTokens.body.id_token]) rememberSecret(token);
  await as('userinfo', () => service.get('/idp/v1/account/userinfo', { Authorization: `Bearer ${jwtTokens.body.access_token as string}` }));

  // admin: a block (the counters; the user's sessions and families found, ended, revoked), an
  // unblock, the sessions of a user who logged in through the page ended.
  const admin = (action: string, user: string) => service.post(`/idp/v1/admin/users/${action}`, { env_id: 'local', user_id: user });
  const blocked = uniqueEmail('permissions');
  await new LoginSession(service, 'local-web').signIn(blocked);
  await as('admin', () => admin('block', blocked));
  await as('admin', () => admin('unblock', blocked));
  const signedOut = uniqueEmail('permissions');
  await new LoginSession(service, 'local-web').signIn(signedOut);
  await as('admin', () => admin('end-sessions', signedOut));
  // remove-passkeys: the user's passkeys found on the user index (Query), each removed (DeleteItem).
  await as('admin', () => admin('remove-passkeys', signedOut));

  // logout: a request that asks first (the browser's session read), and one an ID token hint of
  // that session proves (the read, the session's delete, its families found and revoked).
  const leaving = new LoginSession(service, 'local-web');
  const leavingRedirect = await leaving.signIn(uniqueEmail('permissions'));
  const leavingTokens = await service.postForm('/idp/v1/account/token', {
    grant_type: 'authorization_code',
    code: leavingRedirect.location?.searchParams.get('code') ?? '',
    client_id: 'local-web',
    redirect_uri: REDIRECT_URI,
    code_verifier: leaving.verifier,
  });
  for (const token of [leavingTokens.body.access_token, leavingTokens.body.refresh_token, leavingTokens.body.id_token])
    rememberSecret(token);
  const cookies = [...leaving.sessionCookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const logout = (query: Record<string, string>) =>
    fetch(`${service.url}/idp/v1/account/logout?${new URLSearchParams(query).toString()}`, {
      headers: { Cookie: cookies },
      redirect: 'manual',
    });
  await as('logout', () => logout({ client_id: 'local-web' }));
  await as('logout', () => logout({ id_token_hint: leavingTokens.body.id_token as string }));

  await as('well-known', () => service.get('/.well-known/jwks.json'));
  await as('well-known', () => service.get('/.well-known/oauth-authorization-server'));

  for (const name of Object.keys(FUNCTIONS) as FunctionName[]) {
    expect({ name, actions: [...observed[name]].sort() }).toEqual({ name, actions: [...FUNCTIONS[name].table].sort() });
  }
});
