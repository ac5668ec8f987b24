/**
 * The table as a container reaches it: its document client (with the service's client settings)
 * and its name. No adapter here: each function's container (lib/deps/<function>.ts) constructs
 * the adapters it uses and imports no other, because an adapter module that is merely imported
 * still ships, with its item schema built at load (test/infra/bundle-contents.test.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AwsClientOptions } from '../platform/aws';
import { createDocumentClient, createDynamoDbClient } from '../adapters/dynamodb/client';

export interface Table {
  readonly documents: DynamoDBDocumentClient;
  readonly name: string;
}

/** The table named `name`, over a new document client. */
export function tableOf(name: string, client: AwsClientOptions = {}, requestTimeoutMs?: number): Table {
  return { documents: createDocumentClient(createDynamoDbClient(client, requestTimeoutMs)), name };
}
