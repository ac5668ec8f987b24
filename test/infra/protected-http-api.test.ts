/**
 * The example consumer of the service's tokens (infra/examples/): an HTTP API whose JWT
 * authorizer trusts the identity stack's issuer and an RS256 client's audience, wired the three
 * ways docs/deploy.md describes, cdk-nag clean. The identity stacks are synthesized without
 * bundling (test/infra/offline-synthesis.ts): only their templates matter here.
 */
import { runInNewContext } from 'node:vm';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addStage } from '../../infra/app';
import { ExampleApiStack, examplePropsFromContext } from '../../infra/examples/example-api-app';
import { issuerFromStackOutput, issuerOf } from '../../infra/examples/identity-issuer';
import { ProtectedHttpApi, SAMPLE_HANDLER } from '../../infra/examples/protected-http-api';
import { ISSUER_OUTPUT, stackNameOf, type IdentityStack } from '../../infra/identity-stack';
import { logicalId, newApp, only, templateOf, type Json, type TemplateJson } from './offline-synthesis';
import { PRODUCTION_DOMAIN, productionConfigDir } from './production-stage';

/** The RS256 client of docs/deploy.md's walk-through: its audience and the scope it is granted. */
const RS256_CLIENT = { audience: 'https://api.example.com', scope: 'orders:read' } as const;

/** What every wiring must produce: the authorizer, the protected route, and a safe API around them. */
function expectProtected(stack: ExampleApiStack, json: TemplateJson, issuer: unknown): void {
  const [authorizerId, authorizer] = only(json, 'AWS::ApiGatewayV2::Authorizer');
  expect(authorizer.Properties).toEqual({
    ApiId: { Ref: logicalId(stack, stack.protectedApi.api) },
    AuthorizerType: 'JWT',
    Name: 'IdentityJwt',
    IdentitySource: ['$request.header.Authorization'],
    JwtConfiguration: { Issuer: issuer, Audience: expect.arrayContaining([RS256_CLIENT.audience]) },
  });
  const [, route] = only(json, 'AWS::ApiGatewayV2::Route');
  expect(route.Properties).toMatchObject({
    RouteKey: 'GET /hello',
    AuthorizationType: 'JWT',
    AuthorizerId: { Ref: authorizerId },
    AuthorizationScopes: [RS256_CLIENT.scope],
  });
  const [, api] = only(json, 'AWS::ApiGatewayV2::Api');
  expect(api.Properties).toMatchObject({ ProtocolType: 'HTTP', FailOnWarnings: true });
}

