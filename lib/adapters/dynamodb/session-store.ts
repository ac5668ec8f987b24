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
 *
 * A passkey sign-in (lib/passkeys/) adds its three writes (passkey-store.ts `passkeySignInItems`:
 * the credential's count, the spent challenge, the operator-block check) at the head of the same
 * transaction, so a refused one writes no session and no code, and it costs no request of its own.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import '../../platform/zod';
import * as z from 'zod/mini';
import type { AuthorizationCodeRecord } from '../../oauth/ports';
import type { SessionRecord, SessionRenewal, SessionStore, SessionUse, UserIndex, UserItems } from '../../sessions/ports';
import { PasskeySignInRefusedError, type PasskeySignIn } from '../../passkeys/ports';
import { LOGIN_METHODS } from '../../platform/vocabulary';
import { storageFailure } from './client';
import { authorizationCodePut } from './authorization-code-store';
import { PASSKEY_SIGN_IN_REFUSALS, passkeySignInItems } from './passkey-sign-in';
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
  channel: z.enum(LOGIN_METHODS),
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

  async start(session: SessionRecord, keepUntil: number, code?: AuthorizationCodeRecord, passkey?: PasskeySignIn): Promise<void> {
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
    const head = passkey === undefined ? [] : passkeySignInItems(this.tableName, passkey);
    const tail = code === undefined ? [] : [{ Put: authorizationCodePut(this.tableName, code) }];
    try {
      // A session alone (a code login that goes on to the passkeys page) is one plain Put.
      if (head.length === 0 && tail.length === 0) await this.client.send(new PutCommand(put));
      else await this.client.send(new TransactWriteCommand({ TransactItems: [...head, { Put: put }, ...tail] }));
    } catch (error) {
      throwPasskeyRefusal(error, passkey);
      throw storageFailure(error, 'start session');
    }
  }

  async use(use: SessionUse, code: AuthorizationCodeRecord): Promise<boolean> {
    return this.touch(use, code, {}, 'use session');
  }

  async renew(renewal: SessionRenewal, code: AuthorizationCodeRecord, passkey?: PasskeySignIn): Promise<boolean> {
    return this.touch(
      renewal,
      code,
      {
        set: 'created_at = :now, auth_time = :authTime, channel = :channel',
        condition: ' AND user_key = :userKey',
        values: { ':authTime': renewal.authTime, ':channel': renewal.channel, ':userKey': renewal.userKey },
        passkey,
      },
      'renew session',
    );
  }

  /** A conditional update of a live session (`use` or `renew`) with the code's Put, in one transaction. */
  private async touch(
    use: SessionUse,
    code: AuthorizationCodeRecord,
    more: { set?: string; condition?: string; values?: Record<string, unknown>; passkey?: PasskeySignIn | undefined },
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
    const head = more.passkey === undefined ? [] : passkeySignInItems(this.tableName, more.passkey);
    try {
      await this.client.send(
        new TransactWriteCommand({ TransactItems: [...head, { Update: update }, { Put: authorizationCodePut(this.tableName, code) }] }),
      );
      return true;
    } catch (error) {
      throwPasskeyRefusal(error, more.passkey);
      // The session's condition refused (the code's own, on a fresh 256-bit hash, cannot).
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[head.length]?.Code === 'ConditionalCheckFailed') {
        return false;
      }
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
    for (const item of await userIndexItems(this.client, this.tableName, environmentId, userKey, 'query user index')) {
      const pk = String(item.pk);
      const [kind, sid] = splitSort(String(item[TABLE_DEFINITION.userIndex.sortKey.name]));
      if (pk.startsWith(SESSION_PREFIX)) sessionKeys.push(pk.slice(SESSION_PREFIX.length));
      else if (pk.startsWith(FAMILY_PREFIX)) {
        families.push({ familyKey: pk.slice(FAMILY_PREFIX.length), sid: sid === '' ? undefined : sid, offline: kind === 'offline' });
      }
    }
    return { sessionKeys, families };
  }
}

/**
 * Every item of the user index (table.ts `userIndex`, keys only) for a user in an environment, all
 * pages of one Query; with `sortPrefix`, only those whose sort key begins with it (a user's
 * passkeys: passkey-store.ts). `operation` names the Query in a storage failure.
 */
export async function userIndexItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  environmentId: string,
  userKey: string,
  operation: string,
  sortPrefix?: string,
): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    let page: { Items?: Array<Record<string, unknown>>; LastEvaluatedKey?: Record<string, unknown> };
    try {
      page = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: TABLE_DEFINITION.userIndex.name,
          KeyConditionExpression: sortPrefix === undefined ? '#index = :index' : '#index = :index AND begins_with(#sort, :prefix)',
          ExpressionAttributeNames: {
            '#index': TABLE_DEFINITION.userIndex.partitionKey.name,
            ...(sortPrefix === undefined ? {} : { '#sort': TABLE_DEFINITION.userIndex.sortKey.name }),
          },
          ExpressionAttributeValues: {
            ':index': userIndexKey(environmentId, userKey),
            ...(sortPrefix === undefined ? {} : { ':prefix': sortPrefix }),
          },
          ExclusiveStartKey: start,
        }),
      );
    } catch (error) {
      throw storageFailure(error, operation);
    }
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/**
 * A cancelled transaction whose reason is on one of a passkey sign-in's entries (its first three,
 * passkey-store.ts `passkeySignInItems`) is that sign-in's refusal; the first such entry names it.
 * A conflict on the credential or the challenge (another transaction writing it at that moment:
 * the same passkey or the same assertion used twice at once) is the same refusal, not a storage
 * failure: the other use is the one that counts.
 */
function throwPasskeyRefusal(error: unknown, passkey: PasskeySignIn | undefined): void {
  if (passkey === undefined || !(error instanceof TransactionCanceledException)) return;
  const refused = PASSKEY_SIGN_IN_REFUSALS.findIndex((_, index) => {
    const code = error.CancellationReasons?.[index]?.Code;
    return code === 'ConditionalCheckFailed' || (index < 2 && code === 'TransactionConflict');
  });
  if (refused >= 0) throw new PasskeySignInRefusedError(PASSKEY_SIGN_IN_REFUSALS[refused]!);
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
