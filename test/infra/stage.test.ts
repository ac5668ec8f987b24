/**
 * The stage files and the checks that make an invalid one fail synthesis with a clear message.
 * Pure: nothing is synthesized here.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseDeployableStage, type DeployableStageConfig } from '../../infra/stage-config';
import { coversSender, deploymentProblems, emailIdentitiesOf, loadStageFile } from '../../infra/stage';
import { productionConfigDir } from './production-stage';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The committed production template, as the schema reads it (synthesis refuses its placeholders: go-live-rules.test.ts). */
const prodTemplate = () => JSON.parse(readFileSync(`${__dirname}/../../config/prod.json`, 'utf8')) as unknown;

/** A valid stage configuration to break on purpose. */
function prodConfig(): DeployableStageConfig {
  return parseDeployableStage(prodTemplate(), 'config/prod.json');
}

describe('the stage files', () => {
  it.each(['dev', 'local'])('config/%s.json is valid, for the functions and for the stack', (stage) => {
    // Act
    const loaded = loadStageFile(stage);

    // Assert
    expect(loaded.config.stage).toBe(stage);
    expect(deploymentProblems(loaded.config)).toEqual([]);
  });

  it('config/prod.json is a valid template: only its placeholders stand between it and synthesis, and its filled-in copy loads', () => {
    expect(deploymentProblems(prodConfig())).toEqual([]);
    expect(loadStageFile('prod', productionConfigDir()).config.stage).toBe('prod');
  });

  it('makes dev a throw-away stage and prod a production one', () => {
    const dev = loadStageFile('dev').config.deployment;
    const prod = prodConfig().deployment;

    expect({ removal: dev.removalPolicy, waf: dev.waf !== undefined, days: dev.logRetentionDays }).toEqual({
      removal: 'destroy',
      waf: false,
      days: 7,
    });
    expect({ removal: prod.removalPolicy, waf: prod.waf !== undefined, days: prod.logRetentionDays }).toEqual({
      removal: 'retain',
      waf: true,
      days: 365,
    });
  });

  it('holds only hashes of the documented example API keys (docs/deploy.md), never a real key', () => {
    const documented = ['example-dev-backend-key-NOT-A-SECRET', 'example-prod-partner-key-NOT-A-SECRET'].map(sha256);
    const deployGuide = readFileSync(`${__dirname}/../../docs/deploy.md`, 'utf8');
    for (const config of [loadStageFile('dev').config, prodConfig()]) {
      for (const client of config.clients) {
        for (const hash of client.apiKeySha256) {
          expect({ client: client.id, documented: documented.includes(hash) }).toEqual({ client: client.id, documented: true });
          expect(deployGuide).toContain(hash);
        }
      }
    }
  });
});

describe('loadStageFile', () => {
  it('names the available stages when the stage has no file', () => {
    expect(() => loadStageFile('staging')).toThrow(/No configuration for stage "staging".*Stages: dev, local, prod/);
  });

  it('refuses a stage name that cannot be part of a stack name', () => {
    expect(() => loadStageFile('../prod')).toThrow(/Invalid stage "..\/prod"/);
  });
});

describe('deploymentProblems', () => {
  it('finds nothing wrong with a valid configuration', () => {
    expect(deploymentProblems(prodConfig())).toEqual([]);
  });

  it.each<[string, (config: DeployableStageConfig) => void, RegExp]>([
    [
      'a WAF rate limit on a path that is not a route',
      (config) => void config.deployment.waf!.perIpRateLimits.push({ path: '/idp/v1/otp/sned', limit: 100 }),
      /deployment\.waf\.perIpRateLimits: "\/idp\/v1\/otp\/sned" is not a route/,
    ],
    [
      'CORS on a path that is not a route',
      (config) => void (config.deployment.cors = { allowOrigins: ['https://app.example.com'], paths: ['/token'] }),
      /deployment\.cors\.paths: "\/token" is not a route/,
    ],
    [
      'a sender no SES identity covers',
      (config) => void (config.environments[1]!.email.sender = 'login@other.example.org'),
      /environment "partner": no entry of deployment\.emailIdentities covers its sender/,
    ],
    [
      'a key rotation period not longer than the longest token plus the JWKS cache',
      (config) => {
        config.deployment.signingKeyRotationDays = 1;
        config.clients[0]!.accessToken.ttlSeconds = 86_400;
      },
      /signingKeyRotationDays \(1\) must exceed the longest access-token lifetime \(86400 s\)/,
    ],
    [
      'both an alarm email and an existing alarm topic',
      (config) => void (config.deployment.alarms.page.topicArn = 'arn:aws:sns:eu-west-1:111122223333:alarms'),
      /deployment\.alarms\.page: give either email .* or topicArn/,
    ],
  ])('reports %s', (_name, breakIt, message) => {
    // Arrange
    const config = prodConfig();
    breakIt(config);

    // Act
    const problems = deploymentProblems(config);

    // Assert
    expect(problems).toEqual([expect.stringMatching(message)]);
  });
});

