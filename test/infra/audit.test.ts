/**
 * Audit events on AWS (infra/audit.ts): the stage's EventBridge bus, the audit forwarder, one
 * subscription per API function's log group with the catalogue's pattern (within CloudWatch's 1024
 * characters), `events:PutEvents` on that bus only, the alarm on lost events; and the example rule
 * that keeps the events in a log group (infra/examples/audit-log-group.ts). Templates without
 * bundles (test/infra/offline-synthesis.ts), cdk-nag clean.
 */
import { Stack } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { addStage } from '../../infra/app';
import {
  AUDIT_DEAD_LETTER_RETENTION,
  AUDIT_FORWARDER_TIMEOUT,
  auditFilterPattern,
  MAX_FILTER_PATTERN_LENGTH,
  PUBLISH_ACTIONS,
} from '../../infra/audit';
import { DEAD_LETTER_ACTIONS } from '../../infra/functions';
import { AuditLogGroup } from '../../infra/examples/audit-log-group';
import type { IdentityStack } from '../../infra/identity-stack';
import { auditMessages } from '../../lib/audit/events';
import { AUDIT_FORWARDER_LOG_EVENTS } from '../../lib/audit/forward';
import { FUNCTIONS } from '../../lib/platform/routes';
import { logicalId, newApp, ofType, only, templateOf, type Json, type TemplateJson } from './offline-synthesis';
import { productionConfigDir } from './production-stage';

const stacks: Record<string, { stack: IdentityStack; json: TemplateJson }> = {};

beforeAll(() => {
  for (const stage of ['dev', 'prod']) {
    const stack = addStage(newApp(stage === 'prod' ? { configDir: productionConfigDir() } : {}), stage);
    stacks[stage] = { stack, json: templateOf(stack) };
  }
}, 120_000);

describe('the subscription filter pattern', () => {
  it('matches exactly the catalogue’s messages, one JSON condition each, within CloudWatch’s 1024 characters', () => {
    const pattern = auditFilterPattern();
    expect(pattern.length).toBeLessThanOrEqual(MAX_FILTER_PATTERN_LENGTH);
    expect(pattern).toBe(
      `{ ${auditMessages()
        .map((message) => `($.message = "${message}")`)
        .join(' || ')} }`,
    );
  });
});

