/**
 * A DynamoDB proxy that fails exactly the requests a test names, and forwards every other one to
 * DynamoDB Local: a storage failure at one precise step of an operation (the guess's write, the
 * restore of a replaced code), which no closed port or black hole can single out. A failed request
 * is answered as DynamoDB answers an internal error (HTTP 500, `InternalServerError`), so the SDK
 * retries it as on AWS and the retry fails the same way; or, when the test asks for it, as a
 * refused condition (HTTP 400, `ConditionalCheckFailedException`, no item): a write that loses to
 * other writers every time, which no real sequence of writers produces on demand; or as a
 * two-item transaction cancelled for a reason other than its first item's condition (a
 * `TransactionConflict` on the first item, or the second item's condition), which DynamoDB Local
 * does not produce on demand either.
 */
import { createServer, type Server } from 'node:http';
import { listen } from '../../local/http-server';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { bodyOf, forward, operationOf, type DynamoDbRequest } from './dynamodb-proxy';

export type { DynamoDbRequest };

/**
 * How a failed request is answered: DynamoDB's internal error (`applied`: after DynamoDB Local
 * applied it, the write a client gave up on that landed anyway, as after a timeout on AWS), a
 * refused condition, or a cancelled
 * two-item transaction: `first-item` (its first item's condition failed, and there was no item),
 * `conflict` (another transaction was writing its first item) or `second-item` (its second
 * item's condition failed).
 */
export type InjectedFailure = 'internal' | 'conditional' | 'first-item' | 'conflict' | 'second-item' | 'applied';

/**
 * What an adapter throws for a request this proxy failed with an internal error
 * (lib/adapters/dynamodb/client.ts `storageFailure`): a 503 whose private detail names the step.
 */
export function storageUnavailable(step: string): { error: string; detail: string } {
  return { error: 'temporarily_unavailable', detail: `DynamoDB ${step}: InternalServerError` };
}

const cancelled = (first: string, second: string) => ({
  status: 400,
  type: 'TransactionCanceledException',
  message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${first}, ${second}]`,
  CancellationReasons: [{ Code: first }, { Code: second }],
});

const ANSWERS: Record<InjectedFailure, { status: number; type: string; message: string; CancellationReasons?: unknown }> = {
  internal: { status: 500, type: 'InternalServerError', message: 'Injected by the test' },
  applied: { status: 500, type: 'InternalServerError', message: 'Injected by the test, after the write was applied' },
  conditional: { status: 400, type: 'ConditionalCheckFailedException', message: 'The conditional request failed' },
  'first-item': cancelled('ConditionalCheckFailed', 'None'),
  conflict: cancelled('TransactionConflict', 'None'),
  'second-item': cancelled('None', 'ConditionalCheckFailed'),
};

export interface FailingDynamoDbProxy {
  readonly endpoint: string;
  /** From now on, fail every request `matches` accepts (until `heal`), as `failure` says (by default an internal error). */
  failWhen(matches: (request: DynamoDbRequest) => boolean, failure?: InjectedFailure): void;
  /**
   * Once: hold the next request `matches` accepts, run `action` (whose own requests pass through
   * untouched), then forward the held request. Another writer that comes between an operation's
   * read and its write, exactly there: the race a concurrent test only hits by chance. Several
   * may be pending at once (each for its own request, checked in the order they were asked for).
   */
  interleave(matches: (request: DynamoDbRequest) => boolean, action: () => Promise<unknown>): void;
  heal(): void;
  /** Requests failed so far. */
  failed(): readonly DynamoDbRequest[];
  stop(): Promise<void>;
}

export async function startFailingDynamoDbProxy(target: string): Promise<FailingDynamoDbProxy> {
  const upstream = new URL(target);
  let matches: ((request: DynamoDbRequest) => boolean) | undefined;
  let answer = ANSWERS.internal;
  let interleaved: Array<{ matches: (request: DynamoDbRequest) => boolean; action: () => Promise<unknown> }> = [];
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
        const { status, type, message, CancellationReasons } = answer;
        const fail = () => {
          outgoing.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
          outgoing.end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message, CancellationReasons }));
        };
        if (answer === ANSWERS.applied) applyThen(upstream, incoming, raw, fail);
        else fail();
        return;
      }
      const held = interleaved.findIndex((pending) => pending.matches(request));
      if (held !== -1) {
        const { action } = interleaved.splice(held, 1)[0] as { action: () => Promise<unknown> };
        action().then(
          () => forward(upstream, incoming, outgoing, raw),
          (error: unknown) => outgoing.destroy(error as Error),
        );
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
    interleave(predicate, action) {
      interleaved.push({ matches: predicate, action });
    },
    heal() {
      matches = undefined;
      interleaved = [];
    },
    failed: () => failed.slice(),
    stop,
  };
}

/** Sends the request on to `upstream`, lets its answer go, then calls `then` (whatever the answer was). */
function applyThen(upstream: URL, incoming: IncomingMessage, body: Buffer, then: () => void): void {
  const request = httpRequest(
    { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
    (response) => {
      response.resume();
      response.on('end', then);
    },
  );
  request.on('error', then);
  request.end(body);
}
