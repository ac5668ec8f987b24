/**
 * Audit events on AWS (docs/operations/audit-events.md): the stack's EventBridge bus
 * `identity-<stage>`, and the `audit-forwarder` function that fills it from the API functions' own
 * log lines.
 *
 * - Off the response path: the functions already log every security decision
 *   (lib/platform/log-events.ts); a CloudWatch Logs subscription filter on each API function's
 *   log group hands the lines whose message is one an event is derived from (lib/audit/events.ts)
 *   to the forwarder, which CloudWatch Logs invokes asynchronously. No API function calls
 *   EventBridge, so no request's budget changes. CloudWatch Logs allows 2 subscription filters per
 *   log group ("CloudWatch Logs quotas"); this is the only one.
 * - The pattern matches the catalogue's messages exactly, and stays within CloudWatch's 1024
 *   characters for a filter pattern (`auditFilterPattern`, tested); the forwarder applies the
 *   field conditions (a refusal that started a block, a revocation that revoked something).
 * - The events: `source` `identity.<stage>`, `detail-type` the event type, `detail` the versioned
 *   detail. Rules of other stacks (or the example, infra/examples/audit-log-group.ts) route them.
 * - Least privilege as for every function (infra/functions.ts): its own log group, and
 *   `events:PutEvents` on this bus only, for this source only (the `events:source` condition key).
 * - Failures: what EventBridge refuses after the forwarder's retries, and lines that fail their
 *   schema, are logged and counted (metric filters on the forwarder's own log group) and alarmed
 *   (`monitor`). A forwarder invocation that fails as a whole is retried twice by Lambda (the
 *   asynchronous invocation's default) and shows in its Errors alarm (infra/monitoring.ts); after
 *   the last attempt Lambda puts the event (the subscription's gzipped batch of log lines) in the
 *   forwarder's dead-letter queue, which keeps it 14 days for a redrive and alarms at the first.
 *   Both alarms are tickets: the lines stay in the API functions' log groups, and the events can be
 *   published again (docs/operations/audit-events.md#when-events-are-lost).
 */
import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterPattern, MetricFilter, SubscriptionFilter, type ILogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { auditMessages } from '../lib/audit/events';
import { AUDIT_FORWARDER_LOG_EVENTS } from '../lib/audit/forward';
import { AUDIT_FORWARDER_FUNCTION } from './bundling';
import { ServiceFunction } from './functions';
import { LOG_ACTIONS } from './permissions';

/** CloudWatch Logs' longest filter pattern ("PutSubscriptionFilter", `filterPattern`: 0-1024 characters). */
export const MAX_FILTER_PATTERN_LENGTH = 1024;
/** What the forwarder may do on the bus. */
export const PUBLISH_ACTIONS = ['events:PutEvents'];
/** Mapping a few lines and one PutEvents call per 10 events: little memory. */
export const AUDIT_FORWARDER_MEMORY_MB = 256;
/** Three attempts of at most 15 s each (lib/adapters/eventbridge/event-bus.ts) and the pauses between them. */
export const AUDIT_FORWARDER_TIMEOUT = Duration.seconds(60);
/** SQS's longest retention: two weeks to redrive a batch the forwarder failed on. */
export const AUDIT_DEAD_LETTER_RETENTION = Duration.days(14);

/** The stage's bus name, and its events' source. */
export const auditBusNameOf = (stage: string): string => `identity-${stage}`;
export const auditSourceOf = (stage: string): string => `identity.${stage}`;

/** The metric of a forwarder event, in the stack's namespace: `notPublished` → `AuditEventsNotPublished`. */
export function auditMetricNameOf(event: keyof typeof AUDIT_FORWARDER_LOG_EVENTS): string {
  return { notPublished: 'AuditEventsNotPublished', invalid: 'AuditEventsInvalid' }[event];
}

/** The subscription's filter pattern: every message an audit event is derived from, by exact match. */
export function auditFilterPattern(): string {
  return FilterPattern.any(...auditMessages().map((message) => FilterPattern.stringValue('$.message', '=', message))).logPatternString;
}

export interface AuditEventsProps {
  readonly stage: string;
  readonly configFile: string;
  readonly logRetention: RetentionDays;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  readonly removalPolicy: RemovalPolicy;
  readonly tracing: boolean;
  /** The log groups whose lines become events (the API functions'), by function name. */
  readonly sources: ReadonlyArray<{ readonly name: string; readonly logGroup: ILogGroup }>;
}

export class AuditEvents extends Construct {
  readonly bus: EventBus;
  readonly forwarder: ServiceFunction;
  /** Where Lambda puts a batch of log lines the forwarder failed on in all its attempts. */
  readonly deadLetters: Queue;
  /** The alarms of `monitor`: events lost or invalid, and a batch in the dead-letter queue. */
  gapAlarm?: Alarm;
  deadLettersAlarm?: Alarm;
  readonly subscriptions: SubscriptionFilter[];

