/**
 * Revoked access tokens (RFC 7009) in DynamoDB:
 * - a revoked JWT access token: `revoked#<jti>`, kept (TTL) until the token expires, when it is
 *   dead anyway; the JWT itself is never stored;
 * - a revoked refresh token family (lib/adapters/dynamodb/refresh-token-store.ts): every access
 *   token issued with it names it (`sid`, or the opaque record's family), and is revoked with it.
 * A check reads both in one strongly consistent request (BatchGetItem when there are two keys), so
 * a revocation counts from the moment its write returns.
 */
import { BatchGetCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TemporarilyUnavailableError } from '../../errors';
import type { RevocationStore } from '../../ports';
import { storageFailure } from './client';
import { familyItemKey } from './refresh-token-store';
import { TABLE_DEFINITION } from './table';

export function revokedItemKey(jti: string): string {
  return `revoked#${jti}`;
}

export class DynamoDbRevocationStore implements RevocationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async revokeAccessToken(jti: string, clientId: string, expiresAt: number): Promise<void> {
    try {
      // Idempotent: revoking twice writes the same item again.
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: revokedItemKey(jti), client_id: clientId, exp: expiresAt, [TABLE_DEFINITION.timeToLiveAttribute]: expiresAt },
        }),
      );
    } catch (error) {
      throw storageFailure(error, 'revoke access token');
    }
  }

  async isRevoked(token: { readonly jti?: string | undefined; readonly familyKey?: string | undefined }): Promise<boolean> {
    const keys = [
      ...(token.jti === undefined ? [] : [revokedItemKey(token.jti)]),
      ...(token.familyKey === undefined ? [] : [familyItemKey(token.familyKey)]),
    ];
    const items = await this.read(keys);
    // A revoked JWT has its item; a family is revoked when it says so (a live one is read too).
    return items.some((item) => String(item.pk).startsWith('revoked#') || item.revoked_at !== undefined);
  }

  private async read(keys: readonly string[]): Promise<Array<Record<string, unknown>>> {
    if (keys.length === 0) return [];
    let answer: { Responses?: Record<string, Array<Record<string, unknown>>>; UnprocessedKeys?: Record<string, unknown> };
    try {
      if (keys.length === 1) {
        const { Item } = await this.client.send(
          new GetCommand({ TableName: this.tableName, Key: { pk: keys[0] }, ConsistentRead: true, ProjectionExpression: 'pk, revoked_at' }),
        );
        return Item === undefined ? [] : [Item];
      }
      answer = await this.client.send(
        new BatchGetCommand({
          RequestItems: {
            [this.tableName]: { Keys: keys.map((pk) => ({ pk })), ConsistentRead: true, ProjectionExpression: 'pk, revoked_at' },
          },
        }),
      );
    } catch (error) {
      throw storageFailure(error, 'check revocation');
    }
    // Two small items are left unprocessed only when DynamoDB is throttling: a 503, rather than a guess.
    if (Object.keys(answer.UnprocessedKeys ?? {}).length > 0) {
      throw new TemporarilyUnavailableError({ detail: 'DynamoDB check revocation: BatchGetItem left keys unprocessed' });
    }
    return answer.Responses?.[this.tableName] ?? [];
  }
}
