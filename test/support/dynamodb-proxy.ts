/**
 * A transparent HTTP proxy in front of DynamoDB Local that counts the requests passing through it,
 * by operation (the X-Amz-Target header). Budgets are measured on the wire, retries included, with
 * nothing in the service's code to help.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';

export interface DynamoDbProxy {
  readonly endpoint: string;
  /** Operation names (GetItem, UpdateItem, …) of the requests since the last reset, in order. */
  operations(): readonly string[];
  reset(): void;
  stop(): Promise<void>;
}

export async function startDynamoDbProxy(target: string): Promise<DynamoDbProxy> {
  const upstream = new URL(target);
  let seen: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.').pop() ?? 'unknown';
    seen.push(operation);
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('proxy did not report its port');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    operations: () => seen,
    reset: () => {
      seen = [];
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
