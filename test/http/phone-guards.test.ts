/**
 * The SMS fraud guards as a client sees them (docs/decisions/008-sms-fraud-guards.md): over HTTP
 * through the local runtime, against DynamoDB Local and the SMS/voice capture, with the injected
 * clock. Each guard at its boundary; sends from 127.0.0.2 and 127.0.0.3 counted apart (the local
 * server hands the socket's peer address to the handler as API Gateway's `sourceIp`); a refused
 * send stores no code and sends nothing; the requests of every path, counted on the wire; the
 * hosted login page's sends pass the same guards, and the page says each refusal in its language.
 */
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createHandler as createSendHandler } from '../../functions/otp-send';
import { FINISH_SEND_BUDGET_MS } from '../../lib/platform/aws';
import { codeItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { type DynamoDbSendGuards } from '../../lib/adapters/dynamodb/send-guards';
import { budgetShardItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { nextUtcDayStart, shardCapsOf, utcDayOf } from '../../lib/guards/daily-budget';
import { userKeyOf } from '../../lib/keys/hmac-keys';
import { TIMEOUT_MARGIN_MS } from '../../lib/platform/http/handler';
import { escapeHtml } from '../../lib/messages/markup';
import { LOGIN_PAGES } from '../../lib/messages/locales';
import { LOG_EVENTS } from '../../lib/platform/log-events';
import { apiEvent, lambdaContext } from '../support/api-event';
import { LoginSession, type PageResponse } from '../support/login-flow';
import { capturedLogs } from '../support/log-capture';
import {
  LOCAL_API_KEY,
  localStageConfig,
  logEntries,
  SEND_PATH,
  sendBody,
  startTestService,
  uniqueEmail,
  uniquePhone,
  withLimits,
  type TestResponse,
  type TestService,
} from '../support/harness';

const UPDATE = 'UpdateItem';

/** The n-th number of a block of numbers no other test of this file uses (uniquePhone() is always +1 415). */
const inBlock = (block: string, index: number) => `+1${block}${String(index).padStart(4, '0')}`;

function expectTooMany(response: TestResponse, retryAfter: number): void {
  expect(response.status).toBe(429);
  expect(response.body).toEqual({
    error: 'too_many_requests',
    error_description: `Too many codes by SMS or voice call were requested. Try again in ${retryAfter} seconds.`,
  });
  expect(response.headers.get('retry-after')).toBe(String(retryAfter));
}

async function smsMessagesTo(service: TestService, users: readonly string[]): Promise<number> {
  const outboxes = await Promise.all(users.map((user) => service.outbox(user)));
  return outboxes.reduce((sum, messages) => sum + messages.length, 0);
}

/** Whether the slot of `user` (local-web) holds a live code, read past the service. */
async function hasLiveCode(service: TestService, user: string): Promise<boolean> {
  const keys = await service.deps.hmacKeys();
  const pk = codeItemKey({ environmentId: 'local', clientId: 'local-web', userKey: userKeyOf(keys, { authType: 'sms', value: user }) });
  const client = new DynamoDBClient({
    endpoint: service.services.dynamodbEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const { Item } = await client.send(
      new GetItemCommand({ TableName: service.services.tableName, Key: { pk: { S: pk } }, ConsistentRead: true }),
    );
    return Item?.live?.M !== undefined;
  } finally {
    client.destroy();
  }
}

describe('allowed destinations', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  it.each([
    ['+447624123456', 'a country the environment does not list (IM: the Isle of Man is not GB)'],
    ['+19005550123', 'a premium-rate number, in a country the environment lists'],
    ['+443001234567', 'a UAN (a company’s access number)'],
    ['+8816311234567', 'the satellite network +881'],
  ])('refuses %s, %s: 403 destination_not_allowed, only the attempt counted, no code, nothing sent', async (user) => {
    service.dynamodb.reset();
    const response = await service.post(SEND_PATH, sendBody(user));

    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: 'destination_not_allowed',
      error_description: 'Codes cannot be sent to this phone number in this environment.',
    });
    expect(service.dynamodb.operations()).toEqual([UPDATE]);
    expect(await hasLiveCode(service, user)).toBe(false);
    expect(await service.outbox(user)).toEqual([]);
  });

  it('refuses a voice call to a disallowed number the same way', async () => {
    const response = await service.post(SEND_PATH, sendBody('+447624123457', 'local-web', { method: 'voice_with_otp' }));
    expect(response.status).toBe(403);
    expect(response.body.error).toBe('destination_not_allowed');
  });

  it('logs each refusal with its guard and country, never the number', async () => {
    const before = capturedLogs().length;
    await service.post(SEND_PATH, sendBody('+447624123458'));
    const [entry] = logEntries(capturedLogs().slice(before), LOG_EVENTS.phoneSendRefused);
    expect(entry).toMatchObject({ environment: 'local', channel: 'sms', guard: 'destination', country: 'IM', reason: 'country' });
    expect(JSON.stringify(capturedLogs().slice(before))).not.toContain('7624123458');
  });
});