describe('the deployment section of the schema', () => {
  const withDeployment = (deployment: unknown) => ({
    ...(JSON.parse(readFileSync(loadStageFile('dev').file, 'utf8')) as Record<string, unknown>),
    deployment,
  });

  it('defaults every field, so a stage file may give only what it needs (config/local.json gives only CORS)', () => {
    expect(loadStageFile('local').config.deployment).toEqual({
      cors: { allowOrigins: ['http://127.0.0.1:3000', 'http://localhost:3000'] },
      removalPolicy: 'destroy',
      logRetentionDays: 30,
      logLevel: 'INFO',
      functionMemoryMb: 512,
      throttling: { rateLimit: 50, burstLimit: 100, routes: {} },
      reservedConcurrency: {},
      emailIdentities: [],
      alarms: {
        page: {},
        ticket: {},
        minimumRequests: 50,
        serverErrorPercent: 2,
        clientErrorPercent: 40,
        throttledPercent: 5,
        deliveryFailurePercent: 10,
        smsFailurePercent: 20,
        latencyP99Ms: 3000,
        accountConcurrencyLimit: 1000,
        accountConcurrencyPercent: 80,
        attemptsRefused: 100,
        failureCapsReached: 1,
        phoneSendsRefused: 50,
      },
      deploy: { strategy: 'canary', percent: 10, intervalMinutes: 5 },
      signingKeyRotationDays: 30,
      tracing: true,
      recovery: { hourlyRetentionDays: 2, dailyRetentionDays: 35 },
      apiGatewayCloudWatchRole: true,
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['a retention CloudWatch does not offer', { logRetentionDays: 10 }, /deployment\.logRetentionDays/],
    ['an unknown removal policy', { removalPolicy: 'snapshot' }, /deployment\.removalPolicy/],
    ['a CORS origin with a path', { cors: { allowOrigins: ['https://app.example.com/'] } }, /deployment\.cors\.allowOrigins\[0\]/],
    ['a WAF window WAF does not offer', { waf: { evaluationWindowSeconds: 30 } }, /deployment\.waf\.evaluationWindowSeconds/],
    [
      'an SES identity that is neither domain nor address',
      { emailIdentities: [{ identity: 'Example Inc' }] },
      /deployment\.emailIdentities\[0\]\.identity/,
    ],
    ['an unknown field', { removalPolicies: 'destroy' }, /deployment/],
  ])('rejects %s, naming the field', (_name, deployment, field) => {
    expect(() => parseDeployableStage(withDeployment(deployment), 'config/dev.json')).toThrow(field);
  });
});

describe('SES identities', () => {
  it('cover an address by the address itself, its domain or a parent domain', () => {
    expect(coversSender('no-reply@id.example.com', 'No-Reply@id.example.com')).toBe(true);
    expect(coversSender('id.example.com', 'no-reply@id.example.com')).toBe(true);
    expect(coversSender('example.com', 'no-reply@id.example.com')).toBe(true);
    expect(coversSender('xample.com', 'no-reply@id.example.com')).toBe(false);
    expect(coversSender('other@id.example.com', 'no-reply@id.example.com')).toBe(false);
  });

  it('default to each sender’s domain, referenced', () => {
    const config = prodConfig();
    config.deployment.emailIdentities = [];
    expect(emailIdentitiesOf(config)).toEqual([
      { identity: 'id.example.com', create: false },
      { identity: 'partner.example.com', create: false },
    ]);
  });
});

describe('the rotation arithmetic', () => {
  it('assumes a JWKS cache time at least as long as the one the well-known function sends', async () => {
    const { JWKS_MAX_AGE_SECONDS } = await import('../../lib/endpoints/metadata');
    const { JWKS_MAX_CACHE_SECONDS } = await import('../../infra/stage');
    expect(JWKS_MAX_AGE_SECONDS).toBeLessThanOrEqual(JWKS_MAX_CACHE_SECONDS);
  });
});
