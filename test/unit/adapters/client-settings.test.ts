/**
 * Every AWS client's timeouts are enforced, and the worst case of the longest requests fits the
 * API functions' timeout (the arithmetic in lib/platform/aws.ts). test/faults/ measures the same
 * bounds against servers that refuse, hang and answer late.
 */
import { type DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SESClient } from '@aws-sdk/client-ses';
import { SNSClient } from '@aws-sdk/client-sns';
import {
  callBudgetMs,
  DELIVERY_CLIENT_SETTINGS,
  DYNAMODB_CLIENT_SETTINGS,
  FINISH_SEND_BUDGET_MS,
  SECRETS_MANAGER_CLIENT_SETTINGS,
  type ClientLimits,
} from '../../../lib/platform/aws';
import { createDynamoDbClient } from '../../../lib/adapters/dynamodb/client';
import { deliveryAdapters } from '../../../lib/deps/delivery';
import { TIMEOUT_MARGIN_MS } from '../../../lib/platform/http/handler';
import { API_TIMEOUT, ROTATION_TIMEOUT } from '../../../infra/functions';

const CLIENTS: Array<[string, ClientLimits]> = [
  ['DynamoDB', DYNAMODB_CLIENT_SETTINGS],
  ['Secrets Manager', SECRETS_MANAGER_CLIENT_SETTINGS],
  ['delivery (SES, SNS, SMS-voice)', DELIVERY_CLIENT_SETTINGS],
];

describe('AWS client settings', () => {
  // Regression: @smithy/node-http-handler 4.x only logs a breached requestTimeout unless
  // throwOnRequestTimeout is set, so a DynamoDB that never answered held the request until the
  // Lambda timed out.
  it.each(CLIENTS)('%s: a breached request timeout fails the request (throwOnRequestTimeout), and every timeout is set', (_, settings) => {
    expect(settings.requestHandler).toEqual({
      connectionTimeout: expect.any(Number),
      requestTimeout: expect.any(Number),
      socketTimeout: settings.requestHandler.requestTimeout,
      throwOnRequestTimeout: true,
    });
    expect(settings.requestHandler.connectionTimeout).toBeGreaterThan(0);
    expect(settings.requestHandler.connectionTimeout).toBeLessThan(settings.requestHandler.requestTimeout);
  });

  it('one call lasts at most: DynamoDB 3.5 s, Secrets Manager 4 s, delivery 4 s (attempts × both timeouts + backoff)', () => {
    expect(callBudgetMs(DYNAMODB_CLIENT_SETTINGS)).toBe(3500);
    expect(callBudgetMs(SECRETS_MANAGER_CLIENT_SETTINGS)).toBe(4000);
    expect(callBudgetMs(DELIVERY_CLIENT_SETTINGS)).toBe(4000);
  });

  it('does not retry a delivery: once sent, a timeout cannot tell whether the provider accepted it', () => {
    expect(DELIVERY_CLIENT_SETTINGS.maxAttempts).toBe(1);
  });

  it('the end of a send (store, deliver, restore after a failed delivery) fits the API function timeout with its margin: 2 writes + 1 delivery', () => {
    expect(FINISH_SEND_BUDGET_MS).toBe(2 * callBudgetMs(DYNAMODB_CLIENT_SETTINGS) + callBudgetMs(DELIVERY_CLIENT_SETTINGS));
    expect(FINISH_SEND_BUDGET_MS).toBe(11_000);
    expect(FINISH_SEND_BUDGET_MS + TIMEOUT_MARGIN_MS).toBeLessThan(API_TIMEOUT.toMilliseconds());
  });

  it('an email send on a cold container always has the time to finish: 1 secret + the attempt leave the end of a send its 11 s', () => {
    const beforeStoring = callBudgetMs(SECRETS_MANAGER_CLIENT_SETTINGS) + callBudgetMs(DYNAMODB_CLIENT_SETTINGS);
    expect(beforeStoring + FINISH_SEND_BUDGET_MS + TIMEOUT_MARGIN_MS).toBeLessThanOrEqual(API_TIMEOUT.toMilliseconds());
  });

  it('an SMS send may not (regression: the fraud guards’ writes took the worst case to 29 s): hence the deadline before storing a code', () => {
    // The attempt and the two windows, and a budget lease unless the container's lease pays.
    for (const writes of [3, 4]) {
      const beforeStoring = callBudgetMs(SECRETS_MANAGER_CLIENT_SETTINGS) + writes * callBudgetMs(DYNAMODB_CLIENT_SETTINGS);
      expect(beforeStoring + FINISH_SEND_BUDGET_MS).toBeGreaterThan(API_TIMEOUT.toMilliseconds());
    }
  });

  it('the longest token exchange fits too: 2 secrets + 2 writes, or 1 secret + 3 writes', () => {
    const secret = callBudgetMs(SECRETS_MANAGER_CLIENT_SETTINGS);
    const write = callBudgetMs(DYNAMODB_CLIENT_SETTINGS);
    expect(Math.max(2 * secret + 2 * write, secret + 3 * write)).toBeLessThan(API_TIMEOUT.toMilliseconds());
  });

  it('a token exchange that answers 503 abandons its presentation in time: 1 secret + the attempt, the guess and the abandon', () => {
    const secret = callBudgetMs(SECRETS_MANAGER_CLIENT_SETTINGS);
    const write = callBudgetMs(DYNAMODB_CLIENT_SETTINGS);
    expect(secret + 3 * write + TIMEOUT_MARGIN_MS).toBeLessThan(API_TIMEOUT.toMilliseconds());
  });

  it('a send whose save fails cancels it and puts the held code back within the end of a send’s budget', () => {
    // The save, the cancel, the restore: the delivery never starts.
    expect(3 * callBudgetMs(DYNAMODB_CLIENT_SETTINGS)).toBeLessThanOrEqual(FINISH_SEND_BUDGET_MS);
  });

  it('the longest rotation step fits the rotation function timeout: 4 Secrets Manager calls', () => {
    expect(4 * callBudgetMs(SECRETS_MANAGER_CLIENT_SETTINGS)).toBeLessThan(ROTATION_TIMEOUT.toMilliseconds());
  });

  it('API Gateway (29 s) outlasts the function, so a timed-out function is logged rather than hidden', () => {
    expect(API_TIMEOUT.toMilliseconds()).toBeLessThan(29_000);
  });
});

