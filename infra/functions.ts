/**
 * One Lambda of the service: a NodejsFunction bundled by infra/bundling.ts, its own log group with
 * the stage's retention, and its own role whose only policy is the statements it is given (so
 * nothing, not even CDK's AWSLambdaBasicExecutionRole, grants more than the FunctionSpec says).
 * With the stage's tracing on, X-Ray active tracing, whose two write actions join that one policy.
 */
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
  type CfnFunction,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { API_TIMEOUT_SECONDS } from '../lib/platform/routes';
import { TRACING_ENVIRONMENT } from '../lib/platform/tracing';
import { entryOf, nodejsBundling, PROJECT_ROOT } from './bundling';

/** Lambda's Node.js 22 runtime on Graviton: cheaper per GB-second than x86 and as fast for this work. */
export const RUNTIME = Runtime.NODEJS_22_X;
export const ARCHITECTURE = Architecture.ARM_64;

/**
 * API functions: API Gateway gives up after 29 s. Every AWS call the functions make is bounded by
 * its client's settings (lib/platform/aws.ts: DynamoDB 3.5 s, Secrets Manager 4 s, delivery 4 s
 * per call, retries included). An `otp/send` stores a code only with the 11 s left that storing,
 * delivering and, after a failed delivery, restoring the previous code can take (else it answers
 * 503 having stored nothing), and an email send always has them: so the function always gets to
 * answer, and to restore the previous code, before 20 s, and still ends (logged, counted in
 * Errors) before the gateway's own timeout would hide it.
 */
export const API_TIMEOUT = Duration.seconds(API_TIMEOUT_SECONDS);
/**
 * The rotation function: a few Secrets Manager calls and two ES256 key generations (milliseconds).
 * Its longest step makes 4 calls of at most 4 s each (lib/adapters/secrets/signing-key-rotation.ts).
 */
export const ROTATION_TIMEOUT = Duration.seconds(30);
/** Plenty for two Secrets Manager calls and key generation; it runs once per rotation period. */
export const ROTATION_MEMORY_MB = 256;

/**
 * What active tracing needs of a function's role: sending its segments to X-Ray
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-xray.html, "Execution role permissions",
 * the actions of the managed policy AWSXRayDaemonWriteAccess that Lambda's segments use).
 * X-Ray's actions have no resource types (Service Authorization Reference, "AWS X-Ray"), so the
 * resource can only be `*`.
 */
export const XRAY_WRITE_ACTIONS = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];

/**
 * Why a stage that turns tracing off (`deployment.tracing: false`) may: cdk-nag's Serverless pack
 * asks for X-Ray on every function and on the API's stage (Serverless-LambdaTracing,
 * Serverless-APIGWXrayEnabled), and the stage file has decided otherwise, knowing the price.
 */
export const TRACING_OFF_REASON =
  'The stage file turns X-Ray off (deployment.tracing: false), knowing what tracing costs and gives (docs/performance.md, "Tracing": +124 KB per bundle, about +65 ms of CPU per cold start, CPU on every request); every prod-like stage traces by default.';

/**
 * What Lambda needs of a function's role to put a failed asynchronous event in its dead-letter
 * queue (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html,
 * "Dead-letter queues": the execution role sends the event).
 */
export const DEAD_LETTER_ACTIONS = ['sqs:SendMessage'];

export interface ServiceFunctionProps {
  /** The file in functions/ (without extension). */
  readonly name: string;
  readonly description: string;
  /** The stage configuration file, copied beside the bundle as config.json. */
  readonly configFile: string;
  readonly memorySize: number;
  /** Reserved concurrency (`deployment.reservedConcurrency`): a floor and a ceiling; absent, the account's shared pool. */
  readonly reservedConcurrency?: number | undefined;
  readonly timeout: Duration;
  readonly logRetention: RetentionDays;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  readonly removalPolicy: RemovalPolicy;
  readonly environment: Readonly<Record<string, string>>;
  /**
   * X-Ray active tracing (the stage's `deployment.tracing`): Lambda records the function's segment,
   * the bundle records each AWS call in it (lib/platform/tracing.ts). Off, the bundle holds no X-Ray code.
   */
  readonly tracing: boolean;
  /**
   * Why the function needs no dead-letter queue, when it needs none (cdk-nag's
   * Serverless-LambdaDLQ): a DLQ or on-failure destination serves asynchronous invocations only
   * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html). A
   * function invoked asynchronously leaves this out and gives `deadLetterQueue` instead.
   */
  readonly withoutDeadLetterQueue?: string;
  /**
   * Where Lambda puts an asynchronous event that failed all its attempts (the function's
   * `DeadLetterConfig`); `sqs:SendMessage` on it joins the role's one policy.
   */
  readonly deadLetterQueue?: IQueue;
  /** The function's whole policy, given its log group's ARN. */
  readonly statements: (logGroupArn: string) => PolicyStatement[];
}

