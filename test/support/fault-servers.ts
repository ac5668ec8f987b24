/**
 * Broken networks for the fault tests, built from real sockets (the SDK clients under test are
 * never mocked):
 *
 * - `closedPort()`: an address where nothing listens, so a connection is refused;
 * - `startBlackHole()`: a server that accepts connections, reads what it is sent and never answers
 *   (a dependency that hangs, or a provider that accepted a request and went quiet);
 * - `startWireProxy(target)`: an HTTP proxy in front of a real stand-in that records every request
 *   as it crossed the wire (to see exactly what an SDK sent) and can hold the stand-in's answer back
 *   for a while: the stand-in has done the work (stored the item, captured the message), the caller
 *   hears of it only later, or never if it stops waiting first. Or it answers in the stand-in's
 *   place (`answer`): a provider's refusal that the stand-in never gives.
 */
import { randomInt } from 'node:crypto';
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { listen } from '../../local/http-server';

/**
 * Below Linux's ephemeral range (32768–60999): every server of the suite listens on port 0 or on a
 * port `freePort` got from the kernel, so none is ever given one of these.
 */
const CLOSED_PORTS = { from: 20_000, to: 32_767 };

/**
 * A URL whose port had no listener a moment ago, outside the range the suite's own servers get
 * their ports from (regression: an ephemeral port picked here was handed to a server another test
 * started a moment later, and "DynamoDB refuses connections" got an answer: a 500, not the 503).
 */
export async function closedPort(): Promise<string> {
  for (let tries = 0; tries < 20; tries += 1) {
    const port = CLOSED_PORTS.from + randomInt(CLOSED_PORTS.to - CLOSED_PORTS.from + 1);
    if (await isFree(port)) return `http://127.0.0.1:${port}`;
  }
  throw new Error('no closed port found below the ephemeral range');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createTcpServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

export interface BlackHole {
  readonly url: string;
  /** Connections accepted so far. */
  connections(): number;
  stop(): Promise<void>;
}

/** A TCP server that accepts every connection and never writes a byte back. */
export async function startBlackHole(): Promise<BlackHole> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.resume();
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The body exactly as received, decoded as UTF-8. */
  readonly body: string;
}

export interface WireProxyOptions {
  /** How long to hold each answer back, in ms (default 0); the request is forwarded at once. */
  readonly delayMs?: number | ((request: RecordedRequest) => number);
  /**
   * How long to hold each request back before forwarding it, in ms (default 0). It is forwarded
   * even if the caller has given up meanwhile: a provider that works through a backlog.
   */
  readonly forwardAfterMs?: number;
  /**
   * The proxy's own answer to a request, instead of forwarding it (undefined: forward): a provider
   * that refuses, in its protocol's shape, with what the request said (a refusal that quotes the
   * recipient, as SES's and SNS's do). The request is recorded either way.
   */
  readonly answer?: (request: RecordedRequest) => ProxyAnswer | undefined;
}

/** An answer the proxy gives itself. */
export interface ProxyAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface WireProxy {
  readonly url: string;
  /** Every request received, oldest first. */
  requests(): readonly RecordedRequest[];
  stop(): Promise<void>;
}

/**
 * Starts a proxy to `target` (an http:// base URL).
 * @example
 * const proxy = await startWireProxy(sesUrl, { delayMs: 6000 });
 * const sender = SesEmailSender.create({ endpoint: proxy.url, ...LOCAL_AWS });
 * proxy.requests()[0]?.body; // 'Action=SendEmail&Version=2010-12-01&…'
 */
export async function startWireProxy(target: string, options: WireProxyOptions = {}): Promise<WireProxy> {
  const upstream = new URL(target);
  const delayOf = typeof options.delayMs === 'function' ? options.delayMs : () => (options.delayMs as number | undefined) ?? 0;
  const recorded: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, act: () => void): void => {
    if (ms <= 0) return act();
    const timer = setTimeout(() => {
      timers.delete(timer);
      act();
    }, ms);
    timers.add(timer);
  };

  const server: Server = createHttpServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const request: RecordedRequest = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers: incoming.headers,
        body: body.toString('utf8'),
      };
      recorded.push(request);
      const own = options.answer?.(request);
      if (own !== undefined) {
        outgoing.writeHead(own.status, { ...own.headers, 'Content-Length': String(Buffer.byteLength(own.body)) });
        outgoing.end(own.body);
        return;
      }
      const reply = (status: number, headers: IncomingHttpHeaders, answer: Buffer): void => {
        if (outgoing.destroyed) return;
        outgoing.writeHead(status, headers);
        outgoing.end(answer);
      };
      const forward = (): void => {
        const destination = {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.path,
          headers: request.headers,
        };
        const upstreamRequest = httpRequest(destination, (response) => {
          const answer: Buffer[] = [];
          response.on('data', (chunk: Buffer) => answer.push(chunk));
          response.on('end', () =>
            later(delayOf(request), () => reply(response.statusCode ?? 502, response.headers, Buffer.concat(answer))),
          );
        });
        upstreamRequest.on('error', () => outgoing.destroy());
        upstreamRequest.end(body);
      };
      later(options.forwardAfterMs ?? 0, forward);
    });
  });

  const { url, stop } = await listen(server);
  return {
    url,
    requests: () => recorded.slice(),
    stop: () => {
      for (const timer of timers) clearTimeout(timer);
      return stop();
    },
  };
}