describe.each(['dev', 'prod'])('stage %s', (stage) => {
  const stack = () => stacks[stage]!.stack;
  const json = () => stacks[stage]!.json;
  const forwarderId = () => logicalId(stack(), stack().audit.forwarder.function);
  const busId = () => logicalId(stack(), stack().audit.bus);
  const deadLettersId = () => logicalId(stack(), stack().audit.deadLetters);

  it('has one bus, identity-<stage>', () => {
    const [, bus] = only(json(), 'AWS::Events::EventBus');
    expect(bus.Properties).toEqual({ Name: `identity-${stage}` });
  });

  it('runs the forwarder with the bus and the source identity.<stage>, its own role allowing only its logs, PutEvents on that bus for that source, and sending to its dead-letter queue', () => {
    const fn = json().Resources[forwarderId()]!;
    expect(fn.Properties).toMatchObject({
      Handler: 'index.handler',
      Timeout: AUDIT_FORWARDER_TIMEOUT.toSeconds(),
      MemorySize: 256,
      Environment: {
        Variables: expect.objectContaining({ AUDIT_EVENT_BUS_NAME: { Ref: busId() }, AUDIT_EVENT_SOURCE: `identity.${stage}` }),
      },
    });
    const role = json().Resources[logicalId(stack(), stack().audit.forwarder.role)]!;
    const statements = (role.Properties.Policies as Array<{ PolicyDocument: { Statement: Json[] } }>).flatMap(
      (policy) => policy.PolicyDocument.Statement,
    );
    expect(statements.filter((statement) => statement.Sid !== 'Tracing' && !JSON.stringify(statement.Action).includes('xray:'))).toEqual([
      expect.objectContaining({
        Sid: 'WriteOwnLogs',
        Resource: { 'Fn::GetAtt': [logicalId(stack(), stack().audit.forwarder.logGroup), 'Arn'] },
      }),
      {
        Sid: 'PublishAuditEvents',
        Effect: 'Allow',
        Action: PUBLISH_ACTIONS[0],
        Resource: { 'Fn::GetAtt': [busId(), 'Arn'] },
        Condition: { StringEquals: { 'events:source': `identity.${stage}` } },
      },
      {
        Sid: 'SendToDeadLetters',
        Effect: 'Allow',
        Action: DEAD_LETTER_ACTIONS[0],
        Resource: { 'Fn::GetAtt': [deadLettersId(), 'Arn'] },
      },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('keeps a batch the forwarder failed on in all of Lambda’s attempts in its dead-letter queue: 14 days, SSE, TLS only, alarmed at the first as a ticket', () => {
    expect(json().Resources[forwarderId()]!.Properties.DeadLetterConfig).toEqual({ TargetArn: { 'Fn::GetAtt': [deadLettersId(), 'Arn'] } });
    const queue = json().Resources[deadLettersId()]!;
    expect(queue.Properties).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: AUDIT_DEAD_LETTER_RETENTION.toSeconds() });
    expect(AUDIT_DEAD_LETTER_RETENTION.toSeconds()).toBe(14 * 86_400);
    const statements = ofType(json(), 'AWS::SQS::QueuePolicy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.Queues).includes(`"${deadLettersId()}"`))
      .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Json[] }).Statement);
    expect(statements).toEqual([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]);
    const alarm = json().Resources[logicalId(stack(), stack().audit.deadLettersAlarm!)]!.Properties;
    expect(alarm).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLettersId(), 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [stack().resolve(stack().monitoring.topics.ticket.topicArn)],
      AlarmDescription: expect.stringMatching(/^\[ticket\] .*\(docs\/operations\/alarms\.md#auditforwarderdeadletters\)$/),
    });
    expect(stack().monitoring.severities.get(stack().audit.deadLettersAlarm!)).toBe('ticket');
  });

  it('subscribes the forwarder to every API function’s log group, and to no other, with the pattern; CloudWatch Logs may invoke it from those groups only', () => {
    const apiLogGroups = Object.values(stack().functions).map((fn) => ({ Ref: logicalId(stack(), fn.logGroup) }));
    const subscriptions = ofType(json(), 'AWS::Logs::SubscriptionFilter').map(([, filter]) => filter.Properties);
    expect(subscriptions).toHaveLength(Object.keys(FUNCTIONS).length);
    expect(subscriptions.map((filter) => filter.LogGroupName)).toEqual(expect.arrayContaining(apiLogGroups));
    for (const filter of subscriptions) {
      expect(filter).toEqual({
        LogGroupName: expect.anything(),
        FilterPattern: auditFilterPattern(),
        DestinationArn: { 'Fn::GetAtt': [forwarderId(), 'Arn'] },
      });
    }
    const permissions = ofType(json(), 'AWS::Lambda::Permission')
      .map(([, permission]) => permission.Properties)
      .filter((permission) => permission.Principal === 'logs.amazonaws.com');
    expect(permissions.map((permission) => permission.SourceArn)).toEqual(
      expect.arrayContaining(Object.values(stack().functions).map((fn) => ({ 'Fn::GetAtt': [logicalId(stack(), fn.logGroup), 'Arn'] }))),
    );
    expect(permissions).toHaveLength(Object.keys(FUNCTIONS).length);
    for (const permission of permissions)
      expect(permission).toMatchObject({ Action: 'lambda:InvokeFunction', FunctionName: { 'Fn::GetAtt': [forwarderId(), 'Arn'] } });
  });

  it('no API function may call EventBridge: the events leave through the logs, off the response path', () => {
    for (const fn of Object.values(stack().functions)) {
      expect(JSON.stringify(json().Resources[logicalId(stack(), fn.role)]!.Properties)).not.toContain('events:');
    }
  });

  it('counts lost and invalid events from the forwarder’s own log group, alarmed at the first as a ticket', () => {
    const filters = ofType(json(), 'AWS::Logs::MetricFilter')
      .map(([, filter]) => filter.Properties)
      .filter(
        (filter) => JSON.stringify(filter.LogGroupName) === JSON.stringify({ Ref: logicalId(stack(), stack().audit.forwarder.logGroup) }),
      );
    expect(filters.map((filter) => filter.FilterPattern).sort()).toEqual(
      Object.values(AUDIT_FORWARDER_LOG_EVENTS)
        .map((message) => `{ $.message = "${message}" }`)
        .sort(),
    );
    for (const filter of filters) {
      expect(filter.MetricTransformations).toEqual([expect.objectContaining({ MetricValue: '$.count' })]);
    }
    const alarms = ofType(json(), 'AWS::CloudWatch::Alarm').filter(([id]) => id.startsWith('AuditEvents'));
    expect(alarms.map(([id]) => id).sort()).toEqual(
      [stack().audit.gapAlarm!, stack().audit.deadLettersAlarm!].map((alarm) => logicalId(stack(), alarm)).sort(),
    );
    expect(json().Resources[logicalId(stack(), stack().audit.gapAlarm!)]!.Properties).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [stack().resolve(stack().monitoring.topics.ticket.topicArn)],
      AlarmDescription: expect.stringMatching(/^\[ticket\] .*\(docs\/operations\/alarms\.md#auditeventsgap\)$/),
    });
    // Through Monitoring.notify: counted among the stack's alarms, with its severity.
    expect(stack().monitoring.severities.get(stack().audit.gapAlarm!)).toBe('ticket');
  });
});

