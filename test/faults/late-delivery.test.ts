/**
 * Regression: a provider that hangs must not leave an undelivered-then-delivered code live.
 *
 * A send whose delivery times out answers 502; from then on exactly the code the user held
 * before works, whatever the provider does afterwards, including delivering the new code late.
 * Each provider here takes the message and answers only after its client's request timeout:
 * SES through a proxy that forwards the email to SES local only after the send has failed, SNS
 * and SMS-voice through the capture server, which captures at once and answers late.
 * (docs/security.md, "A late delivery after a 502".)
 */
import { DELIVERY_CLIENT_SETTINGS } from '../../lib/platform/aws';
import { startWireProxy } from '../support/fault-servers';
import { requiredEnv, type TestService, type TestServiceOptions } from '../support/harness';
import { exchange, recipientFor, SEND, sendBody, sendCode, shared, startStack, type Channel } from './scenario';

const LATE_MS = DELIVERY_CLIENT_SETTINGS.requestHandler.requestTimeout + 1000;

const stack = shared(startStack);
afterAll(async () => (await stack()).stop());

interface LateProvider {
  readonly channel: Channel;
  /** The container's options, and what to stop afterwards. */
  start(): Promise<{ options: TestServiceOptions; stop(): Promise<void> }>;
}

const PROVIDERS: ReadonlyArray<[string, LateProvider]> = [
  [
    'SES delivers the email after the send has answered 502',
    {
      channel: 'email',
      start: async () => {
        const proxy = await startWireProxy(requiredEnv('TEST_SES_URL'), { forwardAfterMs: LATE_MS });
        return { options: { sesUrl: proxy.url }, stop: () => proxy.stop() };
      },
    },
  ],
  [
    'SNS takes the SMS and answers after the timeout',
    { channel: 'sms', start: () => Promise.resolve({ options: { capture: { delayFor: () => LATE_MS } }, stop: () => Promise.resolve() }) },
  ],
  [
    'SMS-voice takes the call and answers after the timeout',
    {
      channel: 'voice',
      start: () => Promise.resolve({ options: { capture: { delayFor: () => LATE_MS } }, stop: () => Promise.resolve() }),
    },
  ],
];

describe('a send that answers 502 leaves exactly the previous code usable (regression: a hung provider left the new code live)', () => {
  it.concurrent.each(PROVIDERS)('%s: the late code is refused, the previous one still works', async (_, provider) => {
    const { healthy } = await stack();
    const user = recipientFor(provider.channel);
    const held = await sendCode(healthy, provider.channel, user);
    const late = await provider.start();
    const service = await (await stack()).container(late.options);
    try {
      const before = await messagesTo(service, user);

      const response = await service.post(SEND, sendBody(provider.channel, user));
      expect(response.status).toBe(502);
      expect(response.body).toEqual({ error: 'delivery_failed', error_description: expect.any(String) });

      // The provider delivers after all: the user now has a new code in hand.
      const delivered = await eventually(async () => (await messagesTo(service, user)) > before);
      expect(delivered).toBe(true);
      const lateCode = await service.latestCode(user);
      expect(lateCode).not.toBe(held);

      expect((await exchange(healthy, user, lateCode)).body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
      const exchanged = await exchange(healthy, user, held);
      expect(exchanged.status).toBe(200);
      expect(exchanged.body).toMatchObject({ token_type: 'Bearer' });
    } finally {
      await late.stop();
    }
  });
});

/** Messages the outbox shows for `user` (emails are in the shared SES local, SMS and calls in this container's capture). */
async function messagesTo(service: TestService, user: string): Promise<number> {
  return (await service.outbox(user)).length;
}

/** Polls `check` every 100 ms for up to twice the late delay; true once it holds. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + 2 * LATE_MS;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}
