/**
 * The REST API: every route of lib/platform/routes.ts, each with `ANY` sent to its function through the
 * Lambda proxy integration (so the function answers 405 for a method it does not take, in our
 * error JSON); API Gateway's own answers (unknown path, throttling, too large, …) rewritten into
 * the same `{"error", "error_description"}` shape; stage throttling, JSON access logs, CORS only
 * where the stage says, and an optional custom domain.
 *
 * The admin routes (`authorization: 'iam'`) take AWS_IAM authorization: API Gateway answers a
 * request without a SigV4 signature as it answers an unknown path (MISSING_AUTHENTICATION_TOKEN,
 * 404 below), one whose principal may not `execute-api:Invoke` them with 403, and the function
 * never runs for either. They get no CORS preflight: no browser calls them.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  type MethodDeploymentOptions,
  ResponseType,
  RestApi,
  SecurityPolicy,
  type CfnRestApi,
  type IResource,
  type Method,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import { TRACING_OFF_REASON } from './functions';
import type { DeployableStageConfig, DeploymentConfig } from './stage-config';
import { preflightFor } from '../lib/platform/http/cors';
import { isPublic, type FunctionName, type Route } from '../lib/platform/routes';

/**
 * API Gateway's own responses, in the service's error shape (`{ error, error_description }`, as
 * the functions answer). The `$context` messages are API Gateway's, never a client's input.
 * Everything not listed falls to DEFAULT_4XX or DEFAULT_5XX, which keep their status.
 */
export const GATEWAY_RESPONSES: ReadonlyArray<{
  readonly type: ResponseType;
  readonly status?: string;
  readonly error: string;
  readonly description: string;
  readonly headers?: Readonly<Record<string, string>>;
}> = [
  // API Gateway answers an unknown path (or a method no route has) with 403 "Missing Authentication Token".
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, status: '404', error: 'not_found', description: 'No such path.' },
  { type: ResponseType.RESOURCE_NOT_FOUND, status: '404', error: 'not_found', description: 'No such path.' },
  {
    type: ResponseType.THROTTLED,
    status: '429',
    error: 'too_many_requests',
    description: 'Too many requests; try again shortly.',
    headers: { 'Retry-After': '1' },
  },
  {
    type: ResponseType.QUOTA_EXCEEDED,
    status: '429',
    error: 'too_many_requests',
    description: 'Too many requests; try again later.',
    headers: { 'Retry-After': '60' },
  },
  { type: ResponseType.REQUEST_TOO_LARGE, status: '413', error: 'invalid_request', description: 'The request body is too large.' },
  { type: ResponseType.WAF_FILTERED, status: '403', error: 'access_denied', description: 'The request was blocked.' },
  {
    type: ResponseType.INTEGRATION_TIMEOUT,
    status: '504',
    error: 'temporarily_unavailable',
    description: 'The service did not answer in time; try again.',
    headers: { 'Retry-After': '1' },
  },
  { type: ResponseType.DEFAULT_4XX, error: 'invalid_request', description: '$context.error.messageString' },
  { type: ResponseType.DEFAULT_5XX, error: 'server_error', description: 'The service met an unexpected condition.' },
];

/**
 * One access log line per request, as JSON. No body, no query string, no header (a user agent can
 * hold a quote and break the JSON); the path is the URL-encoded one. The source IP is what abuse
 * handling needs; the stage's retention bounds how long it is kept.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  requestTime: '$context.requestTimeEpoch',
  ip: '$context.identity.sourceIp',
  httpMethod: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  path: '$context.path',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integration.status',
  integrationLatency: '$context.integration.latency',
  errorType: '$context.error.responseType',
  waf: '$context.wafResponseCode',
} as const;

/**
 * The stage's method settings besides throttling: execution logs for errors only, never data trace
 * (it would log request bodies: emails, phone numbers, codes). A method setting of its own (a
 * per-route throttle) repeats them, since it replaces the stage's for that method.
 */
