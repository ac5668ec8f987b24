/** Starting and stopping the local HTTP servers (the API, the stand-ins, test proxies) the same way. */
import type { Server } from 'node:http';
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
