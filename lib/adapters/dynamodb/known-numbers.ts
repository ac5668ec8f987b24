/**
 * Known numbers in DynamoDB (docs/decisions/012-known-numbers.md): one item per environment and
 * number, `known#<environment>#<user key>` (the user key is the HMAC of the E.164 number), holding
 * `known_until` (ms) and the times of the number's last exempt sends in `k0` (oldest) …
 * `k{MAX_KNOWN_NUMBER_SENDS-1}` (newest), a sliding window of the fraud guards' kind
 * (sliding-window.ts). The item always keeps the most slots an allowance can count and the
 * condition reads the one the configured allowance names, so a changed setting never misreads it.
 *
 * - remember: one UpdateItem that sets `known_until` and the TTL (housekeeping only: every expiry
 *   is checked by the application's clock), keeping the window.
 * - spendKnown: one conditional UpdateItem, "known now, and the allowance's slot is empty or out
 *   of the window", that shifts the window. A refused write (not known, known no longer, or the
 *   allowance spent) is `false`; a number with no item creates none.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { MAX_KNOWN_NUMBER_SENDS } from '../../platform/config';
import type { KnownNumberKey, KnownNumbers } from '../../guards/ports';
import { storageFailure } from './client';
import { slotShifts } from './sliding-window';
import { knownNumberItemKey } from './item-keys';
import { TABLE_DEFINITION, ttlSeconds } from './table';

/** A slot of the number's window of exempt sends (no placeholder needed: none is a reserved word). */
const slot = (index: number) => `k${index}`;

export class DynamoDbKnownNumbers implements KnownNumbers {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async remember(key: KnownNumberKey, until: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: knownNumberItemKey(key) },
          UpdateExpression: 'SET #until = :until, #e = :expires',
          ExpressionAttributeNames: { '#until': 'known_until', '#e': TABLE_DEFINITION.timeToLiveAttribute },
          ExpressionAttributeValues: { ':until': until, ':expires': ttlSeconds(until) },
        }),
      );
    } catch (error) {
      throw storageFailure(error, 'remember known number');
    }
  }

  async spendKnown(key: KnownNumberKey, allowance: { maxSends: number; windowMs: number }, now: number): Promise<boolean> {
    const allowanceSlot = slot(MAX_KNOWN_NUMBER_SENDS - allowance.maxSends);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: knownNumberItemKey(key) },
          UpdateExpression: `SET ${slotShifts(MAX_KNOWN_NUMBER_SENDS, slot).join(', ')}`,
          ConditionExpression: `#until > :now AND (attribute_not_exists(${allowanceSlot}) OR ${allowanceSlot} <= :windowStart)`,
          ExpressionAttributeNames: { '#until': 'known_until' },
          ExpressionAttributeValues: { ':now': now, ':zero': 0, ':windowStart': now - allowance.windowMs },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw storageFailure(error, 'spend known number allowance');
    }
  }
}