/**
 * Personal numbers and VoIP in allowed countries, libphonenumber's example numbers of each type
 * (resources/PhoneNumberMetadata.xml): ranges that forward anywhere and are leased to resellers,
 * a classic of revenue-share fraud (docs/decisions/008-sms-fraud-guards.md).
 */
const PERSONAL_AND_VOIP = [
  ['+447012345678', 'GB', 'PERSONAL_NUMBER', 'a UK personal number (+44 70)'],
  ['+34704123456', 'ES', 'PERSONAL_NUMBER', 'a Spanish personal number (+34 70x)'],
  ['+4970012345678', 'DE', 'PERSONAL_NUMBER', 'a German personal number (+49 700)'],
  ['+445612345678', 'GB', 'VOIP', 'a UK VoIP number (+44 56)'],
] as const;

describe('personal numbers and VoIP in allowed countries (regression: accepted wherever their country was)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  it.each(
    PERSONAL_AND_VOIP.flatMap(([user, country, type, name]) =>
      (['sms', 'voice'] as const).map((channel) => [user, country, type, name, channel] as const),
    ),
  )(
    'refuses %s (%s %s: %s) by %s: 403 destination_not_allowed, logged with the reason, only the attempt counted, nothing sent',
    async (user, country, type, _name, channel) => {
      expect(localStageConfig().environments[0]!.sms.allowedCountries).toContain(country);
      const before = capturedLogs().length;
      service.dynamodb.reset();
      const response = await service.post(SEND_PATH, sendBody(user, 'local-web', channel === 'voice' ? { method: 'voice_with_otp' } : {}));

      expect(response.status).toBe(403);
      expect(response.body).toEqual({
        error: 'destination_not_allowed',
        error_description: 'Codes cannot be sent to this phone number in this environment.',
      });
      expect(service.dynamodb.operations()).toEqual([UPDATE]);
      expect(await hasLiveCode(service, user)).toBe(false);
      expect(await service.outbox(user)).toEqual([]);
      expect(logEntries(capturedLogs().slice(before), LOG_EVENTS.phoneSendRefused)).toEqual([
        expect.objectContaining({ environment: 'local', channel, guard: 'destination', country, reason: 'number_type', numberType: type }),
      ]);
      expect(JSON.stringify(capturedLogs().slice(before))).not.toContain(user.slice(3));
    },
  );

  it.each(PERSONAL_AND_VOIP)('the hosted login page refuses %s (%s %s) too: 403 and its refusal, nothing sent', async (user) => {
    const session = new LoginSession(service);
    const page = await session.post(await session.start(), 'send', { user_id: user });
    expect(page.status).toBe(403);
    expect(page.html).toContain(`>${escapeHtml(LOGIN_PAGES['en-US'].destinationNotAllowed)}</p>`);
    expect(page.html).toContain(`value="${user}"`);
    expect(await service.outbox(user)).toEqual([]);
  });
});

