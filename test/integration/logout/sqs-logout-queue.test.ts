/**
 * The SQS notifier (lib/adapters/sqs/logout-queue.ts) with the real SDK client against a stand-in
 * that speaks SQS's JSON protocol on 127.0.0.1 (there is no SQS to run locally): what goes on the
 * wire (SendMessageBatch, at most 10 entries each, one notice per message), and what a refused
 * entry and an unreachable queue become.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { noticeOf } from '../../../lib/adapters/sqs/logout-messages';
import { SqsLogoutNotifier } from '../../../lib/adapters/sqs/logout-queue';
import type { LogoutNotice } from '../../../lib/logout/ports';
import { TemporarilyUnavailableError } from '../../../lib/platform/errors';
import { listen, readBody, type Listening } from '../../../local/http-server';

interface Entry {
  readonly Id: string;
  readonly MessageBody: string;
}
interface Batch {
  readonly target: string | undefined;
  readonly QueueUrl: string;
  readonly Entries: Entry[];
}

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/Identity-dev-logout';
const batches: Batch[] = [];
/** Entry ids the stand-in refuses, per request. */
let refuse: readonly string[] = [];
let sqs: Listening;

beforeAll(async () => {
  sqs = await listen(
    createServer((request, response) => {
      void readBody(request, 1_000_000).then((body) => {
        const batch = {
          target: request.headers['x-amz-target'] as string | undefined,
          ...(JSON.parse(String(body)) as Omit<Batch, 'target'>),
        };
        batches.push(batch);
        const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
        response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' }).end(
          JSON.stringify({
            Successful: batch.Entries.filter((entry) => !refuse.includes(entry.Id)).map((entry) => ({
              Id: entry.Id,
              MessageId: `message-${entry.Id}`,
              MD5OfMessageBody: md5(entry.MessageBody),
            })),
            Failed: batch.Entries.filter((entry) => refuse.includes(entry.Id)).map((entry) => ({
              Id: entry.Id,
              SenderFault: false,
              Code: 'InternalError',
            })),
          }),
        );
      });
    }),
  );
});

afterAll(() => sqs.stop());

beforeEach(() => {
  batches.length = 0;
  refuse = [];
});

const notifier = (endpoint = sqs.url) =>
  SqsLogoutNotifier.create(QUEUE_URL, { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

const notices = (count: number): LogoutNotice[] =>
  Array.from({ length: count }, (_, index) => ({
    issuer: 'https://id.example.com/dev',
    environmentId: 'dev',
    clientId: `client-${index}`,
    subject: `subject-${index}`,
    sid: `sid-${index}`,
  }));

describe('SqsLogoutNotifier', () => {
  it('sends 23 notices as SendMessageBatch requests of 10, 10 and 3 (SQS’s limit), one notice per message, none lost', async () => {
    const sent = notices(23);

    await notifier().notify(sent);

    expect(batches.map((batch) => ({ target: batch.target, queue: batch.QueueUrl, entries: batch.Entries.length }))).toEqual([
      { target: 'AmazonSQS.SendMessageBatch', queue: QUEUE_URL, entries: 10 },
      { target: 'AmazonSQS.SendMessageBatch', queue: QUEUE_URL, entries: 10 },
      { target: 'AmazonSQS.SendMessageBatch', queue: QUEUE_URL, entries: 3 },
    ]);
    for (const batch of batches) expect(new Set(batch.Entries.map((entry) => entry.Id)).size).toBe(batch.Entries.length);
    const received = batches.flatMap((batch) => batch.Entries.map((entry) => noticeOf(entry.MessageBody)));
    expect(received.sort((a, b) => String(a?.clientId).localeCompare(String(b?.clientId)))).toEqual(
      [...sent].sort((a, b) => a.clientId.localeCompare(b.clientId)),
    );
  });

  it('sends nothing for no notices', async () => {
    await notifier().notify([]);

    expect(batches).toEqual([]);
  });

  it('fails, saying how many (never which user), when SQS refuses entries of a batch', async () => {
    refuse = ['1'];

    await expect(notifier().notify(notices(3))).rejects.toThrow('SQS SendMessageBatch: 1 of 3 logout notices not queued');
  });

  it('answers temporarily_unavailable when SQS cannot be reached', async () => {
    const closed = await listen(createServer(), '127.0.0.1', 0);
    await closed.stop();

    await expect(notifier(closed.url).notify(notices(1))).rejects.toThrow(TemporarilyUnavailableError);
  });
});
