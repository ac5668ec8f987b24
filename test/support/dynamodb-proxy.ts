/**
 * A transparent HTTP proxy in front of DynamoDB Local that counts the requests passing through it,
 * by operation (the X-Amz-Target header). Budgets are measured on the wire, retries included, with
 * nothing in the service's code to help.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listen } from '../../local/http-server';

export interface DynamoDbProxy {
  readonly endpoint: string;
  /** Operation names (GetItem, UpdateItem, …) of the requests since the last reset, in order. */
  operations(): readonly string[];
  /**
   * The IAM actions those requests needed, in order: a request's operation, except that a
   * TransactWriteItems (which has no IAM action of its own) is each of its writes' (PutItem, …).
   */
  actions(): readonly string[];
  /** The requests themselves (operation and parsed JSON body), in order: what a request asked for, e.g. `ConsistentRead`. */
  requests(): readonly DynamoDbRequest[];
  reset(): void;
  stop(): Promise<void>;
}

/** A request as the proxies see it: its operation (`X-Amz-Target`'s last part) and its JSON body. */
export interface DynamoDbRequest {
  readonly operation: string;
  readonly body: { readonly UpdateExpression?: string; readonly ConditionExpression?: string; readonly [name: string]: unknown };
}

/** A request's JSON body ({} when it has none: such a request is forwarded as it is). */
export function bodyOf(raw: Buffer): DynamoDbRequest['body'] {
  try {
    return JSON.parse(raw.toString('utf8')) as DynamoDbRequest['body'];
  } catch {
    return {};
  }
}

/** The item actions of a TransactWriteItems body: `Put` → PutItem, `ConditionCheck` → ConditionCheckItem. */
function transactionActions(body: DynamoDbRequest['body']): string[] {
  const items = (body.TransactItems ?? []) as Array<Record<string, unknown>>;
  return items.flatMap((item) => Object.keys(item).map((kind) => `${kind}Item`));
}

/** The operation a DynamoDB request names: X-Amz-Target's last part (`DynamoDB_20120810.GetItem` → `GetItem`; '' without one). */
export function operationOf(incoming: IncomingMessage): string {
  return String(incoming.headers['x-amz-target'] ?? '')
    .split('.')
    .pop() as string;
}

/** Sends a buffered request on to `upstream` unchanged and pipes the answer back. */
export function forward(upstream: URL, incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer): void {
  const request = httpRequest(
    { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
    (response) => {
      outgoing.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(outgoing);
    },
  );
  request.on('error', () => outgoing.destroy());
  request.end(body);
}

export async function startDynamoDbProxy(target: string): Promise<DynamoDbProxy> {
  const upstream = new URL(target);
  let seen: string[] = [];
  let actions: string[] = [];
  let requests: DynamoDbRequest[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const operation = operationOf(incoming);
    seen.push(operation);
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const raw = Buffer.concat(chunks);
      // Parsed once: the transaction's writes and the request as the tests read it.
      const body = bodyOf(raw);
      actions.push(...(operation === 'TransactWriteItems' ? transactionActions(body) : [operation]));
      requests.push({ operation, body });
      forward(upstream, incoming, outgoing, raw);
    });
  });
  const { url, stop } = await listen(server);
  return {
    endpoint: url,
    operations: () => seen,
    actions: () => actions,
    requests: () => requests,
    reset: () => {
      seen = [];
      actions = [];
      requests = [];
    },
    stop,
  };
}
