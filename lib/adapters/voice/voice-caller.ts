/**
 * Voice calls through AWS End User Messaging SMS and voice v2 `SendVoiceMessage`, speaking SSML.
 */
import {
  PinpointSMSVoiceV2Client,
  SendVoiceMessageCommand,
  type PinpointSMSVoiceV2ClientConfig,
  type VoiceId,
} from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { DeliveryFailedError } from '../../errors';
import { DELIVERY_CLIENT_SETTINGS } from '../aws';
import type { VoiceCaller, VoiceMessage } from '../../ports';

export class SmsVoiceV2VoiceCaller implements VoiceCaller {
  constructor(private readonly client: PinpointSMSVoiceV2Client) {}

  static create(config: PinpointSMSVoiceV2ClientConfig = {}): SmsVoiceV2VoiceCaller {
    return new SmsVoiceV2VoiceCaller(
      new PinpointSMSVoiceV2Client({ ...DELIVERY_CLIENT_SETTINGS, ...config }),
    );
  }

  async sendVoiceMessage(message: VoiceMessage): Promise<void> {
    try {
      await this.client.send(
        new SendVoiceMessageCommand({
          DestinationPhoneNumber: message.to,
          OriginationIdentity: message.originationIdentity,
          MessageBody: message.ssml,
          MessageBodyTextType: 'SSML',
          VoiceId: message.voiceId as VoiceId,
          ...(message.configurationSet === undefined ? {} : { ConfigurationSetName: message.configurationSet }),
        }),
      );
    } catch (error) {
      throw new DeliveryFailedError({ detail: `SendVoiceMessage: ${(error as Error).name}`, cause: error });
    }
  }
}
