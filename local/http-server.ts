/** Starting and stopping the local HTTP servers (the API, the stand-ins, test proxies) the same way. */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  /** e.g. http://127.0.0.1:45321 (IPv6 hosts bracketed). */
  readonly url: string;
  /** Stops listening and closes every connection: the SDK keeps sockets alive, and without this close() waits for them to time out. */
  readonly stop: () => Promise<void>;
}

/** Makes `server` listen on `host`:`port` (0: a free port), or reports why it cannot (EADDRINUSE). */
export async function listen(server: Server, host = '127.0.0.1', port = 0): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return describeListening(server, host);
}

/** The URL and stop() of a server that is already listening (one started by a library). */
export function describeListening(server: Server, host = '127.0.0.1'): Listening {
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * Reads a request body of at most `maxBytes`, or resolves undefined when it is larger. An
 * oversized body is refused on its declared length when there is one, and otherwise drained
 * rather than the socket destroyed, so the caller can still answer 413.
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        request.off('data', onData);
        request.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
