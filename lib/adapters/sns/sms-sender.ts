/**
 * SMS through Amazon SNS `Publish` straight to a phone number (no topic: least privilege, and a
 * one-time code has exactly one recipient). Transactional, so carriers route it for delivery
 * rather than cost.
 */
import { PublishCommand, SNSClient, type MessageAttributeValue, type SNSClientConfig } from '@aws-sdk/client-sns';
import { DeliveryFailedError } from '../../platform/errors';
import { DELIVERY_CLIENT_SETTINGS } from '../../platform/aws';
import { traced } from '../../platform/tracing';
import { RenewableClient } from '../aws-failures';
import type { SmsMessage, SmsSender } from '../../messages/ports';

export class SnsSmsSender implements SmsSender {
  private readonly client: RenewableClient<SNSClient>;

  /** `createClient` is called again for a fresh client after a failure before any answer (see `RenewableClient`). */
  constructor(createClient: () => SNSClient) {
    this.client = new RenewableClient(createClient);
  }

  static create(config: SNSClientConfig = {}): SnsSmsSender {
    return new SnsSmsSender(() => traced(new SNSClient({ ...DELIVERY_CLIENT_SETTINGS, ...config })));
  }

  async sendSms(message: SmsMessage): Promise<void> {
    const string = (value: string): MessageAttributeValue => ({ DataType: 'String', StringValue: value });
    const attributes: Record<string, MessageAttributeValue> = { 'AWS.SNS.SMS.SMSType': string('Transactional') };
    if (message.senderId !== undefined) attributes['AWS.SNS.SMS.SenderID'] = string(message.senderId);
    if (message.originationNumber !== undefined) attributes['AWS.MM.SMS.OriginationNumber'] = string(message.originationNumber);
    try {
      const command = new PublishCommand({ PhoneNumber: message.to, Message: message.text, MessageAttributes: attributes });
      await this.client.use((client) => client.send(command));
    } catch (error) {
      throw new DeliveryFailedError({ detail: `SNS Publish: ${(error as Error).name}`, cause: error });
    }
  }
}
