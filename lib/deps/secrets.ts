/**
 * Secrets and the keys derived from them, kept per container for a maximum age, and what every
 * Lambda container is built from (`container`). No table, no delivery client: the well-known
 * function's whole module graph is this and the configuration.
 */
import { FileSecretSource } from '../adapters/secrets/file-secret-source';
import { SecretsManagerSecretSource } from '../adapters/secrets/secrets-manager-source';
import { loadServiceConfig, type ServiceConfig } from '../platform/config';
import { deriveHmacKeys, type HmacKeys } from '../keys/hmac-keys';
import { loadSigningKeys, loadVerificationKeys, type SigningKeys, type VerificationKeys } from '../keys/signing-keys';
import { readEnvironment, type ServiceEnvironment } from '../platform/env';
import { IdpError, TemporarilyUnavailableError } from '../platform/errors';
import { logger } from '../platform/log';
import { systemClock, type Clock, type Log } from '../platform/ports';
import type { SecretSource } from '../keys/ports';

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

export function hmacKeysFrom(secrets: SecretSource, cache: SecretCache): () => Promise<HmacKeys> {
  return cache(async () => deriveHmacKeys(await secrets.hmacSecret()));
}

export function signingKeysFrom(secrets: SecretSource, cache: SecretCache): () => Promise<SigningKeys> {
  return cache(async () => keySetReady('signing keys', loadSigningKeys, await secrets.signingKeySet()));
}

export function verificationKeysFrom(secrets: SecretSource, cache: SecretCache): () => Promise<VerificationKeys> {
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

/** What every function's container starts from. */
export interface Container {
  readonly env: ServiceEnvironment;
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly log: Log;
  /** The configured issuer URL (ISSUER, else the stage file's `issuer`). */
  readonly issuer: string | undefined;
  readonly secrets: SecretSource;
  readonly cache: SecretCache;
}

/**
 * A Lambda container's foundation: its environment (lib/platform/env.ts, read once), the stage
 * configuration, and where secrets come from (Secrets Manager on AWS, each function given only
 * the ARNs it may read; a folder locally). Endpoints of local stand-ins, if any, come through the
 * SDK's own AWS_ENDPOINT_URL_<SERVICE>.
 */
export function container(): Container {
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
