/**
 * A DynamoDB proxy that fails exactly the requests a test names, and forwards every other one to
 * DynamoDB Local: a storage failure at one precise step of an operation (the guess's write, the
 * restore of a replaced code), which no closed port or black hole can single out. A failed request
 * is answered as DynamoDB answers an internal error (HTTP 500, `InternalServerError`), so the SDK
 * retries it as on AWS and the retry fails the same way.
 */
import { createServer, type Server } from 'node:http';
import { listen } from '../../local/http-server';
import { bodyOf, forward, operationOf, type DynamoDbRequest } from './dynamodb-proxy';

export type { DynamoDbRequest };

export interface FailingDynamoDbProxy {
  readonly endpoint: string;
  /** From now on, fail every request `matches` accepts (until `heal`). */
  failWhen(matches: (request: DynamoDbRequest) => boolean): void;
  heal(): void;
  /** Requests failed so far. */
  failed(): readonly DynamoDbRequest[];
  stop(): Promise<void>;
}

export async function startFailingDynamoDbProxy(target: string): Promise<FailingDynamoDbProxy> {
  const upstream = new URL(target);
  let matches: ((request: DynamoDbRequest) => boolean) | undefined;
  const failed: DynamoDbRequest[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const raw = Buffer.concat(chunks);
      const operation = operationOf(incoming);
      const request = { operation, body: bodyOf(raw) };
      if (matches?.(request) === true) {
        failed.push(request);
        outgoing.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        outgoing.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Injected by the test' }));
        return;
      }
      forward(upstream, incoming, outgoing, raw);
    });
  });
  const { url, stop } = await listen(server);
  return {
    endpoint: url,
    failWhen(predicate) {
      matches = predicate;
    },
    heal() {
      matches = undefined;
    },
    failed: () => failed.slice(),
    stop,
  };
}
