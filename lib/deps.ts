/**
 * The one place that picks concrete adapters.
 *
 * - `createDeps(options)`: every dependency, from explicit options (tests, the local runtime).
 * - `otpSendDeps`, `tokenDeps`, `introspectDeps`, `wellKnownDeps`: a Lambda container's, from its
 *   environment, built on first use and kept for the container's life. Each is a separate export
 *   built from the pieces its function uses, and marked pure, so esbuild leaves the other pieces
 *   (and their AWS clients) out of that function's bundle; and a function is never asked for
 *   configuration it was not given (the well-known function has no table).
 *
 * Secrets are loaded on first use, then cached; a failed load is retried by the next request
 * rather than cached.
 */
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { loadServiceConfig, type ServiceConfig } from './config';
import { clientConfig, type AwsClientOptions } from './adapters/aws';
import { DynamoDbAttemptLimiter } from './adapters/dynamodb/attempt-limiter';
import { createDocumentClient, createDynamoDbClient } from './adapters/dynamodb/client';
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
import { loadSigningKeys, loadVerificationKeys, type SigningKeys, type VerificationKeys } from './domain/signing-keys';
import { IdpError, TemporarilyUnavailableError } from './errors';
import { logger } from './log';
import { systemClock, type Clock, type Log, type SecretSource } from './ports';

/** What the token, introspection and well-known handlers add: the issuer URL (lib/http/issuer.ts). */
export interface IssuerDeps {
  /** The configured issuer URL (ISSUER, else the stage file's `issuer`). */
  readonly issuer: string | undefined;
}

export interface WellKnownDeps extends IssuerDeps {
  readonly config: ServiceConfig;
  readonly verificationKeys: () => Promise<VerificationKeys>;
}

/** Everything: what tests and the local runtime hand every handler. */
export interface Deps extends SendCodeDeps, ExchangeCodeDeps, IntrospectDeps, WellKnownDeps {
  readonly secrets: SecretSource;
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

/** Builds every dependency from explicit options (tests, the local runtime). */
export function createDeps(options: DepsOptions): Deps {
  const endpoints = options.endpoints ?? {};
  const aws = (endpoint: string | undefined): AwsClientOptions => ({
    endpoint,
    region: options.region,
    credentials: options.credentials,
  });
  return {
    config: options.config,
    clock: options.clock ?? systemClock,
    log: options.log ?? logger,
    issuer: options.issuer ?? options.config.stage.issuer,
    secrets: options.secrets,
    ...tableAdapters(options.tableName, aws(endpoints.dynamodb)),
    ...deliveryAdapters({ ses: aws(endpoints.ses), sns: aws(endpoints.sns), smsVoice: aws(endpoints.smsVoice) }),
    hmacKeys: hmacKeysFrom(options.secrets),
    signingKeys: signingKeysFrom(options.secrets),
    verificationKeys: verificationKeysFrom(options.secrets),
  };
}

// ---------------------------------------------------------------------------------------------
// The pieces

function tableAdapters(tableName: string, client: AwsClientOptions) {
  const dynamodb = createDynamoDbClient(client);
  const documents = createDocumentClient(dynamodb);
  return {
    limiter: new DynamoDbAttemptLimiter(documents, tableName),
    codes: new DynamoDbCodeStore(documents, tableName),
    tokens: new DynamoDbTokenStore(documents, tableName),
  };
}

function deliveryAdapters(clients: { ses: AwsClientOptions; sns: AwsClientOptions; smsVoice: AwsClientOptions }) {
  return {
    email: SesEmailSender.create(clientConfig(clients.ses)),
    sms: SnsSmsSender.create(clientConfig(clients.sns)),
    voice: SmsVoiceV2VoiceCaller.create(clientConfig(clients.smsVoice)),
  };
}

function hmacKeysFrom(secrets: SecretSource): () => Promise<HmacKeys> {
  return once(async () => deriveHmacKeys(await secrets.hmacSecret()));
}

function signingKeysFrom(secrets: SecretSource): () => Promise<SigningKeys> {
  return once(async () => keySetReady('signing keys', loadSigningKeys, await secrets.signingKeySet()));
}

function verificationKeysFrom(secrets: SecretSource): () => Promise<VerificationKeys> {
  return once(async () => keySetReady('public keys', loadVerificationKeys, await secrets.verificationKeySet()));
}

/**
 * Right after a first deployment the key secrets hold placeholders until the rotation function
 * has created the key set: a dependency not ready yet (503), not a client's fault.
 */
async function keySetReady<T>(what: string, load: (raw: unknown) => Promise<T>, raw: unknown): Promise<T> {
  try {
    return await load(raw);
  } catch (error) {
    if (error instanceof IdpError) throw error;
    throw new TemporarilyUnavailableError({ detail: `${what}: ${(error as Error).message.split(':')[0]}`, cause: error });
  }
}

// ---------------------------------------------------------------------------------------------
// Lambda containers

/**
 * What every function reads from its environment:
 * - IDP_CONFIG_FILE: the stage configuration (default: config.json beside the handler);
 * - ISSUER: the issuer URL;
 * - HMAC_SECRET_ARN, SIGNING_KEYS_SECRET_ARN and VERIFICATION_KEYS_SECRET_ARN on AWS (each
 *   function gets only those it may read), or LOCAL_SECRETS_DIR locally.
 * Endpoints of local stand-ins, if any, come through the SDK's own AWS_ENDPOINT_URL_<SERVICE>.
 */
function core(env: NodeJS.ProcessEnv) {
  const config = loadServiceConfig(env);
  return {
    config,
    clock: systemClock,
    log: logger,
    issuer: env.ISSUER === undefined || env.ISSUER === '' ? config.stage.issuer : env.ISSUER,
    secrets:
      env.LOCAL_SECRETS_DIR === undefined
        ? SecretsManagerSecretSource.create({
            hmacSecret: env.HMAC_SECRET_ARN ?? '',
            signingKeys: env.SIGNING_KEYS_SECRET_ARN ?? '',
            verificationKeys: env.VERIFICATION_KEYS_SECRET_ARN ?? '',
          })
        : new FileSecretSource(env.LOCAL_SECRETS_DIR),
  };
}

/** TABLE_NAME: read only by the functions that use the table. */
function tableFromEnvironment(env: NodeJS.ProcessEnv) {
  const tableName = env.TABLE_NAME;
  if (tableName === undefined || tableName === '') throw new Error('Missing environment variable TABLE_NAME');
  return tableAdapters(tableName, {});
}

export const otpSendDeps: () => SendCodeDeps = /* @__PURE__ */ lazy(() => {
  const base = core(process.env);
  return { ...base, ...tableFromEnvironment(process.env), ...deliveryAdapters({ ses: {}, sns: {}, smsVoice: {} }), hmacKeys: hmacKeysFrom(base.secrets) };
});

export const tokenDeps: () => ExchangeCodeDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const base = core(process.env);
  return { ...base, ...tableFromEnvironment(process.env), hmacKeys: hmacKeysFrom(base.secrets), signingKeys: signingKeysFrom(base.secrets) };
});

export const introspectDeps: () => IntrospectDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const base = core(process.env);
  return { ...base, ...tableFromEnvironment(process.env), verificationKeys: verificationKeysFrom(base.secrets) };
});

export const wellKnownDeps: () => WellKnownDeps = /* @__PURE__ */ lazy(() => {
  const base = core(process.env);
  return { config: base.config, issuer: base.issuer, verificationKeys: verificationKeysFrom(base.secrets) };
});

/** Builds on first call, then returns the same value (once per container). */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

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
