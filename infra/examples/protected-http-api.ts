/**
 * An API Gateway HTTP API whose routes accept only this service's RS256 JWT access tokens, checked
 * by API Gateway itself (no Lambda authorizer to run or pay for): the construct a platform team
 * copies into the app of an API it wants to protect.
 *
 * It imports nothing from the identity service, only aws-cdk-lib, so it can be copied as is. What
 * ties it to the service is two strings: the service's issuer (the `Issuer` output of its stack)
 * and the audiences of the clients whose tokens the API accepts (`accessToken.audience` in the
 * stage file). How to obtain the issuer in another app: infra/examples/identity-issuer.ts.
 *
 * @example
 * ```ts
 * const api = new ProtectedHttpApi(this, 'Orders', {
 *   issuer: 'https://id.example.com',
 *   audiences: ['https://api.example.com'],
 *   sampleRouteScopes: ['orders:read'],
 * });
 * api.api.addRoutes({ path: '/orders', methods: [HttpMethod.POST], integration, authorizationScopes: ['orders:write'] });
 * ```
 *
 * What API Gateway checks, and what it cannot (AWS docs, "Control access to HTTP APIs with JWT
 * authorizers in API Gateway"): the signature with a key from the issuer's `jwks_uri`, RSA
 * algorithms only (so only clients with `signingAlgorithm: 'RS256'`; ES256 tokens are refused);
 * `kid`, `iss`, `aud` (or `client_id` when there is no `aud`), `exp`, `nbf`, `iat`; and, per route,
 * that the token's `scope` holds at least one of the route's scopes. It cannot know that a token
 * was revoked: a JWT stays valid until its `exp` (docs/deploy.md, "Protect your API with these
 * tokens").
 */
import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, LogGroupLogDestination, type CfnApi, type HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface ProtectedHttpApiProps {
  /**
   * The identity service's issuer, exactly as tokens carry it in `iss`: the `Issuer` output of its
   * stack (`https://id.example.com`, or `https://<api-id>.execute-api.<region>.amazonaws.com/<stage>`
   * without a custom domain), no trailing slash. API Gateway compares it with `iss` as a string and
   * reads `{issuer}/.well-known/openid-configuration` to find the keys, when the authorizer is
   * created and again later, so that document must be reachable from the internet.
   */
  readonly issuer: string;
  /**
   * The `aud` values accepted: the `accessToken.audience` (and any `audienceByEnvironment` value)
   * of each RS256 client whose tokens this API takes. A token matching none is refused (401).
   */
  readonly audiences: readonly string[];
  /**
   * Scopes of which the sample route requires one (API Gateway: the token's `scope` must hold at
   * least one of them, or the request is refused). Absent: any valid token of the audiences. Match
   * what the clients' `accessToken.scope` grants.
   */
  readonly sampleRouteScopes?: readonly string[];
  /** Retention of the access logs and the sample function's logs. Default: one month. */
  readonly logRetention?: RetentionDays;
  /** What happens to the log groups with the stack. Default: destroyed (an example is thrown away). */
  readonly removalPolicy?: RemovalPolicy;
  /** Stage throttling, requests per second and burst (one bucket for every route). Default: 50 and 100. */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
}

/**
 * One access log line per request, as JSON. `authorizerError` says why a token was refused
 * (expired, wrong audience, …), which is what a caller's 401 never shows; `sub` and `client_id`
 * are ids, never the token itself (no header is logged).
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTimeEpoch',
  ip: '$context.identity.sourceIp',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLatency: '$context.responseLatency',
  authorizerError: '$context.authorizer.error',
  sub: '$context.authorizer.claims.sub',
  clientId: '$context.authorizer.claims.client_id',
  integrationError: '$context.integrationErrorMessage',
} as const;

/**
 * The sample backend: it answers with the claims API Gateway verified, to show where a handler
 * finds them (payload format 2.0: `requestContext.authorizer.jwt`). It reads no header, so it
 * never sees or logs the token.
 */
export const SAMPLE_HANDLER = `exports.handler = async (event) => {
  const { claims } = event.requestContext.authorizer.jwt;
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify({ hello: claims.sub, client_id: claims.client_id, env_id: claims.env_id, scope: claims.scope }),
  };
};
`;

/** The sample route. */
export const SAMPLE_ROUTE = { method: HttpMethod.GET, path: '/hello' } as const;

