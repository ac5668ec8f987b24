/**
 * Monitoring (infra/monitoring.ts) as synthesized: the metrics from the logs' Embedded Metric
 * Format instead of a metric filter per event and log group (the stack stays far under
 * CloudFormation's 500 resources), the alarms with their severities, topics, thresholds and runbook
 * links, the monthly budget, and the alarms that roll a deployment back. Synthesized without
 * bundling (test/infra/offline-synthesis.ts), with cdk-nag.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addStage } from '../../infra/app';
import { MASKED_PHONE_NUMBERS, SMS_DELIVERY_LOG_RETENTION, SMS_SUCCESS_SAMPLING_PERCENT } from '../../infra/delivery';
import { PROJECT_ROOT } from '../../infra/bundling';
import type { IdentityStack } from '../../infra/identity-stack';
import { loadStageFile } from '../../infra/stage';
import type { DeployableStageConfig } from '../../infra/stage-config';
import {
  BUDGET_ACTUAL_PERCENT,
  BUDGET_FORECAST_PERCENT,
  MINIMUM_INVOCATIONS,
  RUNBOOK,
  SES_BOUNCE_RATE,
  SES_COMPLAINT_RATE,
  TOO_MANY_REQUESTS_METRIC,
  UNDELIVERED_ALARMS_RETENTION,
} from '../../infra/monitoring';
import { FUNCTIONS, type FunctionSpec } from '../../lib/platform/routes';
import { logicalId, newApp, ofType, templateOf, type Json, type TemplateJson } from './offline-synthesis';
import { productionConfigDir } from './production-stage';

const API_FUNCTIONS = (Object.values(FUNCTIONS) as FunctionSpec[]).map((spec) => spec.name);
/** CloudFormation's limit on a stack's resources, and the headroom kept under it (docs/operations/capacity.md). */
const RESOURCE_BUDGET = 400;

interface Synthesized {
  readonly stack: IdentityStack;
  readonly json: TemplateJson;
  readonly config: DeployableStageConfig;
}

function synthesizeStage(stage: string, configDir?: string): Synthesized {
  const stack = addStage(newApp(configDir === undefined ? {} : { configDir }), stage);
  return { stack, json: templateOf(stack), config: loadStageFile(stage, configDir).config };
}

/** The filled-in production stage file, changed by `change`, in a directory of its own. */
function productionWith(change: (file: Json & { deployment: { alarms: Json } }) => void): string {
  const file = JSON.parse(readFileSync(join(productionConfigDir(), 'prod.json'), 'utf8')) as Json & { deployment: { alarms: Json } };
  change(file);
  const dir = mkdtempSync(join(tmpdir(), 'identity-monitoring-'));
  writeFileSync(join(dir, 'prod.json'), JSON.stringify(file));
  return dir;
}

type AlarmProperties = Json & {
  AlarmDescription: string;
  Namespace?: string;
  Dimensions?: unknown;
  AlarmActions: unknown[];
  OKActions: unknown[];
  Threshold: number;
  Metrics?: Array<{ Id: string; Expression?: string; MetricStat?: { Metric: Json; Stat: string }; ReturnData?: boolean }>;
};
const alarmsOf = (json: TemplateJson) =>
  ofType(json, 'AWS::CloudWatch::Alarm').map(([id, alarm]) => ({ id, ...(alarm.Properties as AlarmProperties) }));
