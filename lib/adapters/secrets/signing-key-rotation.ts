/**
 * The Secrets Manager rotation function of the signing key set (the four-step protocol:
 * createSecret, setSecret, testSecret, finishSecret). Each rotation is one step of
 * lib/keys/signing-keys.ts `rotateKeySet`; the first one (right after deployment, when the
 * secret still holds CloudFormation's random placeholder) creates the initial set instead.
 *
 * finishSecret also publishes the new set's public half (`publicKeySet`) to the verification
 * secret, the only key material the well-known and introspection functions may read. It does so
 * even when the version is already current, so a retried finishSecret repairs a failed publish.
 *
 * Idempotent per step, as Secrets Manager requires: it may call a step more than once.
 */
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  UpdateSecretVersionStageCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { initialKeySet, loadSigningKeys, parseStoredKeySet, publicKeySet, rotateKeySet, type StoredKeySet } from '../../keys/signing-keys';
import type { Log } from '../../platform/ports';
import { parseSecretJson } from '../aws-failures';

export interface RotationEvent {
  readonly SecretId: string;
  readonly ClientRequestToken: string;
  readonly Step: 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';
}

export class SigningKeyRotation {
  constructor(
    private readonly client: SecretsManagerClient,
    private readonly log: Log,
    /** The secret the public key set is published to. */
    private readonly verificationSecretId: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async run(event: RotationEvent): Promise<void> {
    const description = await this.client.send(new DescribeSecretCommand({ SecretId: event.SecretId }));
    if (description.RotationEnabled !== true) throw new Error('Rotation is not enabled for this secret');
    const stages = description.VersionIdsToStages?.[event.ClientRequestToken];
    if (stages === undefined) throw new Error('The rotation token is not a version of this secret');
    if (stages.includes('AWSCURRENT')) {
      this.log.info('rotation step skipped: version already current', { step: event.Step });
      if (event.Step === 'finishSecret') await this.publishPublicKeys(event);
      return;
    }
    // As AWS's rotation template: only the version RotateSecret created may be worked on, or a
    // stray finishSecret could move AWSCURRENT back to an old version.
    if (!stages.includes('AWSPENDING')) throw new Error('The rotation token is not the AWSPENDING version of this secret');
    switch (event.Step) {
      case 'createSecret':
        return this.createSecret(event);
      case 'setSecret':
        // The key set lives only in this secret: there is no other system to update.
        return;
      case 'testSecret':
        await loadSigningKeys(await this.read(event.SecretId, { VersionId: event.ClientRequestToken, VersionStage: 'AWSPENDING' }));
        return;
      case 'finishSecret':
        return this.finishSecret(event, description.VersionIdsToStages ?? {});
    }
  }

  private async createSecret(event: RotationEvent): Promise<void> {
    try {
      await this.read(event.SecretId, { VersionId: event.ClientRequestToken, VersionStage: 'AWSPENDING' });
      this.log.info('rotation: pending version already exists');
      return;
    } catch (error) {
      if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    }
    const next = await this.nextKeySet(event.SecretId);
    await this.client.send(
      new PutSecretValueCommand({
        SecretId: event.SecretId,
        ClientRequestToken: event.ClientRequestToken,
        SecretString: JSON.stringify(next),
        VersionStages: ['AWSPENDING'],
      }),
    );
    this.log.info('rotation: pending key set created', { kids: next.keys.map((key) => `${key.status}:${key.kid}`) });
  }

  /**
   * The next key set. Only CloudFormation's placeholder (a generated string that is not a JSON
   * object with a `keys` list) is replaced by a fresh set; a damaged key set fails the rotation
   * (and its alarm) instead, because replacing it would break every outstanding token.
   */
  private async nextKeySet(secretId: string): Promise<StoredKeySet> {
    const { SecretString } = await this.client.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: 'AWSCURRENT' }));
    if (isPlaceholder(SecretString)) {
      this.log.info('rotation: no key set yet, creating the first one');
      return initialKeySet(this.now());
    }
    return rotateKeySet(parseStoredKeySet(parseSecretJson(SecretString ?? '', 'The current key set')), this.now());
  }

  private async finishSecret(event: RotationEvent, versions: Record<string, string[]>): Promise<void> {
    const currentVersion = Object.entries(versions).find(([, stages]) => stages.includes('AWSCURRENT'))?.[0];
    if (currentVersion === event.ClientRequestToken) return;
    await this.client.send(
      new UpdateSecretVersionStageCommand({
        SecretId: event.SecretId,
        VersionStage: 'AWSCURRENT',
        MoveToVersionId: event.ClientRequestToken,
        ...(currentVersion === undefined ? {} : { RemoveFromVersionId: currentVersion }),
      }),
    );
    this.log.info('rotation: new key set is current');
    await this.publishPublicKeys(event);
  }

  /** Writes the current set's public half to the verification secret, under the rotation's token (idempotent). */
  private async publishPublicKeys(event: RotationEvent): Promise<void> {
    if (this.verificationSecretId === '') throw new Error('No verification secret configured for the public key set');
    const published = publicKeySet(parseStoredKeySet(await this.read(event.SecretId, { VersionStage: 'AWSCURRENT' })));
    await this.client.send(
      new PutSecretValueCommand({
        SecretId: this.verificationSecretId,
        ClientRequestToken: event.ClientRequestToken,
        SecretString: JSON.stringify(published),
      }),
    );
    this.log.info('rotation: public key set published', { kids: published.keys.map((key) => key.kid) });
  }

  private async read(secretId: string, version: { VersionId?: string; VersionStage: string }): Promise<unknown> {
    const { SecretString } = await this.client.send(new GetSecretValueCommand({ SecretId: secretId, ...version }));
    if (SecretString === undefined) throw new Error('The secret has no string value');
    return parseSecretJson(SecretString, 'The secret value');
  }
}

function isPlaceholder(value: string | undefined): boolean {
  if (value === undefined || value === '') return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return true;
  }
  return (
    parsed === null ||
    typeof parsed !== 'object' ||
    !Array.isArray((parsed as { keys?: unknown }).keys) ||
    (parsed as { keys: unknown[] }).keys.length === 0
  );
}
