/**
 * The order and the refusals of the SMS fraud guards, over fake counters: which counter each
 * send takes, what each refusal answers and logs, and that nothing after a refusal is touched.
 * The counters themselves are tested on DynamoDB Local (test/integration/dynamodb/send-guards.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { parseStageConfig, type EnvironmentConfig } from '../../../lib/platform/config';
import { guardPhoneSend, type PhoneSend } from '../../../lib/guards/phone-guards';
import { deriveHmacKeys, guardKeyOf } from '../../../lib/keys/hmac-keys';
import { DestinationNotAllowedError, TemporarilyUnavailableError, TooManyRequestsError } from '../../../lib/platform/errors';
import { LOG_EVENTS } from '../../../lib/platform/log-events';
import type { Log } from '../../../lib/platform/ports';
import type { BudgetDecision, KnownNumberKey, KnownNumbers, SendGuards, SendWindowKey, WindowDecision } from '../../../lib/guards/ports';

const KEYS = deriveHmacKeys(randomBytes(32));
const NOW = Date.UTC(2026, 10, 22, 18, 30);
const PHONE = '+14155552671';
const USER_KEY = 'user-key-of-the-number';

function environment(adjust: Record<string, unknown> = {}): EnvironmentConfig {
  return parseStageConfig({
    defaultEnvironment: 'dev',
    environments: [
      { id: 'dev', serviceName: 'Example', email: { sender: 'no-reply@example.test' }, sms: { allowedCountries: ['US'] }, ...adjust },
    ],
    clients: [
      { id: 'web', environments: ['dev'], redirectUris: ['https://app.example.test/cb'], accessToken: { format: 'jwt', audience: 'api' } },
    ],
  }).environments[0]!;
}

/** Counters that answer as told and remember what they were asked, in order. */
class FakeGuards implements SendGuards {
  readonly calls: string[] = [];
  readonly windowKeys: SendWindowKey[] = [];
  constructor(
    private readonly answers: {
      ip?: WindowDecision;
      email_ip?: WindowDecision;
      prefix?: WindowDecision;
      budget?: BudgetDecision;
      knownSpent?: boolean;
      /** Whether the number is known and its allowance has room. */
      known?: boolean;
    } = {},
  ) {}
  readonly knownCalls: Array<{ key: KnownNumberKey; allowance: { maxSends: number; windowMs: number }; now: number }> = [];
  /** The known numbers' records, answering as told too (one fake, so `calls` orders every counter). */
  readonly knownNumbers: KnownNumbers = {
    remember: () => Promise.reject(new Error('a send never remembers a number')),
    spendKnown: (key, allowance, now) => {
      this.calls.push('known');
      this.knownCalls.push({ key, allowance, now });
      return Promise.resolve(this.answers.known ?? false);
    },
  };
  countSend(key: SendWindowKey): Promise<WindowDecision> {
    this.calls.push(key.guard);
    this.windowKeys.push(key);
    return Promise.resolve(this.answers[key.guard] ?? { allowed: true });
  }
  spendBudget(): Promise<BudgetDecision> {
    this.calls.push('budget');
    return Promise.resolve(this.answers.budget ?? { allowed: true, sentInShard: 200, shardCap: 250 });
  }
  budgetKnownSpent(): boolean {
    return this.answers.knownSpent ?? false;
  }
}

class CapturingLog implements Log {
  readonly entries: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
  debug = (message: string, ...extra: Record<string, unknown>[]) => this.push('debug', message, extra);
  info = (message: string, ...extra: Record<string, unknown>[]) => this.push('info', message, extra);
  warn = (message: string, ...extra: Record<string, unknown>[]) => this.push('warn', message, extra);
  error = (message: string, ...extra: Record<string, unknown>[]) => this.push('error', message, extra);
  private push(level: string, message: string, extra: Record<string, unknown>[]): void {
    this.entries.push({ level, message, fields: Object.assign({}, ...extra) as Record<string, unknown> });
  }
}

