/**
 * The session store against DynamoDB Local, for what the HTTP tests cannot see: a session started
 * with or without its authorization code, and a passkey sign-in's writes (passkey-store.ts
 * `passkeySignInItems`) in the same transaction as the session and the code. A refused sign-in (a
 * count that moved, a spent challenge, an operator's block) cancels the whole transaction: no
 * session, no code, no count written; and the refusal says which. A passkey sign-in is the
 * credential's read and that one transaction: 2 requests, 3 with a session cookie (design30.md
 * "Storage").
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbAttemptLimiter } from '../../../lib/adapters/dynamodb/attempt-limiter';
import { authorizationCodeItemKey, sessionItemKey } from '../../../lib/adapters/dynamodb/item-keys';
import { DynamoDbPasskeyStore } from '../../../lib/adapters/dynamodb/passkey-store';
import { DynamoDbSessionStore } from '../../../lib/adapters/dynamodb/session-store';
import type { AuthorizationCodeRecord } from '../../../lib/oauth/ports';
import { PasskeySignInRefusedError, type PasskeyRecord, type PasskeySignIn } from '../../../lib/passkeys/ports';
import type { SessionRecord, SessionRenewal } from '../../../lib/sessions/ports';
import { futureBase } from '../../support/fake-clock';
import { createTestTable, type TestTable } from '../../support/table';

const T0 = futureBase();
const KEEP_UNTIL = Math.ceil((T0 + 86_400_000) / 1000);

let table: TestTable;
let sessions: DynamoDbSessionStore;
let passkeys: DynamoDbPasskeyStore;
let limiter: DynamoDbAttemptLimiter;
beforeAll(async () => {
  table = await createTestTable();
  sessions = new DynamoDbSessionStore(table.documents, table.name);
  passkeys = new DynamoDbPasskeyStore(table.documents, table.name);
  limiter = new DynamoDbAttemptLimiter(table.documents, table.name);
});
afterAll(async () => table.stop());
beforeEach(() => table.proxy.reset());

function session(userKey: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    sessionKey: randomUUID(),
    sid: randomUUID(),
    environmentId: 'local',
    userKey,
    user: { authType: 'email', value: 'ada@example.com' },
    channel: 'email',
    authTime: Math.floor(T0 / 1000),
    createdAt: T0,
    lastSeenAt: T0,
    clients: ['local-web'],
    ...overrides,
  };
}

function code(userKey: string, sessionId: string): AuthorizationCodeRecord {
  return {
    codeHash: randomUUID(),
    environmentId: 'local',
    clientId: 'local-web',
    redirectUri: 'http://localhost:3000/callback',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    nonce: undefined,
    scope: 'openid',
    userKey,
    subject: 'subject',
    channel: 'email',
    claims: {},
    authTime: Math.floor(T0 / 1000),
    sessionId,
    notAfter: T0 + 60_000,
  };
}

/** A stored passkey of a fresh user, and the sign-in a verified assertion by it would write. */
async function enrolled(signCount = 4): Promise<{ stored: PasskeyRecord; signIn: PasskeySignIn }> {
  const stored: PasskeyRecord = {
    environmentId: 'local',
    credentialId: randomBytes(16).toString('base64url'),
    userKey: `user-${randomUUID()}`,
    user: { authType: 'email', value: 'ada@example.com' },
    userHandle: randomBytes(32).toString('base64url'),
    publicKey: new Uint8Array(randomBytes(77)),
    signCount,
    transports: ['internal'],
    backupEligible: false,
    backupState: false,
    aaguid: '00000000-0000-0000-0000-000000000000',
    createdAt: T0 - 60_000,
  };
  await passkeys.add(stored);
  const signIn: PasskeySignIn = {
    environmentId: 'local',
    credentialId: stored.credentialId,
    userKey: stored.userKey,
    previousSignCount: signCount,
    signCount: signCount + 1,
    backupState: false,
    now: T0,
    challenge: randomBytes(32).toString('base64url'),
    challengeExpiresAt: Math.ceil((T0 + 600_000) / 1000),
  };
  return { stored, signIn };
}

async function itemAt(pk: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.documents.send(new GetCommand({ TableName: table.name, Key: { pk }, ConsistentRead: true }));
  return Item;
}

/** What a refused sign-in must have left: no session, no code, the credential as it was. */
async function expectNothingWritten(started: SessionRecord, issued: AuthorizationCodeRecord, stored: PasskeyRecord): Promise<void> {
  expect(await sessions.find(started.sessionKey)).toBeUndefined();
  expect(await itemAt(authorizationCodeItemKey(issued.codeHash))).toBeUndefined();
  expect(await passkeys.find('local', stored.credentialId)).toEqual(stored);
}

