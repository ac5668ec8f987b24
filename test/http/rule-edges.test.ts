/**
 * The rules of otp/send and the token endpoint that only a side effect shows (each was
 * found by a surviving mutant): what is stored, delivered and logged, how many DynamoDB requests
 * a refusal makes, and each rule enforced inside a DynamoDB condition (expiry, tries, single use,
 * PKCE) at its exact edge with the injected clock.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { codeItemKey } from '../../lib/adapters/dynamodb/item-keys';
import { s256Challenge } from '../../lib/otp/codes';
import { userKeyOf } from '../../lib/keys/hmac-keys';
import { LOCAL_AWS } from '../../local/dynamodb';
import { capturedLogs } from '../support/log-capture';
import {
  exchangeBody,
  logEntries,
  REDIRECT_URI,
  SEND_PATH,
  sendBody,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  uniquePhone,
  type TestResponse,
  type TestService,
} from '../support/harness';

/** A display name outside printable ASCII: the From header needs an RFC 2047 encoded word. */
const ACCENTED_SENDER = 'Identité Dév';
const SCOPE = 'api.read api.write';
const GRANT_REFUSED = { error: 'invalid_grant', error_description: 'The code is invalid, expired, or was already used.' };

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    config: (config) => {
      const local = config.environments[0]!;
      const web = config.clients.find((client) => client.id === 'local-web')!;
      const { voice: _voice, ...withoutVoice } = local;
      return {
        ...config,
        environments: [
          ...config.environments,
          { ...withoutVoice, id: 'novoice' },
          { ...local, id: 'accented', email: { ...local.email, senderName: ACCENTED_SENDER } },
        ],
        clients: [
          ...config.clients.map((client) =>
            client.id === 'local-web' ? { ...client, environments: ['local', 'novoice', 'accented'] } : client,
          ),
          { ...web, id: 'local-email-only', channels: ['email' as const] },
          { ...web, id: 'local-no-voice', channels: ['email' as const, 'sms' as const] },
          { ...web, id: 'local-scoped', accessToken: { ...web.accessToken, scope: SCOPE } },
        ],
      };
    },
  });
});
afterAll(async () => service.stop());

/** The code item of `userId` for `clientId` in `environmentId`, read past the service (undefined: none). */
async function storedSlot(userId: string, clientId = 'local-web', environmentId = 'local'): Promise<Record<string, unknown> | undefined> {
  const keys = await service.deps.hmacKeys();
  const user = { authType: userId.includes('@') ? ('email' as const) : ('sms' as const), value: userId };
  const pk = codeItemKey({ environmentId, clientId, userKey: userKeyOf(keys, user) });
  const client = new DynamoDBClient({ endpoint: service.services.dynamodbEndpoint, ...LOCAL_AWS });
  try {
    const { Item } = await client.send(
      new GetItemCommand({ TableName: service.services.tableName, Key: { pk: { S: pk } }, ConsistentRead: true }),
    );
    return Item === undefined ? undefined : unmarshall(Item);
  } finally {
    client.destroy();
  }
}

/** The `reason` of every "grant refused" log entry written since `since` (a capturedLogs() length). */
function refusalReasons(since: number): unknown[] {
  return logEntries(capturedLogs().slice(since), 'grant refused').map((entry) => entry.reason);
}

async function sendCode(userId: string, extra: Record<string, unknown> = {}, clientId = 'local-web'): Promise<string> {
  const response = await service.post(SEND_PATH, sendBody(userId, clientId, extra));
  expect(response.status).toBe(200);
  return service.latestCode(userId);
}

function exchange(userId: string, code: string, extra: Record<string, unknown> = {}, clientId = 'local-web'): Promise<TestResponse> {
  return service.post(TOKEN_PATH, exchangeBody(userId, code, clientId, extra));
}

const wrong = (code: string, offset = 1) => String((Number(code) + offset) % 1_000_000).padStart(6, '0');

