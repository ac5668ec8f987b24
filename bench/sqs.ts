/**
 * The back-channel logout queue for `npm run bench`: a stand-in that speaks SQS's JSON protocol
 * on 127.0.0.1 (there is no SQS to run locally), so that the `logout` function queues its notices
 * as it does on AWS (lib/adapters/sqs/logout-queue.ts, `LOGOUT_QUEUE_URL` set as the stack sets
 * it) rather than through the local runtime's in-process queue, which would deliver the logout
 * tokens from the measured process. It answers every entry as queued, with the MD5 of its body
 * that the SDK checks, and counts the requests by operation as the DynamoDB proxy does; the
 * messages themselves are dropped.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { listen, readBody } from '../local/http-server';

export interface SqsStandIn {
  /** The endpoint (`AWS_ENDPOINT_URL_SQS`). */
  readonly url: string;
  /** A queue URL on it (`LOGOUT_QUEUE_URL`). */
  readonly queueUrl: string;
  /** Operation names (SendMessageBatch, …) of the requests since the last reset, in order. */
  operations(): readonly string[];
  reset(): void;
  stop(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export async function startSqsStandIn(): Promise<SqsStandIn> {
  let seen: string[] = [];
  let messages = 0;
  const server = createServer((request, response) => {
    void readBody(request, 1_000_000).then((body) => {
      const operation = String(request.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() as string;
      seen.push(operation);
      const input = JSON.parse(String(body ?? '{}')) as { Entries?: Array<{ Id: string; MessageBody: string }>; MessageBody?: string };
      const answer =
        operation === 'SendMessageBatch'
          ? {
              Successful: (input.Entries ?? []).map((entry) => {
                messages += 1;
                return { Id: entry.Id, MessageId: `bench-${messages}`, MD5OfMessageBody: md5(entry.MessageBody) };
              }),
              Failed: [],
            }
          : operation === 'SendMessage'
            ? { MessageId: `bench-${(messages += 1)}`, MD5OfMessageBody: md5(input.MessageBody ?? '') }
            : undefined;
      if (answer === undefined) {
        response
          .writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0' })
          .end(
            JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidAction', message: `${operation} is not served by the bench's stand-in` }),
          );
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' }).end(JSON.stringify(answer));
    });
  });
  const listening = await listen(server);
  return {
    url: listening.url,
    queueUrl: `${listening.url}/000000000000/identity-bench-logout`,
    operations: () => seen,
    reset: () => {
      seen = [];
    },
    stop: listening.stop,
  };
}
