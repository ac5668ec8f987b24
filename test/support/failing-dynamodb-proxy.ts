/**
 * A DynamoDB proxy that fails exactly the requests a test names, and forwards every other one to
 * DynamoDB Local: a storage failure at one precise step of an operation (the guess's write, the
 * restore of a replaced code), which no closed port or black hole can single out. A failed request
 * is answered as DynamoDB answers an internal error (HTTP 500, `InternalServerError`), so the SDK
 * retries it as on AWS and the retry fails the same way; or, when the test asks for it, as a
 * refused condition (HTTP 400, `ConditionalCheckFailedException`, no item): a write that loses to
 * other writers every time, which no real sequence of writers produces on demand.
 */
import { createServer, type Server } from 'node:http';
import { listen } from '../../local/http-server';
import { bodyOf, forward, operationOf, type DynamoDbRequest } from './dynamodb-proxy';

export type { DynamoDbRequest };

/** How a failed request is answered: DynamoDB's internal error, or a refused condition. */
export type InjectedFailure = 'internal' | 'conditional';

/**
 * What an adapter throws for a request this proxy failed with an internal error
 * (lib/adapters/dynamodb/client.ts `storageFailure`): a 503 whose private detail names the step.
 */
export function storageUnavailable(step: string): { error: string; detail: string } {
  return { error: 'temporarily_unavailable', detail: `DynamoDB ${step}: InternalServerError` };
}

const ANSWERS: Record<InjectedFailure, { status: number; type: string; message: string }> = {
  internal: { status: 500, type: 'InternalServerError', message: 'Injected by the test' },
  conditional: { status: 400, type: 'ConditionalCheckFailedException', message: 'The conditional request failed' },
};

export interface FailingDynamoDbProxy {
  readonly endpoint: string;
  /** From now on, fail every request `matches` accepts (until `heal`), as `failure` says (by default an internal error). */
  failWhen(matches: (request: DynamoDbRequest) => boolean, failure?: InjectedFailure): void;
  heal(): void;
  /** Requests failed so far. */
  failed(): readonly DynamoDbRequest[];
  stop(): Promise<void>;
}

export async function startFailingDynamoDbProxy(target: string): Promise<FailingDynamoDbProxy> {
  const upstream = new URL(target);
  let matches: ((request: DynamoDbRequest) => boolean) | undefined;
  let answer = ANSWERS.internal;
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
        outgoing.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' });
        outgoing.end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${answer.type}`, message: answer.message }));
        return;
      }
      forward(upstream, incoming, outgoing, raw);
    });
  });
  const { url, stop } = await listen(server);
  return {
    endpoint: url,
    failWhen(predicate, failure = 'internal') {
      matches = predicate;
      answer = ANSWERS[failure];
    },
    heal() {
      matches = undefined;
    },
    failed: () => failed.slice(),
    stop,
  };
}
