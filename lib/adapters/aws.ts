/**
 * What every AWS adapter shares: how its client is pointed (only local stand-ins set anything),
 * and what an SDK failure means to a caller, decided in one place:
 * - no answer at all (connection refused, timeout), throttling, or a server-side fault: the
 *   dependency is down or overloaded, a 503 the client may retry (`TemporarilyUnavailableError`);
 * - anything else (validation, access denied, a missing table or secret): a bug or a broken
 *   deployment, which stays an error and becomes a 500. Retrying it would never help.
 */
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { TemporarilyUnavailableError } from '../errors';

/**
 * The delivery clients' (SES, SNS, SMS-voice) limits: one retry for a dropped connection, and a
 * provider that does not answer in 5 s is a 502 the user can retry, well inside the function's
 * timeout, rather than a hung request.
 */
export const DELIVERY_CLIENT_SETTINGS = Object.freeze({
  maxAttempts: 2,
  requestHandler: Object.freeze({ connectionTimeout: 1000, requestTimeout: 5000 }),
});

/** Where an SDK client goes. All undefined on AWS, where the SDK resolves everything itself. */
export interface AwsClientOptions {
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
  readonly credentials?: AwsCredentialIdentity | undefined;
}

/** The options with the undefined ones left out, as the SDK clients' configs want them. */
export function clientConfig(options: AwsClientOptions): { endpoint?: string; region?: string; credentials?: AwsCredentialIdentity } {
  return {
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
  };
}

const UNAVAILABLE_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
  'TooManyRequestsException',
  'InternalServerError',
  'InternalServiceError',
  'InternalFailure',
  'ServiceUnavailable',
  'TimeoutError',
]);

interface SdkFailure {
  name?: string;
  $fault?: string;
  $metadata?: { httpStatusCode?: number };
}

/** True when the failure says the dependency is unavailable rather than that we did something wrong. */
export function isUnavailable(error: unknown): boolean {
  const failure = error as SdkFailure;
  return failure.$metadata?.httpStatusCode === undefined || failure.$fault === 'server' || UNAVAILABLE_NAMES.has(failure.name ?? '');
}

/** `TemporarilyUnavailableError` for an unavailable dependency; the original error otherwise. */
export function dependencyFailure(error: unknown, what: string): Error {
  if (isUnavailable(error)) {
    return new TemporarilyUnavailableError({ detail: `${what}: ${(error as SdkFailure).name ?? 'unknown error'}`, cause: error });
  }
  return error instanceof Error ? error : new Error(`${what} failed`);
}

/** JSON.parse for secret values: a syntax error must not quote the value (it may be key material). */
export function parseSecretJson(value: string, what: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
}
