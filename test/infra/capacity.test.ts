/**
 * Capacity as configuration (docs/operations/capacity.md): per-route throttles become method
 * settings of the API stage, reserved concurrency reaches the functions, the stack checks both
 * name what exists and fit the account, the production stack stays well under CloudFormation's
 * 500 resources, and the capacity document states the limits the production template sets.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addStage } from '../../infra/app';
import { routeThrottling } from '../../infra/api';
import { PROJECT_ROOT } from '../../infra/bundling';
import type { IdentityStack } from '../../infra/identity-stack';
import { deploymentProblems, loadStageFile } from '../../infra/stage';
import { parseDeployableStage, type DeployableStageConfig } from '../../infra/stage-config';
import { FUNCTIONS, type FunctionName } from '../../lib/platform/routes';
import { logicalId, newApp, only, type TemplateJson } from './offline-synthesis';
import { productionConfigDir } from './production-stage';
import { Template } from 'aws-cdk-lib/assertions';

/** What the capacity document promises as headroom under CloudFormation's 500 resources per stack. */
const RESOURCE_BUDGET = 400;

type MethodSetting = {
  ResourcePath: string;
  HttpMethod: string;
  ThrottlingRateLimit?: number;
  ThrottlingBurstLimit?: number;
  LoggingLevel?: string;
  DataTraceEnabled?: boolean;
};

let prod: IdentityStack;
let prodJson: TemplateJson;
let dev: IdentityStack;
let devJson: TemplateJson;

beforeAll(() => {
  prod = addStage(newApp({ configDir: productionConfigDir() }), 'prod');
  prodJson = Template.fromStack(prod).toJSON() as TemplateJson;
  dev = addStage(newApp(), 'dev');
  devJson = Template.fromStack(dev).toJSON() as TemplateJson;
}, 120_000);

const prodConfig = (): DeployableStageConfig => structuredClone(loadStageFile('prod', productionConfigDir()).config);
const methodSettings = (json: TemplateJson) => only(json, 'AWS::ApiGateway::Stage')[1].Properties.MethodSettings as MethodSetting[];

