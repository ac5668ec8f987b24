/**
 * An EventBridge rule that keeps the identity service's audit events in a CloudWatch Logs log
 * group (docs/operations/audit-events.md): the construct a platform team copies into its own app,
 * or adapts to send the events elsewhere (a SIEM's API destination, Firehose, an SQS queue).
 *
 * It imports nothing from the identity service, only aws-cdk-lib, so it can be copied as is. What
 * ties it to the service is two strings: the stage's bus name (`identity-<stage>`) and the events'
 * source (`identity.<stage>`), both set by infra/audit.ts.
 *
 * @example
 * ```ts
 * new AuditLogGroup(this, 'IdentityAudit', {
 *   eventBus: EventBus.fromEventBusName(this, 'IdentityBus', 'identity-prod'),
 *   source: 'identity.prod',
 * });
 * ```
 *
 * What EventBridge needs of a log group target (EventBridge User Guide, "Amazon EventBridge
 * targets", CloudWatch Logs): a name that starts with `/aws/events/`, and a resource policy that
 * lets EventBridge create streams and put events in it. CDK's own `CloudWatchLogGroup` target
 * writes that policy with a custom resource (a Lambda function); this one declares it as the
 * native `AWS::Logs::ResourcePolicy`, limited to this rule (`aws:SourceArn`).
 *
 * An event EventBridge still cannot deliver after its retries (24 hours, 185 attempts: a deleted
 * log group, a changed policy) goes to the rule's dead-letter queue rather than being dropped: an
 * audit trail should not lose events silently (EventBridge User Guide, "Using dead-letter queues to
 * process undelivered events"). It keeps them 14 days; each message says why it was not delivered
 * (`ERROR_CODE`, `ERROR_MESSAGE` attributes) and holds the event, to put back with `PutEvents`.
 */
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Rule, type IEventBus, type IRuleTarget } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, ResourcePolicy, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface AuditLogGroupProps {
  /** The identity stage's bus: `EventBus.fromEventBusName(this, 'Bus', 'identity-<stage>')` in another stack of the account and region. */
  readonly eventBus: IEventBus;
  /** The stage's events' source, `identity.<stage>`. */
  readonly source: string;
  /** Only these event types (`detail-type`, e.g. `login.completed`); absent: every one. */
  readonly types?: readonly string[];
  /** How long the events are kept. Default: one year. */
  readonly retention?: RetentionDays;
  /** Default: RETAIN (an audit trail outlives the stack that wrote it). */
  readonly removalPolicy?: RemovalPolicy;
}

export class AuditLogGroup extends Construct {
  readonly logGroup: LogGroup;
  readonly rule: Rule;
  /** What lets EventBridge write to the log group, for this rule only. */
  readonly policy: ResourcePolicy;
  /** The events EventBridge could not deliver to the log group. */
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: AuditLogGroupProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.logGroup = new LogGroup(this, 'Events', {
      logGroupName: `/aws/events/${props.source.replace(/[^A-Za-z0-9._-]/g, '-')}-audit`,
      retention: props.retention ?? RetentionDays.ONE_YEAR,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.rule = new Rule(this, 'Rule', {
      description: `The identity service's audit events (${props.source}) into ${this.logGroup.node.path}`,
      eventBus: props.eventBus,
      eventPattern: { source: [props.source], ...(props.types === undefined ? {} : { detailType: [...props.types] }) },
    });
    // The target names the log group without the `:*` of its `Arn` attribute, as EventBridge expects.
    // EventBridge's default retries (24 hours, 185 attempts) cover a log group that throttles.
    const logGroupArn = stack.formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: this.logGroup.logGroupName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.deadLetters = new Queue(this, 'Undelivered', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    const reason =
      'This is the dead-letter queue of the rule’s target (its DeadLetterConfig): an event EventBridge could not deliver stays 14 days to be read and put back; a dead-letter queue of its own would only move it again.';
    Validations.of(this.deadLetters).acknowledge({ id: 'AwsSolutions-SQS3', reason }, { id: 'Serverless-SQSRedrivePolicy', reason });
    // EventBridge sends to it as itself, for this rule only (aws:SourceArn).
    this.deadLetters.addToResourcePolicy(
      new PolicyStatement({
        actions: ['sqs:SendMessage'],
        principals: [new ServicePrincipal('events.amazonaws.com')],
        resources: [this.deadLetters.queueArn],
        conditions: { ArnEquals: { 'aws:SourceArn': this.rule.ruleArn } },
      }),
    );
    const target: IRuleTarget = { bind: () => ({ arn: logGroupArn, deadLetterConfig: { arn: this.deadLetters.queueArn } }) };
    this.rule.addTarget(target);
    this.policy = new ResourcePolicy(this, 'EventBridgeMayWrite', {
      policyStatements: [
        new PolicyStatement({
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          principals: [new ServicePrincipal('events.amazonaws.com'), new ServicePrincipal('delivery.logs.amazonaws.com')],
          resources: [this.logGroup.logGroupArn],
          conditions: { ArnEquals: { 'aws:SourceArn': this.rule.ruleArn } },
        }),
      ],
    });
  }
}
