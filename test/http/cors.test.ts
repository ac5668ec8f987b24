/**
 * CORS on actual responses, where the stage configuration allows browsers (API Gateway answers
 * the preflight, see test/infra): the allowed origin is echoed on successes and errors alike.
 */
import { REDIRECT_URI, startTestService, uniqueEmail, type TestService } from '../support/harness';

const APP = 'https://app.example.com';
let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    config: (config) => ({
      ...config,
      deployment: { ...config.deployment, cors: { allowOrigins: [APP], paths: ['/idp/v1/otp/send', '/.well-known/jwks.json'] } },
    }),
  });
});
afterAll(async () => service.stop());

const send = (origin: string | undefined, body: Record<string, unknown>) =>
  service.post('/idp/v1/otp/send', body, { headers: origin === undefined ? {} : { Origin: origin } });
const valid = () => ({ auth_type: 'email', client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: uniqueEmail('cors') });

it('echoes an allowed origin on a success and on an error, and exposes Retry-After', async () => {
  const ok = await send(APP, valid());
  expect(ok.status).toBe(200);
  expect(ok.headers.get('access-control-allow-origin')).toBe(APP);
  expect(ok.headers.get('vary')).toBe('Origin');
  expect(ok.headers.get('access-control-expose-headers')).toBe('Retry-After, WWW-Authenticate');

  const bad = await send(APP, { ...valid(), user_id: 'nope' });
  expect(bad.status).toBe(400);
  expect(bad.headers.get('access-control-allow-origin')).toBe(APP);
});

it('does not allow another origin, nor a route the configuration leaves out', async () => {
  const other = await send('https://evil.example', valid());
  expect(other.headers.get('access-control-allow-origin')).toBeNull();
  expect(other.headers.get('vary')).toBe('Origin');

  const token = await service.post('/idp/v1/account/token', {}, { headers: { Origin: APP } });
  expect(token.headers.get('access-control-allow-origin')).toBeNull();

  const jwks = await fetch(`${service.url}/.well-known/jwks.json`, { headers: { Origin: APP } });
  expect(jwks.headers.get('access-control-allow-origin')).toBe(APP);
});

it('adds nothing where the configuration has no CORS, and sends a preflight to the function (405), as API Gateway does', async () => {
  const plain = await startTestService({ config: (config) => ({ ...config, deployment: { ...config.deployment, cors: undefined } }) });
  try {
    const response = await plain.post('/idp/v1/otp/send', valid(), { headers: { Origin: APP } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('vary')).toBeNull();
    const preflight = await fetch(`${plain.url}/idp/v1/otp/send`, { method: 'OPTIONS', headers: { Origin: APP } });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    await plain.stop();
  }
});

describe('the local stage (config/local.json): a page on http://127.0.0.1:3000 may call the API', () => {
  let local: TestService;
  beforeAll(async () => {
    local = await startTestService();
  });
  afterAll(async () => local.stop());

  const preflight = (path: string, origin: string) =>
    fetch(`${local.url}${path}`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });

  it.each(['http://127.0.0.1:3000', 'http://localhost:3000'])(
    'answers the preflight from %s with its origin (Fetch standard §3.2.3)',
    async (origin) => {
      const response = await preflight('/idp/v1/otp/send', origin);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-allow-methods')).toBe('POST,OPTIONS');
      expect(response.headers.get('access-control-allow-headers')).toBe('Content-Type,Authorization');
      expect(response.headers.get('access-control-max-age')).toBe('3600');
      expect(response.headers.get('vary')).toBe('Origin');
      expect(await response.text()).toBe('');
    },
  );

  it('answers another origin with the first allowed one, which the browser then refuses (API Gateway’s behaviour)', async () => {
    const response = await preflight('/idp/v1/account/token', 'https://evil.example');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:3000');
  });

  it('lets the allowed origin read an actual answer, errors included', async () => {
    const response = await local.post('/idp/v1/account/token', {}, { headers: { Origin: 'http://localhost:3000' } });
    expect(response.status).toBe(400);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });
});
