/**
 * Operations: metrics from the functions' JSON logs (metric filters on the exact messages of
 * lib/platform/log-events.ts, so a renamed message moves both sides), alarms to an SNS topic, and a
 * dashboard. What each alarm means and what to do: docs/operations/alarms.md.
 *
 * Every event is counted; a few also give metrics from fields of their lines (`FIELD_METRICS`):
 * the SMS fraud guards' refusals by guard and country, and how full each environment's daily SMS
 * and voice budget is (docs/decisions/008-sms-fraud-guards.md).
 */
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
  Unit,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type ILogGroup, type JsonPattern } from 'aws-cdk-lib/aws-logs';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { DeployableStageConfig } from './stage-config';
import { LOG_EVENTS } from '../lib/platform/log-events';

export type LogEvent = keyof typeof LOG_EVENTS;

/** The CloudWatch metric name of a log event: `deliveryFailed` → `DeliveryFailed`. */
export function metricNameOf(event: LogEvent): string {
  return event.charAt(0).toUpperCase() + event.slice(1);
}

const PERIOD = Duration.minutes(5);

/**
 * Metrics from the fields of an event's lines, beside its count. The fields are the ones the
 * domain logs (lib/guards/phone-guards.ts); the pattern matches only lines that carry every field
 * the metric reads (a number as a number), as CloudWatch requires of a value or a dimension taken
 * from the event.
 */
export const FIELD_METRICS: ReadonlyArray<{
  readonly id: string;
  readonly event: LogEvent;
  readonly metricName: string;
  readonly value: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly unit: Unit;
  readonly fields: () => JsonPattern[];
}> = [
  {
    id: 'ByGuardAndCountry',
    event: 'phoneSendRefused',
    // The same name as the event's count: the count is this metric without dimensions.
    metricName: 'PhoneSendRefused',
    value: '1',
    dimensions: { guard: '$.guard', country: '$.country' },
    unit: Unit.COUNT,
    fields: () => [FilterPattern.exists('$.guard'), FilterPattern.exists('$.country')],
  },
  {
    id: 'BudgetUsed',
    event: 'phoneBudgetSpent',
    metricName: 'PhoneBudgetUsedPercent',
    value: '$.usedPercent',
    dimensions: { environment: '$.environment' },
    unit: Unit.PERCENT,
    fields: () => [FilterPattern.numberValue('$.usedPercent', '>=', 0), FilterPattern.exists('$.environment')],
  },
  {
    // Every message the budget pays is one to a number that is not known (known numbers pass on an
    // allowance of their own: docs/decisions/012-known-numbers.md), so counting them by environment
    // is counting the budget spent by numbers never seen before.
    id: 'BudgetSpentByNewNumbers',
    event: 'phoneBudgetSpent',
    metricName: 'PhoneBudgetSpentByNewNumbers',
    value: '1',
    dimensions: { environment: '$.environment' },
    unit: Unit.COUNT,
    fields: () => [FilterPattern.exists('$.environment')],
  },
];

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

export interface MonitoringProps {
  readonly stage: string;
  readonly alarms: DeployableStageConfig['deployment']['alarms'];
  /** The environments: each gets its own alarms on its daily SMS and voice budget (its size, messages a day). */
  readonly environments: ReadonlyArray<{ readonly id: string; readonly dailyPhoneBudget: number }>;
  readonly api: RestApi;
  /** Every function, with its log group; `api` marks the functions behind routes (their logs carry LOG_EVENTS). */
  readonly functions: ReadonlyArray<{
    readonly name: string;
    readonly function: IFunction;
    readonly logGroup: ILogGroup;
    readonly api: boolean;
  }>;
}

export class Monitoring extends Construct {
  readonly namespace: string;
  readonly topic: ITopic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.namespace = `Identity/${props.stage}`;

    if (props.alarms.topicArn !== undefined) {
      this.topic = Topic.fromTopicArn(this, 'AlarmTopic', props.alarms.topicArn);
    } else {
      const topic = new Topic(this, 'AlarmTopic', { displayName: `Identity ${props.stage} alarms`, enforceSSL: true });
      if (props.alarms.email !== undefined) topic.addSubscription(new EmailSubscription(props.alarms.email));
      this.topic = topic;
    }

    // Every event on every API function's log group: all of them add up into one metric per event.
    const eventMetrics = {} as Record<LogEvent, Metric>;
    for (const event of Object.keys(LOG_EVENTS) as LogEvent[]) {
      for (const fn of props.functions.filter((candidate) => candidate.api)) {
        new MetricFilter(this, `${fn.name}-${event}`, {
          logGroup: fn.logGroup,
          metricNamespace: this.namespace,
          metricName: metricNameOf(event),
          filterPattern: FilterPattern.stringValue('$.message', '=', LOG_EVENTS[event]),
          metricValue: '1',
        });
      }
      eventMetrics[event] = new Metric({ namespace: this.namespace, metricName: metricNameOf(event), statistic: 'Sum', period: PERIOD });
    }
    for (const metric of FIELD_METRICS) {
      for (const fn of props.functions.filter((candidate) => candidate.api)) {
        new MetricFilter(this, `${fn.name}-${metric.event}-${metric.id}`, {
          logGroup: fn.logGroup,
          metricNamespace: this.namespace,
          metricName: metric.metricName,
          filterPattern: FilterPattern.all(FilterPattern.stringValue('$.message', '=', LOG_EVENTS[metric.event]), ...metric.fields()),
          metricValue: metric.value,
          dimensions: { ...metric.dimensions },
          unit: metric.unit,
        });
      }
    }

