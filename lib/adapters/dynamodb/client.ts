/**
 * The DynamoDB client, with short timeouts, and its failures in the service's vocabulary.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { clientConfig, dependencyFailure, DYNAMODB_CLIENT_SETTINGS, type AwsClientOptions } from '../aws';

/**
 * Timeouts are short on purpose: an identity request that cannot reach its table should answer
 * 503 within a few seconds, not hang until the Lambda times out. The values, and why they fit
 * the function's timeout, are `DYNAMODB_CLIENT_SETTINGS` in lib/adapters/aws.ts.
 */
export function createDynamoDbClient(options: AwsClientOptions = {}): DynamoDBClient {
  return new DynamoDBClient({ ...clientConfig(options), ...DYNAMODB_CLIENT_SETTINGS });
}

/** A DynamoDB failure in the service's vocabulary (see lib/adapters/aws.ts). */
export function storageFailure(error: unknown, operation: string): Error {
  return dependencyFailure(error, `DynamoDB ${operation}`);
}

export function isConditionalCheckFailure(error: unknown): error is { name: string; Item?: Record<string, unknown> } {
  return (error as { name?: string }).name === 'ConditionalCheckFailedException';
}
