/**
 * The service, one stack per stage: the table, the secrets, one Lambda per entry of FUNCTIONS plus
 * the signing key rotation, the back-channel logout queue and its worker (infra/backchannel.ts),
 * the REST API over ROUTES, delivery identities, optional WAF, alarms and a dashboard. Everything per function is derived from its FunctionSpec (lib/platform/routes.ts), so
 * a function the lead adds there is deployed, routed and granted without a change here.
 */
import { CfnOutput, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { TABLE_DEFINITION } from '../lib/adapters/dynamodb/table';
import { variablesOf, type EnvironmentVariable } from '../lib/platform/env';
import { FUNCTIONS, ROUTES, type FunctionName, type FunctionSpec } from '../lib/platform/routes';
import { ServiceApi } from './api';
import { BackchannelLogout } from './backchannel';
import { BACKCHANNEL_FUNCTION, ROTATION_FUNCTION } from './bundling';
import { Delivery } from './delivery';
import { API_TIMEOUT, ROTATION_MEMORY_MB, ROTATION_TIMEOUT, ServiceFunction } from './functions';
import { Monitoring } from './monitoring';
import { rotationStatements, statementsFor, type PermissionTargets } from './permissions';
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
  readonly table: Table;
  readonly secrets: ServiceSecrets;
  readonly functions: Record<FunctionName, ServiceFunction>;
  readonly rotation: ServiceFunction;
  /** The logout queue, its worker and dead letters (infra/backchannel.ts); `grantNotify` lets a function queue notices. */
  readonly backchannel: BackchannelLogout;
  readonly api: ServiceApi;
  readonly monitoring: Monitoring;
  readonly issuer: string;

  constructor(scope: Construct, id: string, props: IdentityStackProps) {
    super(scope, id, props);
    const { name: stage, config, file: configFile } = props.stage;
    const deployment = config.deployment;
    const removalPolicy = deployment.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    // The schema only accepts CloudWatch's retention values, which are RetentionDays' values.
    const logRetention = deployment.logRetentionDays as RetentionDays;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_DEFINITION.partitionKey.name, type: AttributeType[attributeTypeOf(TABLE_DEFINITION.partitionKey.type)] },
      timeToLiveAttribute: TABLE_DEFINITION.timeToLiveAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The AWS-managed key (aws/dynamodb): every use is in CloudTrail, at no key cost. The items
      // hold HMACs and hashes, never a user's id in clear, so a customer-managed key would add a key
      // policy to maintain without protecting anything more.
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
    });
    const userIndex = TABLE_DEFINITION.userIndex;
    this.table.addGlobalSecondaryIndex({
      indexName: userIndex.name,
      partitionKey: { name: userIndex.partitionKey.name, type: AttributeType[attributeTypeOf(userIndex.partitionKey.type)] },
      sortKey: { name: userIndex.sortKey.name, type: AttributeType[attributeTypeOf(userIndex.sortKey.type)] },
      projectionType: ProjectionType.KEYS_ONLY,
    });

    this.secrets = new ServiceSecrets(this, 'Secrets', { stage, removalPolicy });
    const delivery = new Delivery(this, 'Delivery', { config, removalPolicy, logRetention });
    const targets: PermissionTargets = {
      partition: this.partition,
      tableArn: this.table.tableArn,
      secretArns: this.secrets.arns(),
      email: delivery.email,
      voice: delivery.voice,
    };

    const functionProps = { configFile, logRetention, logLevel: deployment.logLevel, removalPolicy };
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
        timeout: API_TIMEOUT,
        // Filled in below once the API exists: ISSUER is built from the API's id, not its URL,
        // because the URL depends on the deployment, which depends on these functions.
        environment: {},
        statements: (logGroupArn) => statementsFor(spec, targets, logGroupArn),
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
      memorySize: ROTATION_MEMORY_MB,
      timeout: ROTATION_TIMEOUT,
      environment: {},
      statements: (logGroupArn) =>
        rotationStatements(this.secrets.signingKeys.secretArn, this.secrets.verificationKeys.secretArn, logGroupArn),
    });
    this.rotation.function.addEnvironment('VERIFICATION_KEYS_SECRET_ARN', this.secrets.verificationKeys.secretArn);
    this.secrets.rotateSigningKeys(this.rotation.function, deployment.signingKeyRotationDays);

    this.backchannel = new BackchannelLogout(this, 'BackchannelLogout', {
      ...functionProps,
      signingKeysSecretArn: this.secrets.signingKeys.secretArn,
    });

    this.api = new ServiceApi(this, 'Api', {
      stage,
      config,
      routes: ROUTES,
      functions: Object.fromEntries(Object.entries(apiFunctions).map(([name, fn]) => [name, fn.function])) as Record<
        FunctionName,
        ServiceFunction['function']
      >,
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
      functions: [
        ...specs.map((spec) => ({ name: spec.name, ...pick(apiFunctions[spec.name as FunctionName]), api: true })),
        { name: ROTATION_FUNCTION, ...pick(this.rotation), api: false },
        // Its events (BACKCHANNEL_LOG_EVENTS) are counted by infra/backchannel.ts `monitor`, from its log group alone.
        { name: BACKCHANNEL_FUNCTION, ...pick(this.backchannel.worker), api: false },
      ],
    });
    this.backchannel.monitor(this.monitoring);
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
    new CfnOutput(this, 'AlarmTopicArn', { description: 'Where alarms are sent', value: this.monitoring.topic.topicArn });
    new CfnOutput(this, 'HmacSecretArn', {
      description: 'The HMAC master secret (docs/operations/key-rotation.md before touching it)',
      value: this.secrets.hmac.secretArn,
    });
    new CfnOutput(this, 'SigningKeysSecretArn', {
      description: 'The signing key set (aws secretsmanager rotate-secret --secret-id …)',
      value: this.secrets.signingKeys.secretArn,
    });
  }
}

/** A construct id from a function name: `otp-send` → `OtpSend`. */
export function functionId(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_match, _dash, letter: string) => letter.toUpperCase());
}

function attributeTypeOf(type: 'S' | 'N' | 'B'): 'STRING' | 'NUMBER' | 'BINARY' {
  return ({ S: 'STRING', N: 'NUMBER', B: 'BINARY' } as const)[type];
}

function pick(fn: ServiceFunction) {
  return { function: fn.function, logGroup: fn.logGroup };
}
