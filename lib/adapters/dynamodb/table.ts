/**
 * The one table's definition, shared by the CDK stack (`infra/`) and the local runtime
 * (`local/`), so they cannot drift. Deliberately free of SDK and CDK imports: both sides map it to
 * their own types.
 *
 * Items (all keyed by `pk`; users appear only as HMACs, never in clear):
 * - `limit#<operation>#<environment>#<user key>`: an attempt counter (lib/adapters/dynamodb/attempt-limiter.ts)
 * - `guard#ip#<environment>#<network key>`, `guard#prefix#<environment>#<prefix key>`: a fraud
 *   guard's sliding window of SMS and voice sends; `guard#budget#<environment>#<UTC day>#<shard>`: a
 *   shard of the day's SMS and voice budget (send-guards.ts)
 * - `code#<client>#<user key>`: the one live code of a client and user (code-store.ts)
 * - `token#<sha-256 of the token>`: an opaque access token (token-store.ts)
 * - `authcode#<keyed hash of the code>`: an authorization code (authorization-code-store.ts)
 * - `refresh#<keyed hash of the family id>`: a refresh token family (refresh-token-store.ts)
 * - `revoked#<jti>`: a revoked JWT access token, until it expires (revocation-store.ts)
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
