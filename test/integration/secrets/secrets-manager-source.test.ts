/**
 * The AWS secret source, with a real SDK client against the in-memory Secrets Manager
 * (test/support/secrets-manager-local.ts) and against an endpoint where nothing listens.
 */
import { CreateSecretCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsManagerSecretSource } from '../../../lib/adapters/secrets/secrets-manager-source';
import { initialKeySet, publicKeySet, rotateKeySet } from '../../../lib/keys/signing-keys';
import { TemporarilyUnavailableError } from '../../../lib/platform/errors';
import { startSecretsManagerLocal, type SecretsManagerLocal } from '../../support/secrets-manager-local';

const NOW = new Date(Date.UTC(2026, 0, 15, 9, 30, 0));
/** What CloudFormation's GenerateSecretString produces: printable ASCII, punctuation included. */
const HMAC_SECRET = 'q8#Vd!2rT%zL0^mN&pX4*sB7(wE9)yH1';

let sm: SecretsManagerLocal;
let client: SecretsManagerClient;

beforeEach(async () => {
  sm = await startSecretsManagerLocal();
  client = sm.client();
});

afterEach(async () => {
  await sm.stop();
});

async function createSecret(name: string, value: string): Promise<string> {
  const { ARN } = await client.send(new CreateSecretCommand({ Name: name, SecretString: value }));
  return ARN!;
}

describe('SecretsManagerSecretSource', () => {
  it('reads the HMAC secret as the UTF-8 bytes of the secret string', async () => {
    const hmacSecret = await createSecret('identity-test/hmac', HMAC_SECRET);
    const source = new SecretsManagerSecretSource(client, { hmacSecret, signingKeys: 'unused', verificationKeys: 'unused' });

    const bytes = await source.hmacSecret();

    expect(bytes).toEqual(Buffer.from(HMAC_SECRET, 'utf8'));
    expect(bytes).toHaveLength(32);
  });

  it('reads the signing key set as parsed JSON, from the AWSCURRENT version', async () => {
    const first = await initialKeySet(NOW);
    const signingKeys = await createSecret('identity-test/signing-keys', JSON.stringify(first));
    const source = new SecretsManagerSecretSource(client, { hmacSecret: 'unused', signingKeys, verificationKeys: 'unused' });
    expect(await source.signingKeySet()).toEqual(first);

    // A rotation's pending value is not read until it becomes current.
    const second = await rotateKeySet(first, NOW);
    await client.send(
      new PutSecretValueCommand({ SecretId: signingKeys, SecretString: JSON.stringify(second), VersionStages: ['AWSPENDING'] }),
    );
    expect(await source.signingKeySet()).toEqual(first);
    await client.send(new PutSecretValueCommand({ SecretId: signingKeys, SecretString: JSON.stringify(second) }));
    expect(await source.signingKeySet()).toEqual(second);
  });

  it('reads the public key set (the JWKS the verifying functions use) as parsed JSON', async () => {
    const published = publicKeySet(await initialKeySet(NOW));
    const verificationKeys = await createSecret('identity-test/verification-keys', JSON.stringify(published));
    const source = new SecretsManagerSecretSource(client, { hmacSecret: 'unused', signingKeys: 'unused', verificationKeys });
    expect(await source.verificationKeySet()).toEqual(published);
  });

  it('answers TemporarilyUnavailableError (503) when Secrets Manager cannot be reached', async () => {
    const unreachable = new SecretsManagerClient({
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    const source = new SecretsManagerSecretSource(unreachable, { hmacSecret: 'hmac', signingKeys: 'keys', verificationKeys: 'unused' });

    try {
      const failure = await source.hmacSecret().then(
        () => undefined,
        (error: unknown) => error,
      );

      expect(failure).toBeInstanceOf(TemporarilyUnavailableError);
      expect(failure).toMatchObject({ statusCode: 503, error: 'temporarily_unavailable' });
      await expect(source.signingKeySet()).rejects.toBeInstanceOf(TemporarilyUnavailableError);
    } finally {
      unreachable.destroy();
    }
  });

  // A secret that does not exist is a deployment bug (wrong ARN, secret deleted), not an outage:
  // 503 is for a dependency that is down and 500 for a bug. Answering 503 with
  // Retry-After: 1 makes every client retry a request that can never succeed.
  it('surfaces a missing secret as a server error, not as 503 (bug: ResourceNotFoundException mapped to TemporarilyUnavailableError)', async () => {
    const source = new SecretsManagerSecretSource(client, {
      hmacSecret: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:identity-test/missing-AbCdEf',
      signingKeys: 'unused',
      verificationKeys: 'unused',
    });

    const failure = await source.hmacSecret().then(
      () => undefined,
      (error: unknown) => error as Error & { cause?: Error },
    );

    expect(failure).toBeDefined();
    // Surfaced: the SDK's error name is kept, either as the error itself or as its cause.
    expect([failure?.name, failure?.cause?.name]).toContain('ResourceNotFoundException');
    expect(failure).not.toBeInstanceOf(TemporarilyUnavailableError);
  });
});