describe('personal numbers and VoIP where the environment empties sms.refusedNumberTypes (its users have them)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      config: (config) => ({
        ...config,
        environments: config.environments.map((environment) => ({ ...environment, sms: { ...environment.sms, refusedNumberTypes: [] } })),
      }),
    });
  });
  afterAll(async () => service.stop());

  it.each(PERSONAL_AND_VOIP)('otp/send sends to %s (%s %s)', async (user) => {
    const response = await service.post(SEND_PATH, sendBody(user));
    expect(response.status).toBe(200);
    expect(await service.outbox(user)).toHaveLength(1);
  });

  it('the hosted login page sends to them too', async () => {
    const session = new LoginSession(service);
    // Another UK personal number (+44 70), with an outbox of its own.
    const user = '+447012345679';
    expect((await session.post(await session.start(), 'send', { user_id: user })).status).toBe(200);
    expect(await service.outbox(user)).toHaveLength(1);
  });
});

describe('per source IP', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ sendPerIp: { maxSends: 3, windowSeconds: 3600 } }) });
  });
  afterAll(async () => service.stop());

  it('counts sends from 127.0.0.2 and 127.0.0.3 separately, each to its limit, and lets the first again once its window has passed', async () => {
    const send = (from: string) => service.post(SEND_PATH, sendBody(uniquePhone()), { from });

    for (let index = 0; index < 3; index += 1) expect((await send('127.0.0.2')).status).toBe(200);
    service.clock.advanceSeconds(600);
    expectTooMany(await send('127.0.0.2'), 3000);
    for (let index = 0; index < 3; index += 1) expect((await send('127.0.0.3')).status).toBe(200);
    expectTooMany(await send('127.0.0.3'), 3600);

    // An hour after its three: they have left the window (half-open), so three more pass.
    service.clock.advanceSeconds(3000);
    for (let index = 0; index < 3; index += 1) expect((await send('127.0.0.2')).status).toBe(200);
    expectTooMany(await send('127.0.0.2'), 3600);
  });

  it('does not count email (nor let the per-IP refusal stop it)', async () => {
    for (let index = 0; index < 3; index += 1) await service.post(SEND_PATH, sendBody(uniquePhone()), { from: '127.0.0.4' });
    expect((await service.post(SEND_PATH, sendBody(uniquePhone()), { from: '127.0.0.4' })).status).toBe(429);
    expect((await service.post(SEND_PATH, sendBody(uniqueEmail('ip')), { from: '127.0.0.4' })).status).toBe(200);
  });

  it('does not count a client that authenticates with its API key (its servers send for all its users)', async () => {
    const backend = (user: string) =>
      service.post(SEND_PATH, sendBody(user, 'local-backend'), {
        from: '127.0.0.5',
        headers: { Authorization: `Bearer ${LOCAL_API_KEY}` },
      });
    for (let index = 0; index < 6; index += 1) expect((await backend(uniquePhone())).status).toBe(200);
  });

  it('refused for its IP: no code stored, nothing sent, the prefix and the budget untouched', async () => {
    for (let index = 0; index < 3; index += 1) await service.post(SEND_PATH, sendBody(uniquePhone()), { from: '127.0.0.6' });
    const user = uniquePhone();
    service.dynamodb.reset();
    expect((await service.post(SEND_PATH, sendBody(user), { from: '127.0.0.6' })).status).toBe(429);
    // The attempt, then the per-IP window that refused.
    expect(service.dynamodb.operations()).toEqual([UPDATE, UPDATE]);
    expect(await hasLiveCode(service, user)).toBe(false);
    expect(await service.outbox(user)).toEqual([]);
  });
});

