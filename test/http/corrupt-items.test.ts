/**
 * Items that are not what the service wrote (a bad migration, a hand edit, a bug) are errors, a
 * 500 for the request that meets them, never a plausible record (regression: a missing attribute
 * was read as '', 0 or 'email', so a corrupt item became a grant-shaped record).
 */
import { PutItemCommand, DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { attemptItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { codeItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { familyItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { tokenItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { opaqueTokenHash } from '../../lib/oauth/access-tokens';
import { userKeyOf } from '../../lib/keys/hmac-keys';
import { familyKeyOf } from '../../lib/oauth/refresh-tokens';
import { LOCAL_AWS } from '../../local/dynamodb';
import {
  exchangeBody,
  LOCAL_API_KEY,
  logEntries,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  type TestResponse,
  type TestService,
} from '../support/harness';
import { capturedLogs, rememberSecret } from '../support/log-capture';

const SERVER_ERROR = { error: 'server_error', error_description: 'The service met an unexpected condition.' };

let service: TestService;
let raw: DynamoDBClient;
beforeAll(async () => {
  service = await startTestService();
  raw = new DynamoDBClient({ endpoint: service.services.dynamodbEndpoint, ...LOCAL_AWS });
});
afterAll(async () => {
  raw.destroy();
  await service.stop();
});

async function put(item: PutItemCommand['input']['Item']): Promise<void> {
  await raw.send(new PutItemCommand({ TableName: service.services.tableName, Item: item }));
}

/**
 * The answer is a bare 500; the log (only the log) says which item was malformed and which of its
 * fields, for whoever has to repair it.
 */
function expectServerError(response: TestResponse, logsSince: number, cause: RegExp): void {
  expect(response.status).toBe(500);
  expect(response.body).toEqual(SERVER_ERROR);
  const logged = logEntries(capturedLogs().slice(logsSince), 'unhandled error').map(
    (entry) => (entry.error as { message: string }).message,
  );
  expect(logged).toEqual([expect.stringMatching(cause)]);
}

async function userKey(user: string): Promise<string> {
  return userKeyOf(await service.deps.hmacKeys(), { authType: 'email', value: user });
}

it('answers 500, not a token, when the live code lacks its digest and tries', async () => {
  const user = uniqueEmail('corrupt-code');
  const notAfter = { N: String(service.clock.now() + 300_000) };
  await put({
    pk: { S: codeItemKey({ environmentId: 'local', clientId: 'local-web', userKey: await userKey(user) }) },
    live: {
      M: {
        send_id: { S: 'x' },
        channel: { S: 'email' },
        not_after: notAfter,
        max_tries: { N: '3' },
        tries: { N: '0' },
        guesses: { L: [] },
      },
    },
  });
  const since = capturedLogs().length;
  const response = await service.post(TOKEN_PATH, exchangeBody(user, '123456'));
  expectServerError(response, since, /^A malformed code item: [\s\S]*→ at live\.code_digest/);
});

it('answers 500 when the attempt item holds a block that is not a number', async () => {
  const user = uniqueEmail('corrupt-limit');
  await put({
    pk: { S: attemptItemKey({ operation: 'token', environmentId: 'local', userKey: await userKey(user) }) },
    blocked_until: { S: 'soon' },
  });
  const since = capturedLogs().length;
  const response = await service.post(TOKEN_PATH, exchangeBody(user, '123456'));
  expectServerError(response, since, /^A malformed attempt item: [\s\S]*→ at blocked_until/);
});

it('answers 500 from introspection, not active, when an opaque token’s item lacks its subject', async () => {
  const token = 'corrupt-token-0123456789abcdefghijklmnopqrstuv';
  rememberSecret(token);
  const exp = { N: String(Math.floor(service.clock.now() / 1000) + 3600) };
  await put({
    pk: { S: tokenItemKey(opaqueTokenHash(token)) },
    client_id: { S: 'local-opaque' },
    environment_id: { S: 'local' },
    exp,
    iat: exp,
    auth_time: exp,
  });
  const since = capturedLogs().length;
  const response = await service.postForm('/idp/v1/account/introspect', { token }, { Authorization: `Bearer ${LOCAL_API_KEY}` });
  expectServerError(response, since, /^A malformed token item: [\s\S]*→ at sub/);
});

it('answers 500, not new tokens, when a refresh token family lacks its live token’s hash and its user', async () => {
  const token = `${'F'.repeat(22)}.${'S'.repeat(43)}`;
  rememberSecret(token);
  const familyKey = familyKeyOf(await service.deps.hmacKeys(), 'F'.repeat(22));
  const now = { N: String(service.clock.now()) };
  await put({
    pk: { S: familyItemKey(familyKey) },
    client_id: { S: 'local-web' },
    environment_id: { S: 'local' },
    created_at: now,
    rotated_at: now,
    generation: { N: '0' },
  });
  const since = capturedLogs().length;
  const response = await service.postForm(TOKEN_PATH, { grant_type: 'refresh_token', refresh_token: token, client_id: 'local-web' });
  expectServerError(response, since, /^A malformed refresh token family item: [\s\S]*→ at user_key/);
});

it('answers 500 from introspection when the family a JWT names holds a revocation time that is not a number (regression: read unparsed, it counted as revoked)', async () => {
  const signedIn = await service.signIn(uniqueEmail('corrupt-revocation'));
  expect(signedIn.status).toBe(200);
  const accessToken = signedIn.body.access_token as string;
  rememberSecret(accessToken);
  rememberSecret(signedIn.body.refresh_token);
  const familyKey = (JSON.parse(Buffer.from(accessToken.split('.')[1] as string, 'base64url').toString('utf8')) as { sid: string }).sid;
  await raw.send(
    new UpdateItemCommand({
      TableName: service.services.tableName,
      Key: { pk: { S: familyItemKey(familyKey) } },
      UpdateExpression: 'SET revoked_at = :soon',
      ExpressionAttributeValues: { ':soon': { S: 'soon' } },
    }),
  );
  const since = capturedLogs().length;
  const response = await service.postForm(
    '/idp/v1/account/introspect',
    { token: accessToken },
    { Authorization: `Bearer ${LOCAL_API_KEY}` },
  );
  expectServerError(response, since, /^A malformed revocation item: [\s\S]*→ at revoked_at/);
});
