/**
 * Amazon SNS `Publish` to a phone number, over the AWS Query protocol: a form-encoded POST
 * answered with XML, errors as `<ErrorResponse>` (which the SDK turns into the error class named
 * by `<Code>`). Only the Publish production code makes is accepted; any other action, or a
 * Publish production code never makes, is refused with the error SNS would give, so a wrong call
 * in the SMS adapter fails loudly here instead of passing locally and failing in AWS.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { escapeXml } from '../../lib/messages/markup';
import { E164, writeAnswer, type CaptureContext, type Refusal, type WireProtocol } from './protocol';

const SNS_VERSION = '2010-03-31';
const SNS_XMLNS = `https://sns.amazonaws.com/doc/${SNS_VERSION}/`;
/** Attributes SNS reads as the SMS sender, in the order it prefers them. */
const SMS_SENDER_ATTRIBUTES = ['AWS.SNS.SMS.SenderID', 'AWS.MM.SMS.OriginationNumber'];

/** The Query errors SNS answers for the server's refusals. */
const REFUSALS: Record<Refusal, { status: number; type: 'Sender' | 'Receiver'; code: string }> = {
  too_large: { status: 413, type: 'Sender', code: 'RequestEntityTooLarge' },
  unsigned: { status: 403, type: 'Sender', code: 'MissingAuthenticationToken' },
  internal: { status: 500, type: 'Receiver', code: 'InternalError' },
};

export const snsQuery: WireProtocol = {
  handle: (_req, res, body, ctx) => handlePublish(res, body, ctx),
  refuse: (res, refusal, message) => {
    const { status, type, code } = REFUSALS[refusal];
    sendQueryError(res, status, type, code, message);
  },
};

function handlePublish(res: ServerResponse, body: string, ctx: CaptureContext): void {
  const form = new URLSearchParams(body);
  const action = form.get('Action');
  if (action !== 'Publish') {
    return sendQueryError(
      res,
      400,
      'Sender',
      'InvalidAction',
      `Could not find operation ${action ?? '(none)'} for version ${SNS_VERSION}; the capture server implements only Publish`,
    );
  }
  const invalid = (message: string): void => sendQueryError(res, 400, 'Sender', 'InvalidParameter', message);

  // Production code publishes to phone numbers only (IAM grants no topic access), so a topic
  // publish here is a bug in the caller, not something to capture.
  if (form.has('TopicArn') || form.has('TargetArn')) {
    return invalid('Invalid parameter: TopicArn or TargetArn Reason: the capture server accepts only PhoneNumber publishes');
  }
  const to = form.get('PhoneNumber');
  if (!to) return invalid('Invalid parameter: PhoneNumber Reason: no value for required parameter');
  // The number is deliberately not echoed: error messages end up in the caller's logs.
  if (!E164.test(to)) return invalid('Invalid parameter: PhoneNumber Reason: not an E.164 number');
  const message = form.get('Message');
  if (!message) return invalid('Invalid parameter: Message Reason: Empty message');

  const attributes = readMessageAttributes(form);
  if (typeof attributes === 'string') {
    return sendQueryError(res, 400, 'Sender', 'ParameterValueInvalid', attributes);
  }

  let text = message;
  const structure = form.get('MessageStructure');
  if (structure !== null) {
    const chosen = structure === 'json' ? smsFromJsonStructure(message) : undefined;
    if (chosen === undefined) {
      return invalid('Invalid parameter: Message Structure - JSON message body failed to parse or lacks a "default" key');
    }
    text = chosen;
  }

  if (ctx.failFor(to, 'sms')) {
    return invalid('Invalid parameter: PhoneNumber Reason: the capture server is configured to fail deliveries to this recipient');
  }

  const messageId = randomUUID();
  const sender = SMS_SENDER_ATTRIBUTES.map((name) => attributes[name]).find((v) => v !== undefined);
  ctx.capture({
    channel: 'sms',
    to,
    text,
    ...(sender !== undefined && { sender }),
    ...(Object.keys(attributes).length > 0 && { attributes }),
    message_id: messageId,
    sent_at: new Date().toISOString(),
  });

  const requestId = randomUUID();
  ctx.answerAfter(to, 'sms', res, () =>
    sendXml(
      res,
      200,
      requestId,
      `<PublishResponse xmlns="${SNS_XMLNS}">` +
        `<PublishResult><MessageId>${messageId}</MessageId></PublishResult>` +
        `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata>` +
        `</PublishResponse>`,
    ),
  );
}

/**
 * Collects `MessageAttributes.entry.N.{Name,Value.DataType,Value.StringValue|BinaryValue}` into
 * name → value, or returns the error message SNS would give for a malformed attribute.
 */
function readMessageAttributes(form: URLSearchParams): Record<string, string> | string {
  const attributes: Record<string, string> = {};
  const indexes = [...form.keys()]
    .map((key) => /^MessageAttributes\.entry\.(\d+)\.Name$/.exec(key)?.[1])
    .filter((index): index is string => index !== undefined)
    .sort((a, b) => Number(a) - Number(b));
  for (const index of indexes) {
    const prefix = `MessageAttributes.entry.${index}`;
    const name = form.get(`${prefix}.Name`) ?? '';
    const dataType = form.get(`${prefix}.Value.DataType`);
    const value = form.get(`${prefix}.Value.StringValue`) ?? form.get(`${prefix}.Value.BinaryValue`);
    if (!dataType) {
      return `The message attribute '${name}' must contain non-empty message attribute type.`;
    }
    if (!value) {
      return `The message attribute '${name}' must contain non-empty message attribute value.`;
    }
    attributes[name] = value;
  }
  return attributes;
}

/** With `MessageStructure=json` SNS sends the `sms` entry, falling back to the required `default`. */
function smsFromJsonStructure(message: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { default: fallback, sms } = parsed as Record<string, unknown>;
  if (typeof fallback !== 'string') return undefined;
  return typeof sms === 'string' ? sms : fallback;
}

/**
 * The message is the only caller-influenced text in an answer (it can quote an Action or an
 * attribute name from the request), so it goes through the service's one XML escaper. That
 * escaper also drops the characters XML 1.0 forbids, which is right for an answer document too:
 * one such character copied from the request would make the whole answer unparseable, and the
 * SDK would report a parse failure instead of this error.
 */
function sendQueryError(res: ServerResponse, status: number, type: 'Sender' | 'Receiver', code: string, message: string): void {
  const requestId = randomUUID();
  sendXml(
    res,
    status,
    requestId,
    `<ErrorResponse xmlns="${SNS_XMLNS}">` +
      `<Error><Type>${type}</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>` +
      `<RequestId>${requestId}</RequestId>` +
      `</ErrorResponse>`,
  );
}

/** The request id goes in the header and in the document, as SNS sends it. */
function sendXml(res: ServerResponse, status: number, requestId: string, xml: string): void {
  writeAnswer(res, status, 'text/xml', xml, requestId);
}
