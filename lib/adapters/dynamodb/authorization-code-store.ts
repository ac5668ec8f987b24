/**
 * Authorization codes in DynamoDB, keyed by the code's keyed hash. Consumption is one conditional
 * DeleteItem (unexpired by the application's clock; TTL deletes lazily): of two concurrent
 * exchanges of one code only one gets the record (RFC 6749 §4.1.2: single use).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import '../../platform/zod';
import * as z from 'zod/mini';
import type { AuthorizationCodeRecord, AuthorizationCodeStore } from '../../oauth/ports';
import { LOGIN_METHODS } from '../../platform/vocabulary';
import { storageFailure } from './client';
import { authorizationCodeItemKey } from './item-keys';
import { TABLE_DEFINITION, ttlSeconds } from './table';

const authorizationCodeItemSchema = z.object({
  pk: z.string().check(z.startsWith('authcode#')),
  environment_id: z.string().check(z.minLength(1)),
  client_id: z.string().check(z.minLength(1)),
  redirect_uri: z.string().check(z.minLength(1)),
  code_challenge: z.optional(z.string().check(z.minLength(1))),
  nonce: z.optional(z.string()),
  scope: z.optional(z.string()),
  user_key: z.string().check(z.minLength(1)),
  sub: z.string().check(z.minLength(1)),
  channel: z.enum(LOGIN_METHODS),
  claims: z.optional(z.record(z.string(), z.union([z.string(), z.boolean()]))),
  auth_time: z.int(),
  // Optional: a code saved by the version before sessions (issue 27) is exchanged within its 60 s.
  sid: z.optional(z.string().check(z.minLength(1))),
  not_after: z.number(),
});

export class DynamoDbAuthorizationCodeStore implements AuthorizationCodeStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async save(record: AuthorizationCodeRecord): Promise<void> {
    try {
      await this.client.send(new PutCommand(authorizationCodePut(this.tableName, record)));
    } catch (error) {
      throw storageFailure(error, 'save authorization code');
    }
  }

  async consume(codeHash: string, now: number): Promise<AuthorizationCodeRecord | undefined> {
    let removed: Record<string, unknown> | undefined;
    try {
      ({ Attributes: removed } = await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk: authorizationCodeItemKey(codeHash) },
          ConditionExpression: 'not_after > :now',
          ExpressionAttributeValues: { ':now': now },
          ReturnValues: 'ALL_OLD',
        }),
      ));
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw storageFailure(error, 'consume authorization code');
    }
    if (removed === undefined) return undefined;
    const parsed = authorizationCodeItemSchema.safeParse(removed);
    if (!parsed.success) throw new Error(`A malformed authorization code item: ${z.prettifyError(parsed.error)}`);
    const stored = parsed.data;
    return {
      codeHash,
      environmentId: stored.environment_id,
      clientId: stored.client_id,
      redirectUri: stored.redirect_uri,
      codeChallenge: stored.code_challenge,
      nonce: stored.nonce,
      scope: stored.scope,
      userKey: stored.user_key,
      subject: stored.sub,
      channel: stored.channel,
      claims: stored.claims ?? {},
      authTime: stored.auth_time,
      sessionId: stored.sid,
      notAfter: stored.not_after,
    };
  }
}

/**
 * The conditional Put that saves an authorization code: alone (`save`), or in the transaction
 * that also starts or uses the session it came from (session-store.ts).
 */
export function authorizationCodePut(tableName: string, record: AuthorizationCodeRecord) {
  const item = {
    pk: authorizationCodeItemKey(record.codeHash),
    environment_id: record.environmentId,
    client_id: record.clientId,
    redirect_uri: record.redirectUri,
    code_challenge: record.codeChallenge,
    nonce: record.nonce,
    scope: record.scope,
    user_key: record.userKey,
    sub: record.subject,
    channel: record.channel,
    ...(Object.keys(record.claims).length === 0 ? {} : { claims: { ...record.claims } }),
    auth_time: record.authTime,
    sid: record.sessionId,
    not_after: record.notAfter,
    [TABLE_DEFINITION.timeToLiveAttribute]: ttlSeconds(record.notAfter),
  };
  return { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' };
}
