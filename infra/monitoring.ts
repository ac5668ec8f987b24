/**
 * Operations: the service's metrics, its alarms in two severities, a monthly cost budget and a
 * dashboard. What each alarm means and what to do: docs/operations/alarms.md, which every alarm's
 * description links (a test checks that each link reaches a section).
 *
 * Metrics. The application's come from the functions' own log lines in CloudWatch Embedded Metric
 * Format (lib/platform/log-metrics.ts): no resource per metric. Metric filters, one per event and
 * API function log group, were 337 of a production stack's 493 resources, against CloudFormation's
 * 500 per stack. The one metric filter left counts 429s in the API's access logs: API Gateway
 * answers throttled requests itself, before any function logs, and its own `4XXError` does not tell
 * 429 from the other 4xx. The rest are AWS's: API Gateway, Lambda, DynamoDB, SES, SNS, WAF.
 *
 * Severities. `page` (users failing now, money or the sending reputation being lost) and `ticket`
 * (look within a working day), each its own SNS topic (`deployment.alarms.page` / `.ticket`), so
 * a pager integration subscribes to one and a mailbox or a ticket queue to the other. Every alarm
 * sends ALARM and OK to its severity's topic and nothing else. A notification SNS cannot deliver
 * to a stage's email subscription (after SNS's own retries) goes to one dead-letter queue, alarmed
 * at its first message, rather than being lost unseen.
 *
 * Rates, not counts, where traffic decides what is normal: the API's 5xx, 4xx and 429 as a percent
 * of its requests, failed deliveries as a percent of deliveries, each with a minimum of traffic
 * below which it does not alarm (metric math `IF`). Counts stay where one event is news (a bug, a
 * user reaching the failure cap) or where a surge is the signal (refused attempts, refused SMS).
 *
 * Latency per route: each route is served by one function (lib/platform/routes.ts), so a route's
 * p99 is its function's p99 `Duration`, which Lambda publishes at no cost, percentiles included.
 * API Gateway's per-method metrics (`metricsEnabled`) would say the same with the gateway's
 * overhead added, at the price of detailed metrics for every method; the stage's overall p99
 * `Latency` is on the dashboard.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { CfnBudget } from 'aws-cdk-lib/aws-budgets';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
  type IAlarm,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { DeployableStageConfig } from './stage-config';
import { metricNameOf, type LogEvent } from '../lib/platform/log-metrics';
import { FUNCTIONS, type FunctionSpec } from '../lib/platform/routes';

export { FIELD_METRICS, metricNameOf, type LogEvent } from '../lib/platform/log-metrics';

export type Severity = 'page' | 'ticket';

/** The runbook every alarm's description links to, by anchor. */
export const RUNBOOK = 'docs/operations/alarms.md';

const PERIOD = Duration.minutes(5);

/**
 * The daily SMS and voice budget alarm's threshold, in percent: early enough to raise the budget or
 * find the pumping before SMS and voice sends start failing.
 */
export const BUDGET_ALARM_PERCENT = 80;

/**
 * The alarm on numbers never seen before: this percent of an environment's daily budget spent on
 * them within one hour. An even day spends about 4% an hour; a quarter of the day in an hour is a
 * sweep (pumping, or a stranger spending the budget), hours before the budget runs out.
 */
export const NEW_NUMBERS_ALARM_PERCENT = 25;

/**
 * SES reputation: the account is placed under review at a bounce rate of 5% or a complaint rate of
 * 0.1%, and SES may pause its sending at 10% / 0.5% (Amazon SES Developer Guide, "Sending review
 * process FAQs"). The alarms fire at the review thresholds, while there is time to act.
 */
export const SES_BOUNCE_RATE = 0.05;
export const SES_COMPLAINT_RATE = 0.001;

/** Deliveries in 5 minutes below which the delivery and SMS failure rates do not alarm. */
export const MINIMUM_DELIVERIES = 10;
/** Invocations in 5 minutes below which a function's p99 does not alarm (a p99 of a handful is their maximum). */
export const MINIMUM_INVOCATIONS = 20;

/** SQS's longest retention: two weeks to read an alarm notification no mailbox took. */
export const UNDELIVERED_ALARMS_RETENTION = Duration.days(14);

/** The access-log metric of 429 answers (the only metric filter of the stack). */
export const TOO_MANY_REQUESTS_METRIC = 'TooManyRequests';

