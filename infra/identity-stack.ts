/**
 * The service, one stack per stage: the table, the secrets, one Lambda per entry of FUNCTIONS plus
 * the signing key rotation, the back-channel logout queue and its worker (infra/backchannel.ts),
 * the REST API over ROUTES, delivery identities, optional WAF, alarms and a dashboard. Everything per function is derived from its FunctionSpec (lib/platform/routes.ts), so
 * a function the lead adds there is deployed, routed and granted without a change here.
 */
import { CfnOutput, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { TABLE_DEFINITION } from '../lib/adapters/dynamodb/table';
import { variablesOf, type EnvironmentVariable } from '../lib/platform/env';
import { FUNCTIONS, ROUTES, type FunctionName, type FunctionSpec } from '../lib/platform/routes';
import { ServiceApi } from './api';
import { AuditEvents } from './audit';
import { BackchannelLogout } from './backchannel';
import { AUDIT_FORWARDER_FUNCTION, BACKCHANNEL_FUNCTION, ROTATION_FUNCTION } from './bundling';
import { Delivery } from './delivery';
import { DeploySafety } from './deploy-safety';
import { API_TIMEOUT, ROTATION_MEMORY_MB, ROTATION_TIMEOUT, ServiceFunction } from './functions';
import { Monitoring } from './monitoring';
import { rotationStatements, statementsFor, type PermissionTargets } from './permissions';
import { TableBackup } from './recovery';
import { ServiceSecrets } from './secrets';
import type { Stage } from './stage';
import { ServiceWaf } from './waf';

export interface IdentityStackProps extends StackProps {
  readonly stage: Stage;
}

/** The stack name of a stage. */
export const stackNameOf = (stage: string): string => `Identity-${stage}`;

/**
 * The logical id of the output holding the issuer. Other stacks read it by this name
 * (`Fn::GetStackOutput`, infra/examples/identity-issuer.ts), so renaming it breaks them.
 */
export const ISSUER_OUTPUT = 'Issuer';

export class IdentityStack extends Stack {
  /** Created by the stack, or adopted after a region's loss (`deployment.recovery.adopt`). */
  readonly table: ITable;
  readonly secrets: ServiceSecrets;
  /** AWS Backup of the table, copied to the second region when there is one (infra/recovery.ts); prod-like stages only. */
  readonly backup?: TableBackup;
  readonly functions: Record<FunctionName, ServiceFunction>;
  readonly rotation: ServiceFunction;
  /** The logout queue, its worker and dead letters (infra/backchannel.ts); `grantNotify` lets a function queue notices. */
  readonly backchannel: BackchannelLogout;
  /** The audit events' bus and the forwarder that fills it from the API functions' logs (infra/audit.ts). */
  readonly audit: AuditEvents;
  readonly api: ServiceApi;
  readonly monitoring: Monitoring;
  /** Each API function's `live` alias and its CodeDeploy deployment group (infra/deploy-safety.ts). */
  readonly deploySafety: DeploySafety;
  readonly issuer: string;

  constructor(scope: Construct, id: string, props: IdentityStackProps) {
    super(scope, id, props);
    const { name: stage, config, file: configFile } = props.stage;
    const deployment = config.deployment;
    // `retain` is CloudFormation's RetainExceptOnCreate: kept on an update or a delete, but deleted
    // when the deployment that created it fails, so a failed first deployment rolls back to nothing
    // and its retry does not stop on what it left (an SES identity is named by its domain).
    const removalPolicy = deployment.removalPolicy === 'retain' ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY;
    // The schema only accepts CloudWatch's retention values, which are RetentionDays' values.
    const logRetention = deployment.logRetentionDays as RetentionDays;

    const adopted = deployment.recovery.adopt;
    this.table =
      adopted === undefined
        ? createTable(this, removalPolicy)
        : // After a region's loss: the table restored from a backup copy (docs/operations/disaster-recovery.md).
          Table.fromTableAttributes(this, 'Table', { tableName: adopted.tableName, globalIndexes: [TABLE_DEFINITION.userIndex.name] });

    this.secrets = new ServiceSecrets(this, 'Secrets', {
      stage,
      removalPolicy,
      replicaRegion: deployment.recovery.region,
      existing: adopted,
    });
    // Prod-like stages only: a throw-away stage's data does not matter (infra/recovery.ts).
    if (deployment.removalPolicy === 'retain') {
      this.backup = new TableBackup(this, 'Backup', { stage, table: this.table, recovery: deployment.recovery, removalPolicy });
    }
    const delivery = new Delivery(this, 'Delivery', { config, removalPolicy, logRetention });
    const targets: PermissionTargets = {
      partition: this.partition,
      tableArn: this.table.tableArn,
      secretArns: this.secrets.arns(),
      email: delivery.email,
      voice: delivery.voice,
    };

    const functionProps = { configFile, logRetention, logLevel: deployment.logLevel, removalPolicy, tracing: deployment.tracing };
    const specs = Object.values(FUNCTIONS) as FunctionSpec[];
    const apiFunctions = {} as Record<FunctionName, ServiceFunction>;
    for (const spec of specs) {
      apiFunctions[spec.name as FunctionName] = new ServiceFunction(this, functionId(spec.name), {
        ...functionProps,
        name: spec.name,
        description: spec.description,
        // 512 MB by default: Lambda allots CPU with memory, and ES256, HMAC and the SDK's cold start
        // are CPU-bound; below it cold starts grow, above it the gain is small (docs/decisions/002-bundling.md).
        memorySize: deployment.functionMemoryMb,
        // So that one route's flood cannot take the concurrency another needs (docs/operations/capacity.md).
        reservedConcurrency: deployment.reservedConcurrency[spec.name],
        timeout: API_TIMEOUT,
        // Filled in below once the API exists: ISSUER is built from the API's id, not its URL,
        // because the URL depends on the deployment, which depends on these functions.
        environment: {},
        statements: (logGroupArn) => statementsFor(spec, targets, logGroupArn),
        withoutDeadLetterQueue:
          'Invoked synchronously by API Gateway only: the caller gets the failure as its answer, and a dead-letter queue (asynchronous invocations only) would never receive anything.',
      });
    }
    this.functions = apiFunctions;
    if (delivery.unnamedVoiceNumbers) {
      for (const spec of specs.filter((candidate) => candidate.delivery.includes('voice'))) {
        Validations.of(apiFunctions[spec.name as FunctionName].role).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sms-voice:<AWS::Region>:<AWS::AccountId>:phone-number/*]',
          reason: `An environment of stage "${stage}" names its voice origination number in E.164, and IAM knows phone numbers only by id (phone-…), which cannot be derived offline: sms-voice:SendVoiceMessage is allowed on this account's and region's phone numbers only. Configure the phone number id or ARN to narrow it (docs/deploy.md).`,
        });
      }
    }

    this.rotation = new ServiceFunction(this, functionId(ROTATION_FUNCTION), {
      ...functionProps,
      name: ROTATION_FUNCTION,
      description: 'Secrets Manager rotation of the JWT signing key set',
      withoutDeadLetterQueue:
        'Invoked by Secrets Manager, step by step: a failed step leaves the pending key set on the secret and the rotation is retried from the secret’s state; a replayed stale event from a queue would be wrong, and the failure is in the function’s Errors and logs.',
      memorySize: ROTATION_MEMORY_MB,
      timeout: ROTATION_TIMEOUT,
      environment: {},
      statements: (logGroupArn) =>
        rotationStatements(this.secrets.signingKeys.secretArn, this.secrets.verificationKeys.secretArn, logGroupArn),
    });
    this.rotation.function.addEnvironment('VERIFICATION_KEYS_SECRET_ARN', this.secrets.verificationKeys.secretArn);
    this.secrets.rotateSigningKeys(this.rotation.function, deployment.signingKeyRotationDays);

    this.audit = new AuditEvents(this, 'AuditEvents', {
      ...functionProps,
      stage,
      sources: specs.map((spec) => ({ name: spec.name, logGroup: apiFunctions[spec.name as FunctionName].logGroup })),
    });

    this.backchannel = new BackchannelLogout(this, 'BackchannelLogout', {
      ...functionProps,
      signingKeysSecretArn: this.secrets.signingKeys.secretArn,
    });

    // The API invokes each function's `live` alias, which CodeDeploy shifts to each new version.
    this.deploySafety = new DeploySafety(this, 'DeploySafety', {
      stage,
      deploy: deployment.deploy,
      functions: Object.fromEntries(Object.entries(apiFunctions).map(([name, fn]) => [name, fn.function])) as Record<
        FunctionName,
        ServiceFunction['function']
      >,
    });
    this.api = new ServiceApi(this, 'Api', {
      stage,
      config,
      routes: ROUTES,
      functions: this.deploySafety.aliases,
      logRetention,
      removalPolicy,
    });
    this.issuer = config.issuer?.replace(/\/+$/, '') ?? this.api.customDomainUrl ?? this.api.defaultUrl;

    // Each function gets exactly the variables its declaration implies (lib/platform/env.ts `variablesOf`),
    // the same list the functions read them by.
    const values: Partial<Record<EnvironmentVariable, string>> = {
      ISSUER: this.issuer,
      TABLE_NAME: this.table.tableName,
      HMAC_SECRET_ARN: this.secrets.hmac.secretArn,
      SIGNING_KEYS_SECRET_ARN: this.secrets.signingKeys.secretArn,
      VERIFICATION_KEYS_SECRET_ARN: this.secrets.verificationKeys.secretArn,
      LOGOUT_QUEUE_URL: this.backchannel.logoutQueue.queueUrl,
    };
    for (const spec of specs) {
      // The functions that end sessions queue their logout notices (FunctionSpec `queues`).
      if (spec.queues?.includes('logout') === true) this.backchannel.grantNotify(apiFunctions[spec.name as FunctionName]);
      const fn = apiFunctions[spec.name as FunctionName].function;
      for (const variable of variablesOf(spec)) {
        const value = values[variable];
        if (value === undefined) throw new Error(`The stack has no value for ${variable}, which ${spec.name} reads`);
        fn.addEnvironment(variable, value);
      }
    }

    if (deployment.waf !== undefined) {
      new ServiceWaf(this, 'Waf', { stage, waf: deployment.waf, stageArn: this.api.api.deploymentStage.stageArn });
    } else {
      Validations.of(this.api.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason: `Stage "${stage}" has no WAF (deployment.waf absent in config/${stage}.json): a throw-away stage, guarded by stage throttling and the per-recipient attempt limits. Production stages set deployment.waf.`,
      });
    }

    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage,
      alarms: deployment.alarms,
      environments: config.environments.map((environment) => ({
        id: environment.id,
        dailyPhoneBudget: environment.limits.dailyPhoneBudget.maxMessages,
      })),
      api: this.api.api,
      accessLogs: this.api.accessLogs,
      table: this.table,
      webAclName: deployment.waf === undefined ? undefined : `identity-${stage}`,
      functions: [
        ...specs.map((spec) => ({ name: spec.name, ...pick(apiFunctions[spec.name as FunctionName]), api: true })),
        { name: ROTATION_FUNCTION, ...pick(this.rotation), api: false },
        // Its events (BACKCHANNEL_LOG_EVENTS) are counted by infra/backchannel.ts `monitor`, from its log group alone.
        { name: BACKCHANNEL_FUNCTION, ...pick(this.backchannel.worker), api: false },
        // Its failures are counted by infra/audit.ts `monitor`, from its log group alone.
        { name: AUDIT_FORWARDER_FUNCTION, ...pick(this.audit.forwarder), api: false },
      ],
    });
    this.backchannel.monitor(this.monitoring);
    this.audit.monitor(this.monitoring);
    // A deployment rolls back on the function's own errors, throttles and latency, the API's 5xx rate and unhandled errors.
    this.deploySafety.rollBackOn((name) => this.monitoring.deploymentAlarms(name));
    for (const spec of specs) {
      apiFunctions[spec.name as FunctionName].function.addEnvironment('POWERTOOLS_METRICS_NAMESPACE', this.monitoring.namespace);
    }

    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the API', value: this.api.customDomainUrl ?? this.api.defaultUrl });
    new CfnOutput(this, ISSUER_OUTPUT, { description: 'The `iss` of access tokens', value: this.issuer });
    new CfnOutput(this, 'JwksUrl', {
      description: 'The JWKS (RFC 7517) that verifies JWT access tokens',
      value: `${this.issuer}/.well-known/jwks.json`,
    });
    new CfnOutput(this, 'TableName', { description: 'The DynamoDB table', value: this.table.tableName });
    new CfnOutput(this, 'AlarmTopicArn', { description: 'Where page alarms are sent', value: this.monitoring.topics.page.topicArn });
    new CfnOutput(this, 'TicketTopicArn', { description: 'Where ticket alarms are sent', value: this.monitoring.topics.ticket.topicArn });
    new CfnOutput(this, 'HmacSecretArn', {
      description: 'The HMAC master secret (docs/operations/key-rotation.md before touching it)',
      value: this.secrets.hmac.secretArn,
    });
    new CfnOutput(this, 'SigningKeysSecretArn', {
      description: 'The signing key set (aws secretsmanager rotate-secret --secret-id …)',
      value: this.secrets.signingKeys.secretArn,
    });
    new CfnOutput(this, 'VerificationKeysSecretArn', {
      description: 'The public JWKS the rotation publishes (its replica is promoted with the others after a region’s loss)',
      value: this.secrets.verificationKeys.secretArn,
    });
  }
}

/** A construct id from a function name: `otp-send` → `OtpSend`. */
export function functionId(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_match, _dash, letter: string) => letter.toUpperCase());
}

/** The service's table (lib/adapters/dynamodb/table.ts's definition), with point-in-time recovery and, when retained, deletion protection. */
function createTable(scope: Construct, removalPolicy: RemovalPolicy): Table {
  const table = new Table(scope, 'Table', {
    partitionKey: { name: TABLE_DEFINITION.partitionKey.name, type: AttributeType[attributeTypeOf(TABLE_DEFINITION.partitionKey.type)] },
    timeToLiveAttribute: TABLE_DEFINITION.timeToLiveAttribute,
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    // The AWS-managed key (aws/dynamodb): every use is in CloudTrail, at no key cost. The items
    // hold HMACs and hashes, never a user's id in clear, so a customer-managed key would add a key
    // policy to maintain without protecting anything more.
    encryption: TableEncryption.AWS_MANAGED,
    deletionProtection: removalPolicy !== RemovalPolicy.DESTROY,
    removalPolicy,
  });
  const userIndex = TABLE_DEFINITION.userIndex;
  table.addGlobalSecondaryIndex({
    indexName: userIndex.name,
    partitionKey: { name: userIndex.partitionKey.name, type: AttributeType[attributeTypeOf(userIndex.partitionKey.type)] },
    sortKey: { name: userIndex.sortKey.name, type: AttributeType[attributeTypeOf(userIndex.sortKey.type)] },
    projectionType: ProjectionType.KEYS_ONLY,
  });
  return table;
}

function attributeTypeOf(type: 'S' | 'N' | 'B'): 'STRING' | 'NUMBER' | 'BINARY' {
  return ({ S: 'STRING', N: 'NUMBER', B: 'BINARY' } as const)[type];
}

function pick(fn: ServiceFunction) {
  return { function: fn.function, logGroup: fn.logGroup };
}
