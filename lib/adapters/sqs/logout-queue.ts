/**
 * The back-channel logout notifier on AWS: the notices go to the SQS queue that the
 * `backchannel-logout` function consumes (infra/backchannel.ts), one message per notice
 * (lib/adapters/sqs/logout-messages.ts), in `SendMessageBatch` requests of at most 10 (SQS's
 * limit per batch), side by side. `notify` resolves once SQS holds every notice: the user's
 * logout waits for the queue, never for a relying party.
 *
 * A batch that SQS answers with failed entries is an error naming how many (never a notice's
 * content), as is an SDK failure (`TemporarilyUnavailableError` when SQS is unavailable):
 * the caller decides whether a logout stands without its notices (lib/sessions/end-sessions.ts
 * logs them as lost).
 */
import { SQSClient, SendMessageBatchCommand, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { QUEUE_CLIENT_SETTINGS } from '../../platform/aws';
import { traced } from '../../platform/tracing';
import type { LogoutNotice, LogoutNotifier } from '../../logout/ports';
import { dependencyFailure, RenewableClient } from '../aws-failures';
import { logoutMessageBody } from './logout-messages';

/** SQS takes at most 10 messages per SendMessageBatch. */
export const SQS_BATCH_SIZE = 10;

export class SqsLogoutNotifier implements LogoutNotifier {
  private readonly client: RenewableClient<SQSClient>;

  /** `createClient` is called again for a fresh client after a failure before any answer (see `RenewableClient`). */
  constructor(
    createClient: () => SQSClient,
    private readonly queueUrl: string,
  ) {
    this.client = new RenewableClient(createClient);
  }

  /** A notifier for the queue at `queueUrl`, with the service's SQS client limits (lib/platform/aws.ts). */
  static create(queueUrl: string, config: SQSClientConfig = {}): SqsLogoutNotifier {
    return new SqsLogoutNotifier(() => traced(new SQSClient({ ...QUEUE_CLIENT_SETTINGS, ...config })), queueUrl);
  }

  async notify(notices: readonly LogoutNotice[]): Promise<void> {
    const batches: LogoutNotice[][] = [];
    for (let start = 0; start < notices.length; start += SQS_BATCH_SIZE) batches.push(notices.slice(start, start + SQS_BATCH_SIZE));
    const failed = await Promise.all(batches.map((batch) => this.send(batch)));
    const total = failed.reduce((sum, count) => sum + count, 0);
    if (total > 0) throw new Error(`SQS SendMessageBatch: ${total} of ${notices.length} logout notices not queued`);
  }

  /** Sends one batch; answers how many of its entries SQS refused. */
  private async send(batch: readonly LogoutNotice[]): Promise<number> {
    const command = new SendMessageBatchCommand({
      QueueUrl: this.queueUrl,
      // Entry ids are only unique within a request: the index does.
      Entries: batch.map((notice, index) => ({ Id: String(index), MessageBody: logoutMessageBody(notice) })),
    });
    try {
      const answer = await this.client.use((client) => client.send(command));
      return answer.Failed?.length ?? 0;
    } catch (error) {
      throw dependencyFailure(error, 'SQS SendMessageBatch');
    }
  }
}
