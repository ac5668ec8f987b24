/**
 * Regression: one send whose text holds a lone surrogate corrupted the next user's send.
 *
 * The AWS Query serializer (SES v1 SendEmail, SNS Publish) throws a URIError part-way through a
 * request and keeps what it had written; the next request on the same client went out with the
 * failed request's fields in front of its own (docs/security.md, "A failed request poisons the
 * SDK client"). Real adapters and real SDK clients against SES local and the capture server; a
 * recording proxy shows each request exactly as it crossed the wire.
 */
import { SesEmailSender } from '../../../lib/adapters/ses/email-sender';
import { SnsSmsSender } from '../../../lib/adapters/sns/sms-sender';
import { DeliveryFailedError } from '../../../lib/platform/errors';
import { startCaptureServer, type CaptureServer } from '../../../local/capture';
import { LOCAL_AWS } from '../../../local/dynamodb';
import { startWireProxy, type WireProxy } from '../../support/fault-servers';
import { requiredEnv, uniqueEmail, uniquePhone } from '../../support/harness';

/** A UTF-16 high surrogate with no low surrogate after it: not Unicode, and `encodeURIComponent` throws on it. */
const LONE_SURROGATE = '\ud800';

describe("a delivery client after its serializer threw (regression: the next request carried the failed one's fields)", () => {
  let proxy: WireProxy | undefined;
  let capture: CaptureServer | undefined;
  afterEach(async () => {
    await proxy?.stop();
    await capture?.close();
  });

  it('SES SendEmail: the next email goes to its own recipient only, with its own text', async () => {
    proxy = await startWireProxy(requiredEnv('TEST_SES_URL'));
    const sender = SesEmailSender.create({ endpoint: proxy.url, ...LOCAL_AWS });
    const attacker = uniqueEmail('attacker');
    const victim = uniqueEmail('victim');
    const email = (to: string, text: string) => ({
      to,
      from: 'no-reply@identity.local',
      subject: 'Your code',
      text,
      html: `<p>${text}</p>`,
    });

    await expect(sender.sendEmail(email(attacker, `attacker text ${LONE_SURROGATE}`))).rejects.toBeInstanceOf(DeliveryFailedError);
    await sender.sendEmail(email(victim, 'victim text'));

    const wire = proxy.requests();
    expect(wire).toHaveLength(1);
    const fields = new URLSearchParams(wire[0]?.body);
    expect(fields.getAll('Destination.ToAddresses.member.1')).toEqual([victim]);
    expect(fields.getAll('Message.Body.Text.Data')).toEqual(['victim text']);
    expect(wire[0]?.body).not.toContain('attacker');
    const stored = await sesEmailsTo(victim);
    expect(stored).toEqual([{ to: [victim], text: 'victim text' }]);
  });

  it('SNS Publish: the next SMS carries its own message only', async () => {
    capture = await startCaptureServer();
    proxy = await startWireProxy(capture.url);
    const sender = SnsSmsSender.create({ endpoint: proxy.url, ...LOCAL_AWS });
    const victim = uniquePhone();

    await expect(sender.sendSms({ to: uniquePhone(), text: `attacker text ${LONE_SURROGATE}` })).rejects.toBeInstanceOf(
      DeliveryFailedError,
    );
    await sender.sendSms({ to: victim, text: 'victim text' });

    const wire = proxy.requests();
    expect(wire).toHaveLength(1);
    const fields = new URLSearchParams(wire[0]?.body);
    expect(fields.getAll('Message')).toEqual(['victim text']);
    expect(fields.getAll('PhoneNumber')).toEqual([victim]);
    expect(capture.messages().map(({ to, text }) => ({ to, text }))).toEqual([{ to: victim, text: 'victim text' }]);
  });
});

async function sesEmailsTo(address: string): Promise<Array<{ to: string[]; text: string }>> {
  const store = (await (await fetch(`${requiredEnv('TEST_SES_URL')}/store`)).json()) as {
    emails: Array<{ destination: { to: string[] }; body: { text: string } }>;
  };
  return store.emails
    .filter((email) => email.destination.to.includes(address))
    .map((email) => ({ to: email.destination.to, text: email.body.text }));
}
