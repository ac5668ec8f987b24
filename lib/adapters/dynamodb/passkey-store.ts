/**
 * Passkeys in DynamoDB: one item per credential, `passkey#<environment>#<credential hash>`, keyed
 * by the SHA-256 of its credential id (the authenticator chooses the id, up to 1023 bytes), on the
 * user index (table.ts `userIndex`, sort `passkey#<credential hash>`) so a user's passkeys are
 * found without a scan. No TTL: a passkey lasts until its user or an operator removes it.
 *
 * Requests: `find` is one GetItem (strongly consistent: the sign-count condition below is written
 * against what it read); `add` and `remove` one conditional write each; `listOf` one Query of the
 * index (keys only) and, when the user has passkeys, one BatchGetItem (strongly consistent);
 * `hasAny` that Query alone; `removeAll` that Query and one DeleteItem per passkey.
 *
 * A passkey sign-in writes no request of its own here: passkey-sign-in.ts `passkeySignInItems` are
 * the first three entries of the TransactWriteItems that starts or renews its session (session-store.ts), so
 * the whole sign-in is the GetItem and that one transaction (the request count is held by
 * test/integration/dynamodb/session-store.test.ts).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import '../../platform/zod';
import * as z from 'zod/mini';
import type { PasskeyRecord, PasskeyStore } from '../../passkeys/ports';
import { storageFailure } from './client';
import { passkeyItemKey, passkeySortKey, userIndexKey } from './item-keys';
import { credentialHashOf, passkeyKeyOf } from './passkey-sign-in';
import { userIndexItems } from './session-store';
import { TABLE_DEFINITION } from './table';

const PASSKEY_SORT_PREFIX = passkeySortKey('');
/** BatchGetItem reads at most 100 keys per request. */
const BATCH_GET_LIMIT = 100;

/** A passkey item as stored; every one read back is parsed, so a corrupt item is an error, never a login. */
const passkeyItemSchema = z.object({
  pk: z.string().check(z.startsWith('passkey#')),
  environment_id: z.string().check(z.minLength(1)),
  credential_id: z.string().check(z.minLength(1)),
  user_key: z.string().check(z.minLength(1)),
  auth_type: z.enum(['email', 'sms']),
  user_id: z.string().check(z.minLength(1)),
  user_handle: z.string().check(z.minLength(1)),
  public_key: z.instanceof(Uint8Array),
  sign_count: z.int().check(z.gte(0)),
  transports: z.array(z.string()),
  backup_eligible: z.boolean(),
  backup_state: z.boolean(),
  aaguid: z.string(),
  created_at: z.number(),
  last_used_at: z.optional(z.number()),
  [TABLE_DEFINITION.userIndex.partitionKey.name]: z.string(),
  [TABLE_DEFINITION.userIndex.sortKey.name]: z.string(),
});

