/**
 * A local stand-in for the two AWS APIs the delivery adapters call for phone channels, so that the
 * production code runs unchanged against it with only `endpoint` changed:
 *
 * - Amazon SNS `Publish` to a phone number (AWS Query protocol: a form-encoded POST answered with
 *   XML, errors as `<ErrorResponse>`);
 * - AWS End User Messaging SMS and voice v2 `SendVoiceMessage` (AWS JSON 1.0 protocol: a JSON POST
 *   selected by `X-Amz-Target`, errors as `{"__type": …}`).
 *
 * Both protocols post to `/`; a request is JSON when it names an `X-Amz-Target` and Query
 * otherwise. Anything else either protocol could carry is refused with that protocol's own error,
 * so a wrong call in an adapter fails loudly here instead of passing locally and failing in AWS.
 *
 * Captured messages are kept in memory, in arrival order, and are also served over HTTP
 * (`GET /messages`, `POST /clear`) for the local runtime's outbox, which runs in another process.
 *
 * Nothing is logged: captured messages hold codes and raw phone numbers, which the project never
 * writes to a log.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, readBody } from './http-server';

/** One SMS or voice message as the capture server received it. */
export interface CapturedMessage {
  channel: 'sms' | 'voice';
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

export interface CaptureServerOptions {
  /** Interface to listen on. Default `'127.0.0.1'`: the stand-in is never reachable from outside. */
  host?: string;
  /** Port to listen on. Default `0`: a free port, so parallel test files never collide. */
  port?: number;
  /**
   * Recipients for which the server answers a provider-side failure instead of capturing, to
   * exercise delivery-failure handling without mocks. SNS answers 400 `InvalidParameter`, voice
   * answers 400 `ValidationException`. Default: none.
   */
  failFor?: (to: string, channel: 'sms' | 'voice') => boolean;
  /**
   * How long to hold back the answer to a message for this recipient, in ms: the message is
   * captured at once (a provider that has accepted it and will deliver it), the answer comes only
   * later, after the caller may have given up waiting. Default: 0 for everyone.
   */
  delayFor?: (to: string, channel: 'sms' | 'voice') => number;
}

export interface CaptureServer {
  /** Base URL to use as the SDK clients' `endpoint`, e.g. `http://127.0.0.1:45321`. */
  url: string;
  /** Every captured message, oldest first. */
  messages(): readonly CapturedMessage[];
  /** Forgets every captured message. */
  clear(): void;
  /** Stops listening and closes every open connection, keep-alive ones included. */
  close(): Promise<void>;
}

/** SNS accepts at most 256 KiB per message; nothing legitimate is larger than that. */
const MAX_BODY_BYTES = 256 * 1024;
/** E.164: a `+`, a country code that never starts with 0, at most 15 digits in all. */
const E164 = /^\+[1-9]\d{6,14}$/;
const SNS_VERSION = '2010-03-31';
const SNS_XMLNS = `https://sns.amazonaws.com/doc/${SNS_VERSION}/`;
const VOICE_TARGET_PREFIX = 'PinpointSMSVoiceV2.';
/** SendVoiceMessage caps MessageBody at 6000 characters. */
const MAX_VOICE_BODY = 6000;
/** Attributes SNS reads as the SMS sender, in the order it prefers them. */
const SMS_SENDER_ATTRIBUTES = ['AWS.SNS.SMS.SenderID', 'AWS.MM.SMS.OriginationNumber'];

/**
 * Starts a capture server and resolves once it is listening.
 * @example
 * const server = await startCaptureServer();
 * const sns = new SNSClient({ endpoint: server.url, region: 'us-east-1', credentials });
 * await sns.send(new PublishCommand({ PhoneNumber: '+14155550100', Message: 'hi' }));
 * server.messages(); // [{ channel: 'sms', to: '+14155550100', text: 'hi', … }]
 * await server.close();
 */
export async function startCaptureServer(
  options: CaptureServerOptions = {},
): Promise<CaptureServer> {
  const host = options.host ?? '127.0.0.1';
  const failFor = options.failFor ?? (() => false);
  const delayFor = options.delayFor ?? (() => 0);
  const captured: CapturedMessage[] = [];
  // Frozen so that neither messages() callers nor the server itself can rewrite what was sent.
  const capture = (message: CapturedMessage): void => {
    if (message.attributes) Object.freeze(message.attributes);
    captured.push(Object.freeze(message));
  };
  const clear = (): void => {
    captured.length = 0;
  };
  // Answers held back by delayFor; close() drops them with the connections they were for.
  const held = new Set<NodeJS.Timeout>();
  const answerAfter = (to: string, channel: 'sms' | 'voice', res: ServerResponse, answer: () => void): void => {
    const delay = delayFor(to, channel);
    if (delay <= 0) return answer();
    const timer = setTimeout(() => {
      held.delete(timer);
      if (!res.destroyed) answer();
    }, delay);
    held.add(timer);
  };
  const context: RouteContext = { failFor, answerAfter, capture, captured, clear };

  const server = createServer((req, res) => {
    route(req, res, context).catch(() => {
      // A bug here must still answer, in a shape the SDK parses, and never echo what was sent.
      if (res.headersSent) res.destroy();
      else if (isJsonProtocol(req)) sendJsonError(res, 500, 'InternalServerException', 'Internal error');
      else sendQueryError(res, 500, 'Receiver', 'InternalError', 'Internal error');
    });
  });

  const { url, stop } = await listen(server, host, options.port);
  const close = (): Promise<void> => {
    for (const timer of held) clearTimeout(timer);
    held.clear();
    return stop();
  };
  return { url, messages: () => captured.slice(), clear, close };
}

interface RouteContext {
  failFor: (to: string, channel: 'sms' | 'voice') => boolean;
  /** Sends a captured message's answer now, or after the recipient's `delayFor`. */
  answerAfter: (to: string, channel: 'sms' | 'voice', res: ServerResponse, answer: () => void) => void;
  capture: (message: CapturedMessage) => void;
  captured: readonly CapturedMessage[];
  clear: () => void;
}

async function route(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://capture.invalid').pathname;

  if (path === '/messages' && req.method === 'GET') {
    req.resume();
    sendJson(res, 200, { messages: ctx.captured });
    return;
  }
  if (path === '/clear' && req.method === 'POST') {
    req.resume();
    ctx.clear();
    res.writeHead(204).end();
    return;
  }
  if (path !== '/' || req.method !== 'POST') {
    req.resume();
    sendJson(res, 404, { error: 'not_found', error_description: 'No such capture-server route' });
    return;
  }

  const json = isJsonProtocol(req);
  const raw = await readBody(req, MAX_BODY_BYTES);
  const body = raw?.toString('utf8');
  if (body === undefined) {
    // Close the connection: the rest of the oversized body is still on the wire.
    res.setHeader('Connection', 'close');
    const message = 'Request body exceeds 256 KiB';
    if (json) sendJsonError(res, 413, 'RequestEntityTooLargeException', message);
    else sendQueryError(res, 413, 'Sender', 'RequestEntityTooLarge', message);
    return;
  }

  // The SDK always signs with SigV4; an unsigned request means the caller is not the SDK (or is
  // misconfigured), which the real service would refuse too. Signatures are not verified: the
  // local credentials are placeholders.
  const signed = /^AWS4-HMAC-SHA256 /.test(req.headers.authorization ?? '');
  const unsigned = 'Missing Authentication Token';
  if (json) {
    if (!signed) return sendJsonError(res, 403, 'MissingAuthenticationTokenException', unsigned);
    return handleVoice(req, res, body, ctx);
  }
  if (!signed) return sendQueryError(res, 403, 'Sender', 'MissingAuthenticationToken', unsigned);
  return handleSns(res, body, ctx);
}

function isJsonProtocol(req: IncomingMessage): boolean {
  return req.headers['x-amz-target'] !== undefined;
}

// --- SNS Publish (AWS Query protocol) -------------------------------------------------------

function handleSns(res: ServerResponse, body: string, ctx: RouteContext): void {
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
  const invalid = (message: string): void =>
    sendQueryError(res, 400, 'Sender', 'InvalidParameter', message);

  // Production code publishes to phone numbers only (IAM grants no topic access), so a topic
  // publish here is a bug in the caller, not something to capture.
  if (form.has('TopicArn') || form.has('TargetArn')) {
    return invalid(
      'Invalid parameter: TopicArn or TargetArn Reason: the capture server accepts only PhoneNumber publishes',
    );
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
      return invalid(
        'Invalid parameter: Message Structure - JSON message body failed to parse or lacks a "default" key',
      );
    }
    text = chosen;
  }