function send(overrides: Partial<PhoneSend> = {}): PhoneSend {
  return {
    environment: environment(),
    channel: 'sms',
    phone: PHONE,
    userKey: USER_KEY,
    sourceIp: '192.0.2.1',
    serverSide: false,
    keys: KEYS,
    now: NOW,
    ...overrides,
  };
}

async function outcome(guards: FakeGuards, request: PhoneSend = send()) {
  const log = new CapturingLog();
  let error: unknown;
  try {
    await guardPhoneSend({ guards, knownNumbers: guards.knownNumbers, log }, request);
  } catch (caught) {
    error = caught;
  }
  return { error, log: log.entries, calls: guards.calls };
}

describe('an allowed send', () => {
  it('takes the source, the prefix and the budget, in that order, and logs the budget’s fill', async () => {
    const guards = new FakeGuards();
    const result = await outcome(guards);

    expect(result.error).toBeUndefined();
    expect(result.calls).toEqual(['ip', 'known', 'prefix', 'budget']);
    expect(guards.windowKeys).toEqual([
      { guard: 'ip', environmentId: 'dev', subjectKey: guardKeyOf(KEYS, 'ip', '192.0.2.1') },
      { guard: 'prefix', environmentId: 'dev', subjectKey: guardKeyOf(KEYS, 'prefix', '+1415555') },
    ]);
    expect(result.log).toEqual([
      {
        level: 'info',
        message: LOG_EVENTS.phoneBudgetSpent,
        fields: { environment: 'dev', channel: 'sms', country: 'US', usedPercent: 80 },
      },
    ]);
  });

  it('counts an IPv6 source by its /64, and the prefix by the configured digits', async () => {
    const guards = new FakeGuards();
    await outcome(guards, send({ sourceIp: '2001:db8:1:2::9', environment: environment({ limits: { sendPerPrefix: { digits: 3 } } }) }));
    expect(guards.windowKeys.map((key) => key.subjectKey)).toEqual([
      guardKeyOf(KEYS, 'ip', '2001:db8:1:2::/64'),
      guardKeyOf(KEYS, 'prefix', '+1415'),
    ]);
  });

  it('does not count a client with an API key per source: its sends come from its own servers', async () => {
    const result = await outcome(new FakeGuards({ ip: { allowed: false, retryAfterSeconds: 9 } }), send({ serverSide: true }));
    expect(result.error).toBeUndefined();
    expect(result.calls).toEqual(['known', 'prefix', 'budget']);
  });

  it('guards voice calls as SMS', async () => {
    const result = await outcome(new FakeGuards(), send({ channel: 'voice' }));
    expect(result.calls).toEqual(['ip', 'known', 'prefix', 'budget']);
    expect(result.log[0]?.fields.channel).toBe('voice');
  });
});