  constructor(scope: Construct, id: string, props: AuditEventsProps) {
    super(scope, id);
    const pattern = auditFilterPattern();
    if (pattern.length > MAX_FILTER_PATTERN_LENGTH) {
      throw new Error(
        `The audit subscription's filter pattern is ${pattern.length} characters; CloudWatch Logs takes ${MAX_FILTER_PATTERN_LENGTH}`,
      );
    }
    this.bus = new EventBus(this, 'Bus', { eventBusName: auditBusNameOf(props.stage) });
    const source = auditSourceOf(props.stage);

    // Log lines hold ids and HMAC log handles, never personal data; encrypted at rest all the same
    // (SSE-SQS, no key to manage) and reachable over TLS only, as the back-channel queues.
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: AUDIT_DEAD_LETTER_RETENTION,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.deadLetters).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'This is the audit forwarder’s dead-letter queue (its DeadLetterConfig): what reaches it stays 14 days for an operator to redrive (and raises the alarm of `monitor`); a dead-letter queue of its own would only move the same batches again.',
    });

    this.forwarder = new ServiceFunction(this, 'Forwarder', {
      name: AUDIT_FORWARDER_FUNCTION,
      description: 'Audit events: maps the API functions’ log lines of security decisions to events on the stack’s EventBridge bus',
      configFile: props.configFile,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      removalPolicy: props.removalPolicy,
      tracing: props.tracing,
      // CloudWatch Logs invokes it asynchronously: a batch that fails every attempt is kept, not dropped.
      deadLetterQueue: this.deadLetters,
      memorySize: AUDIT_FORWARDER_MEMORY_MB,
      timeout: AUDIT_FORWARDER_TIMEOUT,
      environment: { AUDIT_EVENT_BUS_NAME: this.bus.eventBusName, AUDIT_EVENT_SOURCE: source },
      statements: (logGroupArn) => [
        new PolicyStatement({ sid: 'WriteOwnLogs', effect: Effect.ALLOW, actions: [...LOG_ACTIONS], resources: [logGroupArn] }),
        new PolicyStatement({
          sid: 'PublishAuditEvents',
          effect: Effect.ALLOW,
          actions: [...PUBLISH_ACTIONS],
          resources: [this.bus.eventBusArn],
          conditions: { StringEquals: { 'events:source': source } },
        }),
      ],
    });

    // One subscription per log group; each adds the permission for CloudWatch Logs to invoke the
    // forwarder from that log group only (LambdaDestination: `SourceArn` is the log group's ARN).
    const destination = new LambdaDestination(this.forwarder.function);
    this.subscriptions = props.sources.map(
      ({ name, logGroup }) =>
        new SubscriptionFilter(this, `${pascalCase(name)}Subscription`, {
          logGroup,
          destination,
          filterPattern: FilterPattern.literal(pattern),
        }),
    );
  }

  /**
   * The forwarder's failures in the stack's monitoring: a count per AUDIT_FORWARDER_LOG_EVENTS
   * message (its `count` field) from the forwarder's log group, and one alarm as soon as an event
   * was lost or a line did not fit its schema: the audit trail has a gap. A second alarm as soon as
   * a batch is in the dead-letter queue. Both tickets (the lines stay in the log groups, the events
   * can be published again), sent through `notify` like every alarm of infra/monitoring.ts.
   */
  monitor(monitoring: { readonly namespace: string; notify(alarm: Alarm, severity: 'ticket'): void }): Alarm[] {
    const countOf = (event: keyof typeof AUDIT_FORWARDER_LOG_EVENTS) =>
      new MetricFilter(this, `${event}Filter`, {
        logGroup: this.forwarder.logGroup,
        metricNamespace: monitoring.namespace,
        metricName: auditMetricNameOf(event),
        filterPattern: FilterPattern.stringValue('$.message', '=', AUDIT_FORWARDER_LOG_EVENTS[event]),
        metricValue: '$.count',
      }).metric({ period: Duration.minutes(5), statistic: 'Sum' });
    const gap = new Alarm(this, 'GapAlarm', {
      alarmDescription:
        '[ticket] Audit events were lost (EventBridge refused them after retries) or a log line did not fit its event schema: the audit trail has a gap (docs/operations/alarms.md#auditeventsgap)',
      metric: new MathExpression({
        expression: 'FILL(lost, 0) + FILL(invalid, 0)',
        usingMetrics: { lost: countOf('notPublished'), invalid: countOf('invalid') },
        period: Duration.minutes(5),
        label: 'Audit events lost or invalid',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // The filters publish only when a line matches: no data is no loss.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const deadLettered = new Alarm(this, 'DeadLettersAlarm', {
      alarmDescription:
        '[ticket] The audit forwarder failed on a batch of log lines in all its attempts; Lambda put it in the dead-letter queue: the audit trail has a gap until it is redriven (docs/operations/alarms.md#auditforwarderdeadletters)',
      metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // SQS sends the queue's metrics every few minutes, also when it is empty: no data is no dead letter.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    for (const alarm of [gap, deadLettered]) monitoring.notify(alarm, 'ticket');
    this.gapAlarm = gap;
    this.deadLettersAlarm = deadLettered;
    return [gap, deadLettered];
  }
}

/** A construct id from a function name: `otp-send` → `OtpSend` (as the stack names the functions). */
function pascalCase(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_match, _dash, letter: string) => letter.toUpperCase());
}
