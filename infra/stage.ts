/**
 * A stage: `config/<stage>.json`, validated by the stack's schema (infra/stage-config.ts: the
 * functions' schema with the deployment section), plus the checks only the stack can make (they
 * involve the routes, the deployment section and each other). Any problem fails synthesis with
 * one readable message. A production-like stage (removalPolicy `retain`) must also pass the go-live
 * rules (infra/go-live.ts): no published key, no placeholder, an origination number wherever SMS
 * needs one.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { goLiveProblems } from './go-live';
import { parseDeployableStage, type DeployableStageConfig } from './stage-config';
import { FUNCTIONS, PUBLIC_ROUTES, ROUTES } from '../lib/platform/routes';
import { PROJECT_ROOT } from './bundling';
import { recoveryProblems } from './recovery';

export const CONFIG_DIR = resolve(PROJECT_ROOT, 'config');

/** Concurrency Lambda keeps unreserved in every account and region (Lambda Developer Guide, "Configuring reserved concurrency"). */
export const UNRESERVED_CONCURRENCY_MINIMUM = 100;

/** Stage names become part of the stack name and resource names. */
const STAGE_NAME = /^[a-z][a-z0-9-]{0,19}$/;

/**
 * How long verifiers may cache the JWKS, in seconds: the well-known function's Cache-Control must
 * not exceed it. A key is published one rotation period before it signs, and kept one period after,
 * so a period longer than the longest token lifetime plus this never breaks a verification.
 */
export const JWKS_MAX_CACHE_SECONDS = 86_400;

export interface Stage {
  readonly name: string;
  /** The configuration file, copied beside every bundle as config.json. */
  readonly file: string;
  readonly config: DeployableStageConfig;
}

