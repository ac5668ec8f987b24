/**
 * The one place that picks concrete adapters (a folder, so that each function's bundle holds only
 * its own pieces: esbuild keeps every module a function's graph imports when it cannot prove the
 * module free of side effects, and `@aws-sdk/lib-dynamodb` declares none, so a function must not
 * even import an adapter it does not construct: test/infra/bundle-contents.test.ts):
 *
 * - `createDeps(options)` (here): every dependency, from explicit options, for the tests'
 *   in-process service (test/support/harness.ts). The local runtime (local/start.ts) runs the real
 *   handlers with a Lambda environment instead, so it goes through the containers below;
 * - `lib/deps/<function>.ts`: a Lambda container's, from its environment, built on first use and
 *   kept for the container's life, from the pieces that function uses (`secrets.ts`, `table.ts`,
 *   `delivery.ts`, and the adapters it constructs itself). A function is never asked for
 *   configuration it was not given (the well-known function has no table).
 *
 * Secrets are loaded on first use, then kept for a maximum age (`secretCache`); a failed load is
 * retried by the next request rather than kept.
 */
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import type { AwsClientOptions } from '../platform/aws';
import type { ServiceConfig } from '../platform/config';
import type { TokenEndpointDeps } from '../endpoints/token-endpoint';
import type { AuthorizeDeps } from '../login/authorize';
import type { OperatorDeps } from '../admin/operator';
import type { HmacKeys } from '../keys/hmac-keys';
import type { IntrospectDeps } from '../endpoints/introspect-token';
import type { RevokeDeps } from '../endpoints/revoke-token';
import type { SendCodeDeps } from '../endpoints/otp-send';
import type { VerificationKeys } from '../keys/signing-keys';
import { logger } from '../platform/log';
import { systemClock, type Clock, type Log } from '../platform/ports';
import type { SecretSource } from '../keys/ports';
import { deliveryAdapters } from './delivery';
import { DEFAULT_SECRETS_MAX_AGE_SECONDS, hmacKeysFrom, secretCache, signingKeysFrom, verificationKeysFrom } from './secrets';
import { DynamoDbAttemptLimiter } from '../adapters/dynamodb/attempt-limiter';
import { DynamoDbAuthorizationCodeStore } from '../adapters/dynamodb/authorization-code-store';
import { DynamoDbClientAssertionStore } from '../adapters/dynamodb/client-assertion-store';
import { DynamoDbCodeStore } from '../adapters/dynamodb/code-store';
import { DynamoDbKnownNumbers } from '../adapters/dynamodb/known-numbers';
import { DynamoDbPasskeyStore } from '../adapters/dynamodb/passkey-store';
import { DynamoDbRefreshTokenStore } from '../adapters/dynamodb/refresh-token-store';
import { DynamoDbRevocationStore } from '../adapters/dynamodb/revocation-store';
import { DynamoDbSendGuards } from '../adapters/dynamodb/send-guards';
import { DynamoDbTokenStore } from '../adapters/dynamodb/token-store';
import { DynamoDbSessionStore, DynamoDbUserIndex } from '../adapters/dynamodb/session-store';
import { DynamoDbTestOutbox } from '../adapters/dynamodb/test-outbox';
import { LocalLogoutQueue } from '../logout/backchannel';
import type { LogoutNotifier } from '../logout/ports';
import { tableOf, type Table } from './table';

/** What the token, introspection and well-known handlers add: the issuer URL (lib/platform/http/issuer.ts). */
export interface IssuerDeps {
  /** The configured issuer URL (ISSUER, else the stage file's `issuer`). */
  readonly issuer: string | undefined;
}

export interface WellKnownDeps extends IssuerDeps {
  readonly config: ServiceConfig;
  readonly verificationKeys: () => Promise<VerificationKeys>;
}

/** Everything: what tests and the local runtime hand every handler. */
export interface Deps extends SendCodeDeps, TokenEndpointDeps, IntrospectDeps, RevokeDeps, WellKnownDeps, AuthorizeDeps, OperatorDeps {
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
  /** Tests only: a longer DynamoDB request timeout, for DynamoDB Local under a burst (lib/adapters/dynamodb/client.ts). */
  readonly dynamodbRequestTimeoutMs?: number;
  /** Where back-channel logout notices go (default: an in-process queue that delivers them, lib/logout/backchannel.ts). */
  readonly logoutNotifier?: LogoutNotifier;
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
  const log = options.log ?? logger;
  const signingKeys = signingKeysFrom(options.secrets, cache);
  return {
    config: options.config,
    clock,
    log,
    issuer: options.issuer ?? options.config.stage.issuer,
    secrets: options.secrets,
    ...tableAdapters(tableOf(options.tableName, aws(endpoints.dynamodb), options.dynamodbRequestTimeoutMs)),
    ...deliveryAdapters({ ses: aws(endpoints.ses), sns: aws(endpoints.sns), smsVoice: aws(endpoints.smsVoice) }),
    hmacKeys: hmacKeysFrom(options.secrets, cache),
    signingKeys,
    verificationKeys: verificationKeysFrom(options.secrets, cache),
    logoutNotifier: options.logoutNotifier ?? new LocalLogoutQueue({ config: options.config, clock, log, signingKeys }),
  };
}

/** Every adapter over the table (tests, the bench's seeding); a Lambda container builds only its own. */
export function tableAdapters({ documents, name }: Table) {
  return {
    limiter: new DynamoDbAttemptLimiter(documents, name),
    guards: new DynamoDbSendGuards(documents, name),
    codes: new DynamoDbCodeStore(documents, name),
    knownNumbers: new DynamoDbKnownNumbers(documents, name),
    authorizationCodes: new DynamoDbAuthorizationCodeStore(documents, name),
    tokens: new DynamoDbTokenStore(documents, name),
    refreshTokens: new DynamoDbRefreshTokenStore(documents, name),
    revocations: new DynamoDbRevocationStore(documents, name),
    clientAssertions: new DynamoDbClientAssertionStore(documents, name),
    sessions: new DynamoDbSessionStore(documents, name),
    testOutbox: new DynamoDbTestOutbox(documents, name),
    userIndex: new DynamoDbUserIndex(documents, name),
    passkeys: new DynamoDbPasskeyStore(documents, name),
  };
}

export type { ServiceConfig, HmacKeys };
