/**
 * Secrets on AWS: Secrets Manager secrets, read once per container and max age (the caller
 * caches; see lib/deps/secrets.ts). The HMAC secret is the string CloudFormation generated at deploy time; the
 * signing key set and its public half are the JSON the rotation function maintains.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { clientConfig, SECRETS_MANAGER_CLIENT_SETTINGS, type AwsClientOptions } from '../../platform/aws';
import { traced } from '../../platform/tracing';
import { dependencyFailure, parseSecretJson } from '../aws-failures';
import type { SecretSource } from '../../keys/ports';

export class SecretsManagerSecretSource implements SecretSource {
  constructor(
    private readonly client: SecretsManagerClient,
    private readonly arns: { readonly hmacSecret: string; readonly signingKeys: string; readonly verificationKeys: string },
  ) {}

  /** `client` points the SDK client elsewhere (tests); on AWS it is left empty. */
  static create(
    arns: { hmacSecret: string; signingKeys: string; verificationKeys: string },
    client: AwsClientOptions = {},
  ): SecretsManagerSecretSource {
    return new SecretsManagerSecretSource(
      traced(new SecretsManagerClient({ ...SECRETS_MANAGER_CLIENT_SETTINGS, ...clientConfig(client) })),
      arns,
    );
  }

  async hmacSecret(): Promise<Buffer> {
    return Buffer.from(await this.read(this.arns.hmacSecret), 'utf8');
  }

  async signingKeySet(): Promise<unknown> {
    return parseSecretJson(await this.read(this.arns.signingKeys), 'The signing key set');
  }

  async verificationKeySet(): Promise<unknown> {
    return parseSecretJson(await this.read(this.arns.verificationKeys), 'The public key set');
  }

  private async read(secretId: string): Promise<string> {
    // A function is only given the ARNs of the secrets it may read (least privilege).
    if (secretId === '') throw new Error('This function has no ARN configured for the secret it tried to read');
    let value: string | undefined;
    try {
      ({ SecretString: value } = await this.client.send(new GetSecretValueCommand({ SecretId: secretId })));
    } catch (error) {
      throw dependencyFailure(error, 'Secrets Manager GetSecretValue');
    }
    if (value === undefined) throw new Error(`Secret ${secretId} has no string value`);
    return value;
  }
}
