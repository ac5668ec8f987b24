/**
 * Refresh token families in DynamoDB (docs/decisions/009-refresh-token-families.md): one item per
 * family, `refresh#<family key>`, holding the keyed hashes of its live token and of the one the
 * last rotation spent, its generation, the login it came from, and the times of its last
 * rotations (`r0` oldest … `r{MAX_REFRESH_WINDOW-1}` newest: the family's own limit, a sliding
 * window as the fraud guards' are, sliding-window.ts). Tokens are never stored.
 *
 * A rotation is one conditional UpdateItem: "the presented token is the live one, the family is
 * not revoked, neither lifetime has run out, and its limit has room", then the successor becomes
 * live and the rotation's time enters the window. The item always keeps the most slots any limit
 * can count, and the condition reads the one the configured limit names, so a changed limit never
 * misreads a family written under another. DynamoDB
 * serialises writes to one item, so of concurrent rotations of one token exactly one passes the
 * condition; each refused one gets the item as it found it (ReturnValuesOnConditionCheckFailure),
 * which tells the domain the token was spent, without a read. With an opaque access token the
 * rotation and the token's record are one TransactWriteItems: the token exists exactly when the
 * rotation happened.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import '../../platform/zod';
import * as z from 'zod/mini';
import type { OpaqueTokenRecord, RefreshFamily, RefreshTokenStore, Rotation, RotationResult, RevocationReason } from '../../oauth/ports';
import { LOGIN_METHODS } from '../../platform/vocabulary';
import { MAX_REFRESH_WINDOW } from '../../platform/config';
import { itemOfFailure, storageFailure } from './client';
import { slotShifts } from './sliding-window';
import { familyItemKey, familySortKey, userIndexKey } from './item-keys';
import { hasScope } from '../../oauth/scopes';
import { TABLE_DEFINITION } from './table';
import { tokenItemOf } from './token-store';

const REVOCATION_REASONS = ['reuse', 'revoked', 'session_ended', 'operator'] as const satisfies readonly RevocationReason[];

/** A slot of the family's window of rotations (no placeholder needed: none is a reserved word). */
const rotationSlot = (index: number) => `r${index}`;
const ROTATION_SLOTS = Array.from({ length: MAX_REFRESH_WINDOW }, (_, index) => rotationSlot(index));

/** A family item as stored; every one read back is parsed, so a corrupt item is an error, never a grant. */
const familyItemSchema = z.object({
  pk: z.string().check(z.startsWith('refresh#')),
  environment_id: z.string().check(z.minLength(1)),
  client_id: z.string().check(z.minLength(1)),
  user_key: z.string().check(z.minLength(1)),
  sub: z.string().check(z.minLength(1)),
  channel: z.enum(LOGIN_METHODS),
  claims: z.optional(z.record(z.string(), z.union([z.string(), z.boolean()]))),
  scope: z.optional(z.string()),
  auth_time: z.int(),
  sid: z.optional(z.string().check(z.minLength(1))),
  created_at: z.number(),
  rotated_at: z.number(),
  generation: z.int().check(z.gte(0)),
  current: z.string().check(z.minLength(1)),
  previous: z.optional(z.string()),
  revoked_at: z.optional(z.number()),
  revoked_reason: z.optional(z.enum(REVOCATION_REASONS)),
  [TABLE_DEFINITION.timeToLiveAttribute]: z.int(),
});

/** The window's slots, read in order: all of them once the family has rotated, none before. */
const rotationSlotsSchema = z.union([z.tuple([]), z.array(z.number()).check(z.length(MAX_REFRESH_WINDOW))]);

export class DynamoDbRefreshTokenStore implements RefreshTokenStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async start(family: RefreshFamily, accessToken: OpaqueTokenRecord | undefined): Promise<void> {
    const put = {
      TableName: this.tableName,
      Item: {
        pk: familyItemKey(family.familyKey),
        environment_id: family.environmentId,
        client_id: family.clientId,
        user_key: family.userKey,
        sub: family.subject,
        channel: family.channel,
        ...(Object.keys(family.claims).length === 0 ? {} : { claims: { ...family.claims } }),
        scope: family.scope,
        auth_time: family.authTime,
        sid: family.sessionId,
        created_at: family.createdAt,
        rotated_at: family.rotatedAt,
        generation: family.generation,
        current: family.currentHash,
        previous: family.previousHash,
        // In the user index (table.ts): a logout revokes the families its session's logins
        // started, unless they asked for offline access (OIDC Core §11); an operator, all of them.
        [TABLE_DEFINITION.userIndex.partitionKey.name]: userIndexKey(family.environmentId, family.userKey),
        [TABLE_DEFINITION.userIndex.sortKey.name]: familySortKey(family.sessionId, hasScope(family.scope, 'offline_access')),
        [TABLE_DEFINITION.timeToLiveAttribute]: family.keepUntil,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    };
    try {
      if (accessToken === undefined) await this.client.send(new PutCommand(put));
      else await this.client.send(new TransactWriteCommand({ TransactItems: [{ Put: put }, { Put: this.tokenPut(accessToken) }] }));
    } catch (error) {
      throw storageFailure(error, 'start refresh token family');
    }
  }