const METHOD_SETTINGS = { loggingLevel: MethodLoggingLevel.ERROR, dataTraceEnabled: false, metricsEnabled: false } as const;

/**
 * The method settings of `deployment.throttling.routes`, keyed `/<path>/<METHOD>` as API Gateway
 * keys a stage's method settings (`{resource_path}/{http_method}`; CDK escapes the path into
 * `ResourcePath` and `HttpMethod`). Our methods are `ANY`; the setting names the HTTP method the
 * clients send ("POST /idp/v1/otp/send" → `/idp/v1/otp/send/POST`), as tools that throttle ANY
 * methods per route do (serverless-api-gateway-throttling sets each verb). Offline synthesis cannot
 * prove API Gateway applies it, so docs/deploy.md's checklist reads the deployed stage's method
 * settings back and checks a burst is answered 429 at the route's limit.
 */
export function routeThrottling(routes: DeploymentConfig['throttling']['routes']): Record<string, MethodDeploymentOptions> {
  return Object.fromEntries(
    Object.entries(routes).map(([key, limit]) => {
      const [method, path] = key.split(' ') as [string, string];
      return [`${path}/${method}`, { ...METHOD_SETTINGS, throttlingRateLimit: limit.rateLimit, throttlingBurstLimit: limit.burstLimit }];
    }),
  );
}

