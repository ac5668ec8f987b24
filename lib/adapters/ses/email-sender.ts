/**
 * Email through Amazon SES (`SendEmail`, API v1): one message with a text
 * and an HTML part, UTF-8 throughout.
 */
import { SESClient, SendEmailCommand, type SESClientConfig } from '@aws-sdk/client-ses';
import { DeliveryFailedError } from '../../platform/errors';
import { DELIVERY_CLIENT_SETTINGS } from '../../platform/aws';
import { traced } from '../../platform/tracing';
import { RenewableClient } from '../aws-failures';
import type { EmailMessage, EmailSender } from '../../messages/ports';

export class SesEmailSender implements EmailSender {
  private readonly client: RenewableClient<SESClient>;

  /** `createClient` is called again for a fresh client after a failure before any answer (see `RenewableClient`). */
  constructor(createClient: () => SESClient) {
    this.client = new RenewableClient(createClient);
  }

  static create(config: SESClientConfig = {}): SesEmailSender {
    return new SesEmailSender(() => traced(new SESClient({ ...DELIVERY_CLIENT_SETTINGS, ...config })));
  }

  async sendEmail(message: EmailMessage): Promise<void> {
    const utf8 = (data: string) => ({ Data: data, Charset: 'UTF-8' });
    try {
      const command = new SendEmailCommand({
        Source: message.from,
        Destination: { ToAddresses: [message.to] },
        Message: { Subject: utf8(message.subject), Body: { Text: utf8(message.text), Html: utf8(message.html) } },
        ...(message.configurationSet === undefined ? {} : { ConfigurationSetName: message.configurationSet }),
      });
      await this.client.use((client) => client.send(command));
    } catch (error) {
      throw new DeliveryFailedError({ detail: `SES SendEmail: ${(error as Error).name}`, cause: error });
    }
  }
}
