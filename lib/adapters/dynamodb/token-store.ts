/**
 * Opaque access tokens in DynamoDB, keyed by the SHA-256 of the token (256 random bits need no
 * secret key: the hash cannot be inverted or guessed). The token itself is never stored.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import '../../platform/zod';
import * as z from 'zod/mini';
import type { OpaqueTokenRecord, TokenStore } from '../../oauth/ports';
import { storageFailure } from './client';
import { tokenItemKey } from './item-keys';
import { TABLE_DEFINITION } from './table';

/** A token item as stored; every one read back is parsed, so a corrupt item is an error, never a grant. */
const tokenItemSchema = z.object({
  pk: z.string().check(z.startsWith('token#')),
  sub: z.string().check(z.minLength(1)),
  client_id: z.string().check(z.minLength(1)),
  environment_id: z.string().check(z.minLength(1)),
  aud: z.string().check(z.minLength(1)),
  scope: z.optional(z.string()),
  jti: z.string().check(z.minLength(1)),
  amr: z.array(z.string()).check(z.minLength(1)),
  /** The login's `acr` (a passkey login's); absent for a code login. */
  acr: z.optional(z.string().check(z.minLength(1))),
  iat: z.int(),
  auth_time: z.int(),
  exp: z.int(),
  /** The user's address claims, for UserInfo; absent when the grant carried none. */
  claims: z.optional(z.record(z.string(), z.union([z.string(), z.boolean()]))),
  /** The key of the refresh token family it was issued with, if any. */
  family: z.optional(z.string().check(z.minLength(1))),
});
type TokenItem = z.infer<typeof tokenItemSchema>;

/** The item of an opaque token's record (also written inside a refresh token family's transactions). */
export function tokenItemOf(record: OpaqueTokenRecord): TokenItem & Record<string, unknown> {
  return {
    pk: tokenItemKey(record.tokenHash),
    sub: record.subject,
    client_id: record.clientId,
    environment_id: record.environmentId,
    aud: record.audience,
    scope: record.scope,
    jti: record.jti,
    amr: [...record.amr],
    ...(record.acr === undefined ? {} : { acr: record.acr }),
    iat: record.issuedAt,
    auth_time: record.authTime,
    exp: record.expiresAt,
    ...(Object.keys(record.claims).length === 0 ? {} : { claims: { ...record.claims } }),
    family: record.familyKey,
    [TABLE_DEFINITION.timeToLiveAttribute]: record.expiresAt,
  };
}

export class DynamoDbTokenStore implements TokenStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async save(record: OpaqueTokenRecord): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({ TableName: this.tableName, Item: tokenItemOf(record), ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      throw storageFailure(error, 'save token');
    }
  }

  async find(tokenHash: string): Promise<OpaqueTokenRecord | undefined> {
    let item: Record<string, unknown> | undefined;
    try {
      // Strongly consistent: a token must be introspectable the moment it is issued.
      ({ Item: item } = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { pk: tokenItemKey(tokenHash) }, ConsistentRead: true }),
      ));
    } catch (error) {
      throw storageFailure(error, 'find token');
    }
    if (item === undefined) return undefined;
    const parsed = tokenItemSchema.safeParse(item);
    if (!parsed.success) throw new Error(`A malformed token item: ${z.prettifyError(parsed.error)}`);
    const stored = parsed.data;
    return {
      tokenHash,
      subject: stored.sub,
      clientId: stored.client_id,
      environmentId: stored.environment_id,
      audience: stored.aud,
      scope: stored.scope,
      jti: stored.jti,
      amr: stored.amr,
      acr: stored.acr,
      issuedAt: stored.iat,
      authTime: stored.auth_time,
      expiresAt: stored.exp,
      claims: stored.claims ?? {},
      familyKey: stored.family,
    };
  }

  /** RFC 7009: the record is deleted, if it is `clientId`'s, so introspection says inactive at once. */
  async revoke(tokenHash: string, clientId: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk: tokenItemKey(tokenHash) },
          ConditionExpression: 'client_id = :client',
          ExpressionAttributeValues: { ':client': clientId },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw storageFailure(error, 'revoke token');
    }
  }
}
