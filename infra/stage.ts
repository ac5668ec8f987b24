/**
 * A stage: `config/<stage>.json`, validated by the stack's schema (infra/stage-config.ts: the
 * functions' schema with the deployment section), plus the checks only the stack can make (they
 * involve the routes, the deployment section and each other). Any problem fails synthesis with
 * one readable message.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDeployableStage, type DeployableStageConfig } from './stage-config';
import { PUBLIC_ROUTES } from '../lib/platform/routes';
import { PROJECT_ROOT } from './bundling';

export const CONFIG_DIR = resolve(PROJECT_ROOT, 'config');

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

/** The stage files present in config/ (not the JSON Schema beside them). */
export function availableStages(): string[] {
  return readdirSync(CONFIG_DIR)
    .filter((file) => file.endsWith('.json') && !file.endsWith('.schema.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

/** Reads and validates `config/<stage>.json`. */
export function loadStageFile(stage: string): Stage {
  if (!STAGE_NAME.test(stage)) {
    throw new Error(`Invalid stage "${stage}": 1-20 of a-z, 0-9 and -, starting with a letter.`);
  }
  const file = resolve(CONFIG_DIR, `${stage}.json`);
  if (!existsSync(file)) {
    throw new Error(`No configuration for stage "${stage}": ${file} does not exist. Stages: ${availableStages().join(', ')}.`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const config = parseDeployableStage(raw, `config/${stage}.json`);
  const problems = deploymentProblems(config);
  if (config.stage !== undefined && config.stage !== stage)
    problems.unshift(`"stage" is "${config.stage}" but the file is for stage "${stage}"`);
  if (problems.length > 0) throw new Error(`Invalid config/${stage}.json:\n${problems.map((problem) => `✖ ${problem}`).join('\n')}`);
  return { name: stage, file, config };
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
  if (deployment.alarms.email !== undefined && deployment.alarms.topicArn !== undefined) {
    problems.push('deployment.alarms: give either email (the stack creates a topic) or topicArn (an existing topic), not both');
  }
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
