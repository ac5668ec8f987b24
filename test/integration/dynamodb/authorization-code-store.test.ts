/**
 * The authorization code store against DynamoDB Local, where the HTTP tests cannot reach: a
 * storage failure while consuming a code is a 503 (never "no such code", which would spend the
 * user's login on an invalid_grant), and a corrupt item is an error, never a grant. The rules
 * over HTTP (single use, expiry at its edge, PKCE) are in test/http/authorize.test.ts and
 * condition-edges.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDbAuthorizationCodeStore } from '../../../lib/adapters/dynamodb/authorization-code-store';
import { authorizationCodeItemKey } from '../../../lib/adapters/dynamodb/item-keys';
import type { AuthorizationCodeRecord } from '../../../lib/oauth/ports';
import { futureBase } from '../../support/fake-clock';
import { storageUnavailable, type DynamoDbRequest } from '../../support/failing-dynamodb-proxy';
import { faultyTestTable } from '../../support/table';

const T0 = futureBase();

const table = faultyTestTable();
let store: DynamoDbAuthorizationCodeStore;
beforeAll(() => {
  store = new DynamoDbAuthorizationCodeStore(table().documents, table().name);
});

function record(overrides: Partial<AuthorizationCodeRecord> = {}): AuthorizationCodeRecord {
  return {
    codeHash: randomUUID(),
    environmentId: 'local',
    clientId: 'local-web',
    redirectUri: 'http://localhost:3000/callback',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    nonce: undefined,
    scope: 'openid',
    userKey: 'user-key',
    subject: 'subject',
    channel: 'email',
    claims: {},
    authTime: Math.floor(T0 / 1000),
    sessionId: 'session-1',
    notAfter: T0 + 60_000,
    ...overrides,
  };
}

const isConsume = ({ operation }: DynamoDbRequest) => operation === 'DeleteItem';

it('consumes a code once: the second consume finds nothing', async () => {
  const saved = record();
  await store.save(saved);
  expect(await store.consume(saved.codeHash, T0)).toMatchObject({ codeHash: saved.codeHash, clientId: 'local-web' });
  expect(await store.consume(saved.codeHash, T0)).toBeUndefined();
});

it('gives back every field it was saved with: the session id, and a code without a PKCE challenge as one without (RFC 9700 §2.1.1)', async () => {
  const withChallenge = record();
  const withoutChallenge = record({ codeChallenge: undefined, sessionId: 'session-2' });
  await store.save(withChallenge);
  await store.save(withoutChallenge);

  expect(await store.consume(withChallenge.codeHash, T0)).toEqual(withChallenge);
  expect(await store.consume(withoutChallenge.codeHash, T0)).toEqual(withoutChallenge);
});

it('regression: takes a code saved by the version before sessions (no sid), exchanged during a deploy, as one without a session id', async () => {
  const saved = record();
  await table().client.send(
    new PutItemCommand({
      TableName: table().name,
      Item: {
        pk: { S: authorizationCodeItemKey(saved.codeHash) },
        environment_id: { S: saved.environmentId },
        client_id: { S: saved.clientId },
        redirect_uri: { S: saved.redirectUri },
        code_challenge: { S: saved.codeChallenge! },
        user_key: { S: saved.userKey },
        sub: { S: saved.subject },
        channel: { S: saved.channel },
        auth_time: { N: String(saved.authTime) },
        not_after: { N: String(saved.notAfter) },
      },
    }),
  );

  expect(await store.consume(saved.codeHash, T0)).toMatchObject({ codeHash: saved.codeHash, sessionId: undefined });
});

it('answers a storage failure while consuming with a 503 naming the step, and the code is still there afterwards', async () => {
  const saved = record();
  await store.save(saved);
  table().faults.failWhen(isConsume);
  await expect(store.consume(saved.codeHash, T0)).rejects.toMatchObject(storageUnavailable('consume authorization code'));
  table().faults.heal();
  expect(await store.consume(saved.codeHash, T0)).toMatchObject({ codeHash: saved.codeHash });
});

it('refuses a corrupt item with an error (a 500), never a grant', async () => {
  const codeHash = randomUUID();
  // The code's client and challenge missing, as a bad migration or a hand edit might leave it.
  await table().client.send(
    new PutItemCommand({
      TableName: table().name,
      Item: { pk: { S: authorizationCodeItemKey(codeHash) }, environment_id: { S: 'local' }, not_after: { N: String(T0 + 60_000) } },
    }),
  );
  await expect(store.consume(codeHash, T0)).rejects.toThrow(/^A malformed authorization code item: [\s\S]*client_id/);
});