function renewalOf(started: SessionRecord, userKey: string): SessionRenewal {
  return {
    sessionKey: started.sessionKey,
    environmentId: 'local',
    clientId: 'local-web',
    now: T0 + 1_000,
    seenAfter: T0 - 3_600_000,
    startedAfter: T0 - 86_400_000,
    keepUntil: KEEP_UNTIL,
    userKey,
    channel: 'email',
    authTime: Math.floor((T0 + 1_000) / 1000),
  };
}

describe('start', () => {
  it('stores the session and its authorization code in one TransactWriteItems', async () => {
    const started = session(`user-${randomUUID()}`);
    const issued = code(started.userKey, started.sid);

    await sessions.start(started, KEEP_UNTIL, issued);

    expect(table.proxy.operations()).toEqual(['TransactWriteItems']);
    expect(await sessions.find(started.sessionKey)).toEqual(started);
    expect(await itemAt(authorizationCodeItemKey(issued.codeHash))).toMatchObject({ sid: started.sid });
  });

  it('stores a session with no authorization code (a code login going on to the passkeys page) in one PutItem', async () => {
    const started = session(`user-${randomUUID()}`, { clients: [] });

    await sessions.start(started, KEEP_UNTIL);

    expect(table.proxy.operations()).toEqual(['PutItem']);
    expect(await sessions.find(started.sessionKey)).toEqual(started);
  });
});

describe('a passkey sign-in with start', () => {
  it('is 2 requests: the credential’s read, then one transaction of the count, the challenge, the block check, the session and the code', async () => {
    const { stored, signIn } = await enrolled();
    const started = session(stored.userKey);
    const issued = code(stored.userKey, started.sid);
    table.proxy.reset();

    const found = await passkeys.find('local', stored.credentialId);
    await sessions.start(started, KEEP_UNTIL, issued, { ...signIn, previousSignCount: found!.signCount });

    expect(table.proxy.operations()).toEqual(['GetItem', 'TransactWriteItems']);
    expect(table.proxy.actions()).toEqual(['GetItem', 'UpdateItem', 'PutItem', 'ConditionCheckItem', 'PutItem', 'PutItem']);
    expect(await sessions.find(started.sessionKey)).toEqual(started);
    expect(await itemAt(authorizationCodeItemKey(issued.codeHash))).toMatchObject({ sid: started.sid });
    expect(await passkeys.find('local', stored.credentialId)).toEqual({ ...stored, signCount: 5, lastUsedAt: T0 });
  });

  it('regression of the count: a sign-in whose count was read before another’s (sign_count ≠ previous) writes nothing, and is refused as `credential`', async () => {
    const { stored, signIn } = await enrolled(4);
    const started = session(stored.userKey);
    const issued = code(stored.userKey, started.sid);

    const refusal = sessions.start(started, KEEP_UNTIL, issued, { ...signIn, previousSignCount: 3, signCount: 4 });

    await expect(refusal).rejects.toThrow(PasskeySignInRefusedError);
    await expect(refusal).rejects.toMatchObject({ reason: 'credential' });
    await expectNothingWritten(started, issued, stored);
  });

  it('a spent challenge: the same assertion replayed signs in once; the replay writes nothing, and is refused as `challenge`', async () => {
    const { stored, signIn } = await enrolled(4);
    const first = session(stored.userKey);
    await sessions.start(first, KEEP_UNTIL, code(stored.userKey, first.sid), signIn);
    const afterFirst = await passkeys.find('local', stored.credentialId);

    // The replay is read after the first wrote its count, so only the challenge stands in its way.
    const replay = session(stored.userKey);
    const replayCode = code(stored.userKey, replay.sid);
    const refusal = sessions.start(replay, KEEP_UNTIL, replayCode, { ...signIn, previousSignCount: 5, signCount: 6 });

    await expect(refusal).rejects.toMatchObject({ name: 'PasskeySignInRefusedError', reason: 'challenge' });
    await expectNothingWritten(replay, replayCode, afterFirst!);
  });

  it('an operator-blocked user: writes nothing, and is refused as `blocked`, at no extra request', async () => {
    const { stored, signIn } = await enrolled(4);
    await limiter.block({ operation: 'token', environmentId: 'local', userKey: stored.userKey }, T0);
    const started = session(stored.userKey);
    const issued = code(stored.userKey, started.sid);
    table.proxy.reset();

    const refusal = sessions.start(started, KEEP_UNTIL, issued, signIn);

    await expect(refusal).rejects.toMatchObject({ name: 'PasskeySignInRefusedError', reason: 'blocked' });
    expect(table.proxy.operations()).toEqual(['TransactWriteItems']);
    await expectNothingWritten(started, issued, stored);
    // …and the challenge was not spent: the user may sign in once the block is lifted.
    await limiter.unblock({ operation: 'token', environmentId: 'local', userKey: stored.userKey }, T0 + 60_000);
    await sessions.start(started, KEEP_UNTIL, issued, signIn);
    expect(await sessions.find(started.sessionKey)).toEqual(started);
  });

  it('a passkey removed (or another user’s) between the read and the write: writes nothing, and is refused as `credential`', async () => {
    const { stored, signIn } = await enrolled(0);
    const started = session(stored.userKey);
    const issued = code(stored.userKey, started.sid);

    await expect(sessions.start(started, KEEP_UNTIL, issued, { ...signIn, userKey: 'someone-else' })).rejects.toMatchObject({
      reason: 'credential',
    });
    await passkeys.remove('local', stored.userKey, stored.credentialId);
    await expect(sessions.start(started, KEEP_UNTIL, issued, signIn)).rejects.toMatchObject({ reason: 'credential' });
    expect(await sessions.find(started.sessionKey)).toBeUndefined();
    expect(await itemAt(authorizationCodeItemKey(issued.codeHash))).toBeUndefined();
  });

  it('concurrent sign-ins by one credential, each with its own challenge: exactly one succeeds, the others are refused', async () => {
    const { stored, signIn } = await enrolled(4);
    const attempts = Array.from({ length: 5 }, () => {
      const started = session(stored.userKey);
      return sessions
        .start(started, KEEP_UNTIL, code(stored.userKey, started.sid), { ...signIn, challenge: randomBytes(32).toString('base64url') })
        .then(
          () => 'ok',
          (error: unknown) => (error instanceof PasskeySignInRefusedError ? error.reason : 'error'),
        );
    });

    const outcomes = await Promise.all(attempts);

    expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(1);
    // The others are refused as `credential` (a failed condition or a conflict on the credential), never a storage failure.
    expect(outcomes.filter((outcome) => outcome !== 'ok')).toEqual(['credential', 'credential', 'credential', 'credential']);
    expect((await passkeys.find('local', stored.credentialId))?.signCount).toBe(5);
  });
});

