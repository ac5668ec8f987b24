/**
 * The DynamoDB client and the one place that decides what a DynamoDB failure means to a caller.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { TemporarilyUnavailableError } from '../../errors';

export interface DynamoDbOptions {
  /** Only for DynamoDB Local; on AWS the SDK's default endpoint resolution applies. */
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
  readonly credentials?: DynamoDBClientConfig['credentials'];
}

/**
 * Timeouts are short on purpose: an identity request that cannot reach its table should answer
 * 503 in about a second, not hang until the Lambda times out. Two attempts: the SDK's retry
 * covers a dropped connection; anything longer is the caller's retry (we send Retry-After).
 */
export function createDynamoDbClient(options: DynamoDbOptions = {}): DynamoDBClient {
  return new DynamoDBClient({
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 1000, requestTimeout: 2500 },
  });
}

const UNAVAILABLE_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
]);

/**
 * Turns an SDK failure into the service's vocabulary: no answer at all, throttling and server-side
 * faults are a dependency being down (503, the client may retry); anything else (a validation
 * error, a missing table) is a bug or a broken deployment and stays a 500.
 */
export function storageFailure(error: unknown, operation: string): Error {
  const failure = error as { name?: string; $fault?: string; $metadata?: { httpStatusCode?: number } };
  const noResponse = failure.$metadata?.httpStatusCode === undefined;
  if (noResponse || failure.$fault === 'server' || UNAVAILABLE_NAMES.has(failure.name ?? '')) {
    return new TemporarilyUnavailableError({ detail: `DynamoDB ${operation}: ${failure.name ?? 'unknown error'}`, cause: error });
  }
  return error instanceof Error ? error : new Error(`DynamoDB ${operation} failed`);
}

export function isConditionalCheckFailure(error: unknown): error is { name: string; Item?: Record<string, unknown> } {
  return (error as { name?: string }).name === 'ConditionalCheckFailedException';
}
