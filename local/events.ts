/**
 * `GET /__dev/events?type=<detail-type>` (local only): the audit events of the local runtime,
 * newest first, as EventBridge would deliver them to a rule's target (`source`, `detail-type`,
 * `time`, `detail`; docs/operations/audit-events.md). They are mapped from the service's own log
 * lines (local/log-tap.ts) by the catalogue the audit forwarder uses on AWS (lib/audit/), so what
 * shows here is what the stack's bus would get. Kept in memory, at most `MAX_EVENTS`.
 */
import { randomUUID } from 'node:crypto';
import { auditEventsOf, parseLogLine } from '../lib/audit/mapping';
import { onLogLine } from './log-tap';

export interface OutboxEvent {
  readonly source: string;
  readonly 'detail-type': string;
  readonly time: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

/** The local stage's source, as `identity.<stage>` on AWS (infra/audit.ts). */
export const LOCAL_EVENT_SOURCE = 'identity.local';
/** Enough for a session of experiments or a test file; the oldest go first. */
export const MAX_EVENTS = 2000;

export class EventOutbox {
  private readonly events: OutboxEvent[] = [];

  constructor(private readonly source: string = LOCAL_EVENT_SOURCE) {}

  /** Listens to the process's log lines until `stop`. */
  static listening(source?: string): { outbox: EventOutbox; stop: () => void } {
    const outbox = new EventOutbox(source);
    const stop = onLogLine((text) => outbox.accept(text));
    return { outbox, stop };
  }

  /** One written line (or a pretty-printed JSON document): its events, if it is one of the service's lines with any. */
  accept(text: string): void {
    const line = parseLogLine(text);
    if (line === undefined) return;
    const { events } = auditEventsOf(line, { id: randomUUID(), timestamp: Date.now() });
    for (const event of events) {
      this.events.push({ source: this.source, 'detail-type': event.type, time: event.detail.time as string, detail: event.detail });
    }
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
  }

  /** Newest first; only `type`'s when given. */
  list(type?: string): OutboxEvent[] {
    return this.events.filter((event) => type === undefined || event['detail-type'] === type).reverse();
  }
}
