/**
 * A transparent HTTP proxy that records every request passing through it together with the status
 * the upstream answered. The harness's DynamoDB proxy counts requests; this one also tells which
 * writes took effect (a refused conditional write is answered 400) and, in front of SES local,
 * whether a message was handed over at all. The fuzz test chains it behind the harness's proxy
 * (`dynamodbEndpoint`) and in front of SES local (`sesUrl`).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { listen } from '../../local/http-server';

export interface RecordedExchange {
  readonly method: string;
  readonly path: string;
  /** The AWS JSON protocol's operation (`X-Amz-Target`'s last part: PutItem, …), or '' for others. */
  readonly operation: string;
  /** The upstream's status; 502 when it could not be reached. */
  readonly status: number;
  /** For a DynamoDB item request: the item's `pk`, and the UpdateExpression of an UpdateItem. */
  readonly pk?: string | undefined;
  readonly updateExpression?: string | undefined;
}

/** What a DynamoDB request body says about its item: its key and, for an update, what it does. */
function itemOf(body: Buffer): Pick<RecordedExchange, 'pk' | 'updateExpression'> {
  try {
    const request = JSON.parse(body.toString('utf8')) as {
      Key?: { pk?: { S?: string } };
      Item?: { pk?: { S?: string } };
      UpdateExpression?: string;
    };
    return { pk: request.Key?.pk?.S ?? request.Item?.pk?.S, updateExpression: request.UpdateExpression };
  } catch {
    return {};
  }
}

export interface RecordingProxy {
  readonly endpoint: string;
  /** Exchanges answered since the last reset, in the order their answers arrived. */
  exchanges(): readonly RecordedExchange[];
  reset(): void;
  stop(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  let recorded: RecordedExchange[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation =
        String(incoming.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      const seen = { method: incoming.method ?? '', path: incoming.url ?? '', operation, ...(operation === '' ? {} : itemOf(body)) };
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
        (response) => {
          recorded.push({ ...seen, status: response.statusCode ?? 502 });
          outgoing.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(outgoing);
        },
      );
      forward.on('error', () => {
        recorded.push({ ...seen, status: 502 });
        outgoing.destroy();
      });
      forward.end(body);
    });
  });
  const { url, stop } = await listen(server);
  return {
    endpoint: url,
    exchanges: () => recorded,
    reset: () => {
      recorded = [];
    },
    stop,
  };
}
