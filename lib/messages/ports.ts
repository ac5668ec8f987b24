/** Delivery's ports: email (SES), SMS (SNS) and voice calls (lib/adapters/{ses,sns,voice}/). */

export interface EmailMessage {
  readonly to: string;
  /** RFC 5322 mailbox, e.g. `"Acme" <no-reply@acme.example>`. */
  readonly from: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly configurationSet?: string | undefined;
}

export interface SmsMessage {
  readonly to: string;
  readonly text: string;
  readonly senderId?: string | undefined;
  readonly originationNumber?: string | undefined;
}

export interface VoiceMessage {
  readonly to: string;
  readonly ssml: string;
  /** Amazon Polly voice; it implies the language (SendVoiceMessage has no language field). */
  readonly voiceId: string;
  readonly originationIdentity: string;
  readonly configurationSet?: string | undefined;
}

/** Each throws `DeliveryFailedError` when the provider refuses or cannot be reached. */
export interface EmailSender {
  sendEmail(message: EmailMessage): Promise<void>;
}
export interface SmsSender {
  sendSms(message: SmsMessage): Promise<void>;
}
export interface VoiceCaller {
  sendVoiceMessage(message: VoiceMessage): Promise<void>;
}
