/**
 * Back-channel logout on AWS (OpenID Connect Back-Channel Logout 1.0): the queue the functions
 * that end sessions put their logout notices on (`grantNotify`), the `backchannel-logout` function
 * that delivers them (functions/backchannel-logout.ts), and where the ones that never got through
 * end up: a dead-letter queue, with an alarm as soon as it holds one (`monitor`).
 *
 * - Queue and dead-letter queue: encrypted at rest (SSE-SQS, no key to manage: a notice holds a
 *   client id, a pairwise or public subject and a session id, no token), TLS required by their
 *   policies (enforceSSL).
 * - Attempts: a message the function reports failed (ReportBatchItemFailures, so one relying
 *   party that is down never fails the batch's others) comes back after the visibility timeout;
 *   after `BACKCHANNEL_MAX_ATTEMPTS` receives SQS moves it to the dead-letter queue, which keeps it
 *   14 days (SQS's longest) for an operator to read or redrive. The local runtime gives a notice
 *   the same number of attempts (lib/logout/backchannel.ts).
 * - Timeouts: a batch's notices are delivered side by side, each POST within
 *   `BACKCHANNEL_TIMEOUT_MS` (5 s), after at most one signing key read (4 s, lib/platform/aws.ts):
 *   the function's 15 s cover both with room. The visibility timeout is 12 times that (AWS asks
 *   for at least 6 times the function's timeout, so a batch still running is never handed out
 *   again), and it is also the wait between two attempts: five attempts span about 12 minutes.
 * - Least privilege as for every function (infra/functions.ts): its own log group, the signing
 *   key secret (a logout token is signed like an ID token), and receiving and deleting on its
 *   queue. The event source mapping is declared without CDK's grant, which would add a second
 *   policy to the role.
 */
import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BACKCHANNEL_MAX_ATTEMPTS } from '../lib/logout/backchannel';
import { BACKCHANNEL_FUNCTION } from './bundling';
import { ServiceFunction } from './functions';
import { LOG_ACTIONS, SECRET_READ_ACTION } from './permissions';

/** The worker's timeout: a batch delivered side by side (5 s each) after a signing key read (4 s at worst). */
export const BACKCHANNEL_FUNCTION_TIMEOUT = Duration.seconds(15);
/** Signing a few tokens and waiting on relying parties: little memory, as the rotation function. */
export const BACKCHANNEL_MEMORY_MB = 256;
/** At least 6 × the function's timeout (AWS's advice for an SQS event source), and the wait between attempts. */
export const BACKCHANNEL_VISIBILITY_TIMEOUT = Duration.minutes(3);
/** SQS's longest retention: an operator has two weeks to read or redrive a dead letter. */
export const DEAD_LETTER_RETENTION = Duration.days(14);
/** Messages per invocation: SQS's standard batch, delivered side by side. */
export const BACKCHANNEL_BATCH_SIZE = 10;

/**
 * The metric of a worker event (lib/platform/log-events.ts `BACKCHANNEL_LOG_EVENTS`), in the
 * stack's namespace: `deadLettered` → `BackchannelLogoutDeadLettered`. Defined beside the log
 * adapter that publishes it (lib/platform/log-metrics.ts).
 */
export { backchannelMetricNameOf } from '../lib/platform/log-metrics';

/** What the worker does on its queue: what Lambda's event source needs (AWSLambdaSQSQueueExecutionRole's actions). */
export const CONSUME_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
/** What a function that ends sessions may do on the queue (SendMessageBatch is authorised as SendMessage). */
export const NOTIFY_ACTIONS = ['sqs:SendMessage'];

export interface BackchannelLogoutProps {
  /** The stage configuration file, copied beside the bundle (the worker reads each notice's client from it). */
  readonly configFile: string;
  readonly logRetention: RetentionDays;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** X-Ray active tracing, as every function of the stage (infra/functions.ts). */
  readonly tracing: boolean;
  readonly removalPolicy: RemovalPolicy;
  /** The private signing key set: the worker signs logout tokens with it. */
  readonly signingKeysSecretArn: string;
}

export class BackchannelLogout extends Construct {
  /** Where the logout notices go (lib/adapters/sqs/logout-queue.ts). */
  readonly logoutQueue: Queue;
  readonly deadLetters: Queue;
  readonly worker: ServiceFunction;

