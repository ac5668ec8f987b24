/**
 * The DynamoDB client, with short timeouts, and its failures in the service's vocabulary.
 */
import { DynamoDBClient, type ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { clientConfig, DYNAMODB_CLIENT_SETTINGS, type AwsClientOptions } from '../../platform/aws';
import { traced } from '../../platform/tracing';
import { dependencyFailure } from '../aws-failures';

/**
 * Timeouts are short on purpose: an identity request that cannot reach its table should answer
 * 503 within a few seconds, not hang until the Lambda times out. The values, and why they fit
 * the function's timeout, are `DYNAMODB_CLIENT_SETTINGS` in lib/platform/aws.ts. Only tests pass
 * `requestTimeoutMs`: DynamoDB Local (a Java process on a shared test machine) can take longer
 * than DynamoDB ever does under a burst, and a test about concurrency must not fail on latency.
 */
export function createDynamoDbClient(options: AwsClientOptions = {}, requestTimeoutMs?: number): DynamoDBClient {
  const settings =
    requestTimeoutMs === undefined
      ? DYNAMODB_CLIENT_SETTINGS
      : {
          ...DYNAMODB_CLIENT_SETTINGS,
          requestHandler: { ...DYNAMODB_CLIENT_SETTINGS.requestHandler, requestTimeout: requestTimeoutMs, socketTimeout: requestTimeoutMs },
        };
  // Traced where the stage traces (lib/platform/tracing.ts): each call an X-Ray subsegment.
  return traced(new DynamoDBClient({ ...clientConfig(options), ...settings }));
}

/** A DynamoDB failure in the service's vocabulary (lib/adapters/aws-failures.ts). */
export function storageFailure(error: unknown, operation: string): Error {
  return dependencyFailure(error, `DynamoDB ${operation}`);
}

/**
 * The document client over `client`: plain JavaScript values in and out (`removeUndefinedValues`:
 * an optional field left undefined is simply not written).
 */
export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * The item a refused conditional write returned (ReturnValuesOnConditionCheckFailure), as plain
 * values. The document client does not unmarshall it (aws-sdk-js-v3 issue 6723), so this does,
 * as Powertools' idempotency persistence layer does.
 */
export function itemOfFailure(error: ConditionalCheckFailedException): Record<string, unknown> | undefined {
  return error.Item === undefined ? undefined : unmarshall(error.Item);
}