export class ProtectedHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The JWT authorizer: every route of `api` uses it unless it names another. */
  readonly authorizer: HttpJwtAuthorizer;
  readonly accessLogs: LogGroup;
  /** The sample function behind `GET /hello`. */
  readonly handler: Function;
  /** The API's base URL (`https://<api-id>.execute-api.<region>.amazonaws.com`; the `$default` stage has no path). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ProtectedHttpApiProps) {
    super(scope, id);
    checkIssuer(props.issuer);
    if (props.audiences.length === 0)
      throw new Error("ProtectedHttpApi: give at least one audience (an RS256 client's accessToken.audience)");
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;

    // The identity source is the default one, said out loud: API Gateway accepts the token alone
    // or prefixed with "Bearer " (RFC 6750 §2.1).
    this.authorizer = new HttpJwtAuthorizer('IdentityJwt', props.issuer, {
      jwtAudience: [...props.audiences],
      identitySource: ['$request.header.Authorization'],
    });
    this.api = new HttpApi(this, 'Api', {
      apiName: `${Stack.of(this).stackName}-${id}`,
      description: "An API protected by the identity service's RS256 access tokens",
      // Every route is protected unless it says otherwise (HttpNoneAuthorizer): forgetting the
      // authorizer on a new route must not make it public.
      defaultAuthorizer: this.authorizer,
      // The stage is added below, with access logs and throttling, which the default stage lacks.
      createDefaultStage: false,
    });
    // Without it, API Gateway creates the API with a warning and without the authorizer (and the
    // routes that use it) when it cannot read the issuer's discovery document; the deployment
    // then "succeeds" with an API that lacks its protected routes. With it, the deployment fails
    // and says why (AWS::ApiGatewayV2::Api, FailOnWarnings).
    (this.api.node.defaultChild as CfnApi).failOnWarnings = true;

    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention, removalPolicy });
    this.stage = this.api.addStage('Stage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 50, burstLimit: 100 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    this.url = this.stage.url;

    this.handler = this.sampleFunction(retention, removalPolicy);
    this.api.addRoutes({
      path: SAMPLE_ROUTE.path,
      methods: [SAMPLE_ROUTE.method],
      integration: new HttpLambdaIntegration('Hello', this.handler),
      ...(props.sampleRouteScopes === undefined ? {} : { authorizationScopes: [...props.sampleRouteScopes] }),
    });
  }

  /** An inline function (nothing to bundle) with its own log group and a role that may write there only. */
  private sampleFunction(retention: RetentionDays, removalPolicy: RemovalPolicy): Function {
    const logGroup = new LogGroup(this, 'HelloLogs', { retention, removalPolicy });
    const role = new Role(this, 'HelloRole', {
      description: "The sample route's function: writing its own logs, nothing else",
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: {
        WriteOwnLogs: new PolicyDocument({
          statements: [new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] })],
        }),
      },
    });
    const fn = new Function(this, 'Hello', {
      description: 'GET /hello: answers with the verified claims',
      // The latest Node.js runtime: the handler is a few lines of plain JavaScript with no
      // dependencies, so it has nothing to keep it on an older one.
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      handler: 'index.handler',
      code: Code.fromInline(SAMPLE_HANDLER),
      memorySize: 128,
      timeout: Duration.seconds(5),
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
    });
    // cdk-nag's Serverless pack. Your own functions behind the API may well want both.
    Validations.of(fn).acknowledge(
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked synchronously by the HTTP API, which answers the caller with its error: a dead-letter queue serves asynchronous invocations only (Lambda Developer Guide, "Retaining records of asynchronous invocations").',
      },
      {
        id: 'Serverless-LambdaTracing',
        reason:
          'HTTP APIs have no X-Ray tracing (API Gateway traces REST APIs only), and the sample answers from the request alone, calling nothing: a trace would hold its invocation and nothing the access log does not show.',
      },
    );
    return fn;
  }
}

/**
 * A literal issuer is checked here, where a mistake is cheap: API Gateway compares `iss` with it
 * character for character, so a trailing slash or `http:` would refuse every token at run time.
 * A token (a stack output read at deployment) is trusted as the identity stack wrote it.
 */
function checkIssuer(issuer: string): void {
  if (Token.isUnresolved(issuer)) return;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new Error(`ProtectedHttpApi: issuer "${issuer}" is not a URL; use the identity stack's Issuer output`);
  }
  if (url.protocol !== 'https:' || issuer.endsWith('/') || url.search !== '' || url.hash !== '') {
    throw new Error(
      `ProtectedHttpApi: issuer "${issuer}" must be the identity stack's Issuer output exactly: https, no trailing slash, no query`,
    );
  }
}