describe('the example rule (infra/examples/audit-log-group.ts)', () => {
  it('sends the stage’s events from its bus to a retained /aws/events/ log group, that only this rule may write to, cdk-nag clean', () => {
    const app = newApp();
    const stack = new Stack(app, 'AuditConsumer', { env: { account: '210987654321', region: 'eu-west-1' } });
    const audit = new AuditLogGroup(stack, 'IdentityAudit', {
      eventBus: EventBus.fromEventBusName(stack, 'IdentityBus', 'identity-prod'),
      source: 'identity.prod',
    });
    const json = templateOf(stack);

    const logGroupId = logicalId(stack, audit.logGroup);
    const ruleId = logicalId(stack, audit.rule);
    expect(json.Resources[logGroupId]).toMatchObject({
      Properties: { LogGroupName: '/aws/events/identity.prod-audit', RetentionInDays: 365 },
      DeletionPolicy: 'Retain',
    });
    const [, rule] = only(json, 'AWS::Events::Rule');
    expect(rule.Properties).toMatchObject({
      EventBusName: 'identity-prod',
      EventPattern: { source: ['identity.prod'] },
      State: 'ENABLED',
      Targets: [{ Id: 'Target0', Arn: expect.objectContaining({ 'Fn::Join': expect.anything() }) }],
    });
    expect(JSON.stringify(rule.Properties.Targets)).toContain(':log-group:');
    // What EventBridge cannot deliver after its retries is kept 14 days, encrypted, sent by this rule only.
    const deadLettersId = logicalId(stack, audit.deadLetters);
    expect((rule.Properties.Targets as Json[])[0]!.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [deadLettersId, 'Arn'] } });
    expect(json.Resources[deadLettersId]).toMatchObject({
      Properties: { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 },
      DeletionPolicy: 'Retain',
    });
    const [, queuePolicy] = only(json, 'AWS::SQS::QueuePolicy');
    expect((queuePolicy.Properties.PolicyDocument as { Statement: Json[] }).Statement).toEqual([
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      {
        Action: 'sqs:SendMessage',
        Effect: 'Allow',
        Principal: { Service: 'events.amazonaws.com' },
        Resource: { 'Fn::GetAtt': [deadLettersId, 'Arn'] },
        Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
      },
    ]);
    only(json, 'AWS::Logs::ResourcePolicy');
    const document = stack.resolve(audit.policy.document.toJSON()) as { Statement: Json[] };
    expect(document.Statement).toEqual([
      {
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Effect: 'Allow',
        Principal: { Service: ['events.amazonaws.com', 'delivery.logs.amazonaws.com'] },
        Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
        Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
      },
    ]);
  });

  it('narrows to some event types when asked', () => {
    const stack = new Stack(newApp(), 'AuditLogins');
    const audit = new AuditLogGroup(stack, 'Logins', {
      eventBus: EventBus.fromEventBusName(stack, 'IdentityBus', 'identity-prod'),
      source: 'identity.prod',
      types: ['login.completed', 'logout'],
    });
    expect(templateOf(stack).Resources[logicalId(stack, audit.rule)]!.Properties).toMatchObject({
      EventPattern: { source: ['identity.prod'], 'detail-type': ['login.completed', 'logout'] },
    });
  });
});