describe('each refusal stops the send before the next counter', () => {
  it('a destination outside the allowed countries: 403 destination_not_allowed, no counter', async () => {
    const result = await outcome(new FakeGuards(), send({ phone: '+447624123456' }));
    expect(result.error).toBeInstanceOf(DestinationNotAllowedError);
    expect(result.error).toMatchObject({ statusCode: 403, error: 'destination_not_allowed', detail: 'destination country' });
    expect(result.calls).toEqual([]);
    expect(result.log).toEqual([
      {
        level: 'warn',
        message: LOG_EVENTS.phoneSendRefused,
        fields: { environment: 'dev', channel: 'sms', guard: 'destination', country: 'IM', reason: 'country' },
      },
    ]);
  });

  it('a number that is never a person’s, even where its country is allowed: 403, reason number_type', async () => {
    const result = await outcome(new FakeGuards(), send({ phone: '+19005550123' }));
    expect(result.error).toMatchObject({ statusCode: 403, detail: 'destination number_type' });
    expect(result.log[0]?.fields).toEqual({
      environment: 'dev',
      channel: 'sms',
      guard: 'destination',
      country: 'US',
      reason: 'number_type',
      numberType: 'PREMIUM_RATE',
    });
    expect(result.calls).toEqual([]);
  });

  it('regression: a personal number in an allowed country (UK +44 70, revenue-share fraud): 403 with the kind logged, no counter', async () => {
    const result = await outcome(
      new FakeGuards(),
      send({ phone: '+447012345678', environment: environment({ sms: { allowedCountries: ['GB'] } }) }),
    );
    expect(result.error).toBeInstanceOf(DestinationNotAllowedError);
    expect(result.error).toMatchObject({ statusCode: 403, error: 'destination_not_allowed', detail: 'destination number_type' });
    expect(result.calls).toEqual([]);
    expect(result.log).toEqual([
      {
        level: 'warn',
        message: LOG_EVENTS.phoneSendRefused,
        fields: {
          environment: 'dev',
          channel: 'sms',
          guard: 'destination',
          country: 'GB',
          reason: 'number_type',
          numberType: 'PERSONAL_NUMBER',
        },
      },
    ]);
  });

  it('a VoIP number likewise, by voice too', async () => {
    const result = await outcome(
      new FakeGuards(),
      send({ channel: 'voice', phone: '+445612345678', environment: environment({ sms: { allowedCountries: ['GB'] } }) }),
    );
    expect(result.error).toMatchObject({ statusCode: 403, detail: 'destination number_type' });
    expect(result.log[0]?.fields).toEqual({
      environment: 'dev',
      channel: 'voice',
      guard: 'destination',
      country: 'GB',
      reason: 'number_type',
      numberType: 'VOIP',
    });
    expect(result.calls).toEqual([]);
  });

  it('personal and VoIP numbers pass to the counters where the environment empties sms.refusedNumberTypes', async () => {
    const permissive = environment({ sms: { allowedCountries: ['GB'], refusedNumberTypes: [] } });
    for (const phone of ['+447012345678', '+445612345678']) {
      const result = await outcome(new FakeGuards(), send({ phone, environment: permissive }));
      expect(result.error).toBeUndefined();
      expect(result.calls).toEqual(['ip', 'known', 'prefix', 'budget']);
    }
  });

  it('a non-geographic number: its country is 001, libphonenumber’s name for none', async () => {
    const result = await outcome(new FakeGuards(), send({ phone: '+883510012345' }));
    expect(result.log[0]?.fields).toMatchObject({ guard: 'destination', country: '001', reason: 'number_type' });
  });

  it('the source over its window: 429 with the window’s Retry-After, and neither prefix nor budget taken', async () => {
    const result = await outcome(new FakeGuards({ ip: { allowed: false, retryAfterSeconds: 1234 } }));
    expect(result.error).toBeInstanceOf(TooManyRequestsError);
    expect((result.error as TooManyRequestsError).headers).toEqual({ 'Retry-After': '1234' });
    // The page words a guard's refusal apart from the attempt limit; the logs say which guard.
    expect(result.error).toMatchObject({ limit: 'phone_sends', detail: 'per source IP' });
    expect(result.calls).toEqual(['ip']);
    expect(result.log).toEqual([
      {
        level: 'warn',
        message: LOG_EVENTS.phoneSendRefused,
        fields: {
          environment: 'dev',
          channel: 'sms',
          guard: 'ip',
          country: 'US',
          source: guardKeyOf(KEYS, 'ip', '192.0.2.1').slice(0, 12),
        },
      },
    ]);
  });

  it('the prefix over its window: 429, the budget not taken, the block logged by handle and coarse range only', async () => {
    const result = await outcome(new FakeGuards({ prefix: { allowed: false, retryAfterSeconds: 77 } }));
    expect((result.error as TooManyRequestsError).headers).toEqual({ 'Retry-After': '77' });
    expect(result.error).toMatchObject({ limit: 'phone_sends', detail: 'per destination prefix' });
    expect(result.calls).toEqual(['ip', 'known', 'prefix']);
    expect(result.log[0]?.fields).toEqual({
      environment: 'dev',
      channel: 'sms',
      guard: 'prefix',
      country: 'US',
      prefix: guardKeyOf(KEYS, 'prefix', '+1415555').slice(0, 12),
      range: '+1 415',
    });
  });

  it('the day’s budget spent: 503 with Retry-After until the next UTC day, saying email still works', async () => {
    const result = await outcome(new FakeGuards({ budget: { allowed: false } }));
    expect(result.error).toBeInstanceOf(TemporarilyUnavailableError);
    expect(result.error).toMatchObject({
      statusCode: 503,
      error: 'temporarily_unavailable',
      headers: { 'Retry-After': String(5.5 * 3600) },
      description: 'Codes by SMS and voice call are unavailable until the next UTC day. Codes by email still work.',
      detail: 'daily SMS and voice budget spent',
    });
    expect(result.calls).toEqual(['ip', 'known', 'prefix', 'budget']);
    expect(result.log[0]?.fields).toEqual({ environment: 'dev', channel: 'sms', guard: 'budget', country: 'US' });
  });

  it('a budget this container knows is spent: 503 before the prefix and the budget (the number is not known)', async () => {
    const result = await outcome(new FakeGuards({ knownSpent: true }));
    expect(result.error).toMatchObject({ statusCode: 503, headers: { 'Retry-After': String(5.5 * 3600) } });
    expect(result.calls).toEqual(['ip', 'known']);
    expect(result.log.map((entry) => entry.fields.guard)).toEqual(['budget']);
  });

  it('logs neither the number nor the source address, nor the block', async () => {
    const results = await Promise.all([
      outcome(new FakeGuards({ ip: { allowed: false, retryAfterSeconds: 1 } })),
      outcome(new FakeGuards({ prefix: { allowed: false, retryAfterSeconds: 1 } })),
      outcome(new FakeGuards({ budget: { allowed: false } })),
      outcome(new FakeGuards()),
    ]);
    const logged = JSON.stringify(results.map((result) => result.log));
    for (const secret of [PHONE, '4155552671', '192.0.2.1', '1415555']) expect(logged).not.toContain(secret);
  });
});

