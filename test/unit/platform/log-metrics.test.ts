/**
 * The log events' metrics in CloudWatch Embedded Metric Format (lib/platform/log-metrics.ts), and
 * the logger that adds them to its lines (lib/platform/log.ts). Every line is checked against the
 * EMF specification's rules (`emfProblems`), so a line CloudWatch would reject fails here.
 */
import { capturedLogs } from '../../support/log-capture';
import { logger } from '../../../lib/platform/log';
import { BACKCHANNEL_LOG_EVENTS, LOG_EVENTS } from '../../../lib/platform/log-events';
import {
  backchannelMetricNameOf,
  embeddedMetricsOf,
  FIELD_METRICS,
  metricNameOf,
  type BackchannelLogEvent,
  type LogEvent,
} from '../../../lib/platform/log-metrics';

const NAMESPACE = 'Identity/test';
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

type Line = Record<string, unknown> & {
  _aws?: {
    Timestamp: unknown;
    CloudWatchMetrics: Array<{ Namespace: unknown; Dimensions: unknown[][]; Metrics: Array<{ Name: unknown; Unit?: unknown }> }>;
  };
};

/**
 * What CloudWatch would reject in an EMF line (AWS CloudWatch User Guide, "Specification: Embedded
 * metric format"): `_aws.Timestamp` a number, each directive a string Namespace, at most 30 keys
 * per dimension set, each key a root member holding a string of at most 1024 characters, at most
 * 100 metrics, each a root member holding a number.
 */
function emfProblems(line: Line): string[] {
  const problems: string[] = [];
  const aws = line._aws;
  if (aws === undefined) return ['no _aws'];
  if (typeof aws.Timestamp !== 'number') problems.push('Timestamp is not a number');
  if (!Array.isArray(aws.CloudWatchMetrics) || aws.CloudWatchMetrics.length === 0) problems.push('no CloudWatchMetrics');
  for (const directive of aws.CloudWatchMetrics) {
    if (typeof directive.Namespace !== 'string' || directive.Namespace === '') problems.push('Namespace is not a string');
    for (const set of directive.Dimensions) {
      if (set.length > 30) problems.push('more than 30 dimensions');
      for (const key of set) {
        const value = line[key as string];
        if (typeof value !== 'string' || value.length > 1024) problems.push(`dimension ${String(key)} is not a string member`);
      }
    }
    if (directive.Metrics.length > 100) problems.push('more than 100 metrics');
    for (const metric of directive.Metrics) {
      if (typeof line[metric.Name as string] !== 'number') problems.push(`metric ${String(metric.Name)} is not a number member`);
    }
  }
  return problems;
}

/** The line as CloudWatch would read it: the fields and the added members. */
const lineOf = (message: string, fields: Record<string, unknown>): Line => ({
  message,
  ...fields,
  ...embeddedMetricsOf(message, fields, NAMESPACE, NOW),
});

/** Metric name → the dimension sets it is published with, over every directive of a line. */
function published(line: Line): Record<string, unknown[][]> {
  const metrics: Record<string, unknown[][]> = {};
  for (const directive of line._aws?.CloudWatchMetrics ?? []) {
    for (const metric of directive.Metrics)
      metrics[metric.Name as string] = [...(metrics[metric.Name as string] ?? []), ...directive.Dimensions];
  }
  return metrics;
}

