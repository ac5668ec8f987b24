/**
 * Email through Amazon SES (`SendEmail`, API v1 as the issue names it): one message with a text
 * and an HTML part, UTF-8 throughout.
 */
import { SESClient, SendEmailCommand, type SESClientConfig } from '@aws-sdk/client-ses';
import { DeliveryFailedError } from '../../errors';
import { DELIVERY_CLIENT_SETTINGS } from '../aws';
import type { EmailMessage, EmailSender } from '../../ports';

export class SesEmailSender implements EmailSender {
  constructor(private readonly client: SESClient) {}

  static create(config: SESClientConfig = {}): SesEmailSender {
    return new SesEmailSender(new SESClient({ ...DELIVERY_CLIENT_SETTINGS, ...config }));
  }

  async sendEmail(message: EmailMessage): Promise<void> {
    const utf8 = (data: string) => ({ Data: data, Charset: 'UTF-8' });
    try {
      await this.client.send(
        new SendEmailCommand({
          Source: message.from,
          Destination: { ToAddresses: [message.to] },
          Message: { Subject: utf8(message.subject), Body: { Text: utf8(message.text), Html: utf8(message.html) } },
          ...(message.configurationSet === undefined ? {} : { ConfigurationSetName: message.configurationSet }),
        }),
      );
    } catch (error) {
      throw new DeliveryFailedError({ detail: `SES SendEmail: ${(error as Error).name}`, cause: error });
    }
  }
}
