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
  stop(): Promise<void>;
}

/** A test table whose requests also pass a failing proxy (between the counting proxy and DynamoDB Local). */
export interface FaultyTestTable extends TestTable {
  /** Fails the requests a test names. */
  readonly faults: FailingDynamoDbProxy;
}

export function createTestTable(): Promise<TestTable>;
export function createTestTable(options: { faults: true }): Promise<FaultyTestTable>;
export async function createTestTable(options: { faults?: true } = {}): Promise<TestTable | FaultyTestTable> {
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
    ...(faults === undefined ? {} : { faults }),
    stop: async () => {
      client.destroy();
      await proxy.stop();
      await faults?.stop();
    },
  };
}

/**
 * A table behind the failing proxy for the tests of the enclosing `describe` (or file): made
 * before them, healed after each test, stopped after them all. Call the returned function inside
 * a hook or test.
 */
export function faultyTestTable(): () => FaultyTestTable {
  let table: FaultyTestTable | undefined;
  beforeAll(async () => {
    table = await createTestTable({ faults: true });
  });
  afterEach(() => table?.faults.heal());
  afterAll(async () => table?.stop());
  return () => {
    if (table === undefined) throw new Error('The faulty test table is made in beforeAll: use it in a hook or a test');
    return table;
  };
}