describe('per-route throttles', () => {
  it('reach the stage as method settings, one per route and method, keeping error-only logs and no data trace', () => {
    // Arrange
    const routes = prodConfig().deployment.throttling.routes;

    // Act
    const settings = methodSettings(prodJson);

    // Assert
    expect(settings).toContainEqual(
      expect.objectContaining({ ResourcePath: '/*', HttpMethod: '*', ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
    );
    for (const [key, limit] of Object.entries(routes)) {
      const [method, path] = key.split(' ') as [string, string];
      expect(settings).toContainEqual({
        ResourcePath: `/${path.replaceAll('/', '~1')}`,
        HttpMethod: method,
        ThrottlingRateLimit: limit.rateLimit,
        ThrottlingBurstLimit: limit.burstLimit,
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
        MetricsEnabled: false,
      });
    }
    expect(settings).toContainEqual(
      expect.objectContaining({
        ResourcePath: '/~1idp~1v1~1otp~1send',
        HttpMethod: 'POST',
        ThrottlingRateLimit: 300,
        ThrottlingBurstLimit: 600,
      }),
    );
    expect(settings).toHaveLength(Object.keys(routes).length + 1);
  });

  it('are keyed /<path>/<METHOD>, the form CDK turns into ResourcePath and HttpMethod', () => {
    expect(Object.keys(routeThrottling({ 'GET /idp/v1/account/authorize': { rateLimit: 1, burstLimit: 2 } }))).toEqual([
      '/idp/v1/account/authorize/GET',
    ]);
  });

  it('are absent where the stage sets none (dev): its stage-wide limits alone', () => {
    expect(methodSettings(devJson)).toEqual([expect.objectContaining({ ResourcePath: '/*', HttpMethod: '*', ThrottlingRateLimit: 10 })]);
  });

  it.each<[string, (config: DeployableStageConfig) => void, RegExp]>([
    [
      'a route that does not exist',
      (config) => void (config.deployment.throttling.routes['POST /idp/v1/otp/sned'] = { rateLimit: 1, burstLimit: 1 }),
      /deployment\.throttling\.routes: "POST \/idp\/v1\/otp\/sned" is not a method of a route/,
    ],
    [
      'a method the route does not answer',
      (config) => void (config.deployment.throttling.routes['GET /idp/v1/otp/send'] = { rateLimit: 1, burstLimit: 1 }),
      /deployment\.throttling\.routes: "GET \/idp\/v1\/otp\/send" is not a method of a route/,
    ],
  ])('refuse %s', (_name, breakIt, message) => {
    const config = prodConfig();
    breakIt(config);
    expect(deploymentProblems(config)).toEqual([expect.stringMatching(message)]);
  });

  it('refuse a key that is not "<METHOD> <path>"', () => {
    const raw = JSON.parse(readFileSync(join(productionConfigDir(), 'prod.json'), 'utf8')) as {
      deployment: { throttling: { routes: unknown } };
    };
    raw.deployment.throttling.routes = { '/idp/v1/otp/send': { rateLimit: 1, burstLimit: 1 } };
    expect(() => parseDeployableStage(raw, 'prod.json')).toThrow(/deployment\.throttling\.routes/);
  });
});

describe('reserved concurrency', () => {
  it('reaches the functions the stage names, and only those', () => {
    // Arrange
    const reserved = prodConfig().deployment.reservedConcurrency;

    // Act
    const byFunction = Object.fromEntries(
      (Object.keys(FUNCTIONS) as FunctionName[]).map((name) => [
        name,
        prodJson.Resources[logicalId(prod, prod.functions[name].function)]!.Properties.ReservedConcurrentExecutions,
      ]),
    );

    // Assert
    expect(reserved).toEqual({ token: 150, 'otp-send': 200 });
    expect(byFunction).toEqual(
      Object.fromEntries((Object.keys(FUNCTIONS) as FunctionName[]).map((name) => [name, reserved[name as keyof typeof reserved]])),
    );
    const devReserved = (Object.keys(FUNCTIONS) as FunctionName[]).map(
      (name) => devJson.Resources[logicalId(dev, dev.functions[name].function)]!.Properties.ReservedConcurrentExecutions,
    );
    expect(devReserved.every((value) => value === undefined)).toBe(true);
  });

  it.each<[string, (config: DeployableStageConfig) => void, RegExp]>([
    [
      'a function that does not exist',
      (config) => void (config.deployment.reservedConcurrency['tokens'] = 10),
      /deployment\.reservedConcurrency: "tokens" is not an API function/,
    ],
    [
      'more than the account quota less the 100 Lambda keeps unreserved',
      (config) => {
        config.deployment.alarms.accountConcurrencyLimit = 400;
        config.deployment.reservedConcurrency = { token: 150, 'otp-send': 151 };
      },
      /deployment\.reservedConcurrency reserves 301 of the account's 400 .*: Lambda keeps 100 unreserved, so at most 300/,
    ],
  ])('refuses %s', (_name, breakIt, message) => {
    const config = prodConfig();
    breakIt(config);
    expect(deploymentProblems(config)).toEqual([expect.stringMatching(message)]);
  });

  it('accepts exactly the quota less 100', () => {
    const config = prodConfig();
    config.deployment.alarms.accountConcurrencyLimit = 450;
    expect(deploymentProblems(config)).toEqual([]);
  });
});

describe('the production stack', () => {
  it(`stays under ${RESOURCE_BUDGET} CloudFormation resources (the limit is 500 per stack)`, () => {
    expect(Object.keys(prodJson.Resources).length).toBeLessThan(RESOURCE_BUDGET);
  });

  it('retains its data except when the deployment that created it fails (RetainExceptOnCreate), so a failed first deployment leaves nothing behind', () => {
    // Arrange: every resource with a deletion policy other than Delete.
    const kept = Object.entries(prodJson.Resources as Record<string, { Type: string; DeletionPolicy?: string }>).filter(
      ([, resource]) => resource.DeletionPolicy !== undefined && resource.DeletionPolicy !== 'Delete',
    );

    // Act
    const policies = kept.map(([id, resource]) => ({ id, type: resource.Type, policy: resource.DeletionPolicy }));

    // Assert: the table, the secrets, the created SES identity and the log groups at least; and only
    // API Gateway's account-wide CloudWatch role and its account setting kept for good (other
    // stages' APIs in the account and region may log through them).
    for (const type of ['AWS::DynamoDB::Table', 'AWS::SecretsManager::Secret', 'AWS::SES::EmailIdentity', 'AWS::Logs::LogGroup']) {
      expect({ type, kept: policies.some((entry) => entry.type === type) }).toEqual({ type, kept: true });
    }
    expect(policies.filter((entry) => entry.policy !== 'RetainExceptOnCreate')).toEqual([
      { id: expect.stringMatching(/CloudWatchRole/), type: 'AWS::IAM::Role', policy: 'Retain' },
      { id: expect.stringMatching(/Account/), type: 'AWS::ApiGateway::Account', policy: 'Retain' },
    ]);
    const devKept = Object.values(devJson.Resources as Record<string, { Type: string; DeletionPolicy?: string }>).filter(
      (resource) => resource.DeletionPolicy === 'RetainExceptOnCreate',
    );
    expect(devKept).toEqual([]);
  });
});

describe('docs/operations/capacity.md', () => {
  const doc = () => readFileSync(join(PROJECT_ROOT, 'docs/operations/capacity.md'), 'utf8');

  it('states every per-route limit and reservation the production template sets', () => {
    const deployment = prodConfig().deployment;
    for (const [key, limit] of Object.entries(deployment.throttling.routes)) {
      expect(doc()).toMatch(new RegExp(`\\| \`${key}\` +\\| +${limit.rateLimit} / ${limit.burstLimit} +\\|`));
    }
    expect(doc()).toMatch(
      new RegExp(
        `\\| stage default \\(each other method\\) +\\| +${deployment.throttling.rateLimit} / ${deployment.throttling.burstLimit} +\\|`,
      ),
    );
    for (const [name, count] of Object.entries(deployment.reservedConcurrency)) {
      expect(doc()).toMatch(new RegExp(`\\| \`${name}\` +\\| +${count} +\\|`));
    }
  });

  it(`states the resource budget of ${RESOURCE_BUDGET}`, () => {
    expect(doc()).toContain(`under ${RESOURCE_BUDGET} resources`);
  });
});
