/**
 * What the capture server and its wire-protocol modules agree on: the message a protocol captures,
 * what the server lends a protocol handler for one request, and the refusals every protocol must
 * answer in its own error shape, so that the server itself speaks no protocol's vocabulary.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Channel = 'sms' | 'voice';

/** One SMS or voice message as the capture server received it. */
export interface CapturedMessage {
  channel: Channel;
  /** The recipient, E.164, exactly as the request named it. */
  to: string;
  /** SMS: the message. Voice: the spoken text (for SSML: tags removed, entities decoded). */
  text: string;
  /** Voice sent as SSML: the raw markup. */
  ssml?: string;
  /** SMS: the sender ID or origination number attribute, if any. Voice: OriginationIdentity. */
  sender?: string;
  /** SMS: every message attribute. Voice: VoiceId, MessageBodyTextType, ConfigurationSetName. */
  attributes?: Record<string, string>;
  /** The id returned to the caller, so a test can match a send to its capture. */
  message_id: string;
  /** When the server received the request, ISO 8601 with milliseconds. */
  sent_at: string;
}

/** What the server lends a protocol handler for one request. */
export interface CaptureContext {
  /** True when this recipient is to get a provider-side failure instead of a capture (`failFor`). */
  failFor: (to: string, channel: Channel) => boolean;
  /** Keeps an accepted message in the server's store. */
  capture: (message: CapturedMessage) => void;
  /** Sends a captured message's answer now, or after the recipient's `delayFor`. */
  answerAfter: (to: string, channel: Channel, res: ServerResponse, answer: () => void) => void;
}

/**
 * What the server turns away before any protocol has read the request: a body over the size
 * limit, a request without a SigV4 signature, and a bug in the capture server itself.
 */
export type Refusal = 'too_large' | 'unsigned' | 'internal';

/** One AWS wire protocol the capture server speaks. */
export interface WireProtocol {
  /** Handles a signed request whose body was read in full, answering success or the protocol's error. */
  handle: (req: IncomingMessage, res: ServerResponse, body: string, ctx: CaptureContext) => void;
  /** Answers a refusal in this protocol's error shape, so the SDK parses it as that error. */
  refuse: (res: ServerResponse, refusal: Refusal, message: string) => void;
}

/** E.164: a `+`, a country code that never starts with 0, at most 15 digits in all. Both APIs require it. */
export const E164 = /^\+[1-9]\d{6,14}$/;

/** Writes a whole answer as AWS does: with its length, and an `x-amzn-RequestId` (a fresh one unless given). */
export function writeAnswer(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  requestId: string = randomUUID(),
): void {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'x-amzn-RequestId': requestId,
  });
  res.end(body);
}
