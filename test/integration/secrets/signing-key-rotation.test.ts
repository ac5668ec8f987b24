/**
 * The signing-key rotation function, driven as Secrets Manager drives it: RotateSecret first
 * creates a version id with the AWSPENDING label and no value, then invokes the function once per
 * step (createSecret, setSecret, testSecret, finishSecret) with that id as ClientRequestToken.
 * A real SDK client talks to the in-memory stand-in (test/support/secrets-manager-local.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  PutSecretValueCommand,
  UpdateSecretVersionStageCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { SignJWT, createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import { SigningKeyRotation, type RotationEvent } from '../../../lib/adapters/secrets/signing-key-rotation';
import {
  loadSigningKeys,
  loadVerificationKeys,
  parseStoredKeySet,
  publicKeySet,
  type SigningKeys,
  type StoredKeySet,
} from '../../../lib/keys/signing-keys';
import { logger } from '../../../lib/platform/log';
import { capturedLogs, rememberSecret } from '../../support/log-capture';
import { startSecretsManagerLocal, type SecretsManagerLocal } from '../../support/secrets-manager-local';

const SECRET_NAME = 'identity-test/signing-keys';
const NOW = new Date(Date.UTC(2026, 0, 15, 9, 30, 0));

let sm: SecretsManagerLocal;
let client: SecretsManagerClient;
let rotation: SigningKeyRotation;
let arn: string;
let placeholderVersion: string;
let verificationArn: string;

const lambda = (event: RotationEvent): Promise<void> => rotation.run(event);

beforeEach(async () => {
  sm = await startSecretsManagerLocal();
  client = sm.client();
  const published = await client.send(
    new CreateSecretCommand({ Name: `${SECRET_NAME}-public`, SecretString: randomBytes(24).toString('base64') }),
  );
  verificationArn = published.ARN!;
  rotation = new SigningKeyRotation(client, logger, verificationArn, () => NOW);
  // What CloudFormation deploys: a generated random string, not a key set.
  const created = await client.send(new CreateSecretCommand({ Name: SECRET_NAME, SecretString: randomBytes(24).toString('base64') }));
  arn = created.ARN!;
  placeholderVersion = created.VersionId!;
  sm.enableRotation(SECRET_NAME);
});

afterEach(async () => {
  await sm.stop();
});

async function secretString(options: { VersionId?: string; VersionStage?: string } = {}): Promise<string> {
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn, ...options }));
  return SecretString!;
}

/** The AWSCURRENT key set; its private keys are remembered so the log check catches a leak. */
/** What the verifying functions read: the verification secret's current value. */
async function publishedSet(): Promise<unknown> {
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: verificationArn }));
  return JSON.parse(SecretString!) as unknown;
}

async function currentSet(): Promise<StoredKeySet> {
  const set = parseStoredKeySet(JSON.parse(await secretString()));
  for (const key of set.keys) rememberSecret(key.privateJwk.d);
  return set;
}

const ALGORITHMS = ['ES256', 'RS256'] as const;
type Algorithm = (typeof ALGORITHMS)[number];

/** The keys of one algorithm's group. */
function groupOf(set: StoredKeySet, alg: Algorithm): StoredKeySet['keys'] {
  return set.keys.filter((key) => key.alg === alg);
}

function kidOf(set: StoredKeySet, status: 'next' | 'current' | 'previous', alg: Algorithm = 'ES256'): string | undefined {
  return groupOf(set, alg).find((key) => key.status === status)?.kid;
}