export class DynamoDbPasskeyStore implements PasskeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async find(environmentId: string, credentialId: string): Promise<PasskeyRecord | undefined> {
    let item: Record<string, unknown> | undefined;
    try {
      ({ Item: item } = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { pk: passkeyKeyOf(environmentId, credentialId) }, ConsistentRead: true }),
      ));
    } catch (error) {
      throw storageFailure(error, 'find passkey');
    }
    if (item === undefined) return undefined;
    const record = passkeyOf(item);
    // The key is a hash of both: anything else is a corrupt item, never another user's login.
    if (record.environmentId !== environmentId || record.credentialId !== credentialId)
      throw new Error('A passkey item under the wrong key');
    return record;
  }

  async listOf(environmentId: string, userKey: string): Promise<PasskeyRecord[]> {
    const keys = await this.keysOf(environmentId, userKey, 'list passkeys');
    const items: Array<Record<string, unknown>> = [];
    for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
      let pending: Array<Record<string, unknown>> | undefined = keys.slice(start, start + BATCH_GET_LIMIT).map((pk) => ({ pk }));
      while (pending !== undefined && pending.length > 0) {
        let page: {
          Responses?: Record<string, Array<Record<string, unknown>>>;
          UnprocessedKeys?: Record<string, { Keys?: Array<Record<string, unknown>> }>;
        };
        try {
          page = await this.client.send(
            new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }),
          );
        } catch (error) {
          throw storageFailure(error, 'list passkeys');
        }
        items.push(...(page.Responses?.[this.tableName] ?? []));
        pending = page.UnprocessedKeys?.[this.tableName]?.Keys;
      }
    }
    return (
      items
        .map(passkeyOf)
        // A passkey removed between the Query and the read is simply not listed; the index holds only this user's.
        .filter((record) => record.environmentId === environmentId && record.userKey === userKey)
        .sort((a, b) => a.createdAt - b.createdAt || a.credentialId.localeCompare(b.credentialId))
    );
  }

  async add(record: PasskeyRecord): Promise<boolean> {
    const hash = credentialHashOf(record.credentialId);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: passkeyItemKey(record.environmentId, hash),
            environment_id: record.environmentId,
            credential_id: record.credentialId,
            user_key: record.userKey,
            auth_type: record.user.authType,
            user_id: record.user.value,
            user_handle: record.userHandle,
            public_key: record.publicKey,
            sign_count: record.signCount,
            transports: [...record.transports],
            backup_eligible: record.backupEligible,
            backup_state: record.backupState,
            aaguid: record.aaguid,
            created_at: record.createdAt,
            last_used_at: record.lastUsedAt,
            [TABLE_DEFINITION.userIndex.partitionKey.name]: userIndexKey(record.environmentId, record.userKey),
            [TABLE_DEFINITION.userIndex.sortKey.name]: passkeySortKey(hash),
          },
          // A credential id is the authenticator's, not ours: one registered already (this user's or
          // another's) is never overwritten (WebAuthn L3 §7.1 step 25).
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw storageFailure(error, 'add passkey');
    }
  }

  async remove(environmentId: string, userKey: string, credentialId: string): Promise<boolean> {
    return this.removeItem(passkeyKeyOf(environmentId, credentialId), userKey, 'remove passkey');
  }

  async removeAll(environmentId: string, userKey: string): Promise<number> {
    const keys = await this.keysOf(environmentId, userKey, 'remove passkeys');
    const removed = await Promise.all(keys.map((pk) => this.removeItem(pk, userKey, 'remove passkeys')));
    return removed.filter(Boolean).length;
  }

  /** Deletes one passkey item, only the user's own: false when it is another's or gone. */
  private async removeItem(pk: string, userKey: string, operation: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk },
          ConditionExpression: 'attribute_exists(pk) AND user_key = :userKey',
          ExpressionAttributeValues: { ':userKey': userKey },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw storageFailure(error, operation);
    }
  }

  async hasAny(environmentId: string, userKey: string): Promise<boolean> {
    return (await this.keysOf(environmentId, userKey, 'find passkeys')).length > 0;
  }

  /** The `pk`s of the user's passkeys in the environment: the user index (and its pages). */
  private async keysOf(environmentId: string, userKey: string, operation: string): Promise<string[]> {
    const items = await userIndexItems(this.client, this.tableName, environmentId, userKey, operation, PASSKEY_SORT_PREFIX);
    return items.map((item) => String(item.pk));
  }
}

function passkeyOf(item: Record<string, unknown>): PasskeyRecord {
  const parsed = passkeyItemSchema.safeParse(item);
  if (!parsed.success) throw new Error(`A malformed passkey item: ${z.prettifyError(parsed.error)}`);
  const stored = parsed.data;
  return {
    environmentId: stored.environment_id,
    credentialId: stored.credential_id,
    userKey: stored.user_key,
    user: { authType: stored.auth_type, value: stored.user_id },
    userHandle: stored.user_handle,
    publicKey: stored.public_key,
    signCount: stored.sign_count,
    transports: stored.transports,
    backupEligible: stored.backup_eligible,
    backupState: stored.backup_state,
    aaguid: stored.aaguid,
    createdAt: stored.created_at,
    ...(stored.last_used_at === undefined ? {} : { lastUsedAt: stored.last_used_at }),
  };
}
