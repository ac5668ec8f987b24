/**
 * Known numbers over HTTP (docs/decisions/012-known-numbers.md): the daily SMS and voice budget is
 * no longer a switch anyone can turn off. A number that completed a login in the environment (a
 * right code at the token endpoint or on the hosted page) keeps getting its codes, within its own
 * allowance, after strangers have spent the day's budget on numbers never seen before.
 */
import { knownNumberItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { userKeyOf } from '../../lib/keys/hmac-keys';
import { LOG_EVENTS } from '../../lib/platform/log-events';
import { capturedLogs } from '../support/log-capture';
import { startFailingDynamoDbProxy, type FailingDynamoDbProxy } from '../support/failing-dynamodb-proxy';
import {
  exchangeBody,
  logEntries,
  requiredEnv,
  sendBody,
  SEND_PATH,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  withLimits,
  type TestService,
} from '../support/harness';
import { LoginSession } from '../support/login-flow';

/** A number of a block no other test uses, so the prefix guard never meets another test's sends. */
let next = 0;
const freshPhone = () => `+1212${String(5_550_000 + (next += 1)).padStart(7, '0')}`;
/** Strangers' numbers, each in a block of its own, sent from sources of their own. */
let stranger = 0;
const strangerSend = (service: TestService) => {
  stranger += 1;
  const block = String(310 + (stranger % 600)).padStart(3, '0');
  return service.post(SEND_PATH, sendBody(`+1646${block}${String(1000 + stranger).slice(-4)}`), { from: `127.0.60.${stranger}` });
};

/** A login by SMS through the API flow: otp/send, then the code at the token endpoint. */
async function smsLogin(service: TestService, phone: string): Promise<number> {
  expect((await service.post(SEND_PATH, sendBody(phone))).status).toBe(200);
  return (await service.post(TOKEN_PATH, exchangeBody(phone, await service.latestCode(phone)))).status;
}

describe('regression: the daily budget was a switch anyone could turn off (1,000 SMS from one IP in 15.6 s, then every SMS login 503 until midnight)', () => {
  let service: TestService;
  beforeAll(async () => {
    // A budget of 6 a day (one message a lease: the exact counter), the per-recipient limit out of the way.
    service = await startTestService({ config: withLimits({ dailyPhoneBudget: { maxMessages: 6 }, send: { maxAttempts: 50 } }) });
  });
  afterAll(async () => service.stop());

  it('keeps sending to numbers that signed in (by the API and on the page), and refuses only numbers never seen before', async () => {
    const byApi = freshPhone();
    const byPage = freshPhone();
    expect(await smsLogin(service, byApi)).toBe(200);
    const session = new LoginSession(service, 'local-web', { from: '127.0.61.1' });
    expect((await session.signIn(byPage)).status).toBe(302);
    // Two of the day's 6 spent by those logins; strangers spend the other 4, and then are refused.
    const strangers = [];
    for (let index = 0; index < 6; index += 1) strangers.push((await strangerSend(service)).status);
    expect(strangers).toEqual([200, 200, 200, 200, 503, 503]);

    const since = capturedLogs().length;
    for (const phone of [byApi, byPage]) {
      const sent = await service.post(SEND_PATH, sendBody(phone));
      expect({ phone: phone.slice(-4), status: sent.status }).toEqual({ phone: phone.slice(-4), status: 200 });
    }
    expect(logEntries(capturedLogs().slice(since), LOG_EVENTS.phoneSendKnown)).toEqual([
      expect.objectContaining({ environment: 'local', channel: 'sms', country: 'US' }),
      expect.objectContaining({ environment: 'local', channel: 'sms', country: 'US' }),
    ]);
    expect(logEntries(capturedLogs().slice(since), LOG_EVENTS.phoneBudgetSpent)).toEqual([]);
    // A voice call too; a number never seen before gets the budget's 503.
    expect((await service.post(SEND_PATH, sendBody(byApi, 'local-web', { method: 'voice_with_otp' }))).status).toBe(200);
    const unknown = await service.post(SEND_PATH, sendBody(freshPhone()));
    expect({ status: unknown.status, error: unknown.body.error }).toEqual({ status: 503, error: 'temporarily_unavailable' });
  });

  it('gives a known number its own allowance only (5 in any 24 hours): past it, the spent budget refuses it too', async () => {
    service.clock.advanceSeconds(86_400); // a new day, with room for the login's own code
    const phone = freshPhone();
    expect(await smsLogin(service, phone)).toBe(200);
    while ((await strangerSend(service)).status === 200);
    const statuses: number[] = [];
    for (let index = 0; index < 6; index += 1) statuses.push((await service.post(SEND_PATH, sendBody(phone))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 503]);
  });

  it('does not make a number known by a wrong code, nor by a send alone', async () => {
    const phone = freshPhone();
    expect((await service.post(SEND_PATH, sendBody(phone))).status).toBe(503);
    service.clock.advanceSeconds(86_400);
    // A new day: the budget has room again for the send, then the wrong code, then strangers spend the day.
    expect((await service.post(SEND_PATH, sendBody(phone))).status).toBe(200);
    const code = await service.latestCode(phone);
    const wrong = code === '000000' ? '000001' : '000000';
    expect((await service.post(TOKEN_PATH, exchangeBody(phone, wrong))).status).toBe(400);
    while ((await strangerSend(service)).status === 200);
    expect((await service.post(SEND_PATH, sendBody(phone))).status).toBe(503);
  });
});

describe('the record a login writes', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  it('is one write more on a phone login (the number’s HMAC as its key), none on an email login', async () => {
    const phone = freshPhone();
    expect((await service.post(SEND_PATH, sendBody(phone))).status).toBe(200);
    const code = await service.latestCode(phone);
    service.dynamodb.reset();
    expect((await service.post(TOKEN_PATH, exchangeBody(phone, code))).status).toBe(200);
    // The attempt, the guess, the known number, the refresh token family.
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem', 'PutItem']);
    const keys = await service.deps.hmacKeys();
    expect(service.dynamodb.requests()[2]?.body.Key).toEqual({
      pk: { S: knownNumberItemKey({ environmentId: 'local', userKey: userKeyOf(keys, { authType: 'sms', value: phone }) }) },
    });
    expect(JSON.stringify(service.dynamodb.requests())).not.toContain(phone.slice(1));

    const email = uniqueEmail('known');
    expect((await service.post(SEND_PATH, sendBody(email))).status).toBe(200);
    const emailCode = await service.latestCode(email);
    service.dynamodb.reset();
    expect((await service.post(TOKEN_PATH, exchangeBody(email, emailCode))).status).toBe(200);
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'PutItem']);
  });

  it('is not written where the environment turns known numbers off (rememberDays: 0)', async () => {
    const off = await startTestService({ config: withLimits({ knownNumbers: { rememberDays: 0 } }) });
    try {
      const phone = freshPhone();
      expect((await off.post(SEND_PATH, sendBody(phone))).status).toBe(200);
      const code = await off.latestCode(phone);
      off.dynamodb.reset();
      expect((await off.post(TOKEN_PATH, exchangeBody(phone, code))).status).toBe(200);
      expect(off.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'PutItem']);
    } finally {
      await off.stop();
    }
  });
});

describe('a record that cannot be written (a proxy fails that one write)', () => {
  let proxy: FailingDynamoDbProxy;
  let service: TestService;
  beforeAll(async () => {
    proxy = await startFailingDynamoDbProxy(requiredEnv('TEST_DYNAMODB_ENDPOINT'));
    service = await startTestService({ dynamodbEndpoint: proxy.endpoint, dynamodbRequestTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await service.stop();
    await proxy.stop();
  });

  it('never fails the login it follows: 200, and the failure logged with the error’s name only', async () => {
    const phone = freshPhone();
    expect((await service.post(SEND_PATH, sendBody(phone))).status).toBe(200);
    const code = await service.latestCode(phone);
    proxy.failWhen(({ body }) => JSON.stringify(body.Key ?? {}).includes('"known#'));
    const since = capturedLogs().length;
    const exchanged = await service.post(TOKEN_PATH, exchangeBody(phone, code));
    expect(exchanged.status).toBe(200);
    expect(logEntries(capturedLogs().slice(since), LOG_EVENTS.knownNumberNotRecorded)).toEqual([
      expect.objectContaining({ level: 'ERROR', environment: 'local', error: 'TemporarilyUnavailableError' }),
    ]);
  });
});
