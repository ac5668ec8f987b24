/** A fresh table on the suite's DynamoDB Local, optionally behind a counting proxy. */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoDbClient } from '../../lib/adapters/dynamodb/client';
import { ensureTable, LOCAL_AWS } from '../../local/dynamodb';
import { startDynamoDbProxy, type DynamoDbProxy } from './dynamodb-proxy';

export interface TestTable {
  readonly name: string;
  /** A client whose requests go through `proxy`, so they can be counted. */
  readonly client: DynamoDBClient;
  /** The document client over `client`, as the adapters use it. */
  readonly documents: DynamoDBDocumentClient;
  readonly proxy: DynamoDbProxy;
  stop(): Promise<void>;
}

export async function createTestTable(): Promise<TestTable> {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (endpoint === undefined) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run the tests with npm test');
  const name = `identity-test-${randomUUID()}`;
  await ensureTable(endpoint, name);
  const proxy = await startDynamoDbProxy(endpoint);
  // Adapter tests are about conditions and races, not latency: DynamoDB Local under a burst on a
  // loaded machine can take longer than the production timeout (1 s).
  const client = createDynamoDbClient({ endpoint: proxy.endpoint, ...LOCAL_AWS }, 10_000);
  return {
    name,
    client,
    documents: createDocumentClient(client),
    proxy,
    stop: async () => {
      client.destroy();
      await proxy.stop();
    },
  };
}