export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;
  /**
   * The role's one policy (inline): a grant that only the stack knows how to make (a queue's
   * `grantNotify`, infra/backchannel.ts) adds its statements here, so the role still has nothing else.
   */
  readonly policy: PolicyDocument;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
    this.policy = new PolicyDocument({ statements: props.statements(this.logGroup.logGroupArn) });
    if (props.tracing) {
      this.policy.addStatements(
        new PolicyStatement({ sid: 'WriteTraces', effect: Effect.ALLOW, actions: [...XRAY_WRITE_ACTIONS], resources: ['*'] }),
      );
    }
    this.role = new Role(this, 'Role', {
      description: `${props.name}: exactly what lib/platform/routes.ts declares for it`,
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: { LeastPrivilege: this.policy },
    });
    this.function = new NodejsFunction(this, 'Function', {
      description: props.description,
      entry: entryOf(props.name),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}/package-lock.json`,
      runtime: RUNTIME,
      architecture: ARCHITECTURE,
      memorySize: props.memorySize,
      reservedConcurrentExecutions: props.reservedConcurrency,
      timeout: props.timeout,
      bundling: nodejsBundling(props.configFile, props.tracing),
      role: this.role,
      logGroup: this.logGroup,
      // Powertools writes JSON lines with a `level`; Lambda's JSON format filters them by the same level.
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[props.logLevel],
      systemLogLevelV2: SystemLogLevel.INFO,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'identity',
        POWERTOOLS_LOG_LEVEL: props.logLevel,
        ...(props.tracing ? TRACING_ENVIRONMENT : {}),
        ...props.environment,
      },
    });
    if (props.tracing) {
      // Set on the L1, not with the `tracing` prop: that prop adds the X-Ray actions through a second
      // (default) policy on the role, which then no longer has the one policy above alone.
      (this.function.node.defaultChild as CfnFunction).tracingConfig = { mode: Tracing.ACTIVE };
      const xrayReason =
        'X-Ray active tracing (deployment.tracing): xray:PutTraceSegments and xray:PutTelemetryRecords have no resource types in IAM, so they can only be granted on "*"; they write trace data and read nothing.';
      Validations.of(this.role).acknowledge(
        { id: 'AwsSolutions-IAM5[Resource::*]', reason: xrayReason },
        { id: 'Serverless-LambdaStarPermissions', reason: xrayReason },
      );
    } else {
      Validations.of(this.function.node.defaultChild as CfnFunction).acknowledge({
        id: 'Serverless-LambdaTracing',
        reason: TRACING_OFF_REASON,
      });
    }
    const runtimeReason =
      'nodejs22.x is the runtime this service is built, bundled (esbuild target node22) and tested for; a newer runtime is a deliberate, tested change.';
    Validations.of(this.function.node.defaultChild as CfnFunction).acknowledge(
      { id: 'AwsSolutions-L1', reason: runtimeReason },
      { id: 'Serverless-LambdaLatestVersion', reason: runtimeReason },
    );
    if (props.deadLetterQueue !== undefined) {
      // Set on the L1, not with the `deadLetterQueue` prop: that prop grants through a second
      // (default) policy on the role, as `tracing` would.
      (this.function.node.defaultChild as CfnFunction).deadLetterConfig = { targetArn: props.deadLetterQueue.queueArn };
      this.policy.addStatements(
        new PolicyStatement({
          sid: 'SendToDeadLetters',
          effect: Effect.ALLOW,
          actions: [...DEAD_LETTER_ACTIONS],
          resources: [props.deadLetterQueue.queueArn],
        }),
      );
    }
    if (props.withoutDeadLetterQueue !== undefined) {
      Validations.of(this.function.node.defaultChild as CfnFunction).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason: props.withoutDeadLetterQueue,
      });
    }
  }
}
