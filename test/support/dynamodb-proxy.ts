/**
 * A transparent HTTP proxy in front of DynamoDB Local that counts the requests passing through it,
 * by operation (the X-Amz-Target header). Budgets are measured on the wire, retries included, with
 * nothing in the service's code to help.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { listen } from '../../local/http-server';

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
    const operation =
      String(incoming.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? 'unknown';
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
  const { url, stop } = await listen(server);
  return {
    endpoint: url,
    operations: () => seen,
    reset: () => {
      seen = [];
    },
    stop,
  };
}