describe('50 concurrent sends from one IP to 50 different numbers', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ sendPerIp: { maxSends: 10, windowSeconds: 3600 } }) });
  });
  afterAll(async () => service.stop());

  it('exactly 10 pass (the default per-IP limit); the other 40 get 429 and nothing is sent to them', async () => {
    const users = Array.from({ length: 50 }, () => uniquePhone());
    const responses = await Promise.all(users.map((user) => service.post(SEND_PATH, sendBody(user), { from: '127.0.0.7' })));

    expect(responses.filter((response) => response.status === 200)).toHaveLength(10);
    for (const response of responses.filter((candidate) => candidate.status !== 200)) expectTooMany(response, 3600);
    expect(await smsMessagesTo(service, users)).toBe(10);
  });
});

describe('per destination prefix', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  it('a sweep through one block (+1 212 555 …) from many IPs: exactly 20 an hour pass, the next block is not affected', async () => {
    const sweep = Array.from({ length: 25 }, (_, index) => inBlock('212555', index));
    const statuses: number[] = [];
    for (const [index, user] of sweep.entries()) {
      statuses.push((await service.post(SEND_PATH, sendBody(user), { from: `127.0.1.${index + 1}` })).status);
    }
    expect(statuses).toEqual([...Array(20).fill(200), ...Array(5).fill(429)]);
    expect(await smsMessagesTo(service, sweep)).toBe(20);
    expect((await service.post(SEND_PATH, sendBody(inBlock('212556', 0)))).status).toBe(200);

    // Retry-After: until the first of the 20 leaves the hour.
    service.clock.advanceSeconds(1800);
    expectTooMany(await service.post(SEND_PATH, sendBody(inBlock('212555', 99))), 1800);
    service.clock.advanceSeconds(1800);
    expect((await service.post(SEND_PATH, sendBody(inBlock('212555', 99)))).status).toBe(200);
  });

  it('a concurrent sweep of 40 numbers of one block: exactly 20 pass', async () => {
    const sweep = Array.from({ length: 40 }, (_, index) => inBlock('646555', index));
    const responses = await Promise.all(
      sweep.map((user, index) => service.post(SEND_PATH, sendBody(user), { from: `127.0.2.${index + 1}` })),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(20);
    expect(responses.filter((response) => response.status === 429)).toHaveLength(20);
  });

  it('logs the refusal with the block’s handle and its calling code and first three digits, never the block itself', async () => {
    const sweep = Array.from({ length: 21 }, (_, index) => inBlock('718555', index));
    const before = capturedLogs().length;
    for (const user of sweep) await service.post(SEND_PATH, sendBody(user));
    const [entry] = logEntries(capturedLogs().slice(before), LOG_EVENTS.phoneSendRefused);
    expect(entry).toMatchObject({ guard: 'prefix', country: 'US', range: '+1 718', prefix: expect.stringMatching(/^[\w-]{12}$/) });
    expect(JSON.stringify(capturedLogs().slice(before))).not.toMatch(/718555|7185550/);
  });
});

