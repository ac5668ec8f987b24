/**
 * The single use of `private_key_jwt` assertions' `jti` (lib/adapters/dynamodb/client-assertion-store.ts)
 * against DynamoDB Local, where the HTTP tests cannot reach: concurrency, the record's end at its
 * edge, one client's `jti` apart from another's, and a storage failure. Over HTTP:
 * test/http/private-key-jwt.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbClientAssertionStore } from '../../../lib/adapters/dynamodb/client-assertion-store';
import { clientAssertionItemKey } from '../../../lib/adapters/dynamodb/item-keys';
import type { AssertionUse } from '../../../lib/oauth/ports';
import { futureBase } from '../../support/fake-clock';
import { storageUnavailable } from '../../support/failing-dynamodb-proxy';
import { faultyTestTable } from '../../support/table';

/** Epoch seconds a day ahead (DynamoDB Local really deletes items whose TTL has passed). */
const NOW = Math.floor(futureBase() / 1000);

const table = faultyTestTable();
let store: DynamoDbClientAssertionStore;
beforeAll(() => {
  store = new DynamoDbClientAssertionStore(table().documents, table().name);
});

const use = (overrides: Partial<AssertionUse> = {}): AssertionUse => ({
  clientId: 'local-signer',
  jtiHash: randomUUID(),
  keepUntil: NOW + 90,
  now: NOW,
  ...overrides,
});

it('spends a jti once, with one PutItem each time, and keeps the item until keepUntil (TTL)', async () => {
  const first = use();
  table().proxy.reset();
  expect(await store.spend(first)).toBe(true);
  expect(await store.spend({ ...first, keepUntil: NOW + 3600 })).toBe(false);
  expect(table().proxy.operations()).toEqual(['PutItem', 'PutItem']);

  const { Item } = await table().documents.send(
    new GetCommand({ TableName: table().name, Key: { pk: clientAssertionItemKey(first.clientId, first.jtiHash) } }),
  );
  // The replay rewrote nothing: the first use's time stands.
  expect(Item).toEqual({ pk: clientAssertionItemKey(first.clientId, first.jtiHash), client_id: 'local-signer', expires_at: NOW + 90 });
});

it('lets exactly one of 20 concurrent uses of one jti through', async () => {
  const one = use();
  const results = await Promise.all(Array.from({ length: 20 }, () => store.spend(one)));
  expect(results.filter(Boolean)).toHaveLength(1);
});

it('keeps a jti spent through keepUntil, and frees it after (before DynamoDB’s lazy TTL deletes the item)', async () => {
  const first = use();
  expect(await store.spend(first)).toBe(true);
  expect(await store.spend({ ...first, now: first.keepUntil })).toBe(false);
  expect(await store.spend({ ...first, now: first.keepUntil + 1, keepUntil: first.keepUntil + 91 })).toBe(true);
  expect(await store.spend({ ...first, now: first.keepUntil + 1 })).toBe(false);
});

it('keeps each client’s jti apart: the same jti of another client is its own first use', async () => {
  const jtiHash = randomUUID();
  expect(await store.spend(use({ jtiHash }))).toBe(true);
  expect(await store.spend(use({ jtiHash, clientId: 'other-signer' }))).toBe(true);
});

it('answers a storage failure with a 503 naming the step, and the jti is still unspent afterwards', async () => {
  const first = use();
  table().faults.failWhen(({ operation }) => operation === 'PutItem');
  await expect(store.spend(first)).rejects.toMatchObject(storageUnavailable('spend client assertion'));
  table().faults.heal();
  expect(await store.spend(first)).toBe(true);
});
