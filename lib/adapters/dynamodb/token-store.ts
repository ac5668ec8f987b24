/**
 * Opaque access tokens in DynamoDB, keyed by the SHA-256 of the token (256 random bits need no
 * secret key: the hash cannot be inverted or guessed). The token itself is never stored.
 */
import { GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { OpaqueTokenRecord, TokenStore } from '../../ports';
import { storageFailure } from './client';
import { TABLE_DEFINITION } from './table';

export function tokenItemKey(tokenHash: string): string {
  return `token#${tokenHash}`;
}

export class DynamoDbTokenStore implements TokenStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async save(record: OpaqueTokenRecord): Promise<void> {
    const item: Record<string, AttributeValue> = {
      pk: { S: tokenItemKey(record.tokenHash) },
      sub: { S: record.subject },
      client_id: { S: record.clientId },
      environment_id: { S: record.environmentId },
      aud: { S: record.audience },
      jti: { S: record.jti },
      amr: { L: record.amr.map((value) => ({ S: value })) },
      iat: { N: String(record.issuedAt) },
      auth_time: { N: String(record.authTime) },
      exp: { N: String(record.expiresAt) },
      [TABLE_DEFINITION.timeToLiveAttribute]: { N: String(record.expiresAt) },
    };
    if (record.scope !== undefined) item.scope = { S: record.scope };
    try {
      await this.client.send(
        new PutItemCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      throw storageFailure(error, 'save token');
    }
  }

  async find(tokenHash: string): Promise<OpaqueTokenRecord | undefined> {
    let item: Record<string, AttributeValue> | undefined;
    try {
      // Strongly consistent: a token must be introspectable the moment it is issued.
      ({ Item: item } = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: tokenItemKey(tokenHash) } }, ConsistentRead: true }),
      ));
    } catch (error) {
      throw storageFailure(error, 'find token');
    }
    if (item === undefined) return undefined;
    return {
      tokenHash,
      subject: item.sub?.S ?? '',
      clientId: item.client_id?.S ?? '',
      environmentId: item.environment_id?.S ?? '',
      audience: item.aud?.S ?? '',
      scope: item.scope?.S,
      jti: item.jti?.S ?? '',
      amr: (item.amr?.L ?? []).map((value) => value.S ?? ''),
      issuedAt: Number(item.iat?.N ?? 0),
      authTime: Number(item.auth_time?.N ?? 0),
      expiresAt: Number(item.exp?.N ?? 0),
    };
  }
}
