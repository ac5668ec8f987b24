/**
 * Deploy safety (infra/deploy-safety.ts): every API function behind a `live` alias that the API
 * invokes, shifted by CodeDeploy as the stage says, rolled back on failure and on the function's
 * alarms. The stacks are synthesized without bundling (test/infra/offline-synthesis.ts), with
 * cdk-nag: only their templates matter here. Production is the filled-in copy of config/prod.json
 * (test/infra/production-stage.ts); dev is config/dev.json.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { addNagChecks, addStage, cdkJsonContext } from '../../infra/app';
import { CODEDEPLOY_LAMBDA_POLICY, DeploySafety, deploymentConfigOf, LIVE_ALIAS, MAX_DEPLOYMENT_ALARMS } from '../../infra/deploy-safety';
import type { IdentityStack } from '../../infra/identity-stack';
import { CONFIG_DIR } from '../../infra/stage';
import { parseDeployableStage, type DeploymentConfig } from '../../infra/stage-config';
import { FUNCTIONS, ROUTES, type FunctionName } from '../../lib/platform/routes';
import { productionConfigDir } from './production-stage';
import { ofType, templateOf, type Json, type TemplateJson } from './offline-synthesis';

type Resource = TemplateJson['Resources'][string] & { UpdatePolicy?: Json };
const API_FUNCTIONS = Object.keys(FUNCTIONS) as FunctionName[];

/** A stage's stack as `cdk synth` builds it (cdk-nag included), bundling nothing; `configDir` as `-c configDir`. */
function stageStack(stage: string, configDir?: string): IdentityStack {
  const app = new App({
    context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [], ...(configDir === undefined ? {} : { configDir }) },
    outdir: mkdtempSync(join(tmpdir(), 'cdk-deploy-safety-')),
  });
  addNagChecks(app);
  return addStage(app, stage);
}

const logicalIdOf = (stack: Stack, construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);

