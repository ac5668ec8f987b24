/**
 * Budgets beyond DynamoDB: configuration and keys are loaded once per container, never per
 * request. The service reads its secrets from the Secrets Manager stand-in through the production
 * adapter, and the stand-in counts what it was asked.
 */
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { SecretsManagerSecretSource } from '../../../lib/adapters/secrets/secrets-manager-source';
import { initialKeySet, publicKeySet } from '../../../lib/keys/signing-keys';
import { otpSendDeps } from '../../../lib/deps/otp-send';
import { REDIRECT_URI, startTestService, uniqueEmail, type TestService } from '../../support/harness';
import { startSecretsManagerLocal, type SecretsManagerLocal } from '../../support/secrets-manager-local';

let secretsManager: SecretsManagerLocal;
let service: TestService;
beforeAll(async () => {
  secretsManager = await startSecretsManagerLocal();
  const client = secretsManager.client();
  const hmac = await client.send(new CreateSecretCommand({ Name: 'identity/hmac', SecretString: 'x'.repeat(64) }));
  const set = await initialKeySet(new Date());
  const keys = await client.send(new CreateSecretCommand({ Name: 'identity/signing-keys', SecretString: JSON.stringify(set) }));
  const published = await client.send(
    new CreateSecretCommand({ Name: 'identity/verification-keys', SecretString: JSON.stringify(publicKeySet(set)) }),
  );
  service = await startTestService({
    secrets: new SecretsManagerSecretSource(client, { hmacSecret: hmac.ARN!, signingKeys: keys.ARN!, verificationKeys: published.ARN! }),
  });
});
afterAll(async () => {
  await service.stop();
  await secretsManager.stop();
});

it('reads each secret once, however many requests follow', async () => {
  const before = secretsManager.operations().length;
  for (let index = 0; index < 3; index += 1) {
    expect((await service.signIn(uniqueEmail('once'))).status).toBe(200);
    expect((await service.get('/.well-known/jwks.json')).status).toBe(200);
  }
  // The HMAC key and the signing keys (send, token) and the public keys (JWKS): once each.
  expect(secretsManager.operations().slice(before)).toEqual(['GetSecretValue', 'GetSecretValue', 'GetSecretValue']);
});

it('reads a secret again once its maximum age has passed, so a rotated or revoked key stops being used without recycling the function', async () => {
  const aged = await startTestService({ secrets: service.deps.secrets, secretsMaxAgeSeconds: 300 });
  try {
    const sendAndCount = async () => {
      const before = secretsManager.operations().length;
      await aged.post('/idp/v1/otp/send', {
        auth_type: 'email',
        client_id: 'local-web',
        redirect_uri: REDIRECT_URI,
        user_id: uniqueEmail('aged'),
      });
      return secretsManager.operations().length - before;
    };
    expect(await sendAndCount()).toBe(1);
    aged.clock.advanceSeconds(299);
    expect(await sendAndCount()).toBe(0);
    aged.clock.advanceSeconds(1);
    expect(await sendAndCount()).toBe(1);
    expect(await sendAndCount()).toBe(0);
  } finally {
    await aged.stop();
  }
});

it('builds a Lambda container dependencies (configuration included) once, on first use', () => {
  const saved = { ...process.env };
  Object.assign(process.env, { IDP_CONFIG_FILE: 'config/local.json', TABLE_NAME: 't', LOCAL_SECRETS_DIR: '.local/test-secrets' });
  try {
    expect(otpSendDeps()).toBe(otpSendDeps());
  } finally {
    process.env = saved;
  }
});
