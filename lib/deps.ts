/**
 * The one place that picks concrete adapters. Everything built here lives for the container:
 * clients, configuration, and secrets (loaded on first use, then cached; a failed load is retried
 * by the next request rather than cached).
 */
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { loadServiceConfig, type ServiceConfig } from './config';
import { DynamoDbAttemptLimiter } from './adapters/dynamodb/attempt-limiter';
import { createDynamoDbClient } from './adapters/dynamodb/client';
import { DynamoDbCodeStore } from './adapters/dynamodb/code-store';
import { DynamoDbTokenStore } from './adapters/dynamodb/token-store';
import { FileSecretSource } from './adapters/secrets/file-secret-source';
import { SecretsManagerSecretSource } from './adapters/secrets/secrets-manager-source';
import { SesEmailSender } from './adapters/ses/email-sender';
import { SnsSmsSender } from './adapters/sns/sms-sender';
import { SmsVoiceV2VoiceCaller } from './adapters/voice/voice-caller';
import type { ExchangeCodeDeps } from './domain/exchange-code';
import { deriveHmacKeys, type HmacKeys } from './domain/hmac-keys';
import type { IntrospectDeps } from './domain/introspect-token';
import type { SendCodeDeps } from './domain/send-code';
import { loadSigningKeys } from './domain/signing-keys';
import { IdpError, TemporarilyUnavailableError } from './errors';
import { logger } from './log';
import { systemClock, type Clock, type Log, type SecretSource, type TokenStore } from './ports';

export interface Deps extends SendCodeDeps, ExchangeCodeDeps, IntrospectDeps {
  readonly tokens: TokenStore;
  readonly secrets: SecretSource;
  /** The configured issuer URL (ISSUER, else the stage file's `issuer`); see lib/http/issuer.ts. */
  readonly issuer: string | undefined;
}

/** Endpoints of local stand-ins. On AWS all are undefined and the SDK resolves the real ones. */
export interface LocalEndpoints {
  readonly dynamodb?: string | undefined;
  readonly ses?: string | undefined;
  readonly sns?: string | undefined;
  readonly smsVoice?: string | undefined;
}

export interface DepsOptions {
  readonly config: ServiceConfig;
  readonly tableName: string;
  readonly secrets: SecretSource;
  readonly clock?: Clock;
  readonly log?: Log;
  readonly endpoints?: LocalEndpoints;
  readonly region?: string;
  readonly credentials?: AwsCredentialIdentity;
  readonly issuer?: string | undefined;
}

/** Builds the dependencies from explicit options (tests, the local runtime). */
export function createDeps(options: DepsOptions): Deps {
  const endpoints = options.endpoints ?? {};
  const aws = (endpoint: string | undefined) => ({
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
  });
  const dynamodb = createDynamoDbClient(aws(endpoints.dynamodb));
  return {
    config: options.config,
    clock: options.clock ?? systemClock,
    log: options.log ?? logger,
    limiter: new DynamoDbAttemptLimiter(dynamodb, options.tableName),
    codes: new DynamoDbCodeStore(dynamodb, options.tableName),
    tokens: new DynamoDbTokenStore(dynamodb, options.tableName),
    email: SesEmailSender.create(aws(endpoints.ses)),
    sms: SnsSmsSender.create(aws(endpoints.sns)),
    voice: SmsVoiceV2VoiceCaller.create(aws(endpoints.smsVoice)),
    secrets: options.secrets,
    issuer: options.issuer ?? options.config.stage.issuer,
    hmacKeys: once(async () => deriveHmacKeys(await options.secrets.hmacSecret())),
    signingKeys: once(async () => {
      const raw = await options.secrets.signingKeySet();
      try {
        return await loadSigningKeys(raw);
      } catch (error) {
        // Right after a first deployment the secret holds a placeholder until the rotation
        // function has created the key set: a dependency not ready yet, not a client's fault.
        if (error instanceof IdpError) throw error;
        throw new TemporarilyUnavailableError({ detail: `signing keys: ${(error as Error).message.split(':')[0]}`, cause: error });
      }
    }),
  };
}

/**
 * The dependencies of a Lambda container, from its environment:
 * - IDP_CONFIG_FILE: the stage configuration (default: config.json beside the handler);
 * - TABLE_NAME: the DynamoDB table;
 * - HMAC_SECRET_ARN and SIGNING_KEYS_SECRET_ARN on AWS, or LOCAL_SECRETS_DIR locally (a
 *   function that uses only one of them is given only that one: the other is read lazily);
 * - ISSUER: the issuer URL;
 * - endpoints of local stand-ins, if any, through the SDK's own AWS_ENDPOINT_URL_<SERVICE>.
 */
export function depsFromEnvironment(env: NodeJS.ProcessEnv = process.env): Deps {
  return createDeps({
    config: loadServiceConfig(env),
    tableName: required(env, 'TABLE_NAME'),
    secrets: secretSourceOf(env),
    issuer: env.ISSUER === '' ? undefined : env.ISSUER,
  });
}

function secretSourceOf(env: NodeJS.ProcessEnv): SecretSource {
  if (env.LOCAL_SECRETS_DIR !== undefined) return new FileSecretSource(env.LOCAL_SECRETS_DIR);
  return SecretsManagerSecretSource.create({ hmacSecret: env.HMAC_SECRET_ARN ?? '', signingKeys: env.SIGNING_KEYS_SECRET_ARN ?? '' });
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new Error(`Missing environment variable ${name}`);
  return value;
}

/** The container's dependencies, built on first use (so importing a handler has no side effects). */
export const lambdaDeps: () => Deps = (() => {
  let deps: Deps | undefined;
  return () => (deps ??= depsFromEnvironment());
})();

/** Runs `load` once; a rejection is not cached, so the next caller tries again. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}

export type { ServiceConfig, HmacKeys };
