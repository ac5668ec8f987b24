/** The delivery adapters, for the functions that send codes: otp-send and authorize (the hosted page). */
import { clientConfig, type AwsClientOptions } from '../platform/aws';
import { SesEmailSender } from '../adapters/ses/email-sender';
import { SnsSmsSender } from '../adapters/sns/sms-sender';
import { SmsVoiceV2VoiceCaller } from '../adapters/voice/voice-caller';

export function deliveryAdapters(clients: { ses: AwsClientOptions; sns: AwsClientOptions; smsVoice: AwsClientOptions }) {
  return {
    email: SesEmailSender.create(clientConfig(clients.ses)),
    sms: SnsSmsSender.create(clientConfig(clients.sns)),
    voice: SmsVoiceV2VoiceCaller.create(clientConfig(clients.smsVoice)),
  };
}
