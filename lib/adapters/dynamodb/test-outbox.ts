/**
 * The test outbox in DynamoDB (lib/otp/test-outbox.ts): one item per environment and test
 * recipient, `testmsg#<environment>#<user key>`, holding the sealed message, `not_after` (ms, checked
 * by the application) and the TTL (housekeeping: DynamoDB deletes lazily).
 *
 * - keep: one UpdateItem that sets all three (the otp-send and authorize functions may only update
 *   items: lib/platform/routes.ts), replacing an earlier message;
 * - take: one DeleteItem returning the old item, so a message is read at most once.
 */
import { DeleteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeptTestMessage, TestMessageKey, TestOutbox } from '../../otp/test-outbox';
import { storageFailure } from './client';
import { testMessageItemKey } from './item-keys';
import { TABLE_DEFINITION, ttlSeconds } from './table';

export class DynamoDbTestOutbox implements TestOutbox {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async keep(key: TestMessageKey, message: KeptTestMessage): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: testMessageItemKey(key) },
          UpdateExpression: 'SET #sealed = :sealed, #notAfter = :notAfter, #e = :expires',
          ExpressionAttributeNames: { '#sealed': 'sealed', '#notAfter': 'not_after', '#e': TABLE_DEFINITION.timeToLiveAttribute },
          ExpressionAttributeValues: { ':sealed': message.sealed, ':notAfter': message.notAfter, ':expires': ttlSeconds(message.notAfter) },
        }),
      );
    } catch (error) {
      throw storageFailure(error, 'keep test message');
    }
  }

  async take(key: TestMessageKey): Promise<KeptTestMessage | undefined> {
    let old: Record<string, unknown> | undefined;
    try {
      const result = await this.client.send(
        new DeleteCommand({ TableName: this.tableName, Key: { pk: testMessageItemKey(key) }, ReturnValues: 'ALL_OLD' }),
      );
      old = result.Attributes;
    } catch (error) {
      throw storageFailure(error, 'take test message');
    }
    if (old === undefined || typeof old.sealed !== 'string' || typeof old.not_after !== 'number') return undefined;
    return { sealed: old.sealed, notAfter: old.not_after };
  }
}
