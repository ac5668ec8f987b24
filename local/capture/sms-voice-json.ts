/**
 * AWS End User Messaging SMS and voice v2 `SendVoiceMessage`, over the AWS JSON 1.0 protocol: a
 * JSON POST whose operation is named by `X-Amz-Target`, errors as `{"__type": …}`. Only
 * SendVoiceMessage is implemented; any other target, or a call missing what the real API
 * requires, is refused with the error the real API gives, so a wrong call in the voice adapter
 * fails loudly here instead of passing locally and failing in AWS.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { E164, writeAnswer, type CaptureContext, type Refusal, type WireProtocol } from './protocol';
import { ssmlToText } from './ssml-text';

const VOICE_TARGET_PREFIX = 'PinpointSMSVoiceV2.';
/** SendVoiceMessage caps MessageBody at 6000 characters. */
const MAX_VOICE_BODY = 6000;
const AWS_JSON = 'application/x-amz-json-1.0';

/** The JSON errors the service answers for the server's refusals. */
const REFUSALS: Record<Refusal, { status: number; type: string }> = {
  too_large: { status: 413, type: 'RequestEntityTooLargeException' },
  unsigned: { status: 403, type: 'MissingAuthenticationTokenException' },
  internal: { status: 500, type: 'InternalServerException' },
};

export const smsVoiceJson: WireProtocol = {
  handle: handleSendVoiceMessage,
  refuse: (res, refusal, message) => {
    const { status, type } = REFUSALS[refusal];
    sendJsonError(res, status, type, message);
  },
};

interface FieldError {
  Name: string;
  Message: string;
}

function handleSendVoiceMessage(req: IncomingMessage, res: ServerResponse, body: string, ctx: CaptureContext): void {
  const target = String(req.headers['x-amz-target']);
  if (target !== `${VOICE_TARGET_PREFIX}SendVoiceMessage`) {
    return sendJsonError(
      res,
      400,
      'UnknownOperationException',
      `Unknown operation ${target}; the capture server implements only ${VOICE_TARGET_PREFIX}SendVoiceMessage`,
    );
  }

  let input: unknown;
  try {
    input = JSON.parse(body);
  } catch {
    return sendJsonError(res, 400, 'SerializationException', 'Request body is not valid JSON');
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return sendJsonError(res, 400, 'SerializationException', 'Request body is not a JSON object');
  }
  const fields = input as Record<string, unknown>;

  const invalid = (reason: 'MISSING_PARAMETER' | 'INVALID_PARAMETER', field: FieldError): void =>
    sendJsonError(res, 400, 'ValidationException', field.Message, { Reason: reason, Fields: [field] });
  const missing = (name: string): void => invalid('MISSING_PARAMETER', { Name: name, Message: `${name} is required` });

  const to = fields.DestinationPhoneNumber;
  if (typeof to !== 'string' || to === '') return missing('DestinationPhoneNumber');
  if (!E164.test(to)) {
    return invalid('INVALID_PARAMETER', {
      Name: 'DestinationPhoneNumber',
      Message: 'DestinationPhoneNumber is not an E.164 number',
    });
  }
  const origination = fields.OriginationIdentity;
  if (typeof origination !== 'string' || origination === '') return missing('OriginationIdentity');
  const messageBody = fields.MessageBody;
  if (typeof messageBody !== 'string' || messageBody === '') return missing('MessageBody');
  if (messageBody.length > MAX_VOICE_BODY) {
    return invalid('INVALID_PARAMETER', {
      Name: 'MessageBody',
      Message: `MessageBody exceeds ${MAX_VOICE_BODY} characters`,
    });
  }
  const textType = fields.MessageBodyTextType;
  if (textType !== undefined && textType !== 'TEXT' && textType !== 'SSML') {
    return invalid('INVALID_PARAMETER', {
      Name: 'MessageBodyTextType',
      Message: 'MessageBodyTextType must be TEXT or SSML',
    });
  }
  const attributes: Record<string, string> = {};
  for (const name of ['VoiceId', 'MessageBodyTextType', 'ConfigurationSetName'] as const) {
    const value = fields[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      return invalid('INVALID_PARAMETER', { Name: name, Message: `${name} must be a string` });
    }
    attributes[name] = value;
  }

  if (ctx.failFor(to, 'voice')) {
    return invalid('INVALID_PARAMETER', {
      Name: 'DestinationPhoneNumber',
      Message: 'The capture server is configured to fail deliveries to this recipient',
    });
  }

  const messageId = randomUUID();
  // A dry run validates without calling anyone, so there is nothing to capture.
  if (fields.DryRun !== true) {
    const ssml = textType === 'SSML';
    ctx.capture({
      channel: 'voice',
      to,
      text: ssml ? ssmlToText(messageBody) : messageBody,
      ...(ssml && { ssml: messageBody }),
      sender: origination,
      ...(Object.keys(attributes).length > 0 && { attributes }),
      message_id: messageId,
      sent_at: new Date().toISOString(),
    });
  }
  ctx.answerAfter(to, 'voice', res, () => writeAnswer(res, 200, AWS_JSON, JSON.stringify({ MessageId: messageId })));
}

/**
 * AWS JSON errors as the installed SDK parses them: the error class comes from `__type` (a bare
 * name or `namespace#Name`), the modelled members (`Reason`, `Fields` for ValidationException)
 * from same-named keys, and the error's `message` from `message` or `Message`.
 */
function sendJsonError(res: ServerResponse, status: number, type: string, message: string, extra: object = {}): void {
  const payload = { __type: type, Message: message, ...extra };
  writeAnswer(res, status, AWS_JSON, JSON.stringify(payload));
}