describe('a passkey sign-in with renew (a session cookie)', () => {
  it('is 3 requests: the session’s read, the credential’s read, one transaction', async () => {
    const { stored, signIn } = await enrolled();
    const started = session(stored.userKey);
    await sessions.start(started, KEEP_UNTIL);
    const issued = code(stored.userKey, started.sid);
    table.proxy.reset();

    await sessions.find(started.sessionKey);
    await passkeys.find('local', stored.credentialId);
    expect(await sessions.renew(renewalOf(started, stored.userKey), issued, signIn)).toBe(true);

    expect(table.proxy.operations()).toEqual(['GetItem', 'GetItem', 'TransactWriteItems']);
    expect(await itemAt(authorizationCodeItemKey(issued.codeHash))).toMatchObject({ sid: started.sid });
    expect(await passkeys.find('local', stored.credentialId)).toMatchObject({ signCount: 5, lastUsedAt: T0 });
    expect(await itemAt(sessionItemKey(started.sessionKey))).toMatchObject({ created_at: T0 + 1_000 });
  });

  it('a refused passkey is thrown, with nothing written, even when the session would have served', async () => {
    const { stored, signIn } = await enrolled(4);
    const started = session(stored.userKey);
    await sessions.start(started, KEEP_UNTIL);
    const issued = code(stored.userKey, started.sid);

    await expect(sessions.renew(renewalOf(started, stored.userKey), issued, { ...signIn, previousSignCount: 9 })).rejects.toMatchObject({
      reason: 'credential',
    });
    expect(await itemAt(authorizationCodeItemKey(issued.codeHash))).toBeUndefined();
    expect(await sessions.find(started.sessionKey)).toEqual(started);
  });

  it('a session that ended is still `false`, and the passkey’s count and challenge are not spent', async () => {
    const { stored, signIn } = await enrolled(4);
    const started = session(stored.userKey);
    await sessions.start(started, KEEP_UNTIL);
    await sessions.end(started.sessionKey);
    const issued = code(stored.userKey, started.sid);

    expect(await sessions.renew(renewalOf(started, stored.userKey), issued, signIn)).toBe(false);
    expect(await passkeys.find('local', stored.credentialId)).toEqual(stored);
    expect(await itemAt(authorizationCodeItemKey(issued.codeHash))).toBeUndefined();
    // The challenge is still unspent: the same sign-in can start a new session.
    await sessions.start(session(stored.userKey), KEEP_UNTIL, undefined, signIn);
  });

  it('without a passkey, a session that ended is `false` as before', async () => {
    const started = session(`user-${randomUUID()}`);
    await sessions.start(started, KEEP_UNTIL);
    await sessions.end(started.sessionKey);

    expect(await sessions.renew(renewalOf(started, started.userKey), code(started.userKey, started.sid))).toBe(false);
  });
});
