/**
 * Single sign-on sessions in DynamoDB (docs/decisions/014-sso-sessions.md): one item per session,
 * `session#<session key>`, keyed by the keyed hash of its cookie's reference, and the user index
 * (table.ts `userIndex`) that finds a user's sessions and refresh token families.
 *
 * Requests: a login that starts a session writes the session and its authorization code in one
 * TransactWriteItems; a login a session serves reads it (one GetItem, strongly consistent: a
 * logout counts from the moment it is written) and then, in one TransactWriteItems, touches it
 * (the idle lifetime, the client it served) and writes the code, on condition that it is still
 * live: so such a login is two requests, and a session ended or lapsed between the two serves no
 * code. Ending a session is one DeleteItem that returns it.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import '../../platform/zod';
import * as z from 'zod/mini';
import type { AuthorizationCodeRecord } from '../../oauth/ports';
import type { SessionRecord, SessionRenewal, SessionStore, SessionUse, UserIndex, UserItems } from '../../sessions/ports';
import { CHANNELS } from '../../platform/vocabulary';
import { storageFailure } from './client';
import { authorizationCodePut } from './authorization-code-store';
import { familyItemKey, sessionItemKey, sessionSortKey, userIndexKey } from './item-keys';
import { TABLE_DEFINITION } from './table';

const SESSION_PREFIX = sessionItemKey('');
const FAMILY_PREFIX = familyItemKey('');

/** A session item as stored; every one read back is parsed, so a corrupt item is an error, never a login. */
const sessionItemSchema = z.object({
  pk: z.string().check(z.startsWith(SESSION_PREFIX)),
  sid: z.string().check(z.minLength(1)),
  environment_id: z.string().check(z.minLength(1)),
  user_key: z.string().check(z.minLength(1)),
  auth_type: z.enum(['email', 'sms']),
  user_id: z.string().check(z.minLength(1)),
  channel: z.enum(CHANNELS),
  auth_time: z.int(),
  created_at: z.number(),
  last_seen: z.number(),
  clients: z.optional(z.set(z.string())),
});

export class DynamoDbSessionStore implements SessionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async find(sessionKey: string): Promise<SessionRecord | undefined> {
    let item: Record<string, unknown> | undefined;
    try {
      ({ Item: item } = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { pk: sessionItemKey(sessionKey) }, ConsistentRead: true }),
      ));
    } catch (error) {
      throw storageFailure(error, 'find session');
    }
    return item === undefined ? undefined : sessionOf(item);
  }

  async start(session: SessionRecord, keepUntil: number, code: AuthorizationCodeRecord): Promise<void> {
    const put = {
      TableName: this.tableName,
      Item: {
        pk: sessionItemKey(session.sessionKey),
        sid: session.sid,
        environment_id: session.environmentId,
        user_key: session.userKey,
        auth_type: session.user.authType,
        user_id: session.user.value,
        channel: session.channel,
        auth_time: session.authTime,
        created_at: session.createdAt,
        last_seen: session.lastSeenAt,
        // A string set: a use adds its client with ADD, which never duplicates one.
        ...(session.clients.length === 0 ? {} : { clients: new Set(session.clients) }),
        [TABLE_DEFINITION.userIndex.partitionKey.name]: userIndexKey(session.environmentId, session.userKey),
        [TABLE_DEFINITION.userIndex.sortKey.name]: sessionSortKey(session.sid),
        [TABLE_DEFINITION.timeToLiveAttribute]: keepUntil,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    };
    try {
      await this.client.send(
        new TransactWriteCommand({ TransactItems: [{ Put: put }, { Put: authorizationCodePut(this.tableName, code) }] }),
      );
    } catch (error) {
      throw storageFailure(error, 'start session');
    }
  }

  async use(use: SessionUse, code: AuthorizationCodeRecord): Promise<boolean> {
    return this.touch(use, code, {}, 'use session');
  }

  async renew(renewal: SessionRenewal, code: AuthorizationCodeRecord): Promise<boolean> {
    return this.touch(
      renewal,
      code,
      {
        set: 'created_at = :now, auth_time = :authTime, channel = :channel',
        condition: ' AND user_key = :userKey',
        values: { ':authTime': renewal.authTime, ':channel': renewal.channel, ':userKey': renewal.userKey },
      },
      'renew session',
    );
  }

  /** A conditional update of a live session (`use` or `renew`) with the code's Put, in one transaction. */
  private async touch(
    use: SessionUse,
    code: AuthorizationCodeRecord,
    more: { set?: string; condition?: string; values?: Record<string, unknown> },
    operation: string,
  ): Promise<boolean> {
    const update = {
      TableName: this.tableName,
      Key: { pk: sessionItemKey(use.sessionKey) },
      UpdateExpression: `SET last_seen = :now, #expires = :keep${more.set === undefined ? '' : `, ${more.set}`} ADD clients :client`,
      // Every lifetime is checked here too, by the application's clock: the session may have
      // ended (deleted) or lapsed since it was read.
      ConditionExpression: `attribute_exists(pk) AND environment_id = :environment AND last_seen > :seenAfter AND created_at > :startedAfter${more.condition ?? ''}`,
      ExpressionAttributeNames: { '#expires': TABLE_DEFINITION.timeToLiveAttribute },
      ExpressionAttributeValues: {
        ':now': use.now,
        ':keep': use.keepUntil,
        ':client': new Set([use.clientId]),
        ':environment': use.environmentId,
        ':seenAfter': use.seenAfter,
        ':startedAfter': use.startedAfter,
        ...more.values,
      },
    };
    try {
      await this.client.send(
        new TransactWriteCommand({ TransactItems: [{ Update: update }, { Put: authorizationCodePut(this.tableName, code) }] }),
      );
      return true;
    } catch (error) {
      // The session's condition refused (the code's own, on a fresh 256-bit hash, cannot).
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
      throw storageFailure(error, operation);
    }
  }

  async end(sessionKey: string): Promise<SessionRecord | undefined> {
    let removed: Record<string, unknown> | undefined;
    try {
      ({ Attributes: removed } = await this.client.send(
        new DeleteCommand({ TableName: this.tableName, Key: { pk: sessionItemKey(sessionKey) }, ReturnValues: 'ALL_OLD' }),
      ));
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw storageFailure(error, 'end session');
    }
    return removed === undefined ? undefined : sessionOf(removed);
  }
}