/** The alarm whose logical id starts with Monitoring + `name` (construct ids without dashes: `otp-send-Errors` → `MonitoringotpsendErrors…`). */
function alarmNamed(json: TemplateJson, name: string): AlarmProperties {
  const prefix = `Monitoring${name.replace(/[^A-Za-z0-9]/g, '')}`;
  const found = alarmsOf(json).filter((alarm) => alarm.id.startsWith(prefix) && /^[0-9A-F]{8}$/.test(alarm.id.slice(prefix.length)));
  expect({ name, count: found.length }).toEqual({ name, count: 1 });
  return found[0]!;
}
const expressionOf = (alarm: AlarmProperties) => alarm.Metrics?.find((metric) => metric.ReturnData !== false)?.Expression;
const metricsOf = (alarm: AlarmProperties) =>
  Object.fromEntries(
    (alarm.Metrics ?? []).filter((metric) => metric.MetricStat !== undefined).map((metric) => [metric.Id, metric.MetricStat!]),
  );

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
function anchorsIn(file: string): Set<string> {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

describe('a production stage', () => {
  let prod: Synthesized;
  const config = () => prod.config.deployment.alarms;
  const resolve = (value: unknown) => prod.stack.resolve(value) as unknown;
  const pageTopic = () => resolve(prod.stack.monitoring.topics.page.topicArn);
  const ticketTopic = () => resolve(prod.stack.monitoring.topics.ticket.topicArn);

  beforeAll(() => {
    prod = synthesizeStage('prod', productionConfigDir());
  }, 180_000);

  describe('metrics', () => {
    it(`stays under ${RESOURCE_BUDGET} resources (CloudFormation allows 500 per stack): no metric filter per log event`, () => {
      expect(Object.keys(prod.json.Resources).length).toBeLessThan(RESOURCE_BUDGET);
    });

    it('filters no function’s log group: the functions’ lines carry their metrics, and the one filter counts the 429s of the access logs', () => {
      const functionGroups = new Set(
        [...Object.values(prod.stack.functions), prod.stack.backchannel.worker].map((fn) => logicalId(prod.stack, fn.logGroup)),
      );
      const filters = ofType(prod.json, 'AWS::Logs::MetricFilter').map(([, filter]) => filter.Properties);
      expect(filters.filter((filter) => functionGroups.has((filter.LogGroupName as { Ref: string }).Ref))).toEqual([]);
      expect(
        filters.filter((filter) => (filter.LogGroupName as { Ref: string }).Ref === logicalId(prod.stack, prod.stack.api.accessLogs)),
      ).toEqual([
        {
          LogGroupName: { Ref: logicalId(prod.stack, prod.stack.api.accessLogs) },
          FilterPattern: '{ $.status = "429" }',
          MetricTransformations: [{ MetricNamespace: 'Identity/prod', MetricName: TOO_MANY_REQUESTS_METRIC, MetricValue: '1' }],
        },
      ]);
    });

    it('gives every function that logs events (the API functions and the back-channel worker) the namespace its lines’ metrics go to', () => {
      for (const fn of [...Object.values(prod.stack.functions), prod.stack.backchannel.worker]) {
        const variables = (prod.json.Resources[logicalId(prod.stack, fn.function)]!.Properties.Environment as { Variables: Json })
          .Variables;
        expect({ fn: fn.function.node.path, namespace: variables.POWERTOOLS_METRICS_NAMESPACE }).toEqual({
          fn: fn.function.node.path,
          namespace: 'Identity/prod',
        });
      }
    });
  });

  describe('alarms', () => {
    it('sends every alarm’s ALARM and OK to one severity’s topic, page or ticket, and each of Monitoring’s says its severity first', () => {
      const topics = [pageTopic(), ticketTopic()];
      for (const alarm of alarmsOf(prod.json)) {
        expect({ id: alarm.id, actions: alarm.AlarmActions.length, ok: alarm.OKActions }).toEqual({
          id: alarm.id,
          actions: 1,
          ok: alarm.AlarmActions,
        });
        expect(topics).toContainEqual(alarm.AlarmActions[0]);
      }
      for (const alarm of prod.stack.monitoring.alarms) {
        const severity = prod.stack.monitoring.severities.get(alarm)!;
        const properties = prod.json.Resources[logicalId(prod.stack, alarm)]!.Properties as AlarmProperties;
        expect(properties.AlarmDescription.startsWith(`[${severity}] `)).toBe(true);
        expect(properties.AlarmActions).toEqual([severity === 'page' ? pageTopic() : ticketTopic()]);
      }
    });

    it('links every alarm to a section of its runbook that exists', () => {
      for (const alarm of alarmsOf(prod.json)) {
        const link = /\((docs\/[\w/.-]+\.md)#([\w-]+)\)$/.exec(alarm.AlarmDescription);
        expect({ id: alarm.id, link: link?.[0] }).toEqual({ id: alarm.id, link: expect.any(String) });
        expect(existsSync(join(PROJECT_ROOT, link![1]!))).toBe(true);
        expect({ id: alarm.id, anchor: anchorsIn(link![1]!).has(link![2]!) ? link![2] : `missing #${link![2]}` }).toEqual({
          id: alarm.id,
          anchor: link![2],
        });
      }
      // Monitoring's own all link the alarms runbook.
      for (const alarm of prod.stack.monitoring.alarms) {
        expect((prod.json.Resources[logicalId(prod.stack, alarm)]!.Properties as AlarmProperties).AlarmDescription).toContain(
          `(${RUNBOOK}#`,
        );
      }
    });

    it('dead-letters what SNS cannot deliver to either address into one queue (SSE, TLS only, 14 days) that only the two topics may send to', () => {
      const queueId = logicalId(prod.stack, prod.stack.monitoring.undeliveredAlarms!);
      const subscriptions = ofType(prod.json, 'AWS::SNS::Subscription').map(([, subscription]) => subscription.Properties);
      expect(subscriptions).toHaveLength(2);
      for (const subscription of subscriptions) {
        expect(subscription.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [queueId, 'Arn'] } });
      }
      expect(prod.json.Resources[queueId]!.Properties).toEqual({
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: UNDELIVERED_ALARMS_RETENTION.toSeconds(),
      });
      expect(UNDELIVERED_ALARMS_RETENTION.toSeconds()).toBe(14 * 86_400);
      const statements = ofType(prod.json, 'AWS::SQS::QueuePolicy')
        .filter(([, policy]) => JSON.stringify(policy.Properties.Queues).includes(`"${queueId}"`))
        .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Json[] }).Statement);
      expect(statements.filter((statement) => statement.Effect === 'Deny').map((statement) => statement.Condition)).toEqual([
        { Bool: { 'aws:SecureTransport': 'false' } },
      ]);
      expect(
        statements
          .filter((statement) => statement.Effect === 'Allow')
          .map((statement) => ({ ...statement, Condition: (statement.Condition as { ArnEquals: Json }).ArnEquals['aws:SourceArn'] })),
      ).toEqual(
        [pageTopic(), ticketTopic()].map((topic) => ({
          Action: 'sqs:SendMessage',
          Effect: 'Allow',
          Principal: { Service: 'sns.amazonaws.com' },
          Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
          Condition: topic,
        })),
      );
      const alarm = alarmNamed(prod.json, 'AlarmsUndelivered');
      expect(alarm).toMatchObject({ Namespace: 'AWS/SQS', Threshold: 1, AlarmActions: [ticketTopic()] });
    });

    it('subscribes each severity’s address to its own topic', () => {
      const subscriptions = ofType(prod.json, 'AWS::SNS::Subscription').map(([, subscription]) => subscription.Properties);
      expect(subscriptions).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ Protocol: 'email', Endpoint: config().page.email, TopicArn: pageTopic() }),
          expect.objectContaining({ Protocol: 'email', Endpoint: config().ticket.email, TopicArn: ticketTopic() }),
        ]),
      );
      expect(pageTopic()).not.toEqual(ticketTopic());
      expect(prod.json.Outputs?.AlarmTopicArn?.Value).toEqual(pageTopic());
      expect(prod.json.Outputs?.TicketTopicArn?.Value).toEqual(ticketTopic());
    });

    it('pages on the API’s 5xx as a percent of its requests, only above the minimum traffic', () => {
      const alarm = alarmNamed(prod.json, 'Api5xx');
      expect(alarm.AlarmActions).toEqual([pageTopic()]);
      expect(alarm.Threshold).toBe(config().serverErrorPercent);
      expect(expressionOf(alarm)).toBe(`IF(requests >= ${config().minimumRequests}, 100 * FILL(errors, 0) / requests, 0)`);
      const metrics = metricsOf(alarm);
      expect(metrics.errors?.Metric).toMatchObject({ Namespace: 'AWS/ApiGateway', MetricName: '5XXError' });
      expect(metrics.requests?.Metric).toMatchObject({ Namespace: 'AWS/ApiGateway', MetricName: 'Count' });
      expect(metrics.errors?.Stat).toBe('Sum');
    });

    it('raises tickets on the 4xx rate and on the 429 rate (from the access logs), both guarded by the minimum traffic', () => {
      const api4xx = alarmNamed(prod.json, 'Api4xx');
      expect(api4xx.AlarmActions).toEqual([ticketTopic()]);
      expect(api4xx.Threshold).toBe(config().clientErrorPercent);
      expect(metricsOf(api4xx).errors?.Metric).toMatchObject({ MetricName: '4XXError' });
      const api429 = alarmNamed(prod.json, 'Api429');
      expect(api429.AlarmActions).toEqual([ticketTopic()]);
      expect(api429.Threshold).toBe(config().throttledPercent);
      expect(metricsOf(api429).errors?.Metric).toMatchObject({ Namespace: 'Identity/prod', MetricName: TOO_MANY_REQUESTS_METRIC });
      for (const alarm of [api4xx, api429]) expect(expressionOf(alarm)).toContain(`IF(requests >= ${config().minimumRequests},`);
    });

    it('pages on failed deliveries as a percent of deliveries, and on SMS SNS could not deliver, each above ten', () => {
      const deliveries = alarmNamed(prod.json, 'DeliveryFailures');
      expect(deliveries.AlarmActions).toEqual([pageTopic()]);
      expect(deliveries.Threshold).toBe(config().deliveryFailurePercent);
      expect(expressionOf(deliveries)).toBe(
        'IF((FILL(sent, 0) + FILL(failed, 0)) >= 10, 100 * FILL(failed, 0) / (FILL(sent, 0) + FILL(failed, 0)), 0)',
      );
      expect(metricsOf(deliveries).sent?.Metric).toMatchObject({ Namespace: 'Identity/prod', MetricName: 'CodeSent' });
      expect(metricsOf(deliveries).failed?.Metric).toMatchObject({ Namespace: 'Identity/prod', MetricName: 'DeliveryFailed' });

      const sms = alarmNamed(prod.json, 'SmsDeliveryFailures');
      expect(sms.AlarmActions).toEqual([pageTopic()]);
      expect(sms.Threshold).toBe(config().smsFailurePercent);
      expect(metricsOf(sms).failed?.Metric).toEqual({
        Namespace: 'AWS/SNS',
        MetricName: 'NumberOfNotificationsFailed',
        Dimensions: [{ Name: 'PhoneNumber', Value: 'PhoneNumberDirect' }],
      });
      expect(metricsOf(sms).delivered?.Metric).toMatchObject({ MetricName: 'NumberOfNotificationsDelivered' });
    });

    it('pages at SES’s review thresholds: a 5% bounce rate and a 0.1% complaint rate', () => {
      for (const [name, metric, threshold] of [
        ['SesBounceRate', 'Reputation.BounceRate', SES_BOUNCE_RATE],
        ['SesComplaintRate', 'Reputation.ComplaintRate', SES_COMPLAINT_RATE],
      ] as const) {
        expect(alarmNamed(prod.json, name)).toMatchObject({
          Namespace: 'AWS/SES',
          MetricName: metric,
          Statistic: 'Maximum',
          Threshold: threshold,
          AlarmActions: [pageTopic()],
        });
      }
      expect([SES_BOUNCE_RATE, SES_COMPLAINT_RATE]).toEqual([0.05, 0.001]);
    });

    it('alarms on each API function’s p99 above the minimum invocations, and on every function’s errors and throttles: page for the API’s, ticket for the others', () => {
      for (const name of API_FUNCTIONS) {
        const latency = alarmNamed(prod.json, `${name}-LatencyP99`);
        expect(latency.AlarmActions).toEqual([ticketTopic()]);
        expect(latency.Threshold).toBe(config().latencyP99Ms);
        expect(expressionOf(latency)).toBe(`IF(invocations >= ${MINIMUM_INVOCATIONS}, p99, 0)`);
        expect(metricsOf(latency).p99).toMatchObject({ Metric: { Namespace: 'AWS/Lambda', MetricName: 'Duration' }, Stat: 'p99' });
        for (const kind of ['Errors', 'Throttles']) expect(alarmNamed(prod.json, `${name}-${kind}`).AlarmActions).toEqual([pageTopic()]);
      }
      for (const name of ['rotate-signing-keys', 'backchannel-logout']) {
        for (const kind of ['Errors', 'Throttles']) expect(alarmNamed(prod.json, `${name}-${kind}`).AlarmActions).toEqual([ticketTopic()]);
      }
      expect(alarmsOf(prod.json).filter((alarm) => alarm.id.includes('LatencyP99'))).toHaveLength(API_FUNCTIONS.length);
    });

    it('pages when the account’s Lambda concurrency reaches the configured share of its quota', () => {
      expect(alarmNamed(prod.json, 'AccountConcurrency')).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'ConcurrentExecutions',
        Statistic: 'Maximum',
        Period: 60,
        Threshold: Math.floor((config().accountConcurrencyLimit * config().accountConcurrencyPercent) / 100),
        AlarmActions: [pageTopic()],
      });
      expect(alarmNamed(prod.json, 'AccountConcurrency').Dimensions).toBeUndefined();
    });

    it('alarms on the table’s system errors (page) and throttles (ticket), over every operation the functions call', () => {
      const operations = [...new Set((Object.values(FUNCTIONS) as FunctionSpec[]).flatMap((spec) => spec.table))].sort();
      for (const [name, metricName, topic] of [
        ['TableSystemErrors', 'SystemErrors', pageTopic()],
        ['TableThrottles', 'ThrottledRequests', ticketTopic()],
      ] as const) {
        const alarm = alarmNamed(prod.json, name);
        expect(alarm.AlarmActions).toEqual([topic]);
        expect(alarm.Threshold).toBe(1);
        const metrics = Object.values(metricsOf(alarm)).map((stat) => stat.Metric);
        expect(metrics.map((metric) => metric.MetricName)).toEqual(operations.map(() => metricName));
        expect(
          metrics
            .map((metric) => (metric.Dimensions as Array<{ Name: string; Value: unknown }>).find((d) => d.Name === 'Operation')?.Value)
            .sort(),
        ).toEqual(operations);
        expect(metrics.length).toBeLessThanOrEqual(10);
      }
    });

    it('raises a ticket when the web ACL blocks a surge of requests', () => {
      expect(alarmNamed(prod.json, 'WafBlocked')).toMatchObject({
        Namespace: 'AWS/WAFV2',
        MetricName: 'BlockedRequests',
        Threshold: config().attemptsRefused,
        AlarmActions: [ticketTopic()],
      });
      const dimensions = alarmNamed(prod.json, 'WafBlocked').Dimensions as Array<{ Name: string; Value: unknown }>;
      expect(dimensions).toEqual(
        expect.arrayContaining([
          { Name: 'WebACL', Value: 'identity-prod' },
          { Name: 'Rule', Value: 'ALL' },
        ]),
      );
      const [, acl] = ofType(prod.json, 'AWS::WAFv2::WebACL')[0]!;
      expect(acl.Properties.Name).toBe('identity-prod');
    });

    it('keeps the application’s alarms on the metrics the log lines carry, with the same names and dimensions', () => {
      const namespace = 'Identity/prod';
      expect(alarmNamed(prod.json, 'UnhandledErrors')).toMatchObject({
        Namespace: namespace,
        MetricName: 'UnhandledError',
        Threshold: 1,
        AlarmActions: [pageTopic()],
      });
      expect(alarmNamed(prod.json, 'AttemptsRefusedSurge')).toMatchObject({
        MetricName: 'AttemptRefused',
        Threshold: config().attemptsRefused,
      });
      expect(alarmNamed(prod.json, 'FailureCapReached')).toMatchObject({
        MetricName: 'FailureCapReached',
        Threshold: config().failureCapsReached,
      });
      expect(alarmNamed(prod.json, 'DiscardFailed')).toMatchObject({
        MetricName: 'DiscardFailed',
        Threshold: 1,
        AlarmActions: [ticketTopic()],
      });
      const refused = alarmNamed(prod.json, 'PhoneSendsRefusedSurge');
      expect(refused).toMatchObject({ MetricName: 'PhoneSendRefused', Statistic: 'Sum', Threshold: config().phoneSendsRefused });
      expect(refused.Dimensions).toBeUndefined();
      for (const environment of prod.config.environments) {
        expect(alarmNamed(prod.json, `PhoneBudget-${environment.id}`)).toMatchObject({
          MetricName: 'PhoneBudgetUsedPercent',
          Dimensions: [{ Name: 'environment', Value: environment.id }],
          Statistic: 'Maximum',
          Threshold: 80,
          AlarmActions: [pageTopic()],
        });
        expect(alarmNamed(prod.json, `PhoneBudgetNewNumbers-${environment.id}`)).toMatchObject({
          MetricName: 'PhoneBudgetSpentByNewNumbers',
          Dimensions: [{ Name: 'environment', Value: environment.id }],
          Statistic: 'Sum',
          Period: 3600,
          Threshold: Math.ceil(environment.limits.dailyPhoneBudget.maxMessages / 4),
        });
      }
    });

    it('raises a ticket, not a page, at the first message of each dead-letter queue: back-channel logout, audit forwarder, undelivered alarms', () => {
      const deadLetters = alarmsOf(prod.json).filter((candidate) => candidate.Namespace === 'AWS/SQS');
      const queues = [prod.stack.backchannel.deadLetters, prod.stack.audit.deadLetters, prod.stack.monitoring.undeliveredAlarms!];
      expect(deadLetters.map((alarm) => JSON.stringify(alarm.Dimensions)).sort()).toEqual(
        queues
          .map((queue) => JSON.stringify([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(prod.stack, queue), 'QueueName'] } }]))
          .sort(),
      );
      for (const alarm of deadLetters) {
        expect(alarm).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1, AlarmActions: [ticketTopic()] });
      }
    });
  });

  describe('SMS delivery status logging', () => {
    it('turns it on with the account’s SMS settings: a role SNS assumes, writing only to two log groups the stack keeps a month', () => {
      const [, settings] = ofType(prod.json, 'Custom::AWS').find(([id]) => id.includes('SmsAccountSettings'))!;
      // The call is a JSON string joined with the role's ARN: read it without its escapes.
      const text = JSON.stringify(settings.Properties.Update).replace(/\\/g, '');
      expect(text).toContain('SetSMSAttributes');
      expect(text).toContain(`"DeliveryStatusSuccessSamplingRate":"${SMS_SUCCESS_SAMPLING_PERCENT}"`);
      expect(text).toContain('DeliveryStatusIAMRole');

      const roles = ofType(prod.json, 'AWS::IAM::Role').filter(([id]) => id.includes('SmsDeliveryStatusRole'));
      expect(roles).toHaveLength(1);
      const [roleId, role] = roles[0]!;
      expect(JSON.stringify(settings.Properties.Update)).toContain(roleId);
      expect((role.Properties.AssumeRolePolicyDocument as { Statement: Json[] }).Statement).toEqual([
        expect.objectContaining({
          Principal: { Service: 'sns.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        }),
      ]);
      const groups = ofType(prod.json, 'AWS::Logs::LogGroup').filter(([id]) => id.includes('SmsDeliveryStatusLogs'));
      expect(groups.map(([, group]) => JSON.stringify(group.Properties.LogGroupName))).toEqual([
        expect.stringMatching(/sns\/.*DirectPublishToPhoneNumber"\]\]\}$/),
        expect.stringMatching(/sns\/.*DirectPublishToPhoneNumber\/Failure"\]\]\}$/),
      ]);
      for (const [, group] of groups) {
        expect(group.Properties.RetentionInDays).toBe(Math.min(prod.config.deployment.logRetentionDays, SMS_DELIVERY_LOG_RETENTION));
        // SNS's lines name the destination: every number CloudWatch can recognise is masked.
        const policy = JSON.stringify(group.Properties.DataProtectionPolicy);
        for (const identifier of MASKED_PHONE_NUMBERS) expect(policy).toContain(`data-identifier/${identifier.name}`);
        expect(policy).toContain('"Deidentify"');
      }
      // Delivered messages are not logged at all: only failures, which an alarm asks to investigate.
      expect(SMS_SUCCESS_SAMPLING_PERCENT).toBe(0);
      const statements = (role.Properties.Policies as Array<{ PolicyDocument: { Statement: Json[] } }>).flatMap(
        (policy) => policy.PolicyDocument.Statement,
      );
      expect(statements).toEqual([
        expect.objectContaining({
          Action: ['logs:CreateLogStream', 'logs:DescribeLogStreams', 'logs:PutLogEvents'],
          Resource: groups.map(([id]) => ({ 'Fn::GetAtt': [id, 'Arn'] })),
        }),
      ]);
      // The custom resource may pass that role, and no other.
      const passRole = ofType(prod.json, 'AWS::IAM::Policy')
        .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Json[] }).Statement)
        .filter((statement) => statement.Action === 'iam:PassRole');
      expect(passRole).toEqual([expect.objectContaining({ Resource: { 'Fn::GetAtt': [roleId, 'Arn'] } })]);
    });
  });

  describe('the monthly budget', () => {
    it('notifies the ticket topic at 80% of the budget spent and when the month’s forecast passes it', () => {
      const budgets = ofType(prod.json, 'AWS::Budgets::Budget').map(([, budget]) => budget.Properties);
      const subscribers = [{ SubscriptionType: 'SNS', Address: ticketTopic() }];
      expect(budgets).toEqual([
        {
          Budget: {
            BudgetName: 'identity-prod',
            BudgetType: 'COST',
            TimeUnit: 'MONTHLY',
            BudgetLimit: { Amount: config().monthlyBudgetUsd, Unit: 'USD' },
          },
          NotificationsWithSubscribers: [
            {
              Notification: {
                NotificationType: 'ACTUAL',
                ComparisonOperator: 'GREATER_THAN',
                Threshold: BUDGET_ACTUAL_PERCENT,
                ThresholdType: 'PERCENTAGE',
              },
              Subscribers: subscribers,
            },
            {
              Notification: {
                NotificationType: 'FORECASTED',
                ComparisonOperator: 'GREATER_THAN',
                Threshold: BUDGET_FORECAST_PERCENT,
                ThresholdType: 'PERCENTAGE',
              },
              Subscribers: subscribers,
            },
          ],
        },
      ]);
    });

    it('lets AWS Budgets publish to the ticket topic, for this account only, and to no other topic', () => {
      const policies = ofType(prod.json, 'AWS::SNS::TopicPolicy').map(([, policy]) => policy.Properties);
      const budgetStatements = policies.flatMap((policy) =>
        (policy.PolicyDocument as { Statement: Json[] }).Statement.filter((statement) =>
          JSON.stringify(statement.Principal).includes('budgets'),
        ).map((statement) => ({ topics: policy.Topics, statement })),
      );
      expect(budgetStatements).toEqual([
        {
          topics: [ticketTopic()],
          statement: {
            Sid: 'BudgetsPublish',
            Effect: 'Allow',
            Principal: { Service: 'budgets.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: ticketTopic(),
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          },
        },
      ]);
    });
  });

  describe('deploymentAlarms', () => {
    it('rolls a deployment back on the function’s errors, throttles and p99, the API’s 5xx rate and unhandled errors: at most CodeDeploy’s 10', () => {
      for (const name of API_FUNCTIONS) {
        const alarms = prod.stack.monitoring.deploymentAlarms(name);
        const ids = alarms.map((alarm) => alarm.node.id);
        expect(ids).toEqual([`${name}-Errors`, `${name}-Throttles`, `${name}-LatencyP99`, 'Api5xx', 'UnhandledErrors']);
        expect(alarms.length).toBeLessThanOrEqual(10);
      }
    });

    it('refuses a function it does not monitor', () => {
      expect(() => prod.stack.monitoring.deploymentAlarms('no-such-function')).toThrow('No function named no-such-function is monitored');
    });
  });
});

describe('a stage without a budget, with existing topics and no WAF (dev)', () => {
  let dev: Synthesized;
  const PAGE = 'arn:aws:sns:eu-west-1:210987654321:pager';
  const TICKET = 'arn:aws:sns:eu-west-1:210987654321:tickets';

  beforeAll(() => {
    dev = synthesizeStage('dev');
  }, 180_000);

  it('has no budget and no WAF alarm', () => {
    expect(ofType(dev.json, 'AWS::Budgets::Budget')).toEqual([]);
    expect(alarmsOf(dev.json).filter((alarm) => alarm.Namespace === 'AWS/WAFV2')).toEqual([]);
    expect(Object.keys(dev.json.Resources).length).toBeLessThan(RESOURCE_BUDGET);
  });

  it('sends the alarms to existing topics when the stage names them, creating none', () => {
    const dir = productionWith((file) => {
      file.deployment.alarms.page = { topicArn: PAGE };
      file.deployment.alarms.ticket = { topicArn: TICKET };
      delete file.deployment.alarms.monthlyBudgetUsd;
    });
    const stage = synthesizeStage('prod', dir);
    expect(ofType(stage.json, 'AWS::SNS::Topic')).toEqual([]);
    // No subscription of the stack's, so no queue for what SNS cannot deliver, and no alarm on one.
    expect(stage.stack.monitoring.undeliveredAlarms).toBeUndefined();
    expect(alarmsOf(stage.json).filter((alarm) => alarm.id.includes('AlarmsUndelivered'))).toEqual([]);
    const actions = new Set(alarmsOf(stage.json).flatMap((alarm) => alarm.AlarmActions));
    expect([...actions].sort()).toEqual([PAGE, TICKET]);
    expect(alarmNamed(stage.json, 'Api5xx').AlarmActions).toEqual([PAGE]);
    expect(alarmNamed(stage.json, 'Api4xx').AlarmActions).toEqual([TICKET]);
  }, 180_000);
});