describe('the identity stacks the consumers read', () => {
  let prod: IdentityStack;
  let dev: IdentityStack;
  let devJson: TemplateJson;

  beforeAll(() => {
    prod = addStage(newApp({ configDir: productionConfigDir() }), 'prod');
    dev = addStage(newApp(), 'dev');
    devJson = Template.fromStack(dev).toJSON() as TemplateJson;
  }, 60_000);

  describe('another app, the issuer as a literal from its configuration (the recommended wiring)', () => {
    it('trusts exactly the identity stack’s issuer and the RS256 client’s audience, on a route that requires its scope', () => {
      // Arrange: what the consuming team copies from the identity stack's Issuer output.
      const issuer = prod.issuer;
      const app = newApp();

      // Act
      const stack = new ExampleApiStack(app, 'ExampleProtectedApi', {
        issuer,
        audiences: [RS256_CLIENT.audience],
        sampleRouteScopes: [RS256_CLIENT.scope],
      });
      const json = templateOf(stack);

      // Assert
      expect(issuer).toBe(`https://id.${PRODUCTION_DOMAIN}`);
      expect(Template.fromStack(prod).toJSON()).toMatchObject({ Outputs: { [ISSUER_OUTPUT]: { Value: issuer } } });
      expectProtected(stack, json, issuer);
    });
  });

  describe('another app, the issuer read from the identity stack’s output at deployment', () => {
    it('reads the Issuer output of Identity-<stage> with Fn::GetStackOutput, an output the identity stack has', () => {
      // Arrange
      const app = newApp();

      // Act
      const stack = new ExampleApiStack(app, 'ExampleProtectedApi', {
        issuer: issuerFromStackOutput(stackNameOf('dev')),
        audiences: [RS256_CLIENT.audience],
        sampleRouteScopes: [RS256_CLIENT.scope],
      });
      const json = templateOf(stack);

      // Assert
      expectProtected(stack, json, { 'Fn::GetStackOutput': { StackName: 'Identity-dev', OutputName: 'Issuer' } });
      expect(devJson.Outputs?.[ISSUER_OUTPUT]?.Value).toEqual(dev.resolve(dev.issuer));
    });
  });

  describe('the same app', () => {
    it('reads a stage URL issuer from the Issuer output, deploying the consumer after the identity stack', () => {
      // Arrange
      const app = newApp();
      const identity = addStage(app, 'dev');
      const consumer = new Stack(app, 'Consumer');

      // Act
      const protectedApi = new ProtectedHttpApi(consumer, 'Orders', {
        issuer: issuerOf(identity, consumer),
        audiences: [RS256_CLIENT.audience],
        sampleRouteScopes: [RS256_CLIENT.scope],
      });
      const json = templateOf(consumer);

      // Assert
      const [, authorizer] = only(json, 'AWS::ApiGatewayV2::Authorizer');
      expect((authorizer.Properties.JwtConfiguration as Json).Issuer).toEqual({
        'Fn::GetStackOutput': { StackName: 'Identity-dev', OutputName: ISSUER_OUTPUT },
      });
      expect(consumer.dependencies).toEqual([identity]);
      expect(protectedApi.authorizer.authorizationType).toBe('JWT');
    });

    it('takes a literal issuer (a configured issuer or a custom domain) as it is, with no dependency', () => {
      const app = newApp({ configDir: productionConfigDir() });
      const identity = addStage(app, 'prod');
      const consumer = new Stack(app, 'Consumer', { env: { region: 'eu-west-1' } });

      expect(issuerOf(identity, consumer)).toBe(`https://id.${PRODUCTION_DOMAIN}`);
      expect(consumer.dependencies).toEqual([]);
    });
  });
});

describe('ProtectedHttpApi', () => {
  const newStack = () => new Stack(new App(), 'Consumer');

  it.each([
    ['a trailing slash', 'https://id.example.com/', /no trailing slash/],
    ['http', 'http://id.example.com', /https/],
    ['a query', 'https://id.example.com?x=1', /no query/],
    ['something that is not a URL', 'id.example.com', /is not a URL/],
  ])('refuses an issuer with %s, which no token’s iss would ever match', (_name, issuer, message) => {
    expect(() => new ProtectedHttpApi(newStack(), 'Api', { issuer, audiences: [RS256_CLIENT.audience] })).toThrow(message);
  });

  it('refuses to be built without an audience', () => {
    expect(() => new ProtectedHttpApi(newStack(), 'Api', { issuer: 'https://id.example.com', audiences: [] })).toThrow(
      /at least one audience/,
    );
  });

  it('takes an issuer read at deployment as it is', () => {
    expect(
      () => new ProtectedHttpApi(newStack(), 'Api', { issuer: issuerFromStackOutput('Identity-dev'), audiences: ['a'] }),
    ).not.toThrow();
  });

  it('lets the sample function write its own logs and nothing else, acknowledges only the Serverless pack’s rules for asynchronous and traced functions, and logs no header', () => {
    // Arrange
    const app = newApp();
    const stack = new ExampleApiStack(app, 'ExampleProtectedApi', { issuer: 'https://id.example.com', audiences: [RS256_CLIENT.audience] });

    // Act
    const json = templateOf(stack);

    // Assert
    const [, role] = only(json, 'AWS::IAM::Role');
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties.Policies).toEqual([
      {
        PolicyName: 'WriteOwnLogs',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              Resource: { 'Fn::GetAtt': [logicalId(stack, stack.protectedApi.handler.logGroup), 'Arn'] },
            },
          ],
        },
      },
    ]);
    const [, route] = only(json, 'AWS::ApiGatewayV2::Route');
    expect(route.Properties.AuthorizationScopes).toBeUndefined();
    const [, apiStage] = only(json, 'AWS::ApiGatewayV2::Stage');
    const format = (apiStage.Properties.AccessLogSettings as { Format: string }).Format;
    expect(JSON.parse(format)).toMatchObject({ authorizerError: '$context.authorizer.error', sub: '$context.authorizer.claims.sub' });
    expect(format).not.toMatch(/header|\$input/i);
    // The function is invoked synchronously, and HTTP APIs have no X-Ray tracing (the reasons are in the example).
    const acknowledged = stack.node
      .findAll()
      .flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === 'aws:cdk:acknowledged-rules')
          .flatMap((entry) => Object.keys(entry.data as object).map((id) => `${construct.node.path} ${id.replace(/^annotation::/i, '')}`)),
      );
    const handler = stack.protectedApi.handler.node.path;
    expect(acknowledged).toEqual([`${handler} Serverless-LambdaDLQ`, `${handler} Serverless-LambdaTracing`]);
  });
});

