/**
 * The passkey store against DynamoDB Local: a credential is stored once (never overwritten, by
 * its owner or another), found by its id in one strongly consistent read, listed per user oldest
 * first, removed only by its owner, and every item read back is parsed (a corrupt one is an
 * error, never a login). The sign-in's writes (`passkeySignInItems`) are tested with the session
 * store that sends them: session-store.test.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbPasskeyStore } from '../../../lib/adapters/dynamodb/passkey-store';
import { credentialHashOf, passkeySignInItems } from '../../../lib/adapters/dynamodb/passkey-sign-in';
import { attemptItemKey, passkeyItemKey } from '../../../lib/adapters/dynamodb/item-keys';
import type { PasskeyRecord } from '../../../lib/passkeys/ports';
import { futureBase } from '../../support/fake-clock';
import { createTestTable, type TestTable } from '../../support/table';

const T0 = futureBase();

let table: TestTable;
let store: DynamoDbPasskeyStore;
beforeAll(async () => {
  table = await createTestTable();
  store = new DynamoDbPasskeyStore(table.documents, table.name);
});
afterAll(async () => table.stop());
beforeEach(() => table.proxy.reset());

function passkey(overrides: Partial<PasskeyRecord> = {}): PasskeyRecord {
  return {
    environmentId: 'local',
    credentialId: randomBytes(16).toString('base64url'),
    userKey: `user-${randomUUID()}`,
    user: { authType: 'email', value: 'ada@example.com' },
    userHandle: randomBytes(32).toString('base64url'),
    publicKey: new Uint8Array(randomBytes(77)),
    signCount: 0,
    transports: ['hybrid', 'internal'],
    backupEligible: true,
    backupState: true,
    aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
    createdAt: T0,
    ...overrides,
  };
}

describe('add and find', () => {
  it('gives back every field it was added with, by one strongly consistent GetItem', async () => {
    const added = passkey({ lastUsedAt: T0 + 5_000, signCount: 7, backupEligible: false, backupState: false, transports: [] });
    expect(await store.add(added)).toBe(true);
    table.proxy.reset();

    expect(await store.find('local', added.credentialId)).toEqual(added);
    expect(table.proxy.operations()).toEqual(['GetItem']);
    expect(table.proxy.requests()[0]?.body.ConsistentRead).toBe(true);
  });

  it('gives a passkey never used no lastUsedAt at all', async () => {
    const added = passkey();
    await store.add(added);

    expect(Object.keys((await store.find('local', added.credentialId))!)).not.toContain('lastUsedAt');
  });

  it('finds nothing for an unknown credential, or for a known one in another environment', async () => {
    const added = passkey();
    await store.add(added);

    expect(await store.find('local', randomBytes(16).toString('base64url'))).toBeUndefined();
    expect(await store.find('other', added.credentialId)).toBeUndefined();
  });

  it('never overwrites a credential id that exists, the same user’s or another’s (WebAuthn L3 §7.1 step 25)', async () => {
    const first = passkey();
    await store.add(first);

    expect(await store.add({ ...first, userKey: 'attacker', publicKey: new Uint8Array(77) })).toBe(false);
    expect(await store.add(first)).toBe(false);
    expect(await store.find('local', first.credentialId)).toEqual(first);
  });

  it('keys the item by the SHA-256 of the credential id: the id itself is no part of any key', async () => {
    const added = passkey();
    await store.add(added);
    const put = table.proxy.requests()[0]?.body as { Item: Record<string, { S?: string }> };

    expect(put.Item.pk?.S).toBe(passkeyItemKey('local', credentialHashOf(added.credentialId)));
    expect(put.Item.user_sort?.S).toBe(`passkey#${credentialHashOf(added.credentialId)}`);
    expect(JSON.stringify([put.Item.pk, put.Item.user_index, put.Item.user_sort])).not.toContain(added.credentialId);
  });

  it('refuses a corrupt item: an error, never a passkey', async () => {
    const credentialId = randomBytes(16).toString('base64url');
    await table.client.send(
      new PutItemCommand({
        TableName: table.name,
        Item: {
          pk: { S: passkeyItemKey('local', credentialHashOf(credentialId)) },
          environment_id: { S: 'local' },
          credential_id: { S: credentialId },
          user_key: { S: 'user' },
          sign_count: { S: 'not a number' },
        },
      }),
    );

    await expect(store.find('local', credentialId)).rejects.toThrow(/malformed passkey item/);
  });

  it('refuses an item under another credential’s key', async () => {
    const added = passkey();
    const other = randomBytes(16).toString('base64url');
    await store.add(added);
    const { Item } = await table.documents.send(
      new GetCommand({ TableName: table.name, Key: { pk: passkeyItemKey('local', credentialHashOf(added.credentialId)) } }),
    );
    await table.documents.send(
      new PutCommand({
        TableName: table.name,
        Item: { ...Item, pk: passkeyItemKey('local', credentialHashOf(other)) },
      }),
    );

    await expect(store.find('local', other)).rejects.toThrow(/wrong key/);
  });
});

describe('listOf', () => {
  it('lists the user’s passkeys in the environment, oldest first, in one Query and one BatchGetItem', async () => {
    const userKey = `user-${randomUUID()}`;
    const newest = passkey({ userKey, createdAt: T0 + 2_000 });
    const oldest = passkey({ userKey, createdAt: T0 });
    const middle = passkey({ userKey, createdAt: T0 + 1_000, lastUsedAt: T0 + 1_500 });
    for (const added of [newest, oldest, middle]) await store.add(added);
    await store.add(passkey()); // another user's
    await store.add(passkey({ userKey, environmentId: 'other' })); // the same user key in another environment
    table.proxy.reset();

    expect(await store.listOf('local', userKey)).toEqual([oldest, middle, newest]);
    expect(table.proxy.operations()).toEqual(['Query', 'BatchGetItem']);
    expect(table.proxy.requests()[1]?.body).toMatchObject({ RequestItems: { [table.name]: { ConsistentRead: true } } });
  });

  it('orders by creation, then credential id, not by the index’s order (the hashes of the ids)', async () => {
    const userKey = `user-${randomUUID()}`;
    // Six ids whose hashes (the index's sort keys) run the other way from their creation times.
    const ids = Array.from({ length: 6 }, () => randomBytes(16).toString('base64url')).sort((a, b) =>
      credentialHashOf(b).localeCompare(credentialHashOf(a)),
    );
    const records = ids.map((credentialId, index) => passkey({ userKey, credentialId, createdAt: T0 + Math.floor(index / 2) * 1_000 }));
    for (const added of records) await store.add(added);
    const expected = [...records].sort((a, b) => a.createdAt - b.createdAt || a.credentialId.localeCompare(b.credentialId));

    expect((await store.listOf('local', userKey)).map((record) => record.credentialId)).toEqual(
      expected.map((record) => record.credentialId),
    );
  });

  it('reads more than 100 passkeys in BatchGetItem requests of at most 100 keys', async () => {
    const userKey = `user-${randomUUID()}`;
    const records = Array.from({ length: 101 }, (_, index) => passkey({ userKey, createdAt: T0 + index }));
    for (const added of records) await store.add(added);
    table.proxy.reset();

    expect(await store.listOf('local', userKey)).toEqual(records);
    expect(table.proxy.operations()).toEqual(['Query', 'BatchGetItem', 'BatchGetItem']);
    const sizes = table.proxy
      .requests()
      .slice(1)
      .map((request) => (request.body as { RequestItems: Record<string, { Keys: unknown[] }> }).RequestItems[table.name]?.Keys.length);
    expect(sizes).toEqual([100, 1]);
  });

  it('is one Query, and empty, for a user with none', async () => {
    expect(await store.listOf('local', `user-${randomUUID()}`)).toEqual([]);
    expect(table.proxy.operations()).toEqual(['Query']);
  });

  it('lists only passkeys: the user’s sessions on the same index are not', async () => {
    const userKey = `user-${randomUUID()}`;
    const added = passkey({ userKey });
    await store.add(added);
    await table.documents.send(
      new PutCommand({
        TableName: table.name,
        Item: { pk: `session#${randomUUID()}`, user_index: `local#${userKey}`, user_sort: 'session#sid' },
      }),
    );

    expect(await store.listOf('local', userKey)).toEqual([added]);
  });
});

describe('hasAny', () => {
  it('says whether the user has a passkey in the environment, by the Query alone', async () => {
    const added = passkey();
    await store.add(added);
    table.proxy.reset();

    expect(await store.hasAny('local', added.userKey)).toBe(true);
    expect(table.proxy.operations()).toEqual(['Query']);
    expect(await store.hasAny('other', added.userKey)).toBe(false);
    expect(await store.hasAny('local', `user-${randomUUID()}`)).toBe(false);
  });
});

describe('remove and removeAll', () => {
  it('removes the user’s own passkey in one DeleteItem, and then finds it no more', async () => {
    const added = passkey();
    await store.add(added);
    table.proxy.reset();

    expect(await store.remove('local', added.userKey, added.credentialId)).toBe(true);
    expect(table.proxy.operations()).toEqual(['DeleteItem']);
    expect(await store.find('local', added.credentialId)).toBeUndefined();
    expect(await store.remove('local', added.userKey, added.credentialId)).toBe(false);
  });

  it('never removes another user’s passkey', async () => {
    const added = passkey();
    await store.add(added);

    expect(await store.remove('local', 'someone-else', added.credentialId)).toBe(false);
    expect(await store.find('local', added.credentialId)).toEqual(added);
  });

  it('removes every passkey of the user in the environment (the operator’s action), and says how many', async () => {
    const userKey = `user-${randomUUID()}`;
    const mine = [passkey({ userKey }), passkey({ userKey }), passkey({ userKey })];
    const otherEnvironment = passkey({ userKey, environmentId: 'other' });
    const otherUser = passkey();
    for (const added of [...mine, otherEnvironment, otherUser]) await store.add(added);

    expect(await store.removeAll('local', userKey)).toBe(3);
    expect(await store.listOf('local', userKey)).toEqual([]);
    expect(await store.listOf('other', userKey)).toEqual([otherEnvironment]);
    expect(await store.find('local', otherUser.credentialId)).toEqual(otherUser);
    expect(await store.removeAll('local', userKey)).toBe(0);
  });
});

describe('passkeySignInItems', () => {
  it('is, in this order, the conditional count update, the challenge put if absent, and the operator-block check', () => {
    const items = passkeySignInItems('table', {
      environmentId: 'local',
      credentialId: 'cred',
      userKey: 'user',
      previousSignCount: 4,
      signCount: 5,
      backupState: true,
      now: T0,
      challenge: 'c2luZ2xlLXVzZS1jaGFsbGVuZ2U',
      challengeExpiresAt: 1_900_000_000,
    });

    expect(items).toEqual([
      {
        Update: {
          TableName: 'table',
          Key: { pk: passkeyItemKey('local', credentialHashOf('cred')) },
          UpdateExpression: 'SET sign_count = :count, last_used_at = :now, backup_state = :backupState',
          ConditionExpression: 'attribute_exists(pk) AND user_key = :userKey AND sign_count = :previous',
          ExpressionAttributeValues: { ':count': 5, ':now': T0, ':backupState': true, ':userKey': 'user', ':previous': 4 },
        },
      },
      {
        Put: {
          TableName: 'table',
          Item: { pk: expect.stringMatching(/^pkchallenge#[A-Za-z0-9_-]{43}$/), expires_at: 1_900_000_000 },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        ConditionCheck: {
          TableName: 'table',
          Key: { pk: attemptItemKey({ operation: 'token', environmentId: 'local', userKey: 'user' }) },
          ConditionExpression: 'attribute_not_exists(#blocked)',
          ExpressionAttributeNames: { '#blocked': 'operator_blocked' },
        },
      },
    ]);
    // The challenge is kept hashed: a spent one's item never holds it in clear.
    expect(JSON.stringify(items)).not.toContain('c2luZ2xlLXVzZS1jaGFsbGVuZ2U');
  });
});
