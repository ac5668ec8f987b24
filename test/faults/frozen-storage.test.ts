/**
 * DynamoDB frozen in the middle of a request, then resumed: the service gives up on a write (its
 * timeout, a 503 with Retry-After), and the write lands afterwards anyway, as on AWS after a
 * timeout. A 503 must never cost the user the code it invites them to retry (docs/security.md,
 * "A 503 can burn the code it invites the user to retry"):
 *
 * - the token endpoint: the guess that spent a try of the right code lands after the 503; the
 *   user's retry of the same code succeeds (its presentation was abandoned, and the retry takes
 *   its place), and the code is still single use;
 * - otp/send: the new code's save lands after the 503; the code the user already holds stays
 *   usable (the save was cancelled, and discarded once it landed), as after a failed delivery.
 *
 * The freeze is real: this file runs a DynamoDB Local of its own and stops its Java process with
 * SIGSTOP at the chosen request (the kernel still accepts the connection and buffers the request,
 * as a stalled DynamoDB would), and resumes it with SIGCONT when the service's follow-up write
 * (the abandon, the cancel) arrives, or once the 503 is answered when none comes.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client';
import { ensureTable, LOCAL_AWS, startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb';
import { startFailingDynamoDbProxy, type DynamoDbRequest, type FailingDynamoDbProxy } from '../support/failing-dynamodb-proxy';
import { exchangeBody, SEND_PATH, sendBody, startTestService, TOKEN_PATH, uniqueEmail, type TestService } from '../support/harness';

/** The code store's writes (lib/adapters/dynamodb/code-store.ts). */
const isGuess = ({ body }: DynamoDbRequest) => body.UpdateExpression?.includes('list_append(#live.#guesses') === true;
const isAbandon = ({ body }: DynamoDbRequest) => body.UpdateExpression?.startsWith('SET #live.#abandoned') === true;
const isSave = ({ body }: DynamoDbRequest) => body.UpdateExpression?.includes('#live = :code') === true;
const isCancel = ({ body }: DynamoDbRequest) => body.UpdateExpression?.startsWith('SET #cancelled') === true;

let local: DynamoDbLocal;
let proxy: FailingDynamoDbProxy;
let service: TestService;
let tableName: string;
beforeAll(async () => {
  local = await startDynamoDbLocal();
  tableName = `identity-frozen-${randomUUID()}`;
  await ensureTable(local.endpoint, tableName);
  proxy = await startFailingDynamoDbProxy(local.endpoint);
  // A timeout short enough to give up on the frozen write quickly, long enough for a loaded machine.
  service = await startTestService({ dynamodbEndpoint: proxy.endpoint, tableName, dynamodbRequestTimeoutMs: 1_500 });
}, 60_000);
afterEach(async () => {
  await resume();
  proxy.heal();
});
afterAll(async () => {
  await resume();
  await service?.stop();
  await proxy?.stop();
  await local?.stop();
});

function freeze(): Promise<void> {
  process.kill(local.pid as number, 'SIGSTOP');
  return Promise.resolve();
}

function resume(): Promise<void> {
  if (local?.pid !== undefined) process.kill(local.pid, 'SIGCONT');
  return Promise.resolve();
}

/** The code items of this table (this DynamoDB Local holds nothing else). */
/** The parts of a code item these tests look at. */
interface CodeItem {
  readonly pk: string;
  readonly live?: { readonly send_id: string; readonly guesses: readonly string[]; readonly abandoned?: readonly string[] };
  readonly cancelled?: readonly string[];
}

async function codeItems(): Promise<CodeItem[]> {
  const documents = createDocumentClient(new DynamoDBClient({ endpoint: local.endpoint, ...LOCAL_AWS }));
  const { Items = [] } = await documents.send(new ScanCommand({ TableName: tableName }));
  return (Items as CodeItem[]).filter((item) => item.pk.startsWith('code#'));
}

/** Waits (at most 10 s) until the late writes show in the slot, so the retry comes after them. */
async function untilLanded(settled: (item: CodeItem) => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if ((await codeItems()).some(settled)) return;
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function sendCode(user: string): Promise<string> {
  expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(200);
  return service.latestCode(user);
}

it('a right code whose guess landed after the 503 works when the user retries it, once', async () => {
  const user = uniqueEmail('frozen-guess');
  const code = await sendCode(user);
  proxy.interleave(isGuess, freeze);
  proxy.interleave(isAbandon, resume);

  const first = await service.post(TOKEN_PATH, exchangeBody(user, code));
  await resume();
  expect(first.status).toBe(503);
  expect(first.headers.get('retry-after')).toBe('1');
  await untilLanded((item) => (item.live?.guesses.length ?? 0) > 0 || item.live?.abandoned !== undefined);

  expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(200);
  // Still single use: the code that just answered tokens is refused from now on.
  expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).body).toMatchObject({ error: 'invalid_grant' });
}, 60_000);

it('a send whose save landed after the 503 leaves the code the user holds usable, and delivers nothing', async () => {
  const user = uniqueEmail('frozen-save');
  const held = await sendCode(user);
  const heldSendIds = new Set((await codeItems()).map((item) => item.live?.send_id));
  proxy.interleave(isSave, freeze);
  proxy.interleave(isCancel, resume);

  const second = await service.post(SEND_PATH, sendBody(user));
  await resume();
  expect(second.status).toBe(503);
  expect(second.headers.get('retry-after')).toBe('1');
  await untilLanded((item) => item.cancelled !== undefined || (item.live !== undefined && !heldSendIds.has(item.live.send_id)));

  expect(await service.outbox(user)).toHaveLength(1);
  expect((await service.post(TOKEN_PATH, exchangeBody(user, held))).status).toBe(200);
}, 60_000);