describe('the sample function', () => {
  it('answers with the claims API Gateway verified, and never the token', async () => {
    // Arrange
    const module = { exports: {} as { handler?: (event: unknown) => Promise<unknown> } };
    runInNewContext(SAMPLE_HANDLER, { exports: module.exports });
    const event = {
      headers: { authorization: 'Bearer eyJ.the-token.sig' },
      requestContext: {
        authorizer: {
          jwt: { claims: { sub: 'u-123', client_id: 'orders-web', env_id: 'web', scope: 'orders:read' }, scopes: ['orders:read'] },
        },
      },
    };

    // Act
    const response = await module.exports.handler!(event);

    // Assert
    expect(JSON.parse(JSON.stringify(response))).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      body: JSON.stringify({ hello: 'u-123', client_id: 'orders-web', env_id: 'web', scope: 'orders:read' }),
    });
    expect(JSON.stringify(response)).not.toContain('the-token');
  });
});

describe('the example app’s command line', () => {
  const propsOf = (context: Record<string, string>) => examplePropsFromContext(new App({ context }));

  it('takes a literal issuer, and audiences and scopes separated by spaces or commas', () => {
    expect(
      propsOf({
        issuer: 'https://id.example.com',
        audience: 'https://api.example.com, https://admin.example.com',
        scope: 'orders:read orders:write',
      }),
    ).toMatchObject({
      issuer: 'https://id.example.com',
      audiences: ['https://api.example.com', 'https://admin.example.com'],
      sampleRouteScopes: ['orders:read', 'orders:write'],
    });
  });

  it('reads the issuer from an identity stack, in another region if told', () => {
    const stack = new Stack();
    const props = propsOf({ identityStack: 'Identity-dev', identityRegion: 'eu-west-1', audience: RS256_CLIENT.audience });

    expect(stack.resolve(props.issuer)).toEqual({
      'Fn::GetStackOutput': { StackName: 'Identity-dev', OutputName: 'Issuer', Region: 'eu-west-1' },
    });
    expect(props.sampleRouteScopes).toBeUndefined();
  });

  it.each<[string, Record<string, string>]>([
    ['no audience', { issuer: 'https://id.example.com' }],
    ['no issuer', { audience: RS256_CLIENT.audience }],
    ['two issuers', { issuer: 'https://id.example.com', identityStack: 'Identity-dev', audience: RS256_CLIENT.audience }],
  ])('says what to give when it has %s', (_name, context) => {
    expect(() => propsOf(context)).toThrow(/Give the audience, and the issuer either as -c issuer=/);
  });
});