describe('the daily budget', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ dailyPhoneBudget: { maxMessages: 10 } }) });
    // Five minutes before the end of a UTC day.
    service.clock.set(nextUtcDayStart(service.clock.now()) - 300_000);
  });
  afterAll(async () => service.stop());

  it('20 concurrent sends at the edge (7 of 10 spent): exactly 3 pass, the rest get 503 with Retry-After until the next UTC day', async () => {
    for (let index = 0; index < 7; index += 1) expect((await service.post(SEND_PATH, sendBody(uniquePhone()))).status).toBe(200);
    const users = Array.from({ length: 20 }, () => uniquePhone());
    const responses = await Promise.all(
      users.map((user, index) => service.post(SEND_PATH, sendBody(user), { from: `127.0.3.${index + 1}` })),
    );

    expect(responses.filter((response) => response.status === 200)).toHaveLength(3);
    for (const response of responses.filter((candidate) => candidate.status !== 200)) {
      expect(response.status).toBe(503);
      expect(response.body).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'Codes by SMS and voice call are unavailable until the next UTC day. Codes by email still work.',
      });
      expect(response.headers.get('retry-after')).toBe('300');
    }
    expect(await smsMessagesTo(service, users)).toBe(3);
  });

  it('refuses voice calls too, keeps email working, and refuses a number that is not known without the prefix or the budget once the container knows', async () => {
    service.clock.advanceSeconds(60);
    const voice = await service.post(SEND_PATH, sendBody(uniquePhone(), 'local-web', { method: 'voice_with_otp' }));
    expect(voice.status).toBe(503);
    expect(voice.headers.get('retry-after')).toBe('240');

    service.dynamodb.reset();
    expect((await service.post(SEND_PATH, sendBody(uniquePhone()))).status).toBe(503);
    // The attempt, the source's window and the known-number allowance (docs/decisions/012-known-numbers.md).
    expect(service.dynamodb.operations()).toEqual([UPDATE, UPDATE, UPDATE]);
    expect((await service.post(SEND_PATH, sendBody(uniqueEmail('budget')))).status).toBe(200);
  });

  it('opens again on the next UTC day', async () => {
    service.clock.set(nextUtcDayStart(service.clock.now()));
    expect((await service.post(SEND_PATH, sendBody(uniquePhone()))).status).toBe(200);
  });

  it('logs how full its shard is after every SMS or voice message (what the 80% alarm reads)', async () => {
    const before = capturedLogs().length;
    await service.post(SEND_PATH, sendBody(uniquePhone()));
    const [entry] = logEntries(capturedLogs().slice(before), LOG_EVENTS.phoneBudgetSpent);
    expect(entry).toMatchObject({ environment: 'local', channel: 'sms', country: 'US', usedPercent: expect.any(Number) });
  });
});