  async find(familyKey: string): Promise<RefreshFamily | undefined> {
    let item: Record<string, unknown> | undefined;
    try {
      // Strongly consistent: a rotation or a revocation counts from the moment it is written.
      ({ Item: item } = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { pk: familyItemKey(familyKey) }, ConsistentRead: true }),
      ));
    } catch (error) {
      throw storageFailure(error, 'find refresh token family');
    }
    return item === undefined ? undefined : familyOf(familyKey, item);
  }

  async rotate(rotation: Rotation, accessToken: OpaqueTokenRecord | undefined): Promise<RotationResult> {
    const limitSlot = rotationSlot(MAX_REFRESH_WINDOW - rotation.limit.maxRefreshes);
    const update = {
      TableName: this.tableName,
      Key: { pk: familyItemKey(rotation.familyKey) },
      UpdateExpression: `SET #current = :successor, #previous = :presented, #generation = #generation + :one, #rotated_at = :now, #expires_at = :keep, ${slotShifts(MAX_REFRESH_WINDOW, rotationSlot).join(', ')}`,
      // Every lifetime is checked here too, by the application's clock (TTL deletes lazily), and
      // the limit: the maxRefreshes-th newest rotation is empty or out of the window.
      ConditionExpression: `#current = :presented AND attribute_not_exists(#revoked_at) AND #rotated_at > :issued_after AND #created_at > :started_after AND (attribute_not_exists(${limitSlot}) OR ${limitSlot} <= :window_start)`,
      ExpressionAttributeNames: {
        '#current': 'current',
        '#previous': 'previous',
        '#generation': 'generation',
        '#rotated_at': 'rotated_at',
        '#created_at': 'created_at',
        '#revoked_at': 'revoked_at',
        '#expires_at': TABLE_DEFINITION.timeToLiveAttribute,
      },
      ExpressionAttributeValues: {
        ':successor': rotation.successorHash,
        ':presented': rotation.presentedHash,
        ':one': 1,
        ':now': rotation.now,
        ':keep': rotation.keepUntil,
        ':issued_after': rotation.issuedAfter,
        ':started_after': rotation.startedAfter,
        ':window_start': rotation.limit.windowStart,
        ':zero': 0,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
    try {
      if (accessToken === undefined) await this.client.send(new UpdateCommand(update));
      else await this.client.send(new TransactWriteCommand({ TransactItems: [{ Update: update }, { Put: this.tokenPut(accessToken) }] }));
      return { rotated: true };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return this.refused(rotation.familyKey, itemOfFailure(error));
      if (error instanceof TransactionCanceledException) {
        const [family] = error.CancellationReasons ?? [];
        if (family?.Code === 'ConditionalCheckFailed') {
          return this.refused(rotation.familyKey, family.Item === undefined ? undefined : unmarshall(family.Item));
        }
        // TransactionConflict: another request was writing the family at that moment, so whether
        // this token is still live is unknown. A strongly consistent read answers it.
        if (family?.Code === 'TransactionConflict') return { rotated: false, family: await this.find(rotation.familyKey) };
      }
      throw storageFailure(error, 'rotate refresh token');
    }
  }

  async revoke(familyKey: string, reason: RevocationReason, now: number, clientId?: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: familyItemKey(familyKey) },
          // The first revocation's time and reason stay: a reuse after a revocation changes nothing.
          UpdateExpression: 'SET #revoked_at = if_not_exists(#revoked_at, :now), #revoked_reason = if_not_exists(#revoked_reason, :reason)',
          ConditionExpression: clientId === undefined ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND #client_id = :client',
          ExpressionAttributeNames: {
            '#revoked_at': 'revoked_at',
            '#revoked_reason': 'revoked_reason',
            ...(clientId === undefined ? {} : { '#client_id': 'client_id' }),
          },
          ExpressionAttributeValues: { ':now': now, ':reason': reason, ...(clientId === undefined ? {} : { ':client': clientId }) },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw storageFailure(error, 'revoke refresh token family');
    }
  }

  private tokenPut(record: OpaqueTokenRecord) {
    return { TableName: this.tableName, Item: tokenItemOf(record), ConditionExpression: 'attribute_not_exists(pk)' };
  }

  private refused(familyKey: string, item: Record<string, unknown> | undefined): RotationResult {
    return { rotated: false, family: item === undefined ? undefined : familyOf(familyKey, item) };
  }
}

function familyOf(familyKey: string, item: Record<string, unknown>): RefreshFamily {
  const parsed = familyItemSchema.safeParse(item);
  if (!parsed.success) throw new Error(`A malformed refresh token family item: ${z.prettifyError(parsed.error)}`);
  const slots = rotationSlotsSchema.safeParse(ROTATION_SLOTS.filter((name) => name in item).map((name) => item[name]));
  if (!slots.success) throw new Error(`A malformed refresh token family item: ${z.prettifyError(slots.error)}`);
  const stored = parsed.data;
  return {
    familyKey,
    environmentId: stored.environment_id,
    clientId: stored.client_id,
    userKey: stored.user_key,
    subject: stored.sub,
    channel: stored.channel,
    claims: stored.claims ?? {},
    scope: stored.scope,
    authTime: stored.auth_time,
    sessionId: stored.sid,
    createdAt: stored.created_at,
    rotatedAt: stored.rotated_at,
    generation: stored.generation,
    currentHash: stored.current,
    previousHash: stored.previous,
    revokedAt: stored.revoked_at,
    revokedReason: stored.revoked_reason,
    keepUntil: stored[TABLE_DEFINITION.timeToLiveAttribute],
    recentRotations: slots.data,
  };
}
