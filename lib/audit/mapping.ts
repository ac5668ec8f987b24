/**
 * From a log line to its audit events (lib/audit/events.ts), the one mapping both the audit
 * forwarder on AWS (functions/audit-forwarder.ts) and the local runtime's dev outbox use.
 *
 * A line becomes an event of each type one of whose sources it matches (one line can be two
 * events: a one-time code exchanged is a code checked right and a login completed). Only the
 * type's fields are copied, then the detail is validated against the type's schema: a line that
 * does not fit (a field of an unexpected shape) is no event, and is reported by type only, so
 * that nothing of the line reaches a report.
 */
import { createHash } from 'node:crypto';
import { AUDIT_EVENT_TYPES, detailSchemaOf, type AuditEventType, type LogLine } from './events';

/** An event as published: EventBridge's `detail-type` and `detail`. */
export interface AuditEvent {
  readonly type: string;
  readonly version: number;
  readonly detail: Readonly<Record<string, unknown>>;
}

/** Where a line comes from: its unique id (CloudWatch's log event id), and its time (ms) if the line has none. */
export interface LineOrigin {
  readonly id: string;
  readonly timestamp: number;
}

export interface MappedLine {
  readonly events: AuditEvent[];
  /** Types whose source matched but whose detail failed its schema: `code.sent v1`. */
  readonly invalid: string[];
}

/** Each type's detail schema, built once. */
const SCHEMAS = new Map<AuditEventType, ReturnType<typeof detailSchemaOf>>(
  AUDIT_EVENT_TYPES.map((eventType) => [eventType, detailSchemaOf(eventType)]),
);

/** A structured line: a JSON object with a string `message`; anything else is not the service's. */
export function parseLogLine(text: string): LogLine | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    // Text that starts with `{` and parses is an object: only its message is left to check.
    const parsed = JSON.parse(trimmed) as LogLine;
    return typeof parsed.message === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The audit events of one line. */
export function auditEventsOf(line: LogLine, origin: LineOrigin): MappedLine {
  const events: AuditEvent[] = [];
  const invalid: string[] = [];
  for (const eventType of AUDIT_EVENT_TYPES as readonly AuditEventType[]) {
    const source = eventType.sources.find((candidate) => candidate.message === line.message && (candidate.when?.(line) ?? true));
    if (source === undefined) continue;
    const fields: Record<string, unknown> = {};
    for (const name of Object.keys(eventType.fields)) {
      if (line[name] !== undefined) fields[name] = line[name];
    }
    const detail = {
      version: eventType.version,
      id: eventIdOf(origin.id, eventType),
      time: timeOf(line, origin),
      ...(typeof line.correlation_id === 'string' ? { request: line.correlation_id } : {}),
      ...fields,
      ...source.set,
    };
    const parsed = (SCHEMAS.get(eventType) as ReturnType<typeof detailSchemaOf>).safeParse(detail);
    if (parsed.success) events.push({ type: eventType.type, version: eventType.version, detail: parsed.data });
    else invalid.push(`${eventType.type} v${eventType.version}`);
  }
  return { events, invalid };
}

/**
 * The event's id: a UUID-shaped digest of the line's id and the event's type and version, so a
 * line delivered twice (CloudWatch Logs invokes the forwarder asynchronously, and Lambda retries a
 * failed invocation) yields the same id and a consumer can drop the repeat.
 */
export function eventIdOf(lineId: string, eventType: Pick<AuditEventType, 'type' | 'version'>): string {
  const hex = createHash('sha256').update(`${lineId}\n${eventType.type}\n${eventType.version}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The logger's own `timestamp` (Powertools: ISO 8601), else the time CloudWatch gave the line. */
function timeOf(line: LogLine, origin: LineOrigin): string {
  const logged = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : Number.NaN;
  return new Date(Number.isNaN(logged) ? origin.timestamp : logged).toISOString();
}
