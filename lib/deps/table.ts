/** The table's adapters, for the functions that use the table (never the well-known function). */
import type { AwsClientOptions } from '../adapters/aws';
import { DynamoDbAttemptLimiter } from '../adapters/dynamodb/attempt-limiter';
import { createDocumentClient, createDynamoDbClient } from '../adapters/dynamodb/client';
import { DynamoDbCodeStore } from '../adapters/dynamodb/code-store';
import { DynamoDbSendGuards } from '../adapters/dynamodb/send-guards';
import { DynamoDbTokenStore } from '../adapters/dynamodb/token-store';

export function tableAdapters(tableName: string, client: AwsClientOptions) {
  const documents = createDocumentClient(createDynamoDbClient(client));
  return {
    limiter: new DynamoDbAttemptLimiter(documents, tableName),
    guards: new DynamoDbSendGuards(documents, tableName),
    codes: new DynamoDbCodeStore(documents, tableName),
    tokens: new DynamoDbTokenStore(documents, tableName),
  };
}