function signWith(keys: SigningKeys, alg: Algorithm = 'ES256'): Promise<string> {
  const signer = keys.current.get(alg)!;
  return new SignJWT({ scope: 'openid' })
    .setProtectedHeader({ alg, kid: signer.kid, typ: 'at+jwt' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(signer.key);
}

function verifyWith(jwks: { readonly keys: readonly JWK[] }, token: string) {
  return jwtVerify(token, createLocalJWKSet({ keys: [...jwks.keys] }));
}

/** Labels by version, labelled versions only (what DescribeSecret lists). */
function labelled(): Record<string, string[]> {
  return Object.fromEntries(Object.entries(sm.versions(SECRET_NAME)).filter(([, stages]) => stages.length > 0));
}

describe('a full rotation, as RotateSecret runs it', () => {
  it('replaces the CloudFormation placeholder with a first key set: one current key, one next key, for each algorithm', async () => {
    const token = await sm.rotate(SECRET_NAME, lambda);

    const set = await currentSet();
    for (const alg of ALGORITHMS)
      expect(
        groupOf(set, alg)
          .map((key) => key.status)
          .sort(),
      ).toEqual(['current', 'next']);
    expect(labelled()).toEqual({
      [placeholderVersion]: ['AWSPREVIOUS'],
      [token]: expect.arrayContaining(['AWSCURRENT']),
    });
    const loaded = await loadSigningKeys(JSON.parse(await secretString()));
    for (const alg of ALGORITHMS) expect(loaded.current.get(alg)?.kid).toBe(kidOf(set, 'current', alg));
    const published = await loadVerificationKeys(await publishedSet());
    expect(published.jwks.keys.map((jwk) => jwk.kid).sort()).toEqual(set.keys.map((key) => key.kid).sort());
  });

  it('publishes exactly the public half of the current set after every rotation, never a private key', async () => {
    for (let rotationNumber = 0; rotationNumber < 3; rotationNumber += 1) {
      await sm.rotate(SECRET_NAME, lambda);
      const published = await publishedSet();
      expect(published).toEqual(publicKeySet(await currentSet()));
      expect(JSON.stringify(published)).not.toContain('"d"');
    }
  });

  it('publishes on a retried finishSecret when the first publish failed after the stage moved', async () => {
    // The first attempt's publish fails (here: a secret that does not exist), after AWSCURRENT moved.
    const failing = new SigningKeyRotation(client, logger, 'identity-test/missing', () => NOW);
    const token = sm.startRotation(SECRET_NAME);
    for (const step of ['createSecret', 'setSecret', 'testSecret'] as const)
      await failing.run({ SecretId: arn, ClientRequestToken: token, Step: step });
    await expect(failing.run({ SecretId: arn, ClientRequestToken: token, Step: 'finishSecret' })).rejects.toThrow();
    expect(labelled()[token]).toContain('AWSCURRENT');

    // Secrets Manager retries the step: the version is current, and the public set is published now.
    await rotation.run({ SecretId: arn, ClientRequestToken: token, Step: 'finishSecret' });
    expect(await publishedSet()).toEqual(publicKeySet(await currentSet()));
  });

  it('on the second rotation promotes next to current, demotes current to previous and adds a next', async () => {
    await sm.rotate(SECRET_NAME, lambda);
    const first = await currentSet();

    const token = await sm.rotate(SECRET_NAME, lambda);

    const second = await currentSet();
    for (const alg of ALGORITHMS) {
      expect(groupOf(second, alg)).toHaveLength(3);
      expect(groupOf(second, alg).filter((key) => key.status === 'current')).toHaveLength(1);
      expect(kidOf(second, 'current', alg)).toBe(kidOf(first, 'next', alg));
      expect(kidOf(second, 'previous', alg)).toBe(kidOf(first, 'current', alg));
      expect(first.keys.map((key) => key.kid)).not.toContain(kidOf(second, 'next', alg));
    }
    expect(labelled()[token]).toContain('AWSCURRENT');
  });

  it('on the third and later rotations drops the oldest key: never more than three keys', async () => {
    await sm.rotate(SECRET_NAME, lambda);
    const first = await currentSet();
    await sm.rotate(SECRET_NAME, lambda);
    const second = await currentSet();

    await sm.rotate(SECRET_NAME, lambda);
    const third = await currentSet();

    for (const alg of ALGORITHMS) {
      expect(third.keys.map((key) => key.kid)).not.toContain(kidOf(first, 'current', alg));
      expect(kidOf(third, 'previous', alg)).toBe(kidOf(second, 'current', alg));
      expect(kidOf(third, 'current', alg)).toBe(kidOf(second, 'next', alg));
    }
    for (let rotations = 0; rotations < 3; rotations += 1) {
      await sm.rotate(SECRET_NAME, lambda);
      const set = await currentSet();
      for (const alg of ALGORITHMS)
        expect(
          groupOf(set, alg)
            .map((key) => key.status)
            .sort(),
        ).toEqual(['current', 'next', 'previous']);
    }
    // Exactly one version is current and one previous; the older ones are deprecated.
    const stages = Object.values(labelled()).flat();
    expect(stages.filter((stage) => stage === 'AWSCURRENT')).toHaveLength(1);
    expect(stages.filter((stage) => stage === 'AWSPREVIOUS')).toHaveLength(1);
  });

  it.each(ALGORITHMS)(
    'keeps every %s token verifiable across one rotation, in both directions (the rotation safety property)',
    async (alg) => {
      await sm.rotate(SECRET_NAME, lambda);
      const before = await loadSigningKeys(await currentSet());
      const jwksBefore = (await loadVerificationKeys(await publishedSet())).jwks;
      const signedBefore = await signWith(before, alg);

      await sm.rotate(SECRET_NAME, lambda);
      const after = await loadSigningKeys(await currentSet());
      const jwksAfter = (await loadVerificationKeys(await publishedSet())).jwks;
      const signedAfter = await signWith(after, alg);

      // A token signed before the rotation verifies with the new JWKS (its key is now previous)...
      await expect(verifyWith(jwksAfter, signedBefore)).resolves.toMatchObject({
        protectedHeader: { kid: before.current.get(alg)?.kid, alg },
      });
      // ...and a verifier still caching the old JWKS accepts the new key (it was published as next).
      await expect(verifyWith(jwksBefore, signedAfter)).resolves.toMatchObject({
        protectedHeader: { kid: after.current.get(alg)?.kid, alg },
      });

      // The bound of the property: two rotations later the first key is gone, which is why the
      // rotation period must exceed the longest token lifetime plus the JWKS cache time.
      await sm.rotate(SECRET_NAME, lambda);
      const jwksLater = (await loadVerificationKeys(await publishedSet())).jwks;
      await expect(verifyWith(jwksLater, signedBefore)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    },
  );
});

describe('each step on its own', () => {
  it('is idempotent: repeating any step changes nothing', async () => {
    await sm.rotate(SECRET_NAME, lambda);
    const token = sm.startRotation(SECRET_NAME);
    const step = (Step: RotationEvent['Step']) => lambda({ SecretId: arn, ClientRequestToken: token, Step });

    await step('createSecret');
    const pending = await secretString({ VersionId: token, VersionStage: 'AWSPENDING' });
    const versionsAfterCreate = sm.versions(SECRET_NAME);
    await step('createSecret');

    expect(await secretString({ VersionId: token, VersionStage: 'AWSPENDING' })).toBe(pending);
    expect(sm.versions(SECRET_NAME)).toEqual(versionsAfterCreate);

    await step('setSecret');
    await step('setSecret');
    await step('testSecret');
    await step('testSecret');
    await step('finishSecret');
    const versionsAfterFinish = sm.versions(SECRET_NAME);
    await step('finishSecret');
    // Secrets Manager may also retry an earlier step once the version is current: a no-op.
    await step('createSecret');

    expect(sm.versions(SECRET_NAME)).toEqual(versionsAfterFinish);
    expect(versionsAfterFinish[token]).toContain('AWSCURRENT');
    expect(await secretString()).toBe(pending);
  });

  it('refuses a token that is not a version of the secret', async () => {
    const step = rotation.run({ SecretId: arn, ClientRequestToken: randomUUID(), Step: 'createSecret' });

    await expect(step).rejects.toThrow('The rotation token is not a version of this secret');
    expect(Object.keys(sm.versions(SECRET_NAME))).toEqual([placeholderVersion]);
  });

  it('refuses to run when rotation is not enabled for the secret', async () => {
    const { ARN } = await client.send(new CreateSecretCommand({ Name: 'identity-test/not-rotated', SecretString: 'placeholder' }));
    const token = sm.startRotation('identity-test/not-rotated');

    await expect(rotation.run({ SecretId: ARN!, ClientRequestToken: token, Step: 'createSecret' })).rejects.toThrow(
      'Rotation is not enabled for this secret',
    );
    await expect(client.send(new GetSecretValueCommand({ SecretId: ARN, VersionId: token }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  // AWS's rotation template refuses any token whose version is not AWSPENDING ("Secret version
  // %s not set as AWSPENDING for rotation"). Without that check, a finishSecret invoked with an
  // older version's id moves AWSCURRENT back to it: a silent rollback of the key set.
  it('refuses a token whose version is not AWSPENDING (bug: finishSecret rolls AWSCURRENT back)', async () => {
    const token = await sm.rotate(SECRET_NAME, lambda);

    const outcome = await rotation.run({ SecretId: arn, ClientRequestToken: placeholderVersion, Step: 'finishSecret' }).then(
      () => 'resolved',
      () => 'rejected',
    );

    // Version ids, not values: a failure message must not print a private key.
    expect(labelled()).toEqual({ [token]: expect.arrayContaining(['AWSCURRENT']), [placeholderVersion]: ['AWSPREVIOUS'] });
    expect(outcome).toBe('rejected');
  });

  it('testSecret fails when the pending value is not JSON, without quoting it (it may be key material), and nothing becomes current', async () => {
    await sm.rotate(SECRET_NAME, lambda);
    const current = await secretString();
    const garbage = sm.startRotation(SECRET_NAME);
    await client.send(
      new PutSecretValueCommand({
        SecretId: arn,
        ClientRequestToken: garbage,
        SecretString: '{"d": "SECRETMATERIAL',
        VersionStages: ['AWSPENDING'],
      }),
    );

    const failure = await rotation.run({ SecretId: arn, ClientRequestToken: garbage, Step: 'testSecret' }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toBe('The secret value is not valid JSON');
    expect(await secretString()).toBe(current);
  });

  it('fails the rotation of a damaged key set instead of replacing it (regression: any unparseable set was taken for the placeholder)', async () => {
    await sm.rotate(SECRET_NAME, lambda);
    const damaged = JSON.stringify({ keys: [{ kid: 'x', status: 'current' }] });
    const token = sm.startRotation(SECRET_NAME);
    await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: damaged, VersionStages: ['AWSCURRENT'] }));
    const failure = await rotation.run({ SecretId: arn, ClientRequestToken: token, Step: 'createSecret' }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(/^Invalid signing key set/);
    expect(await secretString()).toBe(damaged);
  });

  it('testSecret fails when the pending value is JSON but not a valid key set', async () => {
    await sm.rotate(SECRET_NAME, lambda);
    const set = await currentSet();
    const token = sm.startRotation(SECRET_NAME);
    const invalid = { keys: set.keys.map((key) => ({ ...key, status: 'current' })) };
    await client.send(
      new PutSecretValueCommand({
        SecretId: arn,
        ClientRequestToken: token,
        SecretString: JSON.stringify(invalid),
        VersionStages: ['AWSPENDING'],
      }),
    );

    await expect(rotation.run({ SecretId: arn, ClientRequestToken: token, Step: 'testSecret' })).rejects.toThrow(
      /^Invalid signing key set: .*exactly one key of each algorithm must be current/s,
    );
  });

  it('testSecret fails when the pending version has no value yet (createSecret did not run)', async () => {
    const token = sm.startRotation(SECRET_NAME);

    await expect(rotation.run({ SecretId: arn, ClientRequestToken: token, Step: 'testSecret' })).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });
});

// The rotation's correctness rests on these rules of the real service, so the stand-in is held
// to them here, through the same SDK client.
describe('the Secrets Manager stand-in', () => {
  it('answers a missing secret or version with ResourceNotFoundException, as the SDK models it', async () => {
    await expect(client.send(new GetSecretValueCommand({ SecretId: 'identity-test/missing' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(client.send(new GetSecretValueCommand({ SecretId: arn, VersionStage: 'AWSPENDING' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it('PutSecretValue makes the new version current, leaves the old one previous, and is idempotent per token', async () => {
    const token = randomUUID();
    const put = (SecretString: string) =>
      client.send(new PutSecretValueCommand({ SecretId: arn, ClientRequestToken: token, SecretString }));

    await put('v2');
    await put('v2');

    expect(labelled()).toEqual({ [placeholderVersion]: ['AWSPREVIOUS'], [token]: ['AWSCURRENT'] });
    await expect(put('v3')).rejects.toMatchObject({ name: 'ResourceExistsException' });
  });

  it('UpdateSecretVersionStage moves AWSCURRENT only from the version that holds it', async () => {
    const token = randomUUID();
    await client.send(
      new PutSecretValueCommand({ SecretId: arn, ClientRequestToken: token, SecretString: 'v2', VersionStages: ['AWSPENDING'] }),
    );
    const move = (RemoveFromVersionId?: string) =>
      client.send(
        new UpdateSecretVersionStageCommand({ SecretId: arn, VersionStage: 'AWSCURRENT', MoveToVersionId: token, RemoveFromVersionId }),
      );

    await expect(move()).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(move(token)).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await move(placeholderVersion);

    expect(labelled()).toEqual({ [placeholderVersion]: ['AWSPREVIOUS'], [token]: ['AWSPENDING', 'AWSCURRENT'] });
  });

  it('refuses a new rotation while one is unfinished, and any operation it does not implement', async () => {
    sm.startRotation(SECRET_NAME);

    expect(() => sm.startRotation(SECRET_NAME)).toThrow('A previous rotation isn’t complete');
    await expect(client.send(new ListSecretsCommand({}))).rejects.toMatchObject({ name: 'UnknownOperationException' });
  });
});

describe('logs', () => {
  it('name the kids of a new key set and never contain private key material', async () => {
    await sm.rotate(SECRET_NAME, lambda);
    await sm.rotate(SECRET_NAME, lambda);
    const set = await currentSet();

    const logs = capturedLogs().join('\n');
    for (const key of set.keys) expect(logs).toContain(`${key.status}:${key.kid}`);
    expect(logs).not.toContain('"d":');
    for (const key of set.keys) expect(logs).not.toContain(key.privateJwk.d);
  });
});
