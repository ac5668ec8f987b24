/**
 * The typed client (client/): bodies as the API takes them, credentials as RFC 6749 and 6750 spell
 * them. Requests go to a fake `fetch` that records them; the service itself is exercised by
 * test/e2e/npm-start.test.ts.
 */
import { basicAuth, bearer, createIdentityClient, FORM } from '../../../client';

function recordingClient() {
  const requests: Array<{ method: string; url: string; contentType: string | null; authorization: string | null; body: string }> = [];
  const idp = createIdentityClient('http://127.0.0.1:3000/', {
    fetch: async (request: Request) => {
      requests.push({
        method: request.method,
        url: request.url,
        contentType: request.headers.get('content-type'),
        authorization: request.headers.get('authorization'),
        body: await request.text(),
      });
      return new Response('{"active":false}', { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  return { idp, requests };
}

it('sends JSON by default, and a form with FORM (regression: in a test sandbox the form went out as JSON), leaving out absent fields', async () => {
  const { idp, requests } = recordingClient();
  const body = {
    grant_type: 'authorization_code' as const,
    code: '012345',
    client_id: 'local-web',
    redirect_uri: 'http://localhost:3000/callback',
    user_id: 'a@example.com',
  };
  await idp.POST('/idp/v1/account/token', { body });
  await idp.POST('/idp/v1/account/token', { body: { ...body, code_verifier: undefined }, headers: FORM });
  expect(requests).toEqual([
    expect.objectContaining({
      url: 'http://127.0.0.1:3000/idp/v1/account/token',
      contentType: 'application/json',
      body: JSON.stringify(body),
    }),
    expect.objectContaining({
      contentType: 'application/x-www-form-urlencoded',
      body: 'grant_type=authorization_code&code=012345&client_id=local-web&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fcallback&user_id=a%40example.com',
    }),
  ]);
});

it('spells client_secret_basic as RFC 6749 §2.3.1 says (form-urlencoded, then base64) and Bearer as RFC 6750 §2.1', async () => {
  const { idp, requests } = recordingClient();
  const answer = await idp.POST('/idp/v1/account/introspect', {
    body: { token: 't' },
    headers: { ...FORM, Authorization: basicAuth('a client', 'k:ey') },
  });
  expect(answer.data).toEqual({ active: false });
  expect(requests[0]?.authorization).toBe(`Basic ${Buffer.from('a+client:k%3Aey').toString('base64')}`);
  expect(bearer('local-dev-api-key')).toBe('Bearer local-dev-api-key');
});