/** The stage files present in `configDir` (not the JSON Schema beside them). */
export function availableStages(configDir = CONFIG_DIR): string[] {
  return readdirSync(configDir)
    .filter((file) => file.endsWith('.json') && !file.endsWith('.schema.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

/**
 * Reads and validates `<configDir>/<stage>.json`. `configDir` is `config/` unless the stage file
 * lives elsewhere (`cdk synth -c stage=prod -c configDir=<dir>`): a production stage file filled in
 * outside the repository, or the tests' filled-in copy of the committed template.
 */
export function loadStageFile(stage: string, configDir = CONFIG_DIR): Stage {
  if (!STAGE_NAME.test(stage)) {
    throw new Error(`Invalid stage "${stage}": 1-20 of a-z, 0-9 and -, starting with a letter.`);
  }
  const file = resolve(configDir, `${stage}.json`);
  if (!existsSync(file)) {
    throw new Error(`No configuration for stage "${stage}": ${file} does not exist. Stages: ${availableStages(configDir).join(', ')}.`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const source = displayPath(file);
  const config = parseDeployableStage(raw, source);
  const problems = deploymentProblems(config);
  if (config.stage !== undefined && config.stage !== stage)
    problems.unshift(`"stage" is "${config.stage}" but the file is for stage "${stage}"`);
  const goLive = goLiveProblems(raw, config, PROJECT_ROOT);
  problems.push(...goLive);
  if (problems.length > 0) {
    const hint =
      goLive.length === 0
        ? ''
        : `\nA stage with removalPolicy "retain" is production: it must not ship an example, a placeholder or a published key. ` +
          `Fill in your own copy (outside the repository if you like) and synthesize it with -c configDir=<dir> (docs/deploy.md).`;
    throw new Error(`Invalid ${source}:\n${problems.map((problem) => `✖ ${problem}`).join('\n')}${hint}`);
  }
  return { name: stage, file, config };
}

/** `config/<stage>.json` for the repository's stage files, the absolute path for any other. */
function displayPath(file: string): string {
  const inRepository = relative(PROJECT_ROOT, file);
  return inRepository.startsWith('..') || isAbsolute(inRepository) ? file : inRepository;
}

/** What the schema cannot see: references between the deployment section, the environments and the routes. */
export function deploymentProblems(config: DeployableStageConfig): string[] {
  const problems: string[] = [];
  const deployment = config.deployment;
  // CORS and the WAF's rate limits are the public routes' (the admin routes take SigV4 from no browser).
  const paths = new Set(PUBLIC_ROUTES.map((route) => route.path));
  for (const path of deployment.cors?.paths ?? []) {
    if (!paths.has(path)) problems.push(`deployment.cors.paths: "${path}" is not a route (${[...paths].join(', ')})`);
  }
  for (const { path } of deployment.waf?.perIpRateLimits ?? []) {
    if (!paths.has(path)) problems.push(`deployment.waf.perIpRateLimits: "${path}" is not a route (${[...paths].join(', ')})`);
  }
  const identities = emailIdentitiesOf(config).map((entry) => entry.identity);
  for (const environment of config.environments) {
    if (!identities.some((identity) => coversSender(identity, environment.email.sender))) {
      problems.push(
        `environment "${environment.id}": no entry of deployment.emailIdentities covers its sender ${environment.email.sender}`,
      );
    }
  }
  const longestToken = Math.max(...config.clients.map((client) => client.accessToken.ttlSeconds));
  if (deployment.signingKeyRotationDays * 86_400 <= longestToken + JWKS_MAX_CACHE_SECONDS) {
    problems.push(
      `deployment.signingKeyRotationDays (${deployment.signingKeyRotationDays}) must exceed the longest access-token lifetime (${longestToken} s) plus the JWKS cache time (${JWKS_MAX_CACHE_SECONDS} s)`,
    );
  }
  // A regional custom domain takes an ACM certificate from its own region only (AWS docs, "Set up a
  // Regional custom domain name in API Gateway"); one from elsewhere, typically a CloudFront
  // certificate from us-east-1, fails the deployment minutes in. Checkable when the region is pinned.
  const certificateRegion = deployment.customDomain?.certificateArn.split(':')[3];
  if (certificateRegion !== undefined && deployment.region !== undefined && certificateRegion !== deployment.region) {
    problems.push(
      `deployment.customDomain.certificateArn: the certificate is in ${certificateRegion} but the stage is deployed to ${deployment.region}; a regional custom domain needs an ACM certificate in ${deployment.region}`,
    );
  }
  // Per-route throttles and reserved concurrency name routes and functions that must exist.
  const methods = new Set(ROUTES.flatMap((route) => route.methods.map((method) => `${method} ${route.path}`)));
  for (const key of Object.keys(deployment.throttling.routes)) {
    if (!methods.has(key)) problems.push(`deployment.throttling.routes: "${key}" is not a method of a route (${[...methods].join(', ')})`);
  }
  const functionNames = Object.keys(FUNCTIONS);
  for (const name of Object.keys(deployment.reservedConcurrency)) {
    if (!functionNames.includes(name))
      problems.push(`deployment.reservedConcurrency: "${name}" is not an API function (${functionNames.join(', ')})`);
  }
  // Lambda refuses a reservation that leaves fewer than 100 of the account's quota unreserved
  // (Lambda Developer Guide, "Configuring reserved concurrency"): the deployment would fail.
  const reserved = Object.values(deployment.reservedConcurrency).reduce((sum, count) => sum + count, 0);
  const quota = deployment.alarms.accountConcurrencyLimit;
  if (reserved > quota - UNRESERVED_CONCURRENCY_MINIMUM) {
    problems.push(
      `deployment.reservedConcurrency reserves ${reserved} of the account's ${quota} (alarms.accountConcurrencyLimit): Lambda keeps ${UNRESERVED_CONCURRENCY_MINIMUM} unreserved, so at most ${quota - UNRESERVED_CONCURRENCY_MINIMUM}; request a higher quota first (docs/operations/capacity.md)`,
    );
  }
  // SNS refuses a MonthlySpendLimit above the account's SMS spend quota; the custom resource that
  // sets it then fails the deployment and rolls the stack back (a new account's quota is 1 USD).
  const sms = deployment.smsAccountSettings;
  if (sms?.monthlySpendLimitUsd !== undefined && sms.monthlySpendLimitUsd > sms.grantedSpendQuotaUsd) {
    problems.push(
      `deployment.smsAccountSettings.monthlySpendLimitUsd (${sms.monthlySpendLimitUsd}) is above grantedSpendQuotaUsd (${sms.grantedSpendQuotaUsd}): SNS refuses it and the deployment fails; raise the account's SMS spend quota first (docs/operations/capacity.md), then both figures`,
    );
  }
  for (const severity of ['page', 'ticket'] as const) {
    const target = deployment.alarms[severity];
    if (target.email !== undefined && target.topicArn !== undefined) {
      problems.push(
        `deployment.alarms.${severity}: give either email (the stack creates a topic) or topicArn (an existing topic), not both`,
      );
    }
  }
  problems.push(...recoveryProblems(deployment));
  return problems;
}

/** The SES identities of a stage: as configured, or each sender's domain, referenced. */
export function emailIdentitiesOf(config: DeployableStageConfig): ReadonlyArray<{ identity: string; create: boolean }> {
  if (config.deployment.emailIdentities.length > 0) return config.deployment.emailIdentities;
  const domains = new Set(config.environments.map((environment) => domainOf(environment.email.sender)));
  return [...domains].map((identity) => ({ identity, create: false }));
}

/** An SES identity covers an address if it is that address, its domain, or a parent domain of it. */
export function coversSender(identity: string, sender: string): boolean {
  const address = sender.toLowerCase();
  if (identity.includes('@')) return identity.toLowerCase() === address;
  const domain = domainOf(address);
  return domain === identity || domain.endsWith(`.${identity}`);
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
