/**
 * The capture server itself: one HTTP server for both phone-channel protocols, the store of what
 * they captured, and the test options that make a provider fail or answer late.
 *
 * Both protocols post to `/`; a request is AWS JSON when it names an `X-Amz-Target` and AWS Query
 * otherwise, as the two SDK clients send them. Before a protocol reads a request, the server
 * refuses an oversized body and an unsigned request, in that protocol's own error shape.
 *
 * Captured messages are kept in memory, in arrival order, and are also served over HTTP
 * (`GET /messages`, `POST /clear`) for the local runtime's outbox, which runs in another process.
 *
 * Nothing is logged: captured messages hold codes and raw phone numbers, which the project never
 * writes to a log.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, readBody } from '../http-server';
import { writeAnswer, type CaptureContext, type CapturedMessage, type Channel, type WireProtocol } from './protocol';
import { smsVoiceJson } from './sms-voice-json';
import { snsQuery } from './sns-query';

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
  failFor?: (to: string, channel: Channel) => boolean;
  /**
   * How long to hold back the answer to a message for this recipient, in ms: the message is
   * captured at once (a provider that has accepted it and will deliver it), the answer comes only
   * later, after the caller may have given up waiting. Default: 0 for everyone.
   */
  delayFor?: (to: string, channel: Channel) => number;
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

/**
 * Starts a capture server and resolves once it is listening.
 * @example
 * const server = await startCaptureServer();
 * const sns = new SNSClient({ endpoint: server.url, region: 'us-east-1', credentials });
 * await sns.send(new PublishCommand({ PhoneNumber: '+14155550100', Message: 'hi' }));
 * server.messages(); // [{ channel: 'sms', to: '+14155550100', text: 'hi', … }]
 * await server.close();
 */
export async function startCaptureServer(options: CaptureServerOptions = {}): Promise<CaptureServer> {
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
  const answerAfter = (to: string, channel: Channel, res: ServerResponse, answer: () => void): void => {
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
    const protocol = protocolOf(req);
    route(req, res, protocol, context).catch(() => {
      // A bug here must still answer, in a shape the SDK parses, and never echo what was sent.
      if (res.headersSent) res.destroy();
      else protocol.refuse(res, 'internal', 'Internal error');
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

/** What a protocol handler gets, and what the outbox routes need besides. */
interface RouteContext extends CaptureContext {
  captured: readonly CapturedMessage[];
  clear: () => void;
}

/** The SMS-voice client names its operation in `X-Amz-Target`; the SNS client names it in the form body. */
function protocolOf(req: IncomingMessage): WireProtocol {
  return req.headers['x-amz-target'] !== undefined ? smsVoiceJson : snsQuery;
}

async function route(req: IncomingMessage, res: ServerResponse, protocol: WireProtocol, ctx: RouteContext): Promise<void> {
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

  const raw = await readBody(req, MAX_BODY_BYTES);
  const body = raw?.toString('utf8');
  if (body === undefined) {
    // Close the connection: the rest of the oversized body is still on the wire.
    res.setHeader('Connection', 'close');
    return protocol.refuse(res, 'too_large', 'Request body exceeds 256 KiB');
  }

  // The SDK always signs with SigV4; an unsigned request means the caller is not the SDK (or is
  // misconfigured), which the real service would refuse too. Signatures are not verified: the
  // local credentials are placeholders.
  const signed = /^AWS4-HMAC-SHA256 /.test(req.headers.authorization ?? '');
  if (!signed) return protocol.refuse(res, 'unsigned', 'Missing Authentication Token');
  return protocol.handle(req, res, body, ctx);
}

/** The outbox routes' answers: plain JSON, not either AWS protocol. */
function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  writeAnswer(res, status, 'application/json', JSON.stringify(payload));
}