describe('the DynamoDB client the functions make', () => {
  /** The handler settings `client` sends with (resolved by its first request, here to a closed port). */
  async function handlerSettingsOf(client: DynamoDBClient): Promise<Record<string, unknown>> {
    await expect(client.send(new ListTablesCommand({}))).rejects.toThrow();
    client.destroy();
    return (client.config.requestHandler as { httpHandlerConfigs(): Record<string, unknown> }).httpHandlerConfigs();
  }
  const options = { endpoint: 'http://127.0.0.1:1', region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };

  it('has DYNAMODB_CLIENT_SETTINGS’s timeouts and attempts', async () => {
    const client = createDynamoDbClient(options);
    expect(await client.config.maxAttempts()).toBe(DYNAMODB_CLIENT_SETTINGS.maxAttempts);
    expect(await handlerSettingsOf(client)).toMatchObject(DYNAMODB_CLIENT_SETTINGS.requestHandler);
  });

  it('takes a test’s longer request timeout (DynamoDB Local on a busy machine) and keeps the rest', async () => {
    expect(await handlerSettingsOf(createDynamoDbClient(options, 5_000))).toMatchObject({
      ...DYNAMODB_CLIENT_SETTINGS.requestHandler,
      requestTimeout: 5_000,
      socketTimeout: 5_000,
    });
  });
});

/** An SDK client as these tests read it back: its resolved attempts and its request handler's settings. */
interface SdkClient {
  readonly config: { maxAttempts(): Promise<number>; readonly requestHandler: unknown };
  readonly send: (...args: unknown[]) => Promise<unknown>;
}

/**
 * The handler settings `client` sends with (resolved by its first request). Read from the client
 * the adapter built, not from the settings it was given: a factory that dropped or overrode them
 * would build a client without them and still pass the settings tests above.
 */
function handlerSettingsOf(client: SdkClient): Record<string, unknown> {
  return (client.config.requestHandler as { httpHandlerConfigs(): Record<string, unknown> }).httpHandlerConfigs();
}

describe('the delivery clients the functions make (regression guard: an adapter that built its client without the settings passed every test)', () => {
  // Port 1 refuses at once: each send fails before any answer, so its adapter also builds a fresh client.
  const closed = { endpoint: 'http://127.0.0.1:1', region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
  const adapters = deliveryAdapters({ ses: closed, sns: closed, smsVoice: closed });
  const senders: Array<[string, object, () => Promise<void>]> = [
    [
      'SES',
      SESClient.prototype,
      () => adapters.email.sendEmail({ to: 'a@example.com', from: 'no-reply@example.com', subject: 'Code', text: 'x', html: 'x' }),
    ],
    ['SNS', SNSClient.prototype, () => adapters.sms.sendSms({ to: '+14155550123', text: 'x' })],
    [
      'SMS-voice',
      PinpointSMSVoiceV2Client.prototype,
      () =>
        adapters.voice.sendVoiceMessage({
          to: '+14155550123',
          ssml: '<speak>x</speak>',
          voiceId: 'JOANNA',
          originationIdentity: '+12025550100',
        }),
    ],
  ];

  afterEach(() => jest.restoreAllMocks());

  /** Every client of `prototype`'s class that sends, in order (the call goes through unchanged). */
  function clientsSending(prototype: object): SdkClient[] {
    const clients: SdkClient[] = [];
    const target = prototype as SdkClient;
    const send = target.send;
    jest.spyOn(target, 'send').mockImplementation(function (this: SdkClient, ...args: unknown[]) {
      clients.push(this);
      return send.apply(this, args);
    });
    return clients;
  }

  it.each(senders)(
    '%s: the delivery timeouts, a request timeout that fails the request, one attempt; the fresh client after a failure too',
    async (_name, prototype, sendOne) => {
      const clients = clientsSending(prototype);

      const failures = [await sendOne().catch((error: unknown) => error), await sendOne().catch((error: unknown) => error)];

      // One attempt each: a refused connection is retryable, so a second attempt would show here.
      expect(failures.map((failure) => ({ name: (failure as Error).name, attempts: attemptsOf(failure) }))).toEqual([
        { name: 'DeliveryFailedError', attempts: 1 },
        { name: 'DeliveryFailedError', attempts: 1 },
      ]);
      expect(clients).toHaveLength(2);
      expect(clients[1]).not.toBe(clients[0]);
      for (const client of clients) {
        expect(await client.config.maxAttempts()).toBe(1);
        expect(handlerSettingsOf(client)).toMatchObject({ ...DELIVERY_CLIENT_SETTINGS.requestHandler, throwOnRequestTimeout: true });
      }
    },
  );
});

/** The attempts the SDK made for the call a DeliveryFailedError wraps. */
function attemptsOf(failure: unknown): number | undefined {
  return ((failure as { cause?: { $metadata?: { attempts?: number } } }).cause?.$metadata ?? {}).attempts;
}
