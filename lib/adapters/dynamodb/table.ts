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
} as const;

/** The CreateTable input the local runtime uses (the CDK stack builds the same from TABLE_DEFINITION). */
export function createTableInput(tableName: string) {
  return {
    TableName: tableName,
    AttributeDefinitions: [{ AttributeName: TABLE_DEFINITION.partitionKey.name, AttributeType: TABLE_DEFINITION.partitionKey.type }],
    KeySchema: [{ AttributeName: TABLE_DEFINITION.partitionKey.name, KeyType: 'HASH' as const }],
    BillingMode: 'PAY_PER_REQUEST' as const,
  };
}

/** Epoch seconds for the TTL attribute, rounded up so an item never outlives its logic by less. */
export function ttlSeconds(epochMs: number): number {
  return Math.ceil(epochMs / 1000);
}