    const stageMetric = (metricName: string, statistic = 'Sum') =>
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiName: props.api.restApiName, Stage: props.api.deploymentStage.stageName },
        statistic,
        period: PERIOD,
      });
    const api5xx = stageMetric('5XXError');

    this.alarm(
      'Api5xx',
      api5xx,
      props.alarms.serverErrors,
      `API answered ${props.alarms.serverErrors}+ 5xx in 5 minutes (docs/operations/alarms.md#api5xx)`,
    );
    this.alarm(
      'UnhandledErrors',
      eventMetrics.unhandledError,
      1,
      'A function met an error that is not one of ours: a bug (docs/operations/alarms.md#unhandlederrors)',
    );
    this.alarm(
      'DeliveryFailures',
      eventMetrics.deliveryFailed,
      props.alarms.deliveryFailures,
      `${props.alarms.deliveryFailures}+ deliveries refused by SES/SNS/voice in 5 minutes (docs/operations/alarms.md#deliveryfailures)`,
    );
    this.alarm(
      'AttemptsRefusedSurge',
      eventMetrics.attemptRefused,
      props.alarms.attemptsRefused,
      `${props.alarms.attemptsRefused}+ attempts refused by the attempt limit (429) in 5 minutes (docs/operations/alarms.md#attemptsrefusedsurge)`,
    );
    this.alarm(
      'FailureCapReached',
      eventMetrics.failureCapReached,
      props.alarms.failureCapsReached,
      `${props.alarms.failureCapsReached}+ users reached the cap on consecutive failed exchanges in 5 minutes: someone is guessing codes (docs/operations/alarms.md#failurecapreached)`,
    );
    this.alarm(
      'PhoneSendsRefusedSurge',
      eventMetrics.phoneSendRefused,
      props.alarms.phoneSendsRefused,
      `${props.alarms.phoneSendsRefused}+ SMS or voice sends refused by the fraud guards in 5 minutes: SMS pumping, or a guard too tight for real traffic (docs/operations/alarms.md#phonesendsrefusedsurge)`,
    );
    for (const { id: environment, dailyPhoneBudget } of props.environments) {
      this.alarm(
        `PhoneBudget-${environment}`,
        budgetUsed(this.namespace, environment),
        BUDGET_ALARM_PERCENT,
        `Environment ${environment} has spent ${BUDGET_ALARM_PERCENT}% of its daily SMS and voice budget: at 100% SMS and voice sends answer 503 until the next UTC day for numbers never seen before (docs/operations/alarms.md#phonebudget)`,
      );
      const threshold = Math.max(1, Math.ceil((dailyPhoneBudget * NEW_NUMBERS_ALARM_PERCENT) / 100));
      this.alarm(
        `PhoneBudgetNewNumbers-${environment}`,
        new Metric({
          namespace: this.namespace,
          metricName: 'PhoneBudgetSpentByNewNumbers',
          dimensionsMap: { environment },
          statistic: 'Sum',
          period: Duration.hours(1),
        }),
        threshold,
        `Environment ${environment} spent ${threshold}+ messages (${NEW_NUMBERS_ALARM_PERCENT}% of its daily SMS and voice budget) on numbers never seen before within an hour: a sweep (docs/operations/alarms.md#phonebudgetnewnumbers)`,
      );
    }
    this.alarm(
      'DiscardFailed',
      eventMetrics.discardFailed,
      1,
      'A failed send could not put back the previous code: a user may hold a dead code (docs/operations/alarms.md#discardfailed)',
    );
    for (const fn of props.functions) {
      this.alarm(
        `${fn.name}-Errors`,
        fn.function.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        1,
        `${fn.name}: invocations failed (crash, timeout, init error) (docs/operations/alarms.md#function-errors)`,
      );
      this.alarm(
        `${fn.name}-Throttles`,
        fn.function.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
        1,
        `${fn.name}: invocations throttled by Lambda concurrency (docs/operations/alarms.md#function-throttles)`,
      );
    }

    const dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `Identity-${props.stage}`, defaultInterval: Duration.hours(24) });
    dashboard.addWidgets(
      new TextWidget({ markdown: `# Identity (${props.stage})\nAlarms: docs/operations/alarms.md`, width: 24, height: 1 }),
      graph('API requests', [stageMetric('Count')]),
      graph('API errors', [stageMetric('4XXError'), api5xx]),
      graph('API latency (p50, p99)', [stageMetric('Latency', 'p50'), stageMetric('Latency', 'p99')]),
      graph('Codes', [eventMetrics.codeSent, eventMetrics.deliveryFailed]),
      graph('Tokens', [eventMetrics.tokenIssued, eventMetrics.grantRefused, eventMetrics.refreshTokenReused, eventMetrics.tokenRevoked]),
      graph('Refused and failed', [
        eventMetrics.attemptRefused,
        eventMetrics.failureCapReached,
        eventMetrics.requestFailed,
        eventMetrics.unhandledError,
      ]),
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

  private alarm(id: string, metric: IMetric, threshold: number, description: string): void {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No data means nothing happened: no requests, no failures.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }
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
