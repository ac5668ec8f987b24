/**
 * One-time codes in DynamoDB. One item per (client, user), so a new send replaces the old code.
 *
 * Consumption is one conditional DeleteItem whose condition is the whole validity rule (digest,
 * expiry, tries, PKCE): two concurrent exchanges of one code cannot both delete it. It returns the
 * item either way (ReturnValues / ReturnValuesOnConditionCheckFailure), so the caller can verify a
 * success in constant time and tell a wrong try from an expired code without another read.
 */
import {
  DeleteItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { Channel } from '../../domain/identity';
import type { CodeRecord, CodeSlot, CodeStore, ConsumeQuery, ConsumeResult } from '../../ports';
import { isConditionalCheckFailure, storageFailure } from './client';
import { TABLE_DEFINITION, ttlSeconds } from './table';

export function codeItemKey(slot: CodeSlot): string {
  return `code#${slot.clientId}#${slot.userKey}`;
}

export class DynamoDbCodeStore implements CodeStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async save(record: CodeRecord): Promise<CodeRecord | undefined> {
    try {
      // The replaced code comes back with the same request, for `restore` should delivery fail.
      const { Attributes } = await this.client.send(new PutItemCommand({ TableName: this.tableName, Item: itemOf(record), ReturnValues: 'ALL_OLD' }));
      return recordOf(Attributes);
    } catch (error) {
      throw storageFailure(error, 'save code');
    }
  }

  async consume(query: ConsumeQuery): Promise<ConsumeResult> {
    const values: Record<string, AttributeValue> = {
      ':digest': { S: query.codeDigest },
      ':now': { N: String(query.now) },
    };
    let pkce = 'attribute_not_exists(code_challenge)';
    if (query.codeChallenge !== undefined) {
      pkce = 'code_challenge = :challenge';
      values[':challenge'] = { S: query.codeChallenge };
    }
    try {
      const result = await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: codeItemKey(query) } },
          // Expiry is the application's clock, not TTL: an expired item may linger for days.
          ConditionExpression: `code_digest = :digest AND not_after > :now AND tries < max_tries AND ${pkce}`,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const record = recordOf(result.Attributes);
      if (record === undefined) throw new Error('DeleteItem succeeded without returning the item');
      return { outcome: 'consumed', record };
    } catch (error) {
      if (isConditionalCheckFailure(error)) {
        return { outcome: 'rejected', record: recordOf(error.Item as Record<string, AttributeValue> | undefined) };
      }
      throw storageFailure(error, 'consume code');
    }
  }

  async recordWrongTry(slot: CodeSlot, sendId: string): Promise<void> {
    await this.ifStillThisSend('count wrong try', sendId, (condition, values) =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: codeItemKey(slot) } },
          UpdateExpression: 'ADD tries :one',
          ConditionExpression: condition,
          ExpressionAttributeValues: { ...values, ':one': { N: '1' } },
        }),
      ),
    );
  }

  async restore(slot: CodeSlot, failedSendId: string, previous: CodeRecord | undefined): Promise<void> {
    await this.ifStillThisSend('restore code', failedSendId, (condition, values) =>
      previous === undefined
        ? this.client.send(
            new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: codeItemKey(slot) } }, ConditionExpression: condition, ExpressionAttributeValues: values }),
          )
        : this.client.send(
            new PutItemCommand({ TableName: this.tableName, Item: itemOf(previous), ConditionExpression: condition, ExpressionAttributeValues: values }),
          ),
    );
  }

  /** Runs a write that must only touch the code of `sendId`; a newer send's code is left alone. */
  private async ifStillThisSend(
    operation: string,
    sendId: string,
    write: (condition: string, values: Record<string, AttributeValue>) => Promise<unknown>,
  ): Promise<void> {
    try {
      await write('send_id = :send', { ':send': { S: sendId } });
    } catch (error) {
      if (isConditionalCheckFailure(error)) return;
      throw storageFailure(error, operation);
    }
  }
}

function itemOf(record: CodeRecord): Record<string, AttributeValue> {
  const item: Record<string, AttributeValue> = {
    pk: { S: codeItemKey(record) },
    environment_id: { S: record.environmentId },
    channel: { S: record.channel },
    code_digest: { S: record.codeDigest },
    send_id: { S: record.sendId },
    created_at: { N: String(record.createdAt) },
    not_after: { N: String(record.notAfter) },
    tries: { N: String(record.tries) },
    max_tries: { N: String(record.maxTries) },
    [TABLE_DEFINITION.timeToLiveAttribute]: { N: String(ttlSeconds(record.notAfter)) },
  };
  if (record.codeChallenge !== undefined) item.code_challenge = { S: record.codeChallenge };
  return item;
}

function recordOf(item: Record<string, AttributeValue> | undefined): CodeRecord | undefined {
  if (item?.pk?.S === undefined) return undefined;
  const [, clientId = '', userKey = ''] = item.pk.S.split('#');
  return {
    clientId,
    userKey,
    environmentId: item.environment_id?.S ?? '',
    channel: (item.channel?.S ?? 'email') as Channel,
    codeDigest: item.code_digest?.S ?? '',
    sendId: item.send_id?.S ?? '',
    createdAt: Number(item.created_at?.N ?? 0),
    notAfter: Number(item.not_after?.N ?? 0),
    tries: Number(item.tries?.N ?? 0),
    maxTries: Number(item.max_tries?.N ?? 0),
    codeChallenge: item.code_challenge?.S,
  };
}
