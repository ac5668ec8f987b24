/**
 * The stack grants each function exactly the table actions lib/routes.ts declares. This checks
 * the declarations against what the operations really do on the wire, over every path through
 * them (success, refusal, failure), so a declaration can be neither missing nor superfluous.
 */
import { FUNCTIONS, type FunctionName } from '../../lib/routes';
import { LOCAL_API_KEY, REDIRECT_URI, startTestService, uniqueEmail, type TestService } from '../support/harness';
import { rememberSecret } from '../support/log-capture';
import { LoginSession } from '../support/login-flow';

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
  authorize: new Set(),
  userinfo: new Set(),
  'well-known': new Set(),
};
async function as(name: FunctionName, run: () => Promise<unknown>): Promise<void> {
  service.dynamodb.reset();
  await run();
  for (const operation of service.dynamodb.operations()) observed[name].add(operation);
}

it('every operation uses exactly the table actions its function declares', async () => {
  const send = (user: string, clientId = 'local-web', authType = 'sms') =>
    service.post('/idp/v1/otp/send', { auth_type: authType, client_id: clientId, redirect_uri: REDIRECT_URI, user_id: user });
  const exchange = (user: string, code: string, clientId = 'local-web') =>
    service.post('/idp/v1/account/token', {
      grant_type: 'authorization_code',
      code,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      user_id: user,
    });

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
  // userinfo: an opaque token by its hash.
  await as('userinfo', () => service.get('/idp/v1/account/userinfo', { Authorization: `Bearer ${viaPage}` }));

  await as('well-known', () => service.get('/.well-known/jwks.json'));
  await as('well-known', () => service.get('/.well-known/oauth-authorization-server'));

  for (const name of Object.keys(FUNCTIONS) as FunctionName[]) {
    expect({ name, actions: [...observed[name]].sort() }).toEqual({ name, actions: [...FUNCTIONS[name].table].sort() });
  }
});