describe('the daily budget in leases (1,000 a day: leases of up to 10) at its edge', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  it('20 concurrent sends with 10 messages left: never more than 10 sent, and what is not sent is held by the container, not lost', async () => {
    // A busy container (its leases at their largest), then the day all but spent: 1, 2, 3, 4 left.
    for (let index = 0; index < 16; index += 1) {
      expect((await service.post(SEND_PATH, sendBody(uniquePhone()), { from: `127.0.8.${index + 1}` })).status).toBe(200);
    }
    const guards = service.deps.guards as DynamoDbSendGuards;
    const heldBefore = guards.heldMessages('local', service.clock.now());
    const client = new DynamoDBClient({
      endpoint: service.services.dynamodbEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const day = utcDayOf(service.clock.now());
    try {
      for (const [shard, cap] of shardCapsOf(1000).entries()) {
        const Item = { pk: { S: budgetShardItemKey('local', day, shard) }, sent: { N: String(cap - (shard + 1)) } };
        await client.send(new PutItemCommand({ TableName: service.services.tableName, Item }));
      }
    } finally {
      client.destroy();
    }
    const left = 10 + heldBefore;

    const users = Array.from({ length: 20 }, () => uniquePhone());
    const responses = await Promise.all(
      users.map((user, index) => service.post(SEND_PATH, sendBody(user), { from: `127.0.9.${index + 1}` })),
    );

    const sent = responses.filter((response) => response.status === 200).length;
    expect(sent).toBeLessThanOrEqual(left);
    expect(sent + guards.heldMessages('local', service.clock.now())).toBe(left);
    for (const response of responses.filter((candidate) => candidate.status !== 200)) {
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe(
        String(Math.floor((nextUtcDayStart(service.clock.now()) - service.clock.now()) / 1000)),
      );
    }
    expect(await smsMessagesTo(service, users)).toBe(sent);
  });
});

describe('DynamoDB requests of each path, counted on the wire', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ sendPerIp: { maxSends: 1 }, sendPerPrefix: { maxSends: 1 } }) });
  });
  afterAll(async () => service.stop());

  async function requestsOf(send: () => Promise<TestResponse>, status: number): Promise<readonly string[]> {
    service.dynamodb.reset();
    expect((await send()).status).toBe(status);
    return service.dynamodb.operations();
  }

  it('email: the attempt, the source’s email window and the code (docs/decisions/010-hosted-login-abuse.md)', async () => {
    expect(await requestsOf(() => service.post(SEND_PATH, sendBody(uniqueEmail('wire'))), 200)).toEqual([UPDATE, UPDATE, UPDATE]);
  });

  /** An SMS send from an address and to a block of numbers of its own (the windows here allow one each). */
  let fresh = 0;
  const freshSms =
    (extra: Record<string, unknown> = {}, clientId = 'local-web', headers: Record<string, string> = {}) =>
    () => {
      fresh += 1;
      const user = inBlock(String(305_200 + fresh), 1);
      return service.post(SEND_PATH, sendBody(user, clientId, extra), { from: `127.0.10.${fresh}`, headers });
    };

  it('SMS and voice to a number not known: 5 requests (attempt, source, known-number allowance, prefix, code) when the container’s lease pays, 6 when it takes one (the budget shard too)', async () => {
    // The default budget (1,000 a day) leases up to 10: a busy container's leases grow 1, 2, 4, 8,
    // 10, so of its first 26 sends 7 take a lease, and then one in 10.
    const requests: number[] = [];
    for (let index = 0; index < 26; index += 1) {
      const operations = await requestsOf(index % 2 === 0 ? freshSms() : freshSms({ method: 'voice_with_otp' }), 200);
      expect(operations.every((operation) => operation === UPDATE)).toBe(true);
      requests.push(operations.length);
    }
    expect(requests).toEqual([6, 6, 5, 6, 5, 5, 5, 6, 5, 5, 5, 5, 5, 5, 5, 6, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6]);
    // Steady state: 9 sends in 10 at 5, the tenth at 6 (5.1 on average).

    // A client with an API key is not counted per source: one request fewer. The lease taken by
    // the 26th send pays the next 9 sends; the 10th takes a lease.
    const backend = freshSms({}, 'local-backend', { Authorization: `Bearer ${LOCAL_API_KEY}` });
    const backendRequests: number[] = [];
    for (let index = 0; index < 10; index += 1) backendRequests.push((await requestsOf(backend, 200)).length);
    expect(backendRequests).toEqual([4, 4, 4, 4, 4, 4, 4, 4, 4, 5]);
  });

  it('the hosted login page’s SMS send: the same requests as otp/send’s (none to show the page)', async () => {
    const session = new LoginSession(service, 'local-web', { from: '127.0.10.250' });
    const leasePays = (service.deps.guards as DynamoDbSendGuards).heldMessages('local', service.clock.now()) > 0;
    service.dynamodb.reset();
    const first = await session.start();
    expect(service.dynamodb.operations()).toEqual([]);
    expect((await session.post(first, 'send', { user_id: inBlock('305400', 1) })).status).toBe(200);
    expect(service.dynamodb.operations()).toEqual(Array(leasePays ? 5 : 6).fill(UPDATE));
  });

  it('a quiet container (SMS sends 5 minutes apart) leases one message at a time: 6 requests each, nothing held', async () => {
    const quiet = await startTestService({ config: withLimits({ sendPerIp: { maxSends: 1 }, sendPerPrefix: { maxSends: 1 } }) });
    try {
      const requests: number[] = [];
      for (let index = 0; index < 3; index += 1) {
        quiet.clock.advanceSeconds(300);
        quiet.dynamodb.reset();
        expect(
          (await quiet.post(SEND_PATH, sendBody(inBlock(String(305_300 + index), 1)), { from: `127.0.4.${200 + index}` })).status,
        ).toBe(200);
        requests.push(quiet.dynamodb.operations().length);
      }
      expect(requests).toEqual([6, 6, 6]);
      expect((quiet.deps.guards as DynamoDbSendGuards).heldMessages('local', quiet.clock.now())).toBe(0);
    } finally {
      await quiet.stop();
    }
  });

  it('refused: for its destination 1 (the attempt), for its source 2, for its prefix 4 (and the known-number allowance); nothing after the refusal', async () => {
    expect(await requestsOf(() => service.post(SEND_PATH, sendBody('+447624123459')), 403)).toEqual([UPDATE]);
    await service.post(SEND_PATH, sendBody(inBlock('786555', 1)), { from: '127.0.4.4' });
    expect(await requestsOf(() => service.post(SEND_PATH, sendBody(inBlock('786556', 1)), { from: '127.0.4.4' }), 429)).toEqual([
      UPDATE,
      UPDATE,
    ]);
    expect(await requestsOf(() => service.post(SEND_PATH, sendBody(inBlock('786555', 2)), { from: '127.0.4.5' }), 429)).toEqual([
      UPDATE,
      UPDATE,
      UPDATE,
      UPDATE,
    ]);
  });
});

