/**
 * The service's metrics, carried by its own log lines in CloudWatch Embedded Metric Format (EMF):
 * a line whose message is one of lib/platform/log-events.ts gets an `_aws` member that tells
 * CloudWatch Logs which metrics to extract from it, and a member per metric holding its value.
 * CloudWatch extracts them from the log event itself: no metric filter per event and log group
 * (337 of them took a production stack to 493 of CloudFormation's 500 resources), no API call, no
 * extra request on the response path.
 *
 * The format (AWS CloudWatch User Guide, "Specification: Embedded metric format"): the root holds
 * `_aws: { Timestamp, CloudWatchMetrics: [{ Namespace, Dimensions, Metrics }] }`; `Timestamp` is
 * milliseconds since the epoch; `Dimensions` is an array of dimension sets, each an array of keys of
 * root members whose values are strings (an empty set publishes the metric without dimensions);
 * `Metrics` names root members whose values are numbers. Lambda hands a line that already is JSON
 * to CloudWatch Logs unchanged, also with the JSON log format (Lambda Developer Guide,
 * "Configuring JSON and plain text log formats": it never encodes JSON logs twice), and Powertools
 * Logger writes its lines to stdout as one JSON object each, which is what EMF requires.
 *
 * The metrics are the ones the metric filters published, with the same names, dimensions and units,
 * so the alarms and the dashboard keep their meaning: every event counted (`codeSent` →
 * `CodeSent`, no dimensions), and a few read from fields of their lines (`FIELD_METRICS`). The
 * values added are copies of what the line already holds (a count of 1, a number field) under the
 * metric's name: nothing new, no personal data.
 */
import { BACKCHANNEL_LOG_EVENTS, LOG_EVENTS } from './log-events';

export type LogEvent = keyof typeof LOG_EVENTS;
export type BackchannelLogEvent = keyof typeof BACKCHANNEL_LOG_EVENTS;

/** The CloudWatch metric name of a log event: `deliveryFailed` → `DeliveryFailed`. */
export function metricNameOf(event: LogEvent): string {
  return event.charAt(0).toUpperCase() + event.slice(1);
}

/**
 * The metric of a back-channel logout worker event: `deadLettered` → `BackchannelLogoutDeadLettered`
 * (the worker's events, lib/logout/backchannel.ts, are counted like the API's, under a prefix that
 * says whose they are).
 */
export function backchannelMetricNameOf(event: BackchannelLogEvent): string {
  return `BackchannelLogout${event.charAt(0).toUpperCase()}${event.slice(1)}`;
}

/** EMF units (the CloudWatch `StandardUnit` names) the service's metrics use. */
export type MetricUnit = 'Count' | 'Percent';

/**
 * A metric read from the fields of an event's lines, beside its count. The fields are the ones the
 * domain logs (lib/guards/phone-guards.ts). A line missing a dimension field (or holding one that
 * is not a string) or the value field (or holding one that is not a number) gives no such metric:
 * CloudWatch requires string dimensions and numeric values.
 */
export interface FieldMetric {
  readonly event: LogEvent;
  readonly metricName: string;
  /** `1` to count the line, or the name of the numeric field that is the value. */
  readonly value: 1 | string;
  readonly dimensions: readonly string[];
  readonly unit: MetricUnit;
}

export const FIELD_METRICS: readonly FieldMetric[] = [
  // The same name as the event's count: the count is this metric without dimensions.
  { event: 'phoneSendRefused', metricName: 'PhoneSendRefused', value: 1, dimensions: ['guard', 'country'], unit: 'Count' },
  { event: 'phoneBudgetSpent', metricName: 'PhoneBudgetUsedPercent', value: 'usedPercent', dimensions: ['environment'], unit: 'Percent' },
  // Every message the budget pays is one to a number that is not known (known numbers pass on an
  // allowance of their own: docs/decisions/012-known-numbers.md), so counting them by environment
  // is counting the budget spent by numbers never seen before.
  { event: 'phoneBudgetSpent', metricName: 'PhoneBudgetSpentByNewNumbers', value: 1, dimensions: ['environment'], unit: 'Count' },
];

/** EMF's limit on a dimension value (the specification: at most 1024 characters). */
const MAX_DIMENSION_LENGTH = 1024;

interface Directive {
  Namespace: string;
  Dimensions: string[][];
  Metrics: Array<{ Name: string; Unit: MetricUnit }>;
}

/** What a message counts as, and the field metrics of its event. */
const METRICS_BY_MESSAGE = new Map<string, { readonly count: string; readonly fields: readonly FieldMetric[] }>([
  ...(Object.keys(LOG_EVENTS) as LogEvent[]).map(
    (event) =>
      [LOG_EVENTS[event], { count: metricNameOf(event), fields: FIELD_METRICS.filter((metric) => metric.event === event) }] as const,
  ),
  ...(Object.keys(BACKCHANNEL_LOG_EVENTS) as BackchannelLogEvent[]).map(
    (event) => [BACKCHANNEL_LOG_EVENTS[event], { count: backchannelMetricNameOf(event), fields: [] }] as const,
  ),
]);

/**
 * The members to add to a log line so CloudWatch extracts its metrics: `_aws` and one member per
 * metric. `undefined` for a line that is not a log event. `fields` are the line's own members.
 */
export function embeddedMetricsOf(
  message: string,
  fields: Readonly<Record<string, unknown>>,
  namespace: string,
  timestamp: number,
): Record<string, unknown> | undefined {
  const metrics = METRICS_BY_MESSAGE.get(message);
  if (metrics === undefined) return undefined;
  const count: Directive = { Namespace: namespace, Dimensions: [[]], Metrics: [{ Name: metrics.count, Unit: 'Count' }] };
  const directives: Directive[] = [count];
  const values: Record<string, number> = { [metrics.count]: 1 };
  for (const metric of metrics.fields) {
    const value = metric.value === 1 ? 1 : fields[metric.value];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    if (!metric.dimensions.every((key) => isDimensionValue(fields[key]))) continue;
    if (metric.metricName === metrics.count) {
      // One member holds one value: the same metric by dimensions is another dimension set of the count's directive.
      count.Dimensions.push([...metric.dimensions]);
      continue;
    }
    directives.push({
      Namespace: namespace,
      Dimensions: [[...metric.dimensions]],
      Metrics: [{ Name: metric.metricName, Unit: metric.unit }],
    });
    values[metric.metricName] = value;
  }
  return { _aws: { Timestamp: timestamp, CloudWatchMetrics: directives }, ...values };
}

function isDimensionValue(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value.length <= MAX_DIMENSION_LENGTH;
}
