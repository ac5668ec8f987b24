/**
 * Revoked access tokens (RFC 7009) in DynamoDB, so that every check is one strongly consistent
 * GetItem of one item, by key:
 * - an access token issued with a refresh token family (a JWT's `sid`, an opaque record's
 *   `family`): the family item (lib/adapters/dynamodb/refresh-token-store.ts) says it all. The
 *   family revoked: every token of it is. A JWT of it revoked alone: its `jti` joins the family's
 *   `revoked_jtis` (a string set), which the family's TTL outlives (it is kept a day past its last
 *   usable moment, and an access token lives at most a day);
 * - a JWT without a family: `revoked#<jti>`, kept (TTL) until the token expires, when it is dead
 *   anyway. The JWT itself is never stored.
 * (A revoked opaque token has no record left: lib/adapters/dynamodb/token-store.ts.)
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import '../../platform/zod';
import * as z from 'zod/mini';
import type { RevocationStore } from '../../oauth/ports';
import { storageFailure } from './client';
import { familyItemKey, revokedItemKey } from './item-keys';
import { TABLE_DEFINITION } from './table';

const REVOKED_JTIS = 'revoked_jtis';

/**
 * What a revocation check reads back (a family item's revocation fields, or a `revoked#` item's
 * key), parsed: a corrupt item is an error, never a guess at whether the token is revoked.
 */
const revocationItemSchema = z.object({
  revoked_at: z.optional(z.number()),
  [REVOKED_JTIS]: z.optional(z.set(z.string())),
});

export class DynamoDbRevocationStore implements RevocationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async revokeAccessToken(token: { jti: string; clientId: string; expiresAt: number; familyKey?: string | undefined }): Promise<void> {
    try {
      if (token.familyKey === undefined) {
        // Idempotent: revoking twice writes the same item again.
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              pk: revokedItemKey(token.jti),
              client_id: token.clientId,
              exp: token.expiresAt,
              [TABLE_DEFINITION.timeToLiveAttribute]: token.expiresAt,
            },
          }),
        );
        return;
      }
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: familyItemKey(token.familyKey) },
          UpdateExpression: 'ADD #revoked_jtis :jti',
          // Only the family's own client's tokens; a family that is gone (TTL) has no live token left.
          ConditionExpression: 'attribute_exists(pk) AND #client_id = :client',
          ExpressionAttributeNames: { '#revoked_jtis': REVOKED_JTIS, '#client_id': 'client_id' },
          ExpressionAttributeValues: { ':jti': new Set([token.jti]), ':client': token.clientId },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return;
      throw storageFailure(error, 'revoke access token');
    }
  }

  async isRevoked(token: { readonly jti?: string | undefined; readonly familyKey?: string | undefined }): Promise<boolean> {
    if (token.familyKey !== undefined) {
      const family = await this.read(familyItemKey(token.familyKey), `revoked_at, ${REVOKED_JTIS}`);
      if (family === undefined) return false;
      return family.revoked_at !== undefined || (token.jti !== undefined && family[REVOKED_JTIS]?.has(token.jti) === true);
    }
    if (token.jti === undefined) return false;
    return (await this.read(revokedItemKey(token.jti), 'pk')) !== undefined;
  }

  private async read(pk: string, projection: string): Promise<z.infer<typeof revocationItemSchema> | undefined> {
    let item: Record<string, unknown> | undefined;
    try {
      // Strongly consistent: a revocation counts from the moment its write returned.
      ({ Item: item } = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { pk }, ConsistentRead: true, ProjectionExpression: projection }),
      ));
    } catch (error) {
      throw storageFailure(error, 'check revocation');
    }
    if (item === undefined) return undefined;
    const parsed = revocationItemSchema.safeParse(item);
    if (!parsed.success) throw new Error(`A malformed revocation item: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  }
}
