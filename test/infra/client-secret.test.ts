/**
 * `npm run client-secret` (infra/client-secret.ts): a secret a client can present and the digest
 * the stage file stores, which then authenticates that client and no other.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { newClientSecret } from '../../infra/client-secret';
import { authenticateClient } from '../../lib/oauth/client-authentication';
import { buildServiceConfig, parseStageConfig } from '../../lib/platform/config';

it('is 256 random bits in base64url, and its digest is the SHA-256 hex the stage file takes', async () => {
  const first = newClientSecret();
  const second = newClientSecret();
  expect(first.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(first.secret).not.toBe(second.secret);
  expect(first.sha256).toMatch(/^[0-9a-f]{64}$/);

  const config = buildServiceConfig(
    parseStageConfig({
      defaultEnvironment: 'dev',
      environments: [{ id: 'dev', serviceName: 'Example', email: { sender: 'no-reply@example.test' } }],
      clients: [
        {
          id: 'server',
          environments: ['dev'],
          redirectUris: ['https://app.example.test/callback'],
          accessToken: { format: 'jwt', audience: 'api' },
          apiKeySha256: [first.sha256],
        },
      ],
    }),
  );
  // A secret is checked in memory: the assertion store and the clock are never reached.
  const deps = { config, clock: { now: () => 0 }, clientAssertions: { spend: () => Promise.reject(new Error('no assertion here')) } };
  const presented = (secret: string) => ({
    authorization: undefined,
    fields: { client_id: 'server', client_secret: secret },
    issuer: 'https://id.example.test',
  });
  expect((await authenticateClient(deps, presented(first.secret), 'token')).id).toBe('server');
  await expect(authenticateClient(deps, presented(second.secret), 'token')).rejects.toThrow('Client authentication failed.');
});

it('prints the secret and the digest of that secret', async () => {
  const root = resolve(__dirname, '../..');
  const { stdout } = await promisify(execFile)(process.execPath, [require.resolve('tsx/cli'), 'infra/client-secret.ts'], { cwd: root });
  const [, secret, , digest] = stdout
    .trim()
    .split('\n')
    .map((line) => line.trim());
  expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const { createHash } = await import('node:crypto');
  expect(digest).toBe(
    createHash('sha256')
      .update(secret as string)
      .digest('hex'),
  );
}, 30_000);
