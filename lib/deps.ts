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
 * Secrets are loaded on first use, then kept for a maximum age (`secretCache`); a failed load is
 * retried by the next request rather than kept.
 */
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { loadServiceConfig, type ServiceConfig } from './config';
import { readEnvironment, required } from './env';
import { lazy } from './lazy';
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
  /** How long a secret is kept before it is read again (default: DEFAULT_SECRETS_MAX_AGE_SECONDS). */
  readonly secretsMaxAgeSeconds?: number;
}

/** Builds every dependency from explicit options (tests, the local runtime). */
export function createDeps(options: DepsOptions): Deps {
  const endpoints = options.endpoints ?? {};
  const clock = options.clock ?? systemClock;
  const cache = secretCache(options.secretsMaxAgeSeconds ?? DEFAULT_SECRETS_MAX_AGE_SECONDS, clock);
  const aws = (endpoint: string | undefined): AwsClientOptions => ({
    endpoint,
    region: options.region,
    credentials: options.credentials,
  });
  return {
    config: options.config,
    clock,
    log: options.log ?? logger,
    issuer: options.issuer ?? options.config.stage.issuer,
    secrets: options.secrets,
    ...tableAdapters(options.tableName, aws(endpoints.dynamodb)),
    ...deliveryAdapters({ ses: aws(endpoints.ses), sns: aws(endpoints.sns), smsVoice: aws(endpoints.smsVoice) }),
    hmacKeys: hmacKeysFrom(options.secrets, cache),
    signingKeys: signingKeysFrom(options.secrets, cache),
    verificationKeys: verificationKeysFrom(options.secrets, cache),
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

function hmacKeysFrom(secrets: SecretSource, cache: SecretCache): () => Promise<HmacKeys> {
  return cache(async () => deriveHmacKeys(await secrets.hmacSecret()));
}

function signingKeysFrom(secrets: SecretSource, cache: SecretCache): () => Promise<SigningKeys> {
  return cache(async () => keySetReady('signing keys', loadSigningKeys, await secrets.signingKeySet()));
}

function verificationKeysFrom(secrets: SecretSource, cache: SecretCache): () => Promise<VerificationKeys> {
  return cache(async () => keySetReady('public keys', loadVerificationKeys, await secrets.verificationKeySet()));
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
 * What every function's container is built from: its environment (lib/env.ts, read once), the
 * stage configuration, and where secrets come from (Secrets Manager on AWS, each function given
 * only the ARNs it may read; a folder locally). Endpoints of local stand-ins, if any, come
 * through the SDK's own AWS_ENDPOINT_URL_<SERVICE>.
 */
function core() {
  const env = readEnvironment();
  const config = loadServiceConfig(env);
  const secrets =
    env.LOCAL_SECRETS_DIR === undefined
      ? SecretsManagerSecretSource.create({
          hmacSecret: env.HMAC_SECRET_ARN ?? '',
          signingKeys: env.SIGNING_KEYS_SECRET_ARN ?? '',
          verificationKeys: env.VERIFICATION_KEYS_SECRET_ARN ?? '',
        })
      : new FileSecretSource(env.LOCAL_SECRETS_DIR);
  return {
    env,
    config,
    clock: systemClock,
    log: logger,
    issuer: env.ISSUER ?? config.stage.issuer,
    secrets,
    cache: secretCache(env.SECRETS_MAX_AGE_SECONDS, systemClock),
  };
}

export const otpSendDeps: () => SendCodeDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = core();
  return { ...base, ...tableAdapters(required(env, 'TABLE_NAME'), {}), ...deliveryAdapters({ ses: {}, sns: {}, smsVoice: {} }), hmacKeys: hmacKeysFrom(base.secrets, cache) };
});

export const tokenDeps: () => ExchangeCodeDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = core();
  return {
    ...base,
    ...tableAdapters(required(env, 'TABLE_NAME'), {}),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
    signingKeys: signingKeysFrom(base.secrets, cache),
  };
});

export const introspectDeps: () => IntrospectDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = core();
  return { ...base, ...tableAdapters(required(env, 'TABLE_NAME'), {}), verificationKeys: verificationKeysFrom(base.secrets, cache) };
});

export const wellKnownDeps: () => WellKnownDeps = /* @__PURE__ */ lazy(() => {
  const { cache, config, issuer, secrets } = core();
  return { config, issuer, verificationKeys: verificationKeysFrom(secrets, cache) };
});


/**
 * Seconds a container keeps a secret before reading it again. Secrets are read once per
 * container and kept, but not for the container's life: a key rotated or revoked in an emergency
 * stops being used within this time, without recycling any function
 * (docs/operations/key-rotation.md). Five minutes: the read costs one Secrets Manager call per
 * secret per container per five minutes, nothing on the requests in between.
 */
export const DEFAULT_SECRETS_MAX_AGE_SECONDS = 300;

/** Wraps a secret's load so that it runs at most once per max age. */
export type SecretCache = <T>(load: () => Promise<T>) => () => Promise<T>;

/**
 * A cache of loads with a maximum age: the value of a successful load is kept for `maxAgeSeconds`
 * (by `clock`), and concurrent callers share one load in flight. A rejection is not kept, so the
 * next caller tries again. When a kept value has expired, the next caller loads anew (Powertools
 * Parameters' `maxAge` behaves the same).
 */
export function secretCache(maxAgeSeconds: number, clock: Clock): SecretCache {
  return <T>(load: () => Promise<T>) => {
    let pending: Promise<T> | undefined;
    let loadedAt = 0;
    return () => {
      if (pending !== undefined && clock.now() - loadedAt >= maxAgeSeconds * 1000) pending = undefined;
      if (pending === undefined) {
        loadedAt = clock.now();
        pending = load().catch((error: unknown) => {
          pending = undefined;
          throw error;
        });
      }
      return pending;
    };
  };
}

export type { ServiceConfig, HmacKeys };
