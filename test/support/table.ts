/**
 * A fresh table on the suite's DynamoDB Local, its client behind a counting proxy and, when a test
 * asks for `faults`, behind a failing proxy too (test/support/failing-dynamodb-proxy.ts).
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoDbClient } from '../../lib/adapters/dynamodb/client';
import { ensureTable, LOCAL_AWS } from '../../local/dynamodb';
import { startDynamoDbProxy, type DynamoDbProxy } from './dynamodb-proxy';
import { startFailingDynamoDbProxy, type FailingDynamoDbProxy } from './failing-dynamodb-proxy';

export interface TestTable {
  readonly name: string;
  /** A client whose requests go through `proxy`, so they can be counted. */
  readonly client: DynamoDBClient;
  /** The document client over `client`, as the adapters use it. */
  readonly documents: DynamoDBDocumentClient;
  readonly proxy: DynamoDbProxy;
  /** With `{ faults: true }`: fails the requests a test names (between the counting proxy and DynamoDB Local). */
  readonly faults: FailingDynamoDbProxy | undefined;
  stop(): Promise<void>;
}

export async function createTestTable(options: { faults?: boolean } = {}): Promise<TestTable> {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (endpoint === undefined) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run the tests with npm test');
  const name = `identity-test-${randomUUID()}`;
  await ensureTable(endpoint, name);
  const faults = options.faults === true ? await startFailingDynamoDbProxy(endpoint) : undefined;
  const proxy = await startDynamoDbProxy(faults?.endpoint ?? endpoint);
  // Adapter tests are about conditions and races, not latency: DynamoDB Local under a burst on a
  // loaded machine can take longer than the production timeout (1 s).
  const client = createDynamoDbClient({ endpoint: proxy.endpoint, ...LOCAL_AWS }, 10_000);
  return {
    name,
    client,
    documents: createDocumentClient(client),
    proxy,
    faults,
    stop: async () => {
      client.destroy();
      await proxy.stop();
      await faults?.stop();
    },
  };
}