  constructor(scope: Construct, id: string, props: BackchannelLogoutProps) {
    super(scope, id);
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.deadLetters).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'This is the dead-letter queue: what reaches it stays 14 days for an operator to read or redrive (and raises the alarm of `monitor`); a dead-letter queue of its own would only move the same messages again.',
    });
    this.logoutQueue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: BACKCHANNEL_VISIBILITY_TIMEOUT,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: BACKCHANNEL_MAX_ATTEMPTS },
      removalPolicy: props.removalPolicy,
    });

    this.worker = new ServiceFunction(this, 'Worker', {
      name: BACKCHANNEL_FUNCTION,
      description: 'OpenID Connect Back-Channel Logout: delivers the logout tokens of ended sessions from the logout queue',
      configFile: props.configFile,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      tracing: props.tracing,
      withoutDeadLetterQueue:
        'Fed by the logout queue through an event source mapping (a synchronous invocation per batch): a message that fails BACKCHANNEL_MAX_ATTEMPTS times moves to the queue’s own dead-letter queue.',
      removalPolicy: props.removalPolicy,
      memorySize: BACKCHANNEL_MEMORY_MB,
      timeout: BACKCHANNEL_FUNCTION_TIMEOUT,
      environment: { SIGNING_KEYS_SECRET_ARN: props.signingKeysSecretArn },
      statements: (logGroupArn) => [
        allow('WriteOwnLogs', LOG_ACTIONS, logGroupArn),
        allow('ReadSecrets', [SECRET_READ_ACTION], props.signingKeysSecretArn),
        allow('ConsumeLogoutQueue', CONSUME_ACTIONS, this.logoutQueue.queueArn),
      ],
    });
    const mapping = this.worker.function.addEventSourceMapping('LogoutQueue', {
      eventSourceArn: this.logoutQueue.queueArn,
      batchSize: BACKCHANNEL_BATCH_SIZE,
      reportBatchItemFailures: true,
    });
    Validations.of(mapping).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        'An SQS event source keeps what fails in its queue: after BACKCHANNEL_MAX_ATTEMPTS receives the queue’s redrive policy moves the notice to the dead-letter queue, which is where an on-failure destination would put it.',
    });
  }

  /**
   * Lets `fn` queue logout notices: `sqs:SendMessage` on the queue in its one inline policy. Its
   * LOGOUT_QUEUE_URL, which lib/deps/logout-notifier.ts reads, comes with the variables its
   * declaration implies (lib/platform/env.ts `variablesOf`: `queues: ['logout']`).
   */
  grantNotify(fn: ServiceFunction): void {
    fn.policy.addStatements(allow('NotifyLogoutQueue', NOTIFY_ACTIONS, this.logoutQueue.queueArn));
  }

  /**
   * The worker's metrics and the dead-letter alarm, in the stack's monitoring. The metrics are a
   * count per BACKCHANNEL_LOG_EVENTS message (`backchannelMetricNameOf`), which the worker's own
   * log lines carry in Embedded Metric Format once it knows the stack's namespace
   * (lib/platform/log-metrics.ts): no metric filter. The alarm fires as soon as one notice is
   * dead-lettered (a relying party missed a logout and may still hold the session): a ticket, as
   * the logout itself stands and the notice waits 14 days for a redrive.
   */
  monitor(monitoring: { readonly namespace: string; notify(alarm: Alarm, severity: 'ticket'): void }): Alarm {
    this.worker.function.addEnvironment('POWERTOOLS_METRICS_NAMESPACE', monitoring.namespace);
    const alarm = new Alarm(this, 'DeadLettersAlarm', {
      alarmDescription:
        '[ticket] A back-channel logout token could not be delivered in its attempts: a relying party may still hold an ended session (docs/operations/alarms.md#backchannellogoutdeadletters)',
      metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // SQS sends the queue's metrics every few minutes, also when it is empty: no data is no dead letter.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    monitoring.notify(alarm, 'ticket');
    return alarm;
  }
}

function allow(sid: string, actions: readonly string[], resource: string): PolicyStatement {
  return new PolicyStatement({ sid, effect: Effect.ALLOW, actions: [...actions], resources: [resource] });
}