  if (ctx.failFor(to, 'sms')) {
    return invalid(
      'Invalid parameter: PhoneNumber Reason: the capture server is configured to fail deliveries to this recipient',
    );
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
    const value =
      form.get(`${prefix}.Value.StringValue`) ?? form.get(`${prefix}.Value.BinaryValue`);
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

function sendQueryError(
  res: ServerResponse,
  status: number,
  type: 'Sender' | 'Receiver',
  code: string,
  message: string,
): void {
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

function sendXml(res: ServerResponse, status: number, requestId: string, xml: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/xml',
    'Content-Length': Buffer.byteLength(xml),
    'x-amzn-RequestId': requestId,
  });
  res.end(xml);
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => XML_ESCAPES[c] ?? c);
}

const XML_ESCAPES: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&apos;',
};

// --- SendVoiceMessage (AWS JSON 1.0 protocol) ----------------------------------------------

interface FieldError {
  Name: string;
  Message: string;
}

function handleVoice(
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  ctx: RouteContext,
): void {
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
  const missing = (name: string): void =>
    invalid('MISSING_PARAMETER', { Name: name, Message: `${name} is required` });

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
  ctx.answerAfter(to, 'voice', res, () => sendJson(res, 200, { MessageId: messageId }, 'application/x-amz-json-1.0'));
}