describe('otp/send: refusals that store and deliver nothing', () => {
  const refusals: Array<{
    name: string;
    userId: () => string;
    clientId: string;
    query?: string;
    extra?: Record<string, unknown>;
    environmentId?: string;
    expected: { error: string; error_description: string };
  }> = [
    {
      name: 'SMS by a client allowed only email',
      userId: uniquePhone,
      clientId: 'local-email-only',
      expected: { error: 'unauthorized_client', error_description: 'This client may not send codes by sms.' },
    },
    {
      name: 'a voice call by a client allowed email and SMS only',
      userId: uniquePhone,
      clientId: 'local-no-voice',
      extra: { method: 'voice_with_otp' },
      expected: { error: 'unauthorized_client', error_description: 'This client may not send codes by voice.' },
    },
    {
      name: 'a voice call in an environment that offers no voice',
      userId: uniquePhone,
      clientId: 'local-web',
      query: '?env_id=novoice',
      environmentId: 'novoice',
      extra: { method: 'voice_with_otp' },
      expected: { error: 'invalid_request', error_description: 'Voice delivery is not available in this environment.' },
    },
    {
      // RFC 7636 §4.3: the method describes a challenge; alone it is a malformed request.
      name: 'code_challenge_method without code_challenge',
      userId: () => uniqueEmail('pkce-method'),
      clientId: 'local-web',
      extra: { code_challenge_method: 'S256' },
      expected: { error: 'invalid_request', error_description: 'code_challenge_method requires code_challenge.' },
    },
  ];

  it.each(refusals)('$name: 400 $expected.error, no code stored, nothing delivered', async (refusal) => {
    const userId = refusal.userId();
    const response = await service.post(`${SEND_PATH}${refusal.query ?? ''}`, sendBody(userId, refusal.clientId, refusal.extra));
    expect(response.status).toBe(400);
    expect(response.body).toEqual(refusal.expected);
    expect(await storedSlot(userId, refusal.clientId, refusal.environmentId)).toBeUndefined();
    expect(await service.outbox(userId)).toEqual([]);
  });

  it('still sends by the channels the client and the environment allow (the refusals above are about the channel)', async () => {
    const phone = uniquePhone();
    expect((await service.post(SEND_PATH, sendBody(uniqueEmail('email-only'), 'local-email-only'))).status).toBe(200);
    expect((await service.post(SEND_PATH, sendBody(phone, 'local-no-voice'))).body).toMatchObject({ channel: 'sms' });
    expect((await service.post(`${SEND_PATH}?env_id=novoice`, sendBody(phone, 'local-web'))).body).toMatchObject({ channel: 'sms' });
  });
});

describe('otp/send: the sender', () => {
  it('writes a display name outside printable ASCII as an RFC 2047 encoded word (RFC 5322 §3.4 allows only ASCII there)', async () => {
    const user = uniqueEmail('accented');
    expect((await service.post(`${SEND_PATH}?env_id=accented`, sendBody(user))).status).toBe(200);
    const store = (await (await fetch(`${service.services.sesUrl}/store`)).json()) as {
      emails: Array<{ destination: { to: string[] }; from: string }>;
    };
    const stored = store.emails.find((email) => email.destination.to.includes(user));
    const encoded = Buffer.from(ACCENTED_SENDER, 'utf8').toString('base64');
    expect(stored?.from).toBe(`=?UTF-8?B?${encoded}?= <no-reply@identity.local>`);
  });
});

describe('the token endpoint: refusals that cost the user’s code nothing', () => {
  it('refuses a malformed code or an unregistered redirect URI without a write to the code (2 requests: the attempt and the failure), so the right code still works after 3 of them', async () => {
    const user = uniqueEmail('precheck');
    const code = await sendCode(user);
    const since = capturedLogs().length;
    const malformed = [
      exchangeBody(user, 'abcdef'),
      exchangeBody(user, `${code}0`),
      exchangeBody(user, code, 'local-web', { redirect_uri: `${REDIRECT_URI}/other` }),
    ];
    for (const body of malformed) {
      service.dynamodb.reset();
      const response = await service.post(TOKEN_PATH, body);
      expect(response.body).toEqual(GRANT_REFUSED);
      expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem']);
    }
    expect(refusalReasons(since)).toEqual(['malformed', 'malformed', 'malformed']);
    expect(((await storedSlot(user))?.live as { tries: number }).tries).toBe(0);
    expect((await exchange(user, code)).status).toBe(200);
  });
});

describe('the token endpoint: the response', () => {
  it('carries scope when the client has one (RFC 6749 §5.1), and none otherwise', async () => {
    const scoped = uniqueEmail('scoped');
    const scopedResponse = await exchange(scoped, await sendCode(scoped, {}, 'local-scoped'), {}, 'local-scoped');
    expect(scopedResponse.status).toBe(200);
    // local-web (and so local-scoped) issues refresh tokens (RFC 6749 §6): its response carries one too.
    const issued = { access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, refresh_token: expect.any(String) };
    expect(scopedResponse.body).toEqual({ ...issued, scope: SCOPE });

    const plain = uniqueEmail('unscoped');
    const plainResponse = await exchange(plain, await sendCode(plain));
    expect(plainResponse.body).toEqual(issued);
  });

  it('answers an empty grant_type as a missing one (invalid_request), not as an unsupported grant type (RFC 6749 §5.2)', async () => {
    const withUser = await service.post(TOKEN_PATH, exchangeBody(uniqueEmail('empty-grant'), '123456', 'local-web', { grant_type: '' }));
    expect(withUser.status).toBe(400);
    expect(withUser.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/grant_type/) });

    // Without user_id and a one-time code, the request is the hosted login's grant: the same answer.
    const bare = { client_id: 'local-web', redirect_uri: REDIRECT_URI, code: 'not-a-one-time-code' };
    for (const grantType of ['', undefined]) {
      const response = await service.post(TOKEN_PATH, { ...bare, grant_type: grantType });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_request', error_description: 'grant_type is required.' });
    }
    const other = await service.post(TOKEN_PATH, { ...bare, grant_type: 'password' });
    expect(other.body).toMatchObject({ error: 'unsupported_grant_type' });
  });
});