describe('a production stage', () => {
  let stack: IdentityStack;
  let json: TemplateJson;
  const resource = (id: string): Resource => json.Resources[id] as Resource;
  const functionId = (name: FunctionName) => logicalIdOf(stack, stack.functions[name].function);
  const aliasId = (name: FunctionName) => logicalIdOf(stack, stack.deploySafety.aliases[name]);

  beforeAll(() => {
    stack = stageStack('prod', productionConfigDir());
    json = templateOf(stack);
  }, 120_000);

  it('publishes every API function as a version behind an alias named live, and no other function', () => {
    const aliases = ofType(json, 'AWS::Lambda::Alias').map(([, alias]) => alias.Properties);
    expect(aliases).toHaveLength(API_FUNCTIONS.length);
    for (const name of API_FUNCTIONS) {
      const alias = resource(aliasId(name)).Properties;
      expect(alias).toEqual({
        Name: LIVE_ALIAS,
        FunctionName: { Ref: functionId(name) },
        FunctionVersion: { 'Fn::GetAtt': [expect.any(String), 'Version'] },
      });
      // The version it points at is a version of the same function.
      const versionId = (alias.FunctionVersion as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      expect(resource(versionId)).toMatchObject({ Type: 'AWS::Lambda::Version', Properties: { FunctionName: { Ref: functionId(name) } } });
    }
    // The rotation and back-channel functions are not behind the API: invoked by their services, not shifted.
    const aliased = new Set(aliases.map((alias) => JSON.stringify(alias.FunctionName)));
    for (const other of [stack.rotation.function, stack.backchannel.worker.function]) {
      expect(aliased.has(JSON.stringify({ Ref: logicalIdOf(stack, other) }))).toBe(false);
    }
  });

  it('has the API invoke the live aliases only: every integration, and every permission API Gateway holds', () => {
    const methods = ofType(json, 'AWS::ApiGateway::Method').filter(([, method]) => method.Properties.HttpMethod === 'ANY');
    expect(methods).toHaveLength(ROUTES.length);
    const aliasIds = new Set(API_FUNCTIONS.map(aliasId));
    for (const [, method] of methods) {
      const uri = JSON.stringify((method.Properties.Integration as Json).Uri);
      const target = /"Ref":"([^"]+)"\},"\/invocations"/.exec(uri)?.[1];
      expect(aliasIds.has(target ?? '')).toBe(true);
    }
    const permissions = ofType(json, 'AWS::Lambda::Permission')
      .map(([, permission]) => permission.Properties)
      .filter((permission) => permission.Principal === 'apigateway.amazonaws.com');
    expect(permissions).toHaveLength(ROUTES.length);
    for (const permission of permissions) expect(aliasIds.has((permission.FunctionName as { Ref: string }).Ref)).toBe(true);
  });

  it('shifts each alias with its own CodeDeploy deployment group, canary 10% for 5 minutes, in one application', () => {
    const [[applicationId, application]] = ofType(json, 'AWS::CodeDeploy::Application') as [[string, Resource]];
    expect(application.Properties).toEqual({ ApplicationName: 'identity-prod', ComputePlatform: 'Lambda' });
    expect(ofType(json, 'AWS::CodeDeploy::DeploymentGroup')).toHaveLength(API_FUNCTIONS.length);
    for (const name of API_FUNCTIONS) {
      const groupId = logicalIdOf(stack, stack.deploySafety.groups[name]);
      expect(resource(aliasId(name)).UpdatePolicy).toEqual({
        CodeDeployLambdaAliasUpdate: { ApplicationName: { Ref: applicationId }, DeploymentGroupName: { Ref: groupId } },
      });
      expect(resource(groupId).Properties).toMatchObject({
        ApplicationName: { Ref: applicationId },
        DeploymentGroupName: name,
        DeploymentConfigName: 'CodeDeployDefault.LambdaCanary10Percent5Minutes',
        DeploymentStyle: { DeploymentOption: 'WITH_TRAFFIC_CONTROL', DeploymentType: 'BLUE_GREEN' },
      });
    }
  });

  it("rolls back a failed, stopped or alarmed deployment, on the function's own alarms and the service's (Monitoring.deploymentAlarms)", () => {
    for (const name of API_FUNCTIONS) {
      const group = resource(logicalIdOf(stack, stack.deploySafety.groups[name])).Properties;
      expect(group.AutoRollbackConfiguration).toEqual({
        Enabled: true,
        Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST', 'DEPLOYMENT_STOP_ON_ALARM']),
      });
      const alarms = (group.AlarmConfiguration as { Enabled: boolean; Alarms: Array<{ Name: unknown }> }).Alarms;
      expect(group.AlarmConfiguration).toMatchObject({ Enabled: true });
      expect(alarms.length).toBeLessThanOrEqual(MAX_DEPLOYMENT_ALARMS);
      expect(alarms.map((alarm) => alarm.Name)).toEqual(
        stack.monitoring.deploymentAlarms(name).map((alarm) => ({ Ref: logicalIdOf(stack, alarm) })),
      );
      // The function's own errors first: an alarm on its Errors metric, by its name.
      const [ownErrors] = stack.monitoring.deploymentAlarms(name);
      const errors = resource(logicalIdOf(stack, ownErrors as Alarm)).Properties;
      expect(errors).toMatchObject({
        MetricName: 'Errors',
        Namespace: 'AWS/Lambda',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(name) } }],
      });
    }
  });

  it('lets only IAM principals take a test recipient’s message: the route is AWS_IAM, on the admin function’s alias', () => {
    const take = ofType(json, 'AWS::ApiGateway::Resource').find(([, resource]) => resource.Properties.PathPart === 'take');
    expect(take).toBeDefined();
    const methods = ofType(json, 'AWS::ApiGateway::Method')
      .map(([, method]) => method.Properties)
      .filter((method) => JSON.stringify(method.ResourceId) === JSON.stringify({ Ref: take?.[0] }));
    expect(methods).toHaveLength(1);
    expect(methods[0]).toMatchObject({ HttpMethod: 'ANY', AuthorizationType: 'AWS_IAM' });
    expect(JSON.stringify((methods[0]?.Integration as Json).Uri)).toContain(`{"Ref":"${aliasId('admin')}"}`);
  });

  it("gives CodeDeploy one role, which only CodeDeploy assumes, holding AWS's policy for Lambda deployments", () => {
    const roleId = logicalIdOf(stack, stack.deploySafety.role);
    expect(resource(roleId).Properties).toMatchObject({
      AssumeRolePolicyDocument: {
        Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'codedeploy.amazonaws.com' } }],
      },
      ManagedPolicyArns: [{ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::aws:policy/${CODEDEPLOY_LAMBDA_POLICY}`]] }],
    });
    const roles = new Set(
      ofType(json, 'AWS::CodeDeploy::DeploymentGroup').map(([, group]) => JSON.stringify(group.Properties.ServiceRoleArn)),
    );
    expect([...roles]).toEqual([JSON.stringify({ 'Fn::GetAtt': [roleId, 'Arn'] })]);
  });
});

describe('the dev stage', () => {
  it('deploys all at once, still rolled back by an alarm', () => {
    const stack = stageStack('dev');
    const groups = ofType(templateOf(stack), 'AWS::CodeDeploy::DeploymentGroup').map(([, group]) => group.Properties);
    expect(groups).toHaveLength(API_FUNCTIONS.length);
    for (const group of groups) {
      expect(group).toMatchObject({ DeploymentConfigName: 'CodeDeployDefault.LambdaAllAtOnce', AlarmConfiguration: { Enabled: true } });
    }
  }, 120_000);
});

describe('the strategy (deployment.deploy)', () => {
  const devFile = () => JSON.parse(readFileSync(join(CONFIG_DIR, 'dev.json'), 'utf8')) as { deployment: Record<string, unknown> };
  const deployOf = (deploy: unknown): DeploymentConfig['deploy'] => {
    const raw = devFile();
    raw.deployment.deploy = deploy;
    return parseDeployableStage(raw).deployment.deploy;
  };
  const configOf = (deploy: DeploymentConfig['deploy']) => {
    const stack = new Stack(new App(), 'Config');
    const config = deploymentConfigOf(stack, deploy);
    return {
      name: stack.resolve(config.deploymentConfigName) as unknown,
      resources: { Resources: {}, ...(Template.fromStack(stack).toJSON() as Partial<TemplateJson>) },
    };
  };

  it('is a canary of 10% for 5 minutes when the stage file says nothing', () => {
    const raw = devFile();
    delete raw.deployment.deploy;
    expect(parseDeployableStage(raw).deployment.deploy).toEqual({ strategy: 'canary', percent: 10, intervalMinutes: 5 });
  });

  it('refuses what CodeDeploy cannot do, naming the field', () => {
    expect(() => deployOf({ strategy: 'blue-green' })).toThrow(/deployment\.deploy\.strategy/);
    expect(() => deployOf({ percent: 100 })).toThrow(/deployment\.deploy\.percent/);
    expect(() => deployOf({ percent: 0 })).toThrow(/deployment\.deploy\.percent/);
    expect(() => deployOf({ intervalMinutes: 0 })).toThrow(/deployment\.deploy\.intervalMinutes/);
  });

  it("uses CodeDeploy's predefined configurations where one matches, creating nothing", () => {
    expect(configOf(deployOf({})).name).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
    expect(configOf(deployOf({ intervalMinutes: 30 })).name).toBe('CodeDeployDefault.LambdaCanary10Percent30Minutes');
    expect(configOf(deployOf({ strategy: 'linear', intervalMinutes: 1 })).name).toBe('CodeDeployDefault.LambdaLinear10PercentEvery1Minute');
    expect(configOf(deployOf({ strategy: 'all-at-once' })).name).toBe('CodeDeployDefault.LambdaAllAtOnce');
    expect(ofType(configOf(deployOf({})).resources, 'AWS::CodeDeploy::DeploymentConfig')).toEqual([]);
  });

  it('creates its own configuration otherwise: a canary of 20% for 7 minutes, 25% more every 4 minutes', () => {
    const canary = configOf(deployOf({ strategy: 'canary', percent: 20, intervalMinutes: 7 }));
    const [[canaryId, canaryConfig]] = ofType(canary.resources, 'AWS::CodeDeploy::DeploymentConfig') as [[string, Resource]];
    expect(canary.name).toEqual({ Ref: canaryId });
    expect(canaryConfig.Properties).toMatchObject({
      ComputePlatform: 'Lambda',
      TrafficRoutingConfig: { Type: 'TimeBasedCanary', TimeBasedCanary: { CanaryInterval: 7, CanaryPercentage: 20 } },
    });
    const linear = configOf(deployOf({ strategy: 'linear', percent: 25, intervalMinutes: 4 }));
    const [[, linearConfig]] = ofType(linear.resources, 'AWS::CodeDeploy::DeploymentConfig') as [[string, Resource]];
    expect(linearConfig.Properties).toMatchObject({
      TrafficRoutingConfig: { Type: 'TimeBasedLinear', TimeBasedLinear: { LinearInterval: 4, LinearPercentage: 25 } },
    });
  });
});

describe('the deployment alarms', () => {
  const safetyWithOneFunction = () => {
    const stack = new Stack(new App(), 'Alarms');
    const fn = new LambdaFunction(stack, 'Fn', { runtime: Runtime.NODEJS_22_X, handler: 'index.handler', code: Code.fromInline('x') });
    const safety = new DeploySafety(stack, 'DeploySafety', {
      stage: 'test',
      deploy: { strategy: 'canary', percent: 10, intervalMinutes: 5 },
      functions: { token: fn } as unknown as Record<FunctionName, LambdaFunction>,
    });
    const alarms = (count: number) =>
      Array.from(
        { length: count },
        (_, index) =>
          new Alarm(stack, `Alarm${index}`, {
            metric: new Metric({ namespace: 'N', metricName: 'M' }),
            threshold: 1,
            evaluationPeriods: 1,
          }),
      );
    return { safety, alarms };
  };

  it(`refuses more than CodeDeploy's ${MAX_DEPLOYMENT_ALARMS} per deployment group`, () => {
    const { safety, alarms } = safetyWithOneFunction();
    const eleven = alarms(MAX_DEPLOYMENT_ALARMS + 1);
    expect(() => safety.rollBackOn(() => eleven)).toThrow(
      'token has 11 deployment alarms; CodeDeploy takes at most 10 per deployment group',
    );
  });

  it('refuses a deployment group that no alarm would roll back', () => {
    const { safety } = safetyWithOneFunction();
    expect(() => safety.rollBackOn(() => [])).toThrow('No alarm would roll back a deployment of token');
  });

  it(`takes exactly ${MAX_DEPLOYMENT_ALARMS}`, () => {
    const { safety, alarms } = safetyWithOneFunction();
    const ten = alarms(MAX_DEPLOYMENT_ALARMS);
    safety.rollBackOn(() => ten);
    expect(safety.groups.token).toBeDefined();
  });
});