describe('the deadline before a code is stored (regression: the guards’ writes took the worst SMS send past the function’s timeout)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  /** The otp/send handler called as Lambda would, with `remainingMs` left in the function. */
  async function sendWith(user: string, remainingMs: number) {
    const requestContext = { requestId: 'deadline', identity: { sourceIp: '192.0.2.10' } } as APIGatewayProxyEvent['requestContext'];
    const event = apiEvent({ resource: SEND_PATH, path: SEND_PATH, body: JSON.stringify(sendBody(user)), requestContext });
    return createSendHandler(() => service.deps)(event, lambdaContext(remainingMs));
  }

  it('with less time left than storing, delivering and restoring may take: 503, no code stored, nothing sent', async () => {
    const user = uniquePhone();
    const before = capturedLogs().length;
    const response = await sendWith(user, FINISH_SEND_BUDGET_MS + TIMEOUT_MARGIN_MS - 1000);

    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body)).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'The service is temporarily unavailable. Try again shortly.',
    });
    expect(response.headers?.['Retry-After']).toBe('1');
    expect(await hasLiveCode(service, user)).toBe(false);
    expect(await service.outbox(user)).toEqual([]);
    // The operator's log says why: no dependency failed, the function ran short of time.
    expect(logEntries(capturedLogs().slice(before), LOG_EVENTS.requestFailed)).toEqual([
      expect.objectContaining({
        error: 'temporarily_unavailable',
        status: 503,
        detail: 'too little time left to store and deliver a code',
      }),
    ]);
  });

  it('with the time for it: sent', async () => {
    const user = uniquePhone();
    expect((await sendWith(user, FINISH_SEND_BUDGET_MS + TIMEOUT_MARGIN_MS + 2000)).statusCode).toBe(200);
    expect(await service.outbox(user)).toHaveLength(1);
  });
});