/** The budget notifications: actual spend at this percent, and the month's forecast above the budget. */
export const BUDGET_ACTUAL_PERCENT = 80;
export const BUDGET_FORECAST_PERCENT = 100;

/** The DynamoDB operations the functions call (their declarations), whose errors and throttles are alarmed. */
// The declarations name DynamoDB's operations as CDK's Operation enum spells them (GetItem, Query, …).
const TABLE_OPERATIONS = [
  ...new Set((Object.values(FUNCTIONS) as FunctionSpec[]).flatMap((spec) => spec.table)),
].sort() as string[] as Operation[];

export interface MonitoringProps {
  readonly stage: string;
  readonly alarms: DeployableStageConfig['deployment']['alarms'];
  /** The environments: each gets its own alarms on its daily SMS and voice budget (its size, messages a day). */
  readonly environments: ReadonlyArray<{ readonly id: string; readonly dailyPhoneBudget: number }>;
  readonly api: RestApi;
  /** The API's access log group (infra/api.ts ACCESS_LOG_FIELDS): its 429s are counted. */
  readonly accessLogs: ILogGroup;
  readonly table: ITable;
  /** The stage's web ACL name when it has one (infra/waf.ts): its blocked requests are alarmed. */
  readonly webAclName?: string;
  /** Every function, with its log group; `api` marks the functions behind routes. */
  readonly functions: ReadonlyArray<{
    readonly name: string;
    readonly function: IFunction;
    readonly logGroup: ILogGroup;
    readonly api: boolean;
  }>;
}

export class Monitoring extends Construct {
  readonly namespace: string;
  readonly topics: Readonly<Record<Severity, ITopic>>;
  readonly alarms: Alarm[] = [];
  /** Each alarm's severity, by the alarm. */
  readonly severities = new Map<IAlarm, Severity>();
  /**
   * The dead-letter queue of the topics' email subscriptions (`deployment.alarms.<severity>.email`):
   * the notifications SNS could not deliver. None when no severity has an email address.
   */
  undeliveredAlarms?: Queue;
  private readonly byFunction = new Map<string, { errors: Alarm; throttles: Alarm; latency?: Alarm }>();
  private readonly serviceAlarms: Alarm[] = [];

  /** The `page` topic: where the stack's `AlarmTopicArn` output points. */
  get topic(): ITopic {
    return this.topics.page;
  }

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.namespace = `Identity/${props.stage}`;
    const config = props.alarms;
    this.topics = {
      page: this.topicOf('page', 'AlarmTopic', config.page, props.stage),
      ticket: this.topicOf('ticket', 'TicketTopic', config.ticket, props.stage),
    };
    if (this.undeliveredAlarms !== undefined) {
      // A ticket: whichever mailbox failed, the other severity's may still take it, and the alarm
      // that was not delivered stays in ALARM on the console and the dashboard.
      this.alarm(
        'ticket',
        'AlarmsUndelivered',
        this.undeliveredAlarms.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
        1,
        {
          what: 'SNS could not deliver an alarm notification to its email subscription; it is in the dead-letter queue',
          anchor: 'alarmsundelivered',
        },
      );
    }

