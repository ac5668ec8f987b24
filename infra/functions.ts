/**
 * One Lambda of the service: a NodejsFunction bundled by infra/bundling.ts, its own log group with
 * the stage's retention, and its own role whose only policy is the statements it is given (so
 * nothing, not even CDK's AWSLambdaBasicExecutionRole, grants more than the FunctionSpec says).
 */
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyDocument, Role, ServicePrincipal, type PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel, type CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { API_TIMEOUT_SECONDS } from '../lib/platform/routes';
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

export interface ServiceFunctionProps {
  /** The file in functions/ (without extension). */
  readonly name: string;
  readonly description: string;
  /** The stage configuration file, copied beside the bundle as config.json. */
  readonly configFile: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly logRetention: RetentionDays;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  readonly removalPolicy: RemovalPolicy;
  readonly environment: Readonly<Record<string, string>>;
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
      timeout: props.timeout,
      bundling: nodejsBundling(props.configFile),
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
        ...props.environment,
      },
    });
    Validations.of(this.function.node.defaultChild as CfnFunction).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'nodejs22.x is the runtime this service is built, bundled (esbuild target node22) and tested for; a newer runtime is a deliberate, tested change.',
    });
  }
}
