/**
 * Voice calls through AWS End User Messaging SMS and voice v2 `SendVoiceMessage`, speaking SSML.
 */
import {
  PinpointSMSVoiceV2Client,
  SendVoiceMessageCommand,
  type PinpointSMSVoiceV2ClientConfig,
  type VoiceId,
} from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { DeliveryFailedError } from '../../platform/errors';
import { DELIVERY_CLIENT_SETTINGS } from '../../platform/aws';
import { traced } from '../../platform/tracing';
import { RenewableClient } from '../aws-failures';
import type { VoiceCaller, VoiceMessage } from '../../messages/ports';

export class SmsVoiceV2VoiceCaller implements VoiceCaller {
  private readonly client: RenewableClient<PinpointSMSVoiceV2Client>;

  /** `createClient` is called again for a fresh client after a failure before any answer (see `RenewableClient`). */
  constructor(createClient: () => PinpointSMSVoiceV2Client) {
    this.client = new RenewableClient(createClient);
  }

  static create(config: PinpointSMSVoiceV2ClientConfig = {}): SmsVoiceV2VoiceCaller {
    return new SmsVoiceV2VoiceCaller(() => traced(new PinpointSMSVoiceV2Client({ ...DELIVERY_CLIENT_SETTINGS, ...config })));
  }

  async sendVoiceMessage(message: VoiceMessage): Promise<void> {
    try {
      const command = new SendVoiceMessageCommand({
        DestinationPhoneNumber: message.to,
        OriginationIdentity: message.originationIdentity,
        MessageBody: message.ssml,
        MessageBodyTextType: 'SSML',
        VoiceId: message.voiceId as VoiceId,
        ...(message.configurationSet === undefined ? {} : { ConfigurationSetName: message.configurationSet }),
      });
      // The JSON protocol's serializer keeps no state between requests; the same rule applies
      // anyway, because the adapter cannot know which client-side failures leave state behind.
      await this.client.use((client) => client.send(command));
    } catch (error) {
      throw new DeliveryFailedError({ detail: `SendVoiceMessage: ${(error as Error).name}`, cause: error });
    }
  }
}
