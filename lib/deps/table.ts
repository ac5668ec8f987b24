/** The table's adapters, for the functions that use the table (never the well-known function). */
import type { AwsClientOptions } from '../adapters/aws';
import { DynamoDbAttemptLimiter } from '../adapters/dynamodb/attempt-limiter';
import { DynamoDbAuthorizationCodeStore } from '../adapters/dynamodb/authorization-code-store';
import { createDocumentClient, createDynamoDbClient } from '../adapters/dynamodb/client';
import { DynamoDbCodeStore } from '../adapters/dynamodb/code-store';
import { DynamoDbRefreshTokenStore } from '../adapters/dynamodb/refresh-token-store';
import { DynamoDbRevocationStore } from '../adapters/dynamodb/revocation-store';
import { DynamoDbSendGuards } from '../adapters/dynamodb/send-guards';
import { DynamoDbTokenStore } from '../adapters/dynamodb/token-store';

export function tableAdapters(tableName: string, client: AwsClientOptions, requestTimeoutMs?: number) {
  const documents = createDocumentClient(createDynamoDbClient(client, requestTimeoutMs));
  return {
    limiter: new DynamoDbAttemptLimiter(documents, tableName),
    guards: new DynamoDbSendGuards(documents, tableName),
    codes: new DynamoDbCodeStore(documents, tableName),
    tokens: new DynamoDbTokenStore(documents, tableName),
    authorizationCodes: new DynamoDbAuthorizationCodeStore(documents, tableName),
    refreshTokens: new DynamoDbRefreshTokenStore(documents, tableName),
    revocations: new DynamoDbRevocationStore(documents, tableName),
  };
}
