/**
 * The back-channel logout queue's messages, both ends: the JSON body the notifier sends (one
 * notice per message, lib/adapters/sqs/logout-queue.ts) and the batch the `backchannel-logout`
 * function receives from the queue's event source. No SDK here: the function's bundle carries
 * the reading end without the SQS client it never calls.
 *
 * A batch is delivered side by side, each message on its own: the ones that fail are reported
 * back as `batchItemFailures` (the event source's ReportBatchItemFailures), so SQS makes only
 * them visible again after the visibility timeout, and moves one to the dead-letter queue once it
 * has been received `BACKCHANNEL_MAX_ATTEMPTS` times. The attempt is the message's
 * `ApproximateReceiveCount` (at least once delivery may count a receive twice, never fewer).
 */
import '../../platform/zod';
import * as z from 'zod/mini';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { BACKCHANNEL_LOG_EVENTS } from '../../platform/log-events';
import { BACKCHANNEL_MAX_ATTEMPTS, deliverLogout, logDeadLetter, type BackchannelDeps } from '../../logout/backchannel';
import type { LogoutNotice } from '../../logout/ports';

const text = () => z.string().check(z.minLength(1));

/** A message body: a notice, as `logoutMessageBody` writes it (version 1, so a later change of shape can be told apart). */
const messageSchema = z.strictObject({
  v: z.literal(1),
  issuer: text(),
  environmentId: text(),
  clientId: text(),
  subject: text(),
  sid: text(),
});

/** The body of the message that carries `notice`. */
export function logoutMessageBody(notice: LogoutNotice): string {
  return JSON.stringify({
    v: 1,
    issuer: notice.issuer,
    environmentId: notice.environmentId,
    clientId: notice.clientId,
    subject: notice.subject,
    sid: notice.sid,
  } satisfies z.infer<typeof messageSchema>);
}

/** The notice a message body carries, or undefined for a body that is not one. */
export function noticeOf(body: string): LogoutNotice | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return undefined;
  }
  const result = messageSchema.safeParse(raw);
  if (!result.success) return undefined;
  const { v: _version, ...notice } = result.data;
  return notice;
}

/**
 * Delivers every message of `event`, at once; answers the ones to try again. A body that is not
 * a notice is a failure too (logged): it cannot be delivered now, and the dead-letter queue is
 * where an operator sees it (its alarm), rather than nowhere.
 */
export async function deliverLogoutBatch(deps: BackchannelDeps, event: SQSEvent): Promise<SQSBatchResponse> {
  const results = await Promise.all(
    event.Records.map(async (record) => {
      const attempt = Math.max(1, Number(record.attributes.ApproximateReceiveCount) || 1);
      const notice = noticeOf(record.body);
      if (notice === undefined) {
        deps.log.error(BACKCHANNEL_LOG_EVENTS.failed, { reason: 'malformed', message: record.messageId, attempt });
        return record.messageId;
      }
      try {
        await deliverLogout(deps, notice, attempt);
        return undefined;
      } catch {
        // deliverLogout logged the failure; the last one is the queue's to dead-letter.
        if (attempt >= BACKCHANNEL_MAX_ATTEMPTS) logDeadLetter(deps.log, notice, attempt);
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: results.flatMap((messageId) => (messageId === undefined ? [] : [{ itemIdentifier: messageId }])) };
}