describe('the token endpoint: which grant a request is', () => {
  it('takes a six-digit code sent as a JSON number, without user_id, as the hosted login’s grant (its code must be a string), not as a one-time code', async () => {
    const body = { grant_type: 'authorization_code', client_id: 'local-web', redirect_uri: REDIRECT_URI, code: 123456 };
    const response = await service.post(TOKEN_PATH, body);
    expect(response.status).toBe(400);
    // A one-time code's exchange would have asked for user_id first.
    expect(response.body).toEqual({ error: 'invalid_request', error_description: 'code must be a string.' });
  });
});

describe('the code’s rules at their exact edges (enforced in the DynamoDB condition), with the logged reason', () => {
  it('expiry: the code works at not_after - 1 ms and is refused at not_after (reason expired)', async () => {
    const inTime = uniqueEmail('edge-in-time');
    const inTimeCode = await sendCode(inTime);
    service.clock.advance(300_000 - 1);
    expect((await exchange(inTime, inTimeCode)).status).toBe(200);

    const late = uniqueEmail('edge-late');
    const lateCode = await sendCode(late);
    service.clock.advance(300_000);
    const since = capturedLogs().length;
    expect((await exchange(late, lateCode)).body).toEqual(GRANT_REFUSED);
    expect(refusalReasons(since)).toEqual(['expired']);
  });

  it('tries: the right code works after max_tries - 1 wrong ones, and not after max_tries (reason exhausted)', async () => {
    const lastTry = uniqueEmail('edge-last-try');
    const lastTryCode = await sendCode(lastTry);
    for (const offset of [1, 2]) expect((await exchange(lastTry, wrong(lastTryCode, offset))).body).toEqual(GRANT_REFUSED);
    expect((await exchange(lastTry, lastTryCode)).status).toBe(200);

    const spent = uniqueEmail('edge-spent');
    const spentCode = await sendCode(spent);
    const since = capturedLogs().length;
    for (const offset of [1, 2, 3]) expect((await exchange(spent, wrong(spentCode, offset))).body).toEqual(GRANT_REFUSED);
    expect((await exchange(spent, spentCode)).body).toEqual(GRANT_REFUSED);
    // The last allowed try is logged apart (the hosted login tells the user the code is now dead).
    expect(refusalReasons(since)).toEqual(['wrong_code', 'wrong_code', 'wrong_code_last_try', 'exhausted']);
  });

  it('single use: the right code a second time is refused (reason repeated)', async () => {
    const user = uniqueEmail('edge-reuse');
    const code = await sendCode(user);
    expect((await exchange(user, code)).status).toBe(200);
    const since = capturedLogs().length;
    expect((await exchange(user, code)).body).toEqual(GRANT_REFUSED);
    expect(refusalReasons(since)).toEqual(['repeated']);
  });

  it('PKCE: the right code with another verifier is refused (reason wrong_verifier), and the matching verifier then works (RFC 7636 §4.6)', async () => {
    const user = uniqueEmail('edge-pkce');
    const verifier = 'v'.repeat(43);
    const code = await sendCode(user, { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' });
    const since = capturedLogs().length;
    expect((await exchange(user, code, { code_verifier: 'w'.repeat(43) })).body).toEqual(GRANT_REFUSED);
    expect(refusalReasons(since)).toEqual(['wrong_verifier']);
    expect((await exchange(user, code, { code_verifier: verifier })).status).toBe(200);
  });
});

describe('the token endpoint: what a refusal says, and what the logs say', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['user_id', { user_id: undefined }, /^user_id is required\.$/],
    ['auth_type', { auth_type: 'fax' }, /auth_type/],
    ['code', { code: undefined }, /^code is required\.$/],
    ['client_id', { client_id: undefined }, /^client_id is required\.$/],
    ['redirect_uri', { redirect_uri: undefined }, /^redirect_uri is required\.$/],
    ['code_verifier (type)', { code_verifier: 7 }, /^code_verifier must be a string\.$/],
    ['code_verifier (RFC 7636 §4.1 syntax)', { code_verifier: 'short' }, /^code_verifier must be 43-128 characters .*RFC 7636/],
  ])('names %s in the description of its invalid_request', async (_name, change, description) => {
    const response = await service.post(TOKEN_PATH, exchangeBody(uniqueEmail('field-named'), '123456', 'local-web', change));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(description) });
  });

  it('logs a refusal and an issuance with the environment, the client and the user’s log handle, and the refusal’s reason as its detail', async () => {
    const user = uniqueEmail('logged-ids');
    const code = await sendCode(user);
    const since = capturedLogs().length;
    expect((await exchange(user, wrong(code))).status).toBe(400);
    expect((await exchange(user, code)).status).toBe(200);
    const logs = capturedLogs().slice(since);
    const ids = { environment: 'local', client: 'local-web', user: expect.any(String) };
    expect(logEntries(logs, 'grant refused')).toEqual([expect.objectContaining({ ...ids, reason: 'wrong_code' })]);
    expect(logEntries(logs, 'request refused')).toEqual([expect.objectContaining({ error: 'invalid_grant', detail: 'wrong_code' })]);
    expect(logEntries(logs, 'token issued')).toEqual([expect.objectContaining(ids)]);
  });
});
