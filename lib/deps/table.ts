/** The table's adapters, for the functions that use the table (never the well-known function). */
import type { AwsClientOptions } from '../platform/aws';
import { DynamoDbAuthorizationCodeStore } from '../adapters/dynamodb/authorization-code-store';
import { DynamoDbRefreshTokenStore } from '../adapters/dynamodb/refresh-token-store';
import { DynamoDbRevocationStore } from '../adapters/dynamodb/revocation-store';
import { DynamoDbTokenStore } from '../adapters/dynamodb/token-store';
import { sendTableAdapters, tableDocuments } from './send-table';

export function tableAdapters(tableName: string, client: AwsClientOptions, requestTimeoutMs?: number) {
  const documents = tableDocuments(client, requestTimeoutMs);
  return {
    ...sendTableAdapters(documents, tableName),
    tokens: new DynamoDbTokenStore(documents, tableName),
    authorizationCodes: new DynamoDbAuthorizationCodeStore(documents, tableName),
    refreshTokens: new DynamoDbRefreshTokenStore(documents, tableName),
    revocations: new DynamoDbRevocationStore(documents, tableName),
  };
}