/** The user index (table.ts `userIndex`): one Query (and its pages) per user and environment. */
export class DynamoDbUserIndex implements UserIndex {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async itemsOf(environmentId: string, userKey: string): Promise<UserItems> {
    const sessionKeys: string[] = [];
    const families: Array<UserItems['families'][number]> = [];
    let start: Record<string, unknown> | undefined;
    do {
      let page: { Items?: Array<Record<string, unknown>>; LastEvaluatedKey?: Record<string, unknown> };
      try {
        page = await this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: TABLE_DEFINITION.userIndex.name,
            KeyConditionExpression: '#index = :index',
            ExpressionAttributeNames: { '#index': TABLE_DEFINITION.userIndex.partitionKey.name },
            ExpressionAttributeValues: { ':index': userIndexKey(environmentId, userKey) },
            ExclusiveStartKey: start,
          }),
        );
      } catch (error) {
        throw storageFailure(error, 'query user index');
      }
      for (const item of page.Items ?? []) {
        const pk = String(item.pk);
        const [kind, sid] = splitSort(String(item[TABLE_DEFINITION.userIndex.sortKey.name]));
        if (pk.startsWith(SESSION_PREFIX)) sessionKeys.push(pk.slice(SESSION_PREFIX.length));
        else if (pk.startsWith(FAMILY_PREFIX)) {
          families.push({ familyKey: pk.slice(FAMILY_PREFIX.length), sid: sid === '' ? undefined : sid, offline: kind === 'offline' });
        }
      }
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return { sessionKeys, families };
  }
}

function splitSort(sort: string): [string, string] {
  const at = sort.indexOf('#');
  return at < 0 ? [sort, ''] : [sort.slice(0, at), sort.slice(at + 1)];
}

function sessionOf(item: Record<string, unknown>): SessionRecord {
  const parsed = sessionItemSchema.safeParse(item);
  if (!parsed.success) throw new Error(`A malformed session item: ${z.prettifyError(parsed.error)}`);
  const stored = parsed.data;
  return {
    sessionKey: stored.pk.slice(SESSION_PREFIX.length),
    sid: stored.sid,
    environmentId: stored.environment_id,
    userKey: stored.user_key,
    user: { authType: stored.auth_type, value: stored.user_id },
    channel: stored.channel,
    authTime: stored.auth_time,
    createdAt: stored.created_at,
    lastSeenAt: stored.last_seen,
    clients: [...(stored.clients ?? [])].sort(),
  };
}