describe('the hosted login page: its SMS and voice sends pass the same guards, and it words each refusal', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      config: withLimits({ sendPerIp: { maxSends: 2, windowSeconds: 3600 }, sendPerPrefix: { maxSends: 3, windowSeconds: 3600 } }),
    });
  });
  afterAll(async () => service.stop());

  /** Step 1 of the page for `user`, from `from`, in `uiLocales`. */
  async function sendFromPage(user: string, options: { from?: string; uiLocales?: string; channel?: string } = {}): Promise<PageResponse> {
    const session = new LoginSession(service, 'local-web', { from: options.from ?? '127.0.5.1' });
    const first = await session.start(options.uiLocales === undefined ? {} : { ui_locales: options.uiLocales });
    return session.post(first, 'send', { user_id: user, ...(options.channel === undefined ? {} : { channel: options.channel }) });
  }

  /** The page's error paragraph, as the page escapes it. */
  const shows = (page: PageResponse, text: string) => expect(page.html).toContain(`>${escapeHtml(text)}</p>`);

  it.each([
    ['en-US', '+447624123460'],
    ['de-DE', '+19005550124'],
    ['ja-JP', '+8816311234568'],
  ] as const)(
    'in %s, a number the environment does not allow (%s): 403, the localised refusal, no code, nothing sent',
    async (locale, user) => {
      const page = await sendFromPage(user, { uiLocales: locale, from: '127.0.5.2' });

      expect(page.status).toBe(403);
      expect(page.html).toContain(`<html lang="${locale}">`);
      shows(page, LOGIN_PAGES[locale].destinationNotAllowed);
      // Still step 1, with the number kept for the user to correct.
      expect(page.html).toContain(`value="${user}"`);
      expect(await hasLiveCode(service, user)).toBe(false);
      expect(await service.outbox(user)).toEqual([]);
    },
  );

  it('counts its sends by the browser’s source IP, with otp/send’s from the same IP; another IP counts apart', async () => {
    // Two SMS and voice sends an hour per IP: one by the page, one by otp/send.
    expect((await sendFromPage(uniquePhone(), { from: '127.0.5.3' })).status).toBe(200);
    expect((await service.post(SEND_PATH, sendBody(uniquePhone()), { from: '127.0.5.3' })).status).toBe(200);
    service.clock.advanceSeconds(600);

    const refused = await sendFromPage(uniquePhone(), { from: '127.0.5.3', channel: 'voice', uiLocales: 'fr-FR' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3000');
    const retryIn = new Intl.RelativeTimeFormat('fr-FR', { numeric: 'always' }).format(50, 'minute');
    shows(refused, LOGIN_PAGES['fr-FR'].tooManySends(retryIn));
    expect(refused.html).toContain('Réessayez dans 50 minutes ou utilisez une adresse e-mail.');

    // 127.0.5.4 has its own window; email is counted in a window of its own.
    expect((await sendFromPage(uniquePhone(), { from: '127.0.5.4' })).status).toBe(200);
    expect((await sendFromPage(uniqueEmail('page'), { from: '127.0.5.3' })).status).toBe(200);
  });

  it('refuses a resend over the IP’s limit on step 2, where the delivered code still signs the user in', async () => {
    const session = new LoginSession(service, 'local-web', { from: '127.0.5.9' });
    const user = uniquePhone();
    const sent = await session.post(await session.start(), 'send', { user_id: user });
    const resent = await session.post(sent, 'resend');
    expect(resent.html).toContain('A new code is on its way.');
    const code = await service.latestCode(user);

    const refused = await session.post(resent, 'resend');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3600');
    shows(refused, LOGIN_PAGES['en-US'].tooManySends('in 60 minutes'));
    expect(refused.html).toContain('<input id="code"');
    expect(await service.outbox(user)).toHaveLength(2);
    expect((await session.post(refused, 'verify', { code })).status).toBe(302);
  });

  it('a sweep through one block of numbers by the page from many IPs: 3 pass, then the localised 429', async () => {
    const statuses: number[] = [];
    let last: PageResponse | undefined;
    for (let index = 0; index < 4; index += 1) {
      last = await sendFromPage(inBlock('415777', index), { from: `127.0.6.${index + 1}` });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    shows(last as PageResponse, LOGIN_PAGES['en-US'].tooManySends('in 60 minutes'));
    expect((last as PageResponse).html).toContain('Too many codes have been requested. Try again in 60 minutes, or use an email address.');
  });
});

describe('the hosted login page when the day’s budget is spent', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: withLimits({ dailyPhoneBudget: { maxMessages: 1 } }) });
    // Two hours before the end of a UTC day.
    service.clock.set(nextUtcDayStart(service.clock.now()) - 7_200_000);
  });
  afterAll(async () => service.stop());

  it('answers 503 with Retry-After until the next UTC day and the localised text; email still works', async () => {
    const session = () => new LoginSession(service, 'local-web', { from: '127.0.7.1' });
    const send = async (user: string, uiLocales = 'en-US') => {
      const browser = session();
      return browser.post(await browser.start({ ui_locales: uiLocales }), 'send', { user_id: user });
    };
    expect((await send(uniquePhone())).status).toBe(200);

    const user = uniquePhone();
    const refused = await send(user, 'pt-BR');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('7200');
    expect(refused.html).toContain(`>${escapeHtml(LOGIN_PAGES['pt-BR'].phoneUnavailable)}</p>`);
    expect(await service.outbox(user)).toEqual([]);

    expect((await send(uniqueEmail('budget-page'))).status).toBe(200);
  });
});
