/**
 * Environments are tenants: a client allowed in two of them gets codes, counters and tokens that
 * never cross from one into the other (regression: the code slot had no environment, and a JWT
 * carried none, so either environment's resource servers accepted the other's tokens).
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import {
  exchangeBody,
  LOCAL_API_KEY,
  SEND_PATH,
  sendBody,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  type TestService,
} from '../support/harness';

const SECOND_API_KEY = 'second-environment-api-key';
const SECOND_AUDIENCE = 'https://second.example.com/api';
const INTROSPECT = '/idp/v1/account/introspect';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    config: (config) => {
      const local = config.environments[0]!;
      const backend = config.clients.find((client) => client.id === 'local-backend')!;
      return {
        ...config,
        environments: [...config.environments, { ...local, id: 'second' }],
        clients: [
          ...config.clients.map((client) =>
            client.id === 'local-web' || client.id === 'local-opaque'
              ? {
                  ...client,
                  environments: ['local', 'second'],
                  accessToken: { ...client.accessToken, audienceByEnvironment: { second: SECOND_AUDIENCE } },
                }
              : client,
          ),
          // A resource server of the second environment only, with its own key.
          {
            ...backend,
            id: 'second-backend',
            environments: ['second'],
            apiKeySha256: [createHash('sha256').update(SECOND_API_KEY).digest('hex')],
          },
        ],
      };
    },
  });
});
afterAll(async () => service.stop());

const inEnvironment = (path: string, environment: string) => (environment === 'local' ? path : `${path}?env_id=${environment}`);

async function send(user: string, environment: string, clientId = 'local-web'): Promise<string> {
  expect((await service.post(inEnvironment(SEND_PATH, environment), sendBody(user, clientId))).status).toBe(200);
  return service.latestCode(user);
}

async function exchange(user: string, code: string, environment: string, clientId = 'local-web') {
  return service.post(inEnvironment(TOKEN_PATH, environment), exchangeBody(user, code, clientId));
}

async function introspect(token: string, apiKey: string) {
  return (await service.postForm(INTROSPECT, { token }, { Authorization: `Bearer ${apiKey}` })).body;
}

describe('codes and counters', () => {
  it('keeps one live code per environment: a send in one does not replace the other’s', async () => {
    const user = uniqueEmail('two-codes');
    const inLocal = await send(user, 'local');
    const inSecond = await send(user, 'second');
    expect((await exchange(user, inLocal, 'local')).status).toBe(200);
    expect((await exchange(user, inSecond, 'second')).status).toBe(200);
  });

  it('never charges a wrong guess in one environment to the other’s code', async () => {
    const user = uniqueEmail('tries');
    const inLocal = await send(user, 'local');
    await send(user, 'second');
    const wrong = inLocal === '000000' ? '000001' : '000000';
    for (let index = 0; index < 3; index += 1) expect((await exchange(user, wrong, 'second')).status).toBe(400);
    expect((await exchange(user, inLocal, 'local')).status).toBe(200);
  });

  it('keeps the per-user attempt limit per environment', async () => {
    const user = uniqueEmail('limits');
    for (let index = 0; index < 6; index += 1) await exchange(user, '123456', 'second');
    expect((await exchange(user, '123456', 'second')).status).toBe(429);
    expect((await exchange(user, await send(user, 'local'), 'local')).status).toBe(200);
  });
});

describe('tokens and introspection', () => {
  async function tokenIn(environment: string, clientId: string): Promise<string> {
    const response = await service.signIn(uniqueEmail(`token-${environment}`), { clientId, environmentId: environment });
    expect(response.status).toBe(200);
    return response.body.access_token as string;
  }

  it('binds a JWT to its environment (env_id) and to the environment’s audience', async () => {
    const jwks = createRemoteJWKSet(new URL(`${service.url}/.well-known/jwks.json`));
    const options = { issuer: service.url, currentDate: new Date(service.clock.now()) };
    const local = await jwtVerify(await tokenIn('local', 'local-web'), jwks, { ...options, audience: 'http://127.0.0.1:3000/api' });
    expect(local.payload).toMatchObject({ env_id: 'local', aud: 'http://127.0.0.1:3000/api' });
    const second = await tokenIn('second', 'local-web');
    expect((await jwtVerify(second, jwks, { ...options, audience: SECOND_AUDIENCE })).payload).toMatchObject({
      env_id: 'second',
      aud: SECOND_AUDIENCE,
    });
    // A resource server of the first environment, verifying locally, refuses the second's token.
    await expect(jwtVerify(second, jwks, { ...options, audience: 'http://127.0.0.1:3000/api' })).rejects.toThrow(/aud/);
  });

  it.each(['local-web', 'local-opaque'])('answers introspection (%s) only for callers of the token’s environment', async (clientId) => {
    const local = await tokenIn('local', clientId);
    const second = await tokenIn('second', clientId);
    expect(await introspect(local, LOCAL_API_KEY)).toMatchObject({ active: true, client_id: clientId });
    expect(await introspect(second, LOCAL_API_KEY)).toEqual({ active: false });
    expect(await introspect(second, SECOND_API_KEY)).toMatchObject({ active: true, client_id: clientId, aud: SECOND_AUDIENCE });
    expect(await introspect(local, SECOND_API_KEY)).toEqual({ active: false });
  });
});
