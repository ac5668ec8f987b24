/**
 * The service's structured logger: Powertools Logger, JSON lines with the Lambda request id, the
 * API Gateway request id as correlation id, level from POWERTOOLS_LOG_LEVEL.
 *
 * What may be logged: decisions, error codes, environment and client ids, and a user's log handle
 * (a prefix of the HMAC key). Never a request body, a code, a token, a key, or a raw email/phone.
 *
 * The lines of the log events (lib/platform/log-events.ts) carry their metrics in CloudWatch
 * Embedded Metric Format (lib/platform/log-metrics.ts) when POWERTOOLS_METRICS_NAMESPACE names
 * the namespace (the stack sets it on the functions that log events); without it (the local
 * runtime, the tests) the lines are plain.
 */
import { getStringFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import type { LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import { embeddedMetricsOf } from './log-metrics';

/**
 * Powertools Logger whose log event lines carry their EMF members. It hooks the one step that
 * builds a line's members (Powertools exports no formatter to extend but its abstract base), so
 * the lines keep Powertools' own format. The namespace is read per line, with Powertools' own
 * reader (a Powertools variable, like the others lib/platform/env.ts leaves to Powertools), so a
 * test can set it.
 */
export class MetricLogger extends Logger {
  protected override createAndPopulateLogItem(logLevel: number, input: LogItemMessage, extraInput: LogItemExtraInput): LogItem {
    const item = super.createAndPopulateLogItem(logLevel, input, extraInput);
    const namespace = getStringFromEnv({ key: 'POWERTOOLS_METRICS_NAMESPACE', defaultValue: '' });
    if (namespace === '') return item;
    const attributes = item.getAttributes();
    if (typeof attributes.message !== 'string') return item;
    const metrics = embeddedMetricsOf(attributes.message, attributes, namespace, Date.now());
    return metrics === undefined ? item : item.addAttributes(metrics);
  }
}

/** Powertools reads POWERTOOLS_SERVICE_NAME and POWERTOOLS_LOG_LEVEL itself; the name below is its fallback. */
export const logger = new MetricLogger({ serviceName: 'identity' });