describe('embeddedMetricsOf', () => {
  it.each(Object.keys(LOG_EVENTS) as LogEvent[])(
    'counts %s under its metric name, without dimensions, in the namespace, at the time given',
    (event) => {
      // Act
      const line = lineOf(LOG_EVENTS[event], { environment: 'e1' });

      // Assert
      expect(emfProblems(line)).toEqual([]);
      expect(line[metricNameOf(event)]).toBe(1);
      expect(line._aws?.Timestamp).toBe(NOW);
      expect(line._aws?.CloudWatchMetrics[0]).toEqual({
        Namespace: NAMESPACE,
        Dimensions: [[]],
        Metrics: [{ Name: metricNameOf(event), Unit: 'Count' }],
      });
    },
  );

  it.each(Object.keys(BACKCHANNEL_LOG_EVENTS) as BackchannelLogEvent[])('counts the worker’s %s under its own prefix', (event) => {
    const line = lineOf(BACKCHANNEL_LOG_EVENTS[event], { environment: 'e1', client: 'c' });

    expect(emfProblems(line)).toEqual([]);
    expect(published(line)).toEqual({ [backchannelMetricNameOf(event)]: [[]] });
    expect(backchannelMetricNameOf('deadLettered')).toBe('BackchannelLogoutDeadLettered');
  });

  it('keeps the metric names the alarms and the dashboard use', () => {
    expect(metricNameOf('deliveryFailed')).toBe('DeliveryFailed');
    expect(FIELD_METRICS.map((metric) => metric.metricName)).toEqual([
      'PhoneSendRefused',
      'PhoneBudgetUsedPercent',
      'PhoneBudgetSpentByNewNumbers',
    ]);
  });

  it('counts a refused SMS also by guard and country, as one value with two dimension sets', () => {
    const line = lineOf(LOG_EVENTS.phoneSendRefused, { environment: 'e1', channel: 'sms', guard: 'prefix', country: 'GB' });

    expect(emfProblems(line)).toEqual([]);
    expect(published(line)).toEqual({ PhoneSendRefused: [[], ['guard', 'country']] });
    expect(line.PhoneSendRefused).toBe(1);
  });

  it('publishes no dimension set whose field is missing, empty, too long or not a string: only the count', () => {
    for (const country of [undefined, '', 'x'.repeat(1025), 44]) {
      const line = lineOf(LOG_EVENTS.phoneSendRefused, { environment: 'e1', guard: 'ip', country });

      expect(emfProblems(line)).toEqual([]);
      expect(published(line)).toEqual({ PhoneSendRefused: [[]] });
    }
  });

  it('reads how full the budget is from usedPercent, by environment, in percent, and counts the spend by new numbers by environment', () => {
    const line = lineOf(LOG_EVENTS.phoneBudgetSpent, { environment: 'e1', channel: 'sms', country: 'GB', usedPercent: 42.5 });

    expect(emfProblems(line)).toEqual([]);
    expect(published(line)).toEqual({
      PhoneBudgetSpent: [[]],
      PhoneBudgetUsedPercent: [['environment']],
      PhoneBudgetSpentByNewNumbers: [['environment']],
    });
    expect(line).toMatchObject({ PhoneBudgetSpent: 1, PhoneBudgetUsedPercent: 42.5, PhoneBudgetSpentByNewNumbers: 1 });
    expect(line._aws?.CloudWatchMetrics.flatMap((directive) => directive.Metrics)).toContainEqual({
      Name: 'PhoneBudgetUsedPercent',
      Unit: 'Percent',
    });
  });

  it('leaves out a value that is not a finite number, and a metric whose dimension is missing', () => {
    for (const usedPercent of ['42', Number.NaN, Number.POSITIVE_INFINITY, undefined]) {
      const line = lineOf(LOG_EVENTS.phoneBudgetSpent, { environment: 'e1', usedPercent });
      expect(emfProblems(line)).toEqual([]);
      expect(Object.keys(published(line))).toEqual(['PhoneBudgetSpent', 'PhoneBudgetSpentByNewNumbers']);
    }
    const noEnvironment = lineOf(LOG_EVENTS.phoneBudgetSpent, { usedPercent: 10 });
    expect(Object.keys(published(noEnvironment))).toEqual(['PhoneBudgetSpent']);
  });

  it('adds nothing to a line that is not a log event', () => {
    expect(embeddedMetricsOf('something else', { environment: 'e1' }, NAMESPACE, NOW)).toBeUndefined();
  });
});

describe('logger', () => {
  const linesOf = (message: string) =>
    capturedLogs()
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Line)
      .filter((line) => line.message === message);

  afterEach(() => {
    delete process.env.POWERTOOLS_METRICS_NAMESPACE;
  });

  it('writes a log event’s line in EMF when POWERTOOLS_METRICS_NAMESPACE is set, with the line’s own fields and time', () => {
    // Arrange
    process.env.POWERTOOLS_METRICS_NAMESPACE = NAMESPACE;
    const before = Date.now();

    // Act
    logger.warn(LOG_EVENTS.phoneSendRefused, { environment: 'e1', channel: 'sms', guard: 'ip', country: 'FR' });

    // Assert
    const [line] = linesOf(LOG_EVENTS.phoneSendRefused);
    expect(emfProblems(line!)).toEqual([]);
    expect(line).toMatchObject({ level: 'WARN', environment: 'e1', guard: 'ip', country: 'FR', PhoneSendRefused: 1 });
    expect(published(line!)).toEqual({ PhoneSendRefused: [[], ['guard', 'country']] });
    expect(line!._aws!.Timestamp as number).toBeGreaterThanOrEqual(before);
    expect(line!._aws!.Timestamp as number).toBeLessThanOrEqual(Date.now());
  });

  it('writes plain lines without the namespace (the local runtime, the tests), and never adds EMF to other messages', () => {
    logger.info(LOG_EVENTS.discardFailed, { environment: 'e2' });
    process.env.POWERTOOLS_METRICS_NAMESPACE = NAMESPACE;
    logger.info('not an event', { environment: 'e2' });

    expect(linesOf(LOG_EVENTS.discardFailed).filter((line) => line.environment === 'e2')).toEqual([
      expect.not.objectContaining({ _aws: expect.anything() }),
    ]);
    expect(linesOf('not an event')).toEqual([expect.not.objectContaining({ _aws: expect.anything() })]);
  });
});
