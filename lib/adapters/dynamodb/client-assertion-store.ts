/**
 * The single use of `private_key_jwt` client assertions (RFC 7523 §3 `jti`) in DynamoDB: one item
 * per client and `jti` hash, written by one conditional PutItem, so of two requests carrying one
 * assertion, concurrent or not, exactly one passes. The item lives (TTL) until the assertion could
 * no longer be accepted anyway, so the record of every `jti` lasts exactly as long as RFC 7523 §3
 * asks ("for the length of time for which the JWT would be considered valid"), and no longer.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AssertionUse, ClientAssertionStore } from '../../oauth/ports';
import { storageFailure } from './client';
import { clientAssertionItemKey } from './item-keys';
import { TABLE_DEFINITION } from './table';

export class DynamoDbClientAssertionStore implements ClientAssertionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async spend(use: AssertionUse): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: clientAssertionItemKey(use.clientId, use.jtiHash),
            client_id: use.clientId,
            [TABLE_DEFINITION.timeToLiveAttribute]: use.keepUntil,
          },
          // TTL deletes lazily (up to days late): a record past its time is gone, and its jti free again.
          ConditionExpression: 'attribute_not_exists(pk) OR #expires_at < :now',
          ExpressionAttributeNames: { '#expires_at': TABLE_DEFINITION.timeToLiveAttribute },
          ExpressionAttributeValues: { ':now': use.now },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw storageFailure(error, 'spend client assertion');
    }
  }
}