/**
 * What a listener hears, as text: markup, comments and processing instructions removed, XML
 * entities decoded, whitespace collapsed. A tag becomes a space (a `<break/>` or a `<say-as>` per
 * digit is a pause a reader should see: "1 2 3", not "123"), and no space is left before
 * punctuation. Entities are decoded in one pass so `&amp;lt;` stays the literal `&lt;` that the
 * markup meant.
 */
function ssmlToText(ssml: string): string {
  return ssml
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<\?[\s\S]*?\?>/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(ENTITY, (entity, hex?: string, dec?: string, name?: string) => {
      if (name !== undefined) return NAMED_ENTITIES[name] ?? entity;
      const codePoint = hex !== undefined ? parseInt(hex, 16) : Number(dec);
      return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : entity;
    })
    .replace(/\s+/g, ' ')
    .replace(/ ([.,;:!?])/g, '$1')
    .trim();
}

/** XML's five predefined entities (names are case-sensitive) and numeric character references. */
const ENTITY = /&(?:#x([0-9a-fA-F]+)|#(\d+)|(amp|lt|gt|quot|apos));/g;
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * AWS JSON errors as the installed SDK parses them: the error class comes from `__type` (a bare
 * name or `namespace#Name`), the modelled members (`Reason`, `Fields` for ValidationException)
 * from same-named keys, and the error's `message` from `message` or `Message`.
 */
function sendJsonError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  extra: object = {},
): void {
  const payload = { __type: type, Message: message, ...extra };
  sendJson(res, status, payload, 'application/x-amz-json-1.0');
}

function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  contentType = 'application/json',
): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'x-amzn-RequestId': randomUUID(),
  });
  res.end(body);
}
