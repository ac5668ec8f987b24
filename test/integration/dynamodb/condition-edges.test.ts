/**
 * Rules that live in DynamoDB condition strings and TTL values, which a mutation tool cannot
 * change: each at its exact edge on DynamoDB Local, with an injected clock.
 *
 * - the authorization code (hosted login): consumed while now < not_after, refused at not_after,
 *   and only once;
 * - the attempt block: its item's TTL never falls before the block ends (on AWS the TTL sweeper
 *   would otherwise lift a block early), and the Retry-After of an attempt that lost the race to
 *   start the block is the time left in the block the other attempt started.
 * (The one-time code's edges, expiry and tries, are in code-store.test.ts and, over HTTP,
 * test/http/rule-edges.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDbAttemptLimiter } from '../../../lib/adapters/dynamodb/attempt-limiter';
import { attemptItemKey } from '../../../lib/adapters/dynamodb/item-keys';
import { DynamoDbAuthorizationCodeStore } from '../../../lib/adapters/dynamodb/authorization-code-store';
import { createDocumentClient, createDynamoDbClient } from '../../../lib/adapters/dynamodb/client';
import type { FailureCapConfig, LimitConfig } from '../../../lib/platform/config';
import type { AttemptKey } from '../../../lib/limits/ports';
import type { AuthorizationCodeRecord } from '../../../lib/oauth/ports';
import { LOCAL_AWS } from '../../../local/dynamodb';
import { futureBase } from '../../support/fake-clock';
import { createTestTable, type TestTable } from '../../support/table';

const T0 = futureBase();
const at = (seconds: number) => T0 + seconds * 1000;
const DEFAULT_LIMIT: LimitConfig = { maxAttempts: 5, windowSeconds: 60, blockSeconds: 300 };

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => table.stop());

describe('the authorization code’s not_after (DeleteItem condition `not_after > :now`)', () => {
  const store = () => new DynamoDbAuthorizationCodeStore(table.documents, table.name);
  const record = (): AuthorizationCodeRecord => ({
    codeHash: randomUUID(),
    environmentId: 'local',
    clientId: 'local-web',
    redirectUri: 'http://localhost:3000/callback',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    nonce: 'n-0S6_WzA2Mj',
    scope: 'openid email',
    userKey: randomUUID(),
    subject: 'subject-1',
    channel: 'email',
    claims: { email: 'hidden', email_verified: true },
    authTime: Math.floor(T0 / 1000),
    sessionId: 'session-1',
    notAfter: at(60),
  });

  it('is consumed at not_after - 1 ms, whole, and only once', async () => {
    const code = record();
    await store().save(code);
    expect(await store().consume(code.codeHash, code.notAfter - 1)).toEqual(code);
    expect(await store().consume(code.codeHash, code.notAfter - 1)).toBeUndefined();
  });

  it('is refused at not_after, and the refusal is the condition (the item is still there a millisecond earlier)', async () => {
    const code = record();
    await store().save(code);
    expect(await store().consume(code.codeHash, code.notAfter)).toBeUndefined();
    expect(await store().consume(code.codeHash, code.notAfter + 60_000)).toBeUndefined();
    expect(await store().consume(code.codeHash, code.notAfter - 1)).toEqual(code);
  });
});

describe('the attempt block', () => {
  const newKey = (): AttemptKey => ({ operation: 'token', environmentId: 'local', userKey: randomUUID() });

  async function ttlOf(key: AttemptKey): Promise<number> {
    const { Item } = await table.client.send(
      new GetItemCommand({ TableName: table.name, Key: { pk: { S: attemptItemKey(key) } }, ConsistentRead: true }),
    );
    return Number(Item?.expires_at?.N);
  }

  async function fill(limiter: DynamoDbAttemptLimiter, key: AttemptKey, limit: LimitConfig, cap?: FailureCapConfig): Promise<void> {
    for (let index = 0; index < limit.maxAttempts; index += 1) {
      expect(await limiter.recordAttempt(key, limit, at(index), cap)).toMatchObject({ allowed: true });
    }
  }

  it('keeps its item until a window after the block ends (TTL blocked_until + window), never before the block ends', async () => {
    const limiter = new DynamoDbAttemptLimiter(table.documents, table.name);
    const key = newKey();
    await fill(limiter, key, DEFAULT_LIMIT);
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(10))).toMatchObject({ blockStarted: true });
    const blockedUntil = at(10) + DEFAULT_LIMIT.blockSeconds * 1000;
    expect(await ttlOf(key)).toBe(Math.ceil((blockedUntil + DEFAULT_LIMIT.windowSeconds * 1000) / 1000));
    expect(await ttlOf(key)).toBeGreaterThanOrEqual(Math.ceil(blockedUntil / 1000));
  });

  it('keeps the item for the failure cap’s window when that is longer (the token endpoint’s blocks)', async () => {
    const limiter = new DynamoDbAttemptLimiter(table.documents, table.name);
    const key = newKey();
    const cap: FailureCapConfig = { maxConsecutive: 10, windowSeconds: 3600 };
    await fill(limiter, key, DEFAULT_LIMIT, cap);
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(10), cap)).toMatchObject({ blockStarted: true });
    expect(await ttlOf(key)).toBe(Math.ceil(at(10 + 3600) / 1000));
  });

  it('answers an attempt that lost the race to start the block with the time left in the block the winner started', async () => {
    const limiter = new DynamoDbAttemptLimiter(table.documents, table.name);
    const key = newKey();
    await fill(limiter, key, DEFAULT_LIMIT);

    // A second container's client whose block-starting write is held until another attempt has
    // started the block: the interleaving a burst produces, made deterministic. The condition and
    // the data are DynamoDB Local's; only the order of two requests is arranged.
    const client = createDynamoDbClient({ endpoint: process.env.TEST_DYNAMODB_ENDPOINT, ...LOCAL_AWS }, 10_000);
    let winner: Promise<unknown> | undefined;
    client.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { UpdateExpression?: string };
        if (winner === undefined && input.UpdateExpression?.startsWith('SET #b = :until') === true) {
          // The winner: an attempt at 10 s, whose block lasts until 310 s.
          winner = limiter.recordAttempt(key, DEFAULT_LIMIT, at(10));
          expect(await winner).toEqual({ allowed: false, retryAfterSeconds: 300, blockStarted: true, reason: 'limit' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'holdBlockStart' },
    );
    try {
      const loser = new DynamoDbAttemptLimiter(createDocumentClient(client), table.name);
      expect(await loser.recordAttempt(key, DEFAULT_LIMIT, at(20))).toEqual({
        allowed: false,
        retryAfterSeconds: 290,
        blockStarted: false,
        reason: 'limit',
      });
      expect(winner).toBeDefined();
    } finally {
      client.destroy();
    }
    // The loser did not extend the block: it still lifts at 310 s.
    expect(await limiter.recordAttempt(key, DEFAULT_LIMIT, at(310))).toEqual({ allowed: true });
  });
});