    const event = (name: LogEvent, period = PERIOD) =>
      new Metric({ namespace: this.namespace, metricName: metricNameOf(name), statistic: 'Sum', period });
    const stageMetric = (metricName: string, statistic = 'Sum') =>
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiName: props.api.restApiName, Stage: props.api.deploymentStage.stageName },
        statistic,
        period: PERIOD,
      });

    new MetricFilter(this, 'TooManyRequestsFilter', {
      logGroup: props.accessLogs,
      metricNamespace: this.namespace,
      metricName: TOO_MANY_REQUESTS_METRIC,
      // The access log writes every field as a string (infra/api.ts ACCESS_LOG_FIELDS).
      filterPattern: FilterPattern.stringValue('$.status', '=', '429'),
      metricValue: '1',
    });
    const tooManyRequests = new Metric({
      namespace: this.namespace,
      metricName: TOO_MANY_REQUESTS_METRIC,
      statistic: 'Sum',
      period: PERIOD,
    });

    const requests = stageMetric('Count');
    const percentOfRequests = (label: string, errors: IMetric) =>
      new MathExpression({
        expression: `IF(requests >= ${config.minimumRequests}, 100 * FILL(errors, 0) / requests, 0)`,
        usingMetrics: { errors, requests },
        period: PERIOD,
        label,
      });

    // The API.
    const api5xx = this.alarm(
      'page',
      'Api5xx',
      percentOfRequests('5xx (% of requests)', stageMetric('5XXError')),
      config.serverErrorPercent,
      {
        what: `${config.serverErrorPercent}%+ of the API's requests answered 5xx in 5 minutes (at ${config.minimumRequests}+ requests)`,
        anchor: 'api5xx',
      },
    );
    this.serviceAlarms.push(api5xx);
    this.alarm('ticket', 'Api4xx', percentOfRequests('4xx (% of requests)', stageMetric('4XXError')), config.clientErrorPercent, {
      what: `${config.clientErrorPercent}%+ of the API's requests answered 4xx in 5 minutes`,
      anchor: 'api4xx',
    });
    this.alarm('ticket', 'Api429', percentOfRequests('429 (% of requests)', tooManyRequests), config.throttledPercent, {
      what: `${config.throttledPercent}%+ of the API's requests answered 429 (stage throttling or the attempt limit) in 5 minutes`,
      anchor: 'api429',
    });

    // The application's events.
    const unhandled = this.alarm('page', 'UnhandledErrors', event('unhandledError'), 1, {
      what: 'A function met an error that is not one of ours: a bug',
      anchor: 'unhandlederrors',
    });
    this.serviceAlarms.push(unhandled);
    const deliveryRate = new MathExpression({
      expression: failurePercent('sent', 'failed'),
      usingMetrics: { sent: event('codeSent'), failed: event('deliveryFailed') },
      period: PERIOD,
      label: 'Deliveries failed (%)',
    });
    this.alarm('page', 'DeliveryFailures', deliveryRate, config.deliveryFailurePercent, {
      what: `${config.deliveryFailurePercent}%+ of deliveries refused by SES/SNS/voice in 5 minutes`,
      anchor: 'deliveryfailures',
    });
    this.alarm('ticket', 'AttemptsRefusedSurge', event('attemptRefused'), config.attemptsRefused, {
      what: `${config.attemptsRefused}+ attempts refused by the attempt limit (429) in 5 minutes`,
      anchor: 'attemptsrefusedsurge',
    });
    this.alarm('ticket', 'FailureCapReached', event('failureCapReached'), config.failureCapsReached, {
      what: `${config.failureCapsReached}+ users reached the cap on consecutive failed exchanges in 5 minutes: someone is guessing codes`,
      anchor: 'failurecapreached',
    });
    this.alarm('ticket', 'PhoneSendsRefusedSurge', event('phoneSendRefused'), config.phoneSendsRefused, {
      what: `${config.phoneSendsRefused}+ SMS or voice sends refused by the fraud guards in 5 minutes: SMS pumping, or a guard too tight for real traffic`,
      anchor: 'phonesendsrefusedsurge',
    });
    for (const { id: environment, dailyPhoneBudget } of props.environments) {
      this.alarm('page', `PhoneBudget-${environment}`, budgetUsed(this.namespace, environment), BUDGET_ALARM_PERCENT, {
        what: `Environment ${environment} has spent ${BUDGET_ALARM_PERCENT}% of its daily SMS and voice budget: at 100% SMS and voice sends answer 503 until the next UTC day for numbers never seen before`,
        anchor: 'phonebudget',
      });
      const threshold = Math.max(1, Math.ceil((dailyPhoneBudget * NEW_NUMBERS_ALARM_PERCENT) / 100));
      this.alarm(
        'page',
        `PhoneBudgetNewNumbers-${environment}`,
        new Metric({
          namespace: this.namespace,
          metricName: 'PhoneBudgetSpentByNewNumbers',
          dimensionsMap: { environment },
          statistic: 'Sum',
          period: Duration.hours(1),
        }),
        threshold,
        {
          what: `Environment ${environment} spent ${threshold}+ messages (${NEW_NUMBERS_ALARM_PERCENT}% of its daily SMS and voice budget) on numbers never seen before within an hour: a sweep`,
          anchor: 'phonebudgetnewnumbers',
        },
      );
    }
    this.alarm('ticket', 'DiscardFailed', event('discardFailed'), 1, {
      what: 'A failed send could not put back the previous code: a user may hold a dead code',
      anchor: 'discardfailed',
    });

    // The functions, and the account's concurrency they share.
    for (const fn of props.functions) {
      // A failing API function fails users: page. The rotation and the back-channel worker retry by themselves: ticket.
      const severity: Severity = fn.api ? 'page' : 'ticket';
      const errors = this.alarm(severity, `${fn.name}-Errors`, fn.function.metricErrors({ period: PERIOD, statistic: 'Sum' }), 1, {
        what: `${fn.name}: invocations failed (crash, timeout, init error)`,
        anchor: 'function-errors',
      });
      const throttles = this.alarm(severity, `${fn.name}-Throttles`, fn.function.metricThrottles({ period: PERIOD, statistic: 'Sum' }), 1, {
        what: `${fn.name}: invocations throttled by Lambda concurrency`,
        anchor: 'function-throttles',
      });
      let latency: Alarm | undefined;
      if (fn.api) {
        const p99 = new MathExpression({
          expression: `IF(invocations >= ${MINIMUM_INVOCATIONS}, p99, 0)`,
          usingMetrics: {
            p99: fn.function.metricDuration({ period: PERIOD, statistic: 'p99' }),
            invocations: fn.function.metricInvocations({ period: PERIOD, statistic: 'Sum' }),
          },
          period: PERIOD,
          label: `${fn.name} p99 (ms)`,
        });
        latency = this.alarm('ticket', `${fn.name}-LatencyP99`, p99, config.latencyP99Ms, {
          what: `${fn.name}: p99 duration ${config.latencyP99Ms}+ ms over 5 minutes (at ${MINIMUM_INVOCATIONS}+ invocations)`,
          anchor: 'function-latency',
        });
      }
      this.byFunction.set(fn.name, { errors, throttles, latency });
    }
    const concurrency = Math.floor((config.accountConcurrencyLimit * config.accountConcurrencyPercent) / 100);
    this.alarm(
      'page',
      'AccountConcurrency',
      new Metric({ namespace: 'AWS/Lambda', metricName: 'ConcurrentExecutions', statistic: 'Maximum', period: Duration.minutes(1) }),
      concurrency,
      {
        what: `The account's Lambda concurrency in the region reached ${concurrency} (${config.accountConcurrencyPercent}% of its quota of ${config.accountConcurrencyLimit})`,
        anchor: 'accountconcurrency',
      },
    );

    // DynamoDB: the table's throttles and AWS's own errors, over the operations the functions call.
    this.alarm(
      'page',
      'TableSystemErrors',
      props.table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD }),
      1,
      { what: 'DynamoDB answered the table with internal errors (HTTP 500)', anchor: 'tablesystemerrors' },
    );
    this.alarm(
      'ticket',
      'TableThrottles',
      props.table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD }),
      1,
      { what: 'DynamoDB throttled requests on the table', anchor: 'tablethrottles' },
    );

    // WAF.
    if (props.webAclName !== undefined) {
      this.alarm(
        'ticket',
        'WafBlocked',
        new Metric({
          namespace: 'AWS/WAFV2',
          metricName: 'BlockedRequests',
          dimensionsMap: { WebACL: props.webAclName, Region: Stack.of(this).region, Rule: 'ALL' },
          statistic: 'Sum',
          period: PERIOD,
        }),
        config.attemptsRefused,
        { what: `The web ACL blocked ${config.attemptsRefused}+ requests in 5 minutes`, anchor: 'wafblocked' },
      );
    }

    // SES: the account's sending reputation.
    const ses = (metricName: string) => new Metric({ namespace: 'AWS/SES', metricName, statistic: 'Maximum', period: Duration.hours(1) });
    this.alarm('page', 'SesBounceRate', ses('Reputation.BounceRate'), SES_BOUNCE_RATE, {
      what: `The SES account's bounce rate reached ${SES_BOUNCE_RATE * 100}%: SES reviews the account, and pauses it at 10%`,
      anchor: 'sesbouncerate',
    });
    this.alarm('page', 'SesComplaintRate', ses('Reputation.ComplaintRate'), SES_COMPLAINT_RATE, {
      what: `The SES account's complaint rate reached ${SES_COMPLAINT_RATE * 100}%: SES reviews the account, and pauses it at 0.5%`,
      anchor: 'sescomplaintrate',
    });

    // SNS: SMS published straight to phone numbers (dimension PhoneNumber = PhoneNumberDirect).
    const sms = (metricName: string) =>
      new Metric({
        namespace: 'AWS/SNS',
        metricName,
        dimensionsMap: { PhoneNumber: 'PhoneNumberDirect' },
        statistic: 'Sum',
        period: PERIOD,
      });
    this.alarm(
      'page',
      'SmsDeliveryFailures',
      new MathExpression({
        expression: failurePercent('delivered', 'failed'),
        usingMetrics: { delivered: sms('NumberOfNotificationsDelivered'), failed: sms('NumberOfNotificationsFailed') },
        period: PERIOD,
        label: 'SMS failed (%)',
      }),
      config.smsFailurePercent,
      { what: `${config.smsFailurePercent}%+ of SMS failed to reach the phone in 5 minutes`, anchor: 'smsdeliveryfailures' },
    );

    if (config.monthlyBudgetUsd !== undefined) this.budget(props.stage, config.monthlyBudgetUsd);

    const dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `Identity-${props.stage}`, defaultInterval: Duration.hours(24) });
    dashboard.addWidgets(
      new TextWidget({ markdown: `# Identity (${props.stage})\nAlarms: ${RUNBOOK}`, width: 24, height: 1 }),
      graph('API requests', [requests, tooManyRequests.with({ label: '429' })]),
      graph('API errors', [stageMetric('4XXError'), stageMetric('5XXError')]),
      graph('API latency (p50, p99)', [stageMetric('Latency', 'p50'), stageMetric('Latency', 'p99')]),
      graph('Codes', [event('codeSent'), event('deliveryFailed')]),
      graph('Tokens', [event('tokenIssued'), event('grantRefused'), event('refreshTokenReused'), event('tokenRevoked')]),
      graph('Refused and failed', [event('attemptRefused'), event('failureCapReached'), event('requestFailed'), event('unhandledError')]),
      graph('SMS and voice refused, by guard and country', [
        new MathExpression({
          expression: `SEARCH('{${this.namespace},country,guard} MetricName="PhoneSendRefused"', 'Sum', 300)`,
          period: PERIOD,
        }),
      ]),
      graph(
        'Daily SMS and voice budget used (%)',
        props.environments.map(({ id }) => budgetUsed(this.namespace, id).with({ label: id })),
      ),
      graph(
        'Function errors',
        props.functions.map((fn) => fn.function.metricErrors({ period: PERIOD, label: fn.name })),
      ),
      graph(
        'Function duration p99',
        props.functions.map((fn) => fn.function.metricDuration({ period: PERIOD, statistic: 'p99', label: fn.name })),
      ),
      graph(
        'Function throttles',
        props.functions.map((fn) => fn.function.metricThrottles({ period: PERIOD, label: fn.name })),
      ),
    );
  }

  /**
   * The alarms that roll back a deployment of `functionName` (infra/deploy-safety.ts; CodeDeploy
   * takes at most 10 per deployment group): the function's errors, throttles and p99, the API's 5xx
   * rate and unhandled errors (a new version's bug shows in either before its own errors do).
   */
  deploymentAlarms(functionName: string): IAlarm[] {
    const own = this.byFunction.get(functionName);
    if (own === undefined) throw new Error(`No function named ${functionName} is monitored`);
    return [own.errors, own.throttles, ...(own.latency === undefined ? [] : [own.latency]), ...this.serviceAlarms];
  }

  /**
   * Sends an alarm made elsewhere (infra/backchannel.ts) to its severity's topic and counts it among
   * the stack's alarms, so it follows the same rules (a severity, a runbook section).
   */
  notify(alarm: Alarm, severity: Severity): void {
    alarm.addAlarmAction(new SnsAction(this.topics[severity]));
    alarm.addOkAction(new SnsAction(this.topics[severity]));
    this.alarms.push(alarm);
    this.severities.set(alarm, severity);
  }

  private topicOf(severity: Severity, id: string, target: { email?: string; topicArn?: string }, stage: string): ITopic {
    if (target.topicArn !== undefined) return Topic.fromTopicArn(this, id, target.topicArn);
    const topic = new Topic(this, id, { displayName: `Identity ${stage} alarms (${severity})`, enforceSSL: true });
    if (target.email !== undefined) {
      // The subscription adds the queue policy statement that lets SNS send from this topic only
      // (`aws:SourceArn`). The queue is encrypted with SSE-SQS, whose keys SQS owns: the key policy
      // that the Amazon SNS Developer Guide asks of an encrypted dead-letter queue ("Amazon SNS
      // dead-letter queues") is that of an SSE-KMS key, and SSE-SQS has none to grant.
      topic.addSubscription(new EmailSubscription(target.email, { deadLetterQueue: this.undeliveredAlarmsQueue() }));
    }
    return topic;
  }

  /** The email subscriptions' one dead-letter queue, made with the first of them. */
  private undeliveredAlarmsQueue(): Queue {
    if (this.undeliveredAlarms !== undefined) return this.undeliveredAlarms;
    const queue = new Queue(this, 'UndeliveredAlarms', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: UNDELIVERED_ALARMS_RETENTION,
    });
    const reason =
      'This is the dead-letter queue of the alarm topics’ email subscriptions (their RedrivePolicy): an alarm notification SNS could not deliver stays 14 days for an operator to read, and raises the AlarmsUndelivered alarm; a dead-letter queue of its own would only move it again.';
    Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason }, { id: 'Serverless-SQSRedrivePolicy', reason });
    this.undeliveredAlarms = queue;
    return queue;
  }

  private alarm(
    severity: Severity,
    id: string,
    metric: IMetric,
    threshold: number,
    description: { readonly what: string; readonly anchor: string },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: `[${severity}] ${description.what} (${RUNBOOK}#${description.anchor})`,
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No data means nothing happened: no requests, no failures.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.notify(alarm, severity);
    return alarm;
  }

  /**
   * AWS Budgets: the account's monthly cost, a ticket at BUDGET_ACTUAL_PERCENT of it spent and when
   * the month's forecast passes it. Budgets publishes to the ticket topic, which must let
   * budgets.amazonaws.com publish (AWS Budgets User Guide, "Creating an Amazon SNS topic for budget
   * notifications"): the stack's own topic gets that statement; an existing topic needs it added.
   */
  private budget(stage: string, amountUsd: number): void {
    const topic = this.topics.ticket;
    if (topic instanceof Topic) {
      topic.addToResourcePolicy(
        new PolicyStatement({
          sid: 'BudgetsPublish',
          effect: Effect.ALLOW,
          principals: [new ServicePrincipal('budgets.amazonaws.com')],
          actions: ['sns:Publish'],
          resources: [topic.topicArn],
          conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
        }),
      );
    }
    const subscribers = [{ subscriptionType: 'SNS', address: topic.topicArn }];
    new CfnBudget(this, 'MonthlyBudget', {
      budget: {
        budgetName: `identity-${stage}`,
        budgetType: 'COST',
        timeUnit: 'MONTHLY',
        budgetLimit: { amount: amountUsd, unit: 'USD' },
      },
      notificationsWithSubscribers: [
        {
          notification: {
            notificationType: 'ACTUAL',
            comparisonOperator: 'GREATER_THAN',
            threshold: BUDGET_ACTUAL_PERCENT,
            thresholdType: 'PERCENTAGE',
          },
          subscribers,
        },
        {
          notification: {
            notificationType: 'FORECASTED',
            comparisonOperator: 'GREATER_THAN',
            threshold: BUDGET_FORECAST_PERCENT,
            thresholdType: 'PERCENTAGE',
          },
          subscribers,
        },
      ],
    });
  }
}

/**
 * The percent of `failed` among `succeeded` and `failed`, 0 below MINIMUM_DELIVERIES of them (a
 * period with no failure publishes no failure data point: FILL makes it 0).
 */
function failurePercent(succeeded: string, failed: string): string {
  const total = `(FILL(${succeeded}, 0) + FILL(${failed}, 0))`;
  return `IF(${total} >= ${MINIMUM_DELIVERIES}, 100 * FILL(${failed}, 0) / ${total}, 0)`;
}

/** How full an environment's daily SMS and voice budget is: the fullest shard's percent in the period. */
function budgetUsed(namespace: string, environment: string): Metric {
  return new Metric({
    namespace,
    metricName: 'PhoneBudgetUsedPercent',
    dimensionsMap: { environment },
    statistic: 'Maximum',
    period: PERIOD,
  });
}

function graph(title: string, metrics: IMetric[]): GraphWidget {
  return new GraphWidget({ title, left: metrics, width: 8, height: 6 });
}
