/**
 * The DynamoDB client, with short timeouts, and its failures in the service's vocabulary.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { clientConfig, dependencyFailure, type AwsClientOptions } from '../aws';

/**
 * Timeouts are short on purpose: an identity request that cannot reach its table should answer
 * 503 in about a second, not hang until the Lambda times out. Two attempts: the SDK's retry
 * covers a dropped connection; anything longer is the caller's retry (we send Retry-After).
 */
export function createDynamoDbClient(options: AwsClientOptions = {}): DynamoDBClient {
  return new DynamoDBClient({
    ...clientConfig(options),
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 1000, requestTimeout: 2500 },
  });
}

/** A DynamoDB failure in the service's vocabulary (see lib/adapters/aws.ts). */
export function storageFailure(error: unknown, operation: string): Error {
  return dependencyFailure(error, `DynamoDB ${operation}`);
}

export function isConditionalCheckFailure(error: unknown): error is { name: string; Item?: Record<string, unknown> } {
  return (error as { name?: string }).name === 'ConditionalCheckFailedException';
}