export interface ServiceApiProps {
  readonly stage: string;
  readonly config: DeployableStageConfig;
  readonly routes: readonly Route[];
  readonly functions: Readonly<Record<FunctionName, IFunction>>;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

export class ServiceApi extends Construct {
  readonly api: RestApi;
  readonly accessLogs: LogGroup;
  /** The API's own base URL (`https://<id>.execute-api.<region>.<suffix>/<stage>`), built from the id so functions can reference it without a cycle. */
  readonly defaultUrl: string;
  /** `https://<custom domain>` when one is configured. */
  readonly customDomainUrl: string | undefined;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const deployment = props.config.deployment;
    const stack = Stack.of(this);
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy });

    this.api = new RestApi(this, 'Api', {
      restApiName: `identity-${props.stage}`,
      description: `Identity service (${props.stage})`,
      endpointTypes: [EndpointType.REGIONAL],
      // API Gateway writes its access and execution logs through an account-level role.
      cloudWatchRole: deployment.apiGatewayCloudWatchRole,
      // One role per account and region, possibly shared by other stages' APIs: never deleted with a stack.
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: props.stage,
        throttlingRateLimit: deployment.throttling.rateLimit,
        throttlingBurstLimit: deployment.throttling.burstLimit,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
        // Execution logs for errors only, and never data trace: it would log request bodies (emails, phone numbers, codes).
        ...METHOD_SETTINGS,
        // X-Ray (deployment.tracing): the request's segment, before the function's (infra/functions.ts).
        tracingEnabled: deployment.tracing,
        // Per-route throttles (deployment.throttling.routes), each a method setting with the stage's other settings.
        methodOptions: routeThrottling(deployment.throttling.routes),
      },
    });
    if (!deployment.tracing) {
      Validations.of(this.api.deploymentStage).acknowledge({ id: 'Serverless-APIGWXrayEnabled', reason: TRACING_OFF_REASON });
    }
    // API Gateway creates the execution log group on first use, with no expiry: create it first, with the stage's retention.
    new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stage}`,
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    const integrations = new Map<FunctionName, LambdaIntegration>();
    for (const route of props.routes) {
      let integration = integrations.get(route.functionName);
      if (integration === undefined) {
        // allowTestInvoke: false — no second Lambda permission for the console's test button.
        integration = new LambdaIntegration(props.functions[route.functionName], { proxy: true, allowTestInvoke: false });
        integrations.set(route.functionName, integration);
      }
      const resource: IResource = this.api.root.resourceForPath(route.path);
      if (!isPublic(route)) {
        acknowledgeIamOnly(resource.addMethod('ANY', integration, { authorizationType: AuthorizationType.IAM }));
        continue;
      }
      acknowledgePublic(resource.addMethod('ANY', integration));
      const preflight = preflightFor(deployment.cors, route.path, route.methods);
      if (preflight !== undefined) {
        // The preflight; the functions add the CORS headers to their own responses (lib/platform/http/cors.ts).
        // The local runtime answers the same description the same way (local/preflight.ts).
        acknowledgePublic(
          resource.addCorsPreflight({
            allowOrigins: [...preflight.allowOrigins],
            allowMethods: [...preflight.allowMethods],
            allowHeaders: [...preflight.allowHeaders],
            maxAge: Duration.seconds(preflight.maxAgeSeconds),
          }),
        );
      }
    }

    for (const response of GATEWAY_RESPONSES) {
      const description = response.description.startsWith('$context') ? response.description : JSON.stringify(response.description);
      this.api.addGatewayResponse(`Gateway${response.type.responseType}`, {
        type: response.type,
        ...(response.status === undefined ? {} : { statusCode: response.status }),
        responseHeaders: {
          'Content-Type': "'application/json'",
          'Cache-Control': "'no-store'",
          ...Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, value]) => [name, `'${value}'`])),
        },
        templates: { 'application/json': `{"error":"${response.error}","error_description":${description}}` },
      });
    }

    this.defaultUrl = `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${props.stage}`;
    this.customDomainUrl = undefined;
    const custom = deployment.customDomain;
    if (custom !== undefined) {
      const domain = this.api.addDomainName('Domain', {
        domainName: custom.domainName,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', custom.certificateArn),
        endpointType: EndpointType.REGIONAL,
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
      this.customDomainUrl = `https://${custom.domainName}`;
      if (custom.hostedZone !== undefined) {
        const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
          hostedZoneId: custom.hostedZone.id,
          zoneName: custom.hostedZone.name,
        });
        const target = RecordTarget.fromAlias(new ApiGatewayDomain(domain));
        new ARecord(this, 'DomainA', { zone, recordName: custom.domainName, target });
        new AaaaRecord(this, 'DomainAaaa', { zone, recordName: custom.domainName, target });
      } else {
        new CfnOutput(this, 'DomainTarget', {
          description: `Point ${custom.domainName} here (CNAME, or an alias A/AAAA record in Route 53)`,
          value: domain.domainNameAliasDomainName,
        });
      }
    }

    Validations.of(this.api.node.defaultChild as CfnRestApi).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Requests are validated by each function (lib/platform/http, zod) so that every rejection uses the OAuth error vocabulary and counts toward the attempt limit where the rules say it must; a gateway validator would answer before either.',
    });
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole !== undefined) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          "API Gateway's account-level logging role (deployment.apiGatewayCloudWatchRole): AWS's managed policy is the documented one for it, limited to what API Gateway needs to create and write its log groups, and kept current by AWS.",
      });
    }
  }
}

/** Every method is public by protocol (cdk-nag's APIG4/COG4 ask for an API Gateway authorizer). */
function acknowledgePublic(method: Method): void {
  Validations.of(method).acknowledge(
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'Public by protocol: the OAuth 2.0 token, introspection and metadata endpoints (RFC 6749, 7662, 8414, 7517) and otp/send are called without AWS credentials; client authentication (Bearer API keys, RFC 6750, stored as SHA-256 hashes) is checked by the functions, and CORS preflights carry no credentials by definition.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason:
        'No Cognito user pool: this service is the identity provider itself; callers authenticate with client API keys checked by the functions (see APIG4).',
    },
  );
}

/** The admin methods are IAM-authorised; cdk-nag's COG4 still asks for a Cognito authorizer. */
function acknowledgeIamOnly(method: Method): void {
  Validations.of(method).acknowledge({
    id: 'AwsSolutions-COG4',
    reason:
      'The operator controls (lib/platform/routes.ts, authorization iam) are for the deployment’s own IAM principals: AWS_IAM authorization (SigV4, execute-api:Invoke) is the authorizer; a Cognito user pool would add a second identity store for the same operators.',
  });
}
