/**
 * What otp/send uses of the table: the attempt limiter, the send guards' counters, the codes, the
 * known numbers. A
 * module apart from lib/deps/table.ts so that otp-send's module graph holds only these adapters:
 * an adapter module that is merely imported still ships, with its item schema built at load.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AwsClientOptions } from '../platform/aws';
import { DynamoDbAttemptLimiter } from '../adapters/dynamodb/attempt-limiter';
import { createDocumentClient, createDynamoDbClient } from '../adapters/dynamodb/client';
import { DynamoDbCodeStore } from '../adapters/dynamodb/code-store';
import { DynamoDbKnownNumbers } from '../adapters/dynamodb/known-numbers';
import { DynamoDbSendGuards } from '../adapters/dynamodb/send-guards';

/** The table's document client, with the service's client settings. */
export function tableDocuments(client: AwsClientOptions, requestTimeoutMs?: number): DynamoDBDocumentClient {
  return createDocumentClient(createDynamoDbClient(client, requestTimeoutMs));
}

/** The adapters otp/send uses, over `documents`. */
export function sendTableAdapters(documents: DynamoDBDocumentClient, tableName: string) {
  return {
    limiter: new DynamoDbAttemptLimiter(documents, tableName),
    guards: new DynamoDbSendGuards(documents, tableName),
    codes: new DynamoDbCodeStore(documents, tableName),
    knownNumbers: new DynamoDbKnownNumbers(documents, tableName),
  };
}
