/**
 * The one table's definition, shared by the CDK stack (`infra/`) and the local runtime
 * (`local/`), so they cannot drift. Deliberately free of SDK and CDK imports: both sides map it to
 * their own types.
 *
 * Every item is keyed by `pk` alone, a string whose prefix says what the item is: the key of each
 * kind of item is a function of item-keys.ts, the table's map.
 */
export const TABLE_DEFINITION = {
  /** Partition key: a string whose prefix says what the item is. No sort key: every access is by key. */
  partitionKey: { name: 'pk', type: 'S' },
  /**
   * Epoch seconds after which DynamoDB may delete the item. Housekeeping only: TTL deletes lazily
   * (up to days later), so every expiry is also checked by the application.
   */
  timeToLiveAttribute: 'expires_at',
  /**
   * The one secondary index: a user's sessions and refresh token families in an environment
   * (lib/sessions/ports.ts `UserIndex`), for a logout (the families that end with a session) and
   * the operator's "sign this user out everywhere". Sparse (only items with `user_index` are in
   * it) and keys only (`user_sort` says what each item is: `session#<sid>`, `family#<sid>` or
   * `offline#<sid>`). Never on a hot path: a login, a refresh and a code check never query it.
   */
  userIndex: {
    name: 'byUser',
    partitionKey: { name: 'user_index', type: 'S' },
    sortKey: { name: 'user_sort', type: 'S' },
  },
} as const;

/** The CreateTable input the local runtime uses (the CDK stack builds the same from TABLE_DEFINITION). */
export function createTableInput(tableName: string) {
  return {
    TableName: tableName,
    AttributeDefinitions: [TABLE_DEFINITION.partitionKey, TABLE_DEFINITION.userIndex.partitionKey, TABLE_DEFINITION.userIndex.sortKey].map(
      (key) => ({ AttributeName: key.name, AttributeType: key.type }),
    ),
    KeySchema: [{ AttributeName: TABLE_DEFINITION.partitionKey.name, KeyType: 'HASH' as const }],
    GlobalSecondaryIndexes: [
      {
        IndexName: TABLE_DEFINITION.userIndex.name,
        KeySchema: [
          { AttributeName: TABLE_DEFINITION.userIndex.partitionKey.name, KeyType: 'HASH' as const },
          { AttributeName: TABLE_DEFINITION.userIndex.sortKey.name, KeyType: 'RANGE' as const },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' as const },
      },
    ],
    BillingMode: 'PAY_PER_REQUEST' as const,
  };
}

/** Epoch seconds for the TTL attribute, rounded up so an item never outlives its logic by less. */
export function ttlSeconds(epochMs: number): number {
  return Math.ceil(epochMs / 1000);
}
