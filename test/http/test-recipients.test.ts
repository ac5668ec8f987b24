/**
 * Test recipients over the local HTTP path (lib/otp/test-outbox.ts): a code sent to one is
 * issued as any other but kept, sealed, instead of delivered, for one write more than an email
 * send; the admin route `POST /idp/v1/admin/test-messages/take` gives it once, for one request;
 * no one else's message is kept or taken. The DynamoDB requests are counted on the wire.
 */
import { DynamoDBClient, GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { testMessageItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { userKeyOf } from '../../lib/keys/hmac-keys';
import { LOG_EVENTS } from '../../lib/platform/log-events';
import { LOCAL_AWS } from '../../local/dynamodb';
import { capturedLogs, rememberSecret } from '../support/log-capture';
import { codeIn, exchangeBody, logEntries, SEND_PATH, sendBody, startTestService, TOKEN_PATH, type TestService } from '../support/harness';
import { LoginSession } from '../support/login-flow';

const TAKE = '/idp/v1/admin/test-messages/take';
/** One recipient per test, so no two tests share counters or kept messages. */
const RECIPIENTS = [
  'smoke-1@identity.local',
  'smoke-2@identity.local',
  'smoke-3@identity.local',
  'smoke-4@identity.local',
  'smoke-5@identity.local',
];

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    config: (config) => ({
      ...config,
      environments: config.environments.map((environment) => ({ ...environment, testRecipients: RECIPIENTS })),
    }),
  });
});
afterAll(async () => service.stop());

const take = (userId: string, envId = 'local') => service.post(TAKE, { env_id: envId, user_id: userId });

async function keptItem(userId: string): Promise<Record<string, AttributeValue> | undefined> {
  const keys = await service.deps.hmacKeys();
  const pk = testMessageItemKey({ environmentId: 'local', userKey: userKeyOf(keys, { authType: 'email', value: userId }) });
  const client = new DynamoDBClient({ endpoint: service.services.dynamodbEndpoint, ...LOCAL_AWS });
  const { Item } = await client.send(
    new GetItemCommand({ TableName: service.services.tableName, Key: { pk: { S: pk } }, ConsistentRead: true }),
  );
  client.destroy();
  return Item;
}

it('keeps a test recipient’s message instead of delivering it: the email send’s three writes and one to keep it, the code sealed', async () => {
  const [recipient] = RECIPIENTS as [string];
  service.dynamodb.reset();

  const sent = await service.post(SEND_PATH, sendBody(recipient));

  expect({ status: sent.status, body: sent.body }).toEqual({ status: 200, body: { status: 'sent', channel: 'email', expires_in: 300 } });
  // The attempt, the source's email window, the code (test/http/otp-send.test.ts), and the kept message.
  expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem', 'UpdateItem']);
  expect(await service.outbox(recipient)).toEqual([]);
  const item = await keptItem(recipient);
  const sealed = item?.sealed?.S ?? '';
  expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/); // version, IV, ciphertext, tag (lib/otp/test-outbox.ts)
  expect(Number(item?.expires_at?.N)).toBe(Math.ceil((service.clock.now() + 600_000) / 1000));
  expect(Number(item?.not_after?.N)).toBe(service.clock.now() + 600_000);

  const taken = await take(recipient);
  expect(taken.status).toBe(200);
  const code = codeIn(String(taken.body.text));
  rememberSecret(code);
  expect(sealed).not.toContain(code);
  expect(taken.body).toEqual({
    channel: 'email',
    subject: expect.stringContaining('Identity Dev'),
    text: expect.stringContaining(code as string),
    sent_at: new Date(service.clock.now()).toISOString(),
  });
  // The kept code is the live one: it logs the recipient in.
  const exchanged = await service.post(TOKEN_PATH, exchangeBody(recipient, code as string));
  expect(exchanged.status).toBe(200);
  rememberSecret(String(exchanged.body.access_token));
  rememberSecret(String(exchanged.body.refresh_token));
});

it('gives the message once, for one request (a DeleteItem returning it); then 404', async () => {
  const recipient = RECIPIENTS[1] as string;
  expect((await service.post(SEND_PATH, sendBody(recipient))).status).toBe(200);
  service.dynamodb.reset();

  expect((await take(recipient)).status).toBe(200);
  expect(service.dynamodb.operations()).toEqual(['DeleteItem']);
  const again = await take(recipient);

  expect({ status: again.status, body: again.body }).toEqual({
    status: 404,
    body: {
      error: 'not_found',
      error_description: 'No message is kept for this test recipient (none sent in the last 10 minutes, or taken already).',
    },
  });
  expect(await keptItem(recipient)).toBeUndefined();
  expect(logEntries(capturedLogs(), LOG_EVENTS.testMessageTaken).slice(-2)).toEqual([
    expect.objectContaining({ environment: 'local', caller: 'anonymous', found: true }),
    expect.objectContaining({ environment: 'local', caller: 'anonymous', found: false }),
  ]);
});

it('keeps only the newest message, and none past 10 minutes', async () => {
  const recipient = RECIPIENTS[2] as string;
  expect((await service.post(SEND_PATH, sendBody(recipient))).status).toBe(200);
  service.clock.advanceSeconds(1);
  expect((await service.post(SEND_PATH, sendBody(recipient, 'local-opaque'))).status).toBe(200);
  service.clock.advanceSeconds(600);

  expect((await take(recipient)).status).toBe(404);
  expect((await service.post(SEND_PATH, sendBody(recipient))).status).toBe(200);
  service.clock.advanceSeconds(599);
  expect((await take(recipient)).status).toBe(200);
});

it('finds a test recipient by the normalised address, and keeps what the hosted login page sends too', async () => {
  const recipient = RECIPIENTS[3] as string;
  const page = new LoginSession(service);
  const started = await page.start();
  const sent = await page.post(started, 'send', { user_id: recipient.toUpperCase() });
  expect(sent.status).toBe(200);
  expect(await service.outbox(recipient)).toEqual([]);

  const taken = await take(` ${recipient.toUpperCase()} `);
  expect(taken.status).toBe(200);
  const code = codeIn(String(taken.body.text)) as string;
  rememberSecret(code);
  const verified = await page.post(sent, 'verify', { code });
  expect(verified.status).toBe(302);
  expect(verified.location?.searchParams.get('code')).toEqual(expect.any(String));
});

it('delivers to anyone else as before, keeps nothing for them, and refuses to take for them (400), reading nothing', async () => {
  const user = 'not-a-test-recipient@identity.local';
  expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(200);
  const [delivered] = await service.outbox(user);
  rememberSecret(codeIn(delivered?.text ?? ''));
  expect(delivered).toMatchObject({ channel: 'email', to: user });
  expect(await keptItem(user)).toBeUndefined();
  service.dynamodb.reset();

  const refused = await take(user);

  expect({ status: refused.status, body: refused.body }).toEqual({
    status: 400,
    body: { error: 'invalid_request', error_description: 'user_id is not a test recipient of this environment.' },
  });
  expect(service.dynamodb.operations()).toEqual([]);
  // The recipient of another environment is not one of this one.
  expect((await take(RECIPIENTS[4] as string, 'no-such-environment')).status).toBe(400);
  // Phone numbers are never test recipients.
  expect((await service.post(TAKE, { env_id: 'local', user_id: '+14155552671' })).status).toBe(400);
});
