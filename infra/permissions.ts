/**
 * Least privilege, derived: a function's IAM statements come from its FunctionSpec in
 * lib/platform/routes.ts (the table actions, secrets and delivery channels it declares, which
 * test/http/declared-permissions.test.ts checks against what each operation really calls) and
 * from the resources of the stage. Nothing else grants a function anything.
 */
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { TABLE_DEFINITION } from '../lib/adapters/dynamodb/table';
import type { FunctionSpec, SecretName } from '../lib/platform/routes';

/** The resources a stage's functions act on. */
export interface PermissionTargets {
  readonly partition: string;
  readonly tableArn: string;
  readonly secretArns: Readonly<Record<SecretName, string>>;
  readonly email: {
    /** The SES identities (domains or addresses) the senders are verified by. */
    readonly identityArns: readonly string[];
    /** SES configuration sets the environments name (SES authorizes SendEmail on them too). */
    readonly configurationSetArns: readonly string[];
    /** Every environment's sender address: the only `From` a function may use. */
    readonly fromAddresses: readonly string[];
  };
  readonly voice: {
    /** Origination identities (phone numbers, pools) of the environments that offer voice. */
    readonly originationArns: readonly string[];
    readonly configurationSetArns: readonly string[];
  };
}

/** The IAM action of each declared table action, delivery channel and secret read. */
export const tableActionOf = (action: string): string => `dynamodb:${action}`;
export const SECRET_READ_ACTION = 'secretsmanager:GetSecretValue';
export const DELIVERY_ACTIONS = { email: 'ses:SendEmail', sms: 'sns:Publish', voice: 'sms-voice:SendVoiceMessage' } as const;
/** Writing to its own log group: the only thing a function may do that its spec does not declare. */
export const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
/** What the rotation function calls (lib/adapters/secrets/signing-key-rotation.ts), on the signing key secret only. */
export const ROTATION_ACTIONS = [
  'secretsmanager:DescribeSecret',
  'secretsmanager:GetSecretValue',
  'secretsmanager:PutSecretValue',
  'secretsmanager:UpdateSecretVersionStage',
];

/** The statements of an API function: exactly what its spec declares, on this stage's resources. */
export function statementsFor(spec: FunctionSpec, targets: PermissionTargets, logGroupArn: string): PolicyStatement[] {
  const statements = [logStatement(logGroupArn)];
  const onItems = spec.table.filter((action) => action !== 'Query');
  if (onItems.length > 0) {
    // The table's ARN only: every access to an item is by its key.
    statements.push(allow('Table', onItems.map(tableActionOf), [targets.tableArn]));
  }
  if (spec.table.includes('Query')) {
    // Queries on the one index, by its name: the table itself is never queried (one item per key).
    statements.push(allow('QueryUserIndex', [tableActionOf('Query')], [userIndexArn(targets.tableArn)]));
  }
  if (spec.secrets.length > 0) {
    statements.push(
      allow(
        'ReadSecrets',
        [SECRET_READ_ACTION],
        spec.secrets.map((name) => targets.secretArns[name]),
      ),
    );
  }
  for (const channel of spec.delivery) {
    const statement = deliveryStatement(channel, targets);
    if (statement !== undefined) statements.push(statement);
  }
  return statements;
}

/** The ARN of the table's user index (lib/adapters/dynamodb/table.ts `userIndex`). */
export function userIndexArn(tableArn: string): string {
  return `${tableArn}/index/${TABLE_DEFINITION.userIndex.name}`;
}

/** Publishing the public key set: the rotation function's one write outside the secret it rotates. */
export const PUBLISH_ACTIONS = ['secretsmanager:PutSecretValue'];

/** The rotation function's statements. */
export function rotationStatements(
  signingKeysSecretArn: string,
  verificationKeysSecretArn: string,
  logGroupArn: string,
): PolicyStatement[] {
  return [
    logStatement(logGroupArn),
    allow('RotateSigningKeys', ROTATION_ACTIONS, [signingKeysSecretArn]),
    allow('PublishPublicKeys', PUBLISH_ACTIONS, [verificationKeysSecretArn]),
  ];
}

function deliveryStatement(channel: FunctionSpec['delivery'][number], targets: PermissionTargets): PolicyStatement | undefined {
  switch (channel) {
    case 'email': {
      const statement = allow(
        'SendEmail',
        [DELIVERY_ACTIONS.email],
        [...targets.email.identityArns, ...targets.email.configurationSetArns],
      );
      // Only from the configured senders, whatever else an identity (a whole domain) would allow.
      statement.addCondition('StringEquals', { 'ses:FromAddress': [...targets.email.fromAddresses] });
      return statement;
    }
    case 'sms':
      // SMS is SNS Publish straight to a phone number, which has no ARN (IAM evaluates it as
      // "*"). NotResource on every SNS ARN allows exactly that and nothing else: no topic, no
      // platform endpoint (the house style's "sns:Publish for SMS only, never topics").
      return new PolicyStatement({
        sid: 'PublishSmsToPhoneNumbersOnly',
        effect: Effect.ALLOW,
        actions: [DELIVERY_ACTIONS.sms],
        notResources: [`arn:${targets.partition}:sns:*:*:*`],
      });
    case 'voice':
      if (targets.voice.originationArns.length === 0) return undefined;
      return allow('SendVoiceMessage', [DELIVERY_ACTIONS.voice], [...targets.voice.originationArns, ...targets.voice.configurationSetArns]);
  }
}

function logStatement(logGroupArn: string): PolicyStatement {
  return allow('WriteOwnLogs', LOG_ACTIONS, [logGroupArn]);
}

function allow(sid: string, actions: string[], resources: string[]): PolicyStatement {
  return new PolicyStatement({ sid, effect: Effect.ALLOW, actions, resources: [...new Set(resources)] });
}
