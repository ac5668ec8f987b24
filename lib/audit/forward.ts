/**
 * The audit forwarder's work (functions/audit-forwarder.ts): the log lines a CloudWatch Logs
 * subscription hands it (infra/audit.ts) become audit events (lib/audit/mapping.ts), published
 * to the stack's EventBridge bus in `PutEvents` requests of at most 10 entries (EventBridge's
 * limit per request, "PutEvents" in the EventBridge API Reference).
 *
 * Failures: `PutEvents` answers per entry; the entries it refused (or all of a request that failed
 * after the SDK's own retries) are sent again, up to `PUBLISH_ATTEMPTS` in all with a doubling
 * pause between. What still fails is logged as `audit events not published` with how many and the
 * error codes (never an event's content), and counted by a metric filter with an alarm
 * (infra/audit.ts): the invocation itself succeeds, so Lambda does not retry a whole batch of
 * which most was published. A line that does not fit its event's schema is logged as
 * `audit event invalid` with its type only, and counted as well.
 */
import { gunzipSync } from 'node:zlib';
import type { Log } from '../platform/ports';
import { auditEventsOf, parseLogLine, type AuditEvent } from './mapping';

/** The forwarder's own log messages: counted from its log group by infra/audit.ts (they are not LOG_EVENTS). */
export const AUDIT_FORWARDER_LOG_EVENTS = {
  /** Entries EventBridge did not take after every attempt. Fields: count, errors (error code → how many). */
  notPublished: 'audit events not published',
  /** Lines whose mapped detail failed its event type's schema. Fields: count, types (`code.sent v1` → how many). */
  invalid: 'audit event invalid',
} as const;

/** EventBridge's limit of entries per PutEvents request. */
export const PUT_EVENTS_BATCH_SIZE = 10;
/** The attempts of an entry: the first and two more. */
export const PUBLISH_ATTEMPTS = 3;
/** The pause before the first retry, doubled before the next (EventBridge throttles per second). */
export const RETRY_PAUSE_MS = 200;

/** One PutEvents entry. */
export interface BusEntry {
  readonly source: string;
  readonly detailType: string;
  readonly detail: string;
  readonly time: Date;
}

/** The stack's event bus (lib/adapters/eventbridge/event-bus.ts). */
export interface EventBus {
  /**
   * Puts at most PUT_EVENTS_BATCH_SIZE entries; answers, per entry in order, undefined when it was
   * taken or its error code. Throws when the request as a whole failed.
   */
  put(entries: readonly BusEntry[]): Promise<Array<string | undefined>>;
}

export interface ForwarderDeps {
  readonly bus: EventBus;
  /** The events' `source`: `identity.<stage>`. */
  readonly source: string;
  readonly log: Log;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** What a CloudWatch Logs subscription hands a Lambda, once decoded ("Using CloudWatch Logs subscription filters"). */
export interface SubscriptionData {
  readonly messageType: string;
  readonly logGroup?: string;
  readonly logEvents: ReadonlyArray<{ readonly id: string; readonly timestamp: number; readonly message: string }>;
}

/** The Lambda event of a subscription: base64 of gzipped JSON. */
export interface SubscriptionEvent {
  readonly awslogs: { readonly data: string };
}

export interface ForwardReport {
  readonly published: number;
  readonly failed: number;
  readonly invalid: number;
}

export function decodeSubscription(event: SubscriptionEvent): SubscriptionData {
  return JSON.parse(gunzipSync(Buffer.from(event.awslogs.data, 'base64')).toString('utf8')) as SubscriptionData;
}

/** The audit events of a subscription's lines, in order (CloudWatch's first message is a control message, without lines of ours). */
export function eventsOfSubscription(data: SubscriptionData): { events: AuditEvent[]; invalid: string[] } {
  const events: AuditEvent[] = [];
  const invalid: string[] = [];
  if (data.messageType !== 'DATA_MESSAGE') return { events, invalid };
  for (const logEvent of data.logEvents) {
    const line = parseLogLine(logEvent.message);
    if (line === undefined) continue;
    const mapped = auditEventsOf(line, { id: logEvent.id, timestamp: logEvent.timestamp });
    events.push(...mapped.events);
    invalid.push(...mapped.invalid);
  }
  return { events, invalid };
}

/** Maps the subscription's lines and publishes their events. */
export async function forwardSubscription(deps: ForwarderDeps, event: SubscriptionEvent): Promise<ForwardReport> {
  const { events, invalid } = eventsOfSubscription(decodeSubscription(event));
  if (invalid.length > 0) deps.log.warn(AUDIT_FORWARDER_LOG_EVENTS.invalid, { count: invalid.length, types: tally(invalid) });
  const entries = events.map((audit) => entryOf(deps.source, audit));
  const errors = await publish(deps, entries);
  if (errors.length > 0) deps.log.error(AUDIT_FORWARDER_LOG_EVENTS.notPublished, { count: errors.length, errors: tally(errors) });
  return { published: entries.length - errors.length, failed: errors.length, invalid: invalid.length };
}

/** The PutEvents entry of an event: `detail-type` is its type, `time` the decision's. */
export function entryOf(source: string, audit: AuditEvent): BusEntry {
  return { source, detailType: audit.type, detail: JSON.stringify(audit.detail), time: new Date(audit.detail.time as string) };
}

/** Publishes `entries` in batches, retrying the refused ones; answers the error code of each entry that never got through. */
async function publish(deps: ForwarderDeps, entries: readonly BusEntry[]): Promise<string[]> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let pending: Array<{ entry: BusEntry; error: string }> = entries.map((entry) => ({ entry, error: 'NotSent' }));
  for (let attempt = 0; attempt < PUBLISH_ATTEMPTS && pending.length > 0; attempt += 1) {
    if (attempt > 0) await sleep(RETRY_PAUSE_MS * 2 ** (attempt - 1));
    const batches: Array<typeof pending> = [];
    for (let start = 0; start < pending.length; start += PUT_EVENTS_BATCH_SIZE)
      batches.push(pending.slice(start, start + PUT_EVENTS_BATCH_SIZE));
    const results = await Promise.all(
      batches.map((batch) =>
        putBatch(
          deps.bus,
          batch.map(({ entry }) => entry),
        ),
      ),
    );
    pending = batches.flatMap((batch, index) =>
      batch.flatMap(({ entry }, position) => {
        const error = (results[index] as Array<string | undefined>)[position];
        return error === undefined ? [] : [{ entry, error }];
      }),
    );
  }
  return pending.map(({ error }) => error);
}

/** One request; a request that failed as a whole is every entry failed, with the error's name. */
async function putBatch(bus: EventBus, batch: readonly BusEntry[]): Promise<Array<string | undefined>> {
  try {
    return await bus.put(batch);
  } catch (error) {
    return batch.map(() => (error as Error).name || 'Error');
  }
}

function tally(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