describe('a known number (docs/decisions/012-known-numbers.md)', () => {
  it('passes on its own allowance after the source’s window: neither the prefix nor the budget is taken, and it is logged as known', async () => {
    const guards = new FakeGuards({ known: true, prefix: { allowed: false, retryAfterSeconds: 9 }, budget: { allowed: false } });
    const result = await outcome(guards);
    expect(result.error).toBeUndefined();
    expect(result.calls).toEqual(['ip', 'known']);
    expect(guards.knownCalls).toEqual([
      { key: { environmentId: 'dev', userKey: USER_KEY }, allowance: { maxSends: 5, windowMs: 86_400_000 }, now: NOW },
    ]);
    expect(result.log).toEqual([
      { level: 'info', message: LOG_EVENTS.phoneSendKnown, fields: { environment: 'dev', channel: 'sms', country: 'US' } },
    ]);
  });

  it('passes even when this container knows the day’s budget is spent: the budget stops numbers never seen before only', async () => {
    const result = await outcome(new FakeGuards({ known: true, knownSpent: true }));
    expect(result.error).toBeUndefined();
    expect(result.calls).toEqual(['ip', 'known']);
  });

  it('is still refused by the destination and the source’s window, before its allowance is spent', async () => {
    const byDestination = await outcome(new FakeGuards({ known: true }), send({ phone: '+447624123456' }));
    expect(byDestination.error).toBeInstanceOf(DestinationNotAllowedError);
    expect(byDestination.calls).toEqual([]);
    const bySource = await outcome(new FakeGuards({ known: true, ip: { allowed: false, retryAfterSeconds: 9 } }));
    expect(bySource.error).toMatchObject({ statusCode: 429 });
    expect(bySource.calls).toEqual(['ip']);
  });

  it('takes the environment’s allowance, and asks nothing where known numbers are off (rememberDays: 0)', async () => {
    const guards = new FakeGuards({ known: true });
    await outcome(guards, send({ environment: environment({ limits: { knownNumbers: { maxSendsPerDay: 2 } } }) }));
    expect(guards.knownCalls.map((call) => call.allowance)).toEqual([{ maxSends: 2, windowMs: 86_400_000 }]);
    const off = await outcome(
      new FakeGuards({ known: true }),
      send({ environment: environment({ limits: { knownNumbers: { rememberDays: 0 } } }) }),
    );
    expect(off.calls).toEqual(['ip', 'prefix', 'budget']);
  });
});
