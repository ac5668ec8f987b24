/**
 * `npm run smoke -- <base URL>`: a whole login against a running stage, as a client application
 * makes it, to tell after a deployment (or in CI, against the local runtime) that the stage works
 * end to end: discovery, a code sent to a test recipient, the code read back, the code exchanged
 * for tokens, UserInfo, a refresh, a revocation and the revoked token refused.
 *
 *   npm run smoke -- http://localhost:3000
 *   npm run smoke -- https://abc123.execute-api.eu-west-1.amazonaws.com/prod
 *   npm run smoke -- https://id.example.com --stage prod --env web --recipient smoke@id.example.com
 *
 * How it reads the code without a backdoor: the environment declares `testRecipients` (its stage
 * file); a code sent to one is kept, sealed, instead of delivered, and taken (once) through the
 * admin route `POST /idp/v1/admin/test-messages/take`, which on AWS takes only SigV4-signed
 * requests of the account's IAM principals (signed here with the default credential chain, as
 * `npm run admin` does; the local runtime is called unsigned). lib/otp/test-outbox.ts.
 *
 * Which client, environment and recipient: read from the stage file (`--stage`, default `local`
 * for a loopback URL, else the API Gateway stage in the URL's path; `--config-dir`, default
 * config/): the environment is `--env` or the stage's default, the recipient `--recipient` or the
 * environment's first test recipient, the client `--client` or the first public client of the
 * environment that sends by email without an API key, preferring one granted `openid` (UserInfo)
 * and refresh tokens. A confidential `--client` authenticates with SMOKE_CLIENT_SECRET (never a
 * command-line argument, which other users of the machine can read).
 *
 * Prints one line per step (what was checked, never a code or a token) and exits 0 when every
 * step passed, 1 at the first that did not.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { authMethodsOf, parseStageConfig, type ClientConfig, type EnvironmentConfig, type StageConfig } from '../lib/platform/config';
import { isLoopback, regionOf, signedHeaders } from './admin-cli';
import { PROJECT_ROOT } from './bundling';

export const USAGE = `Usage: npm run smoke -- <API base URL> [--env <environment id>] [--recipient <test recipient>]
       [--stage <stage>] [--config-dir <dir>] [--client <client id>] [--redirect-uri <uri>] [--region <AWS region>] [--sign | --no-sign]

  --env           the environment (default: the stage file's defaultEnvironment)
  --recipient     a test recipient of the environment (default: its first testRecipients entry)
  --stage         the stage file to read clients and test recipients from (default: local for a
                  loopback URL, else the stage in the URL's path)
  --config-dir    where the stage files are (default: config/)
  --client        the client to log in with (default: a public client of the environment that sends by email)
  --redirect-uri  one of the client's redirect URIs (default: its first)
  --region        the stage's region, when the URL does not name it (a custom domain); else AWS_REGION
  --sign          sign the admin call with SigV4 (default: unless the URL is a loopback address)

  SMOKE_CLIENT_SECRET  the secret of a confidential --client`;

/** The paths the smoke test calls under the base URL (the OAuth endpoints come from discovery). */
const DISCOVERY_PATH = '/.well-known/openid-configuration';
const SEND_PATH = '/idp/v1/otp/send';
const TAKE_PATH = '/idp/v1/admin/test-messages/take';

export interface SmokePlan {
  readonly baseUrl: string;
  readonly environmentId: string;
  readonly recipient: string;
  readonly clientId: string;
  readonly redirectUri: string;
  /** A confidential client's secret (client_secret_post); undefined for a public client. */
  readonly clientSecret: string | undefined;
  /** The region to sign the admin call for; undefined: unsigned (the local runtime). */
  readonly signingRegion: string | undefined;
}

export interface SmokeStep {
  readonly name: string;
  readonly ok: boolean;
  /** What was checked, or what went wrong: never a code or a token. */
  readonly detail: string;
  readonly ms: number;
}

export interface SmokeResult {
  readonly ok: boolean;
  readonly steps: readonly SmokeStep[];
}

/** Parses the command line (without `node` and the script) into a plan; throws a message for the user. */
export function parsePlan(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): SmokePlan {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      env: { type: 'string' },
      recipient: { type: 'string' },
      stage: { type: 'string' },
      'config-dir': { type: 'string' },
      client: { type: 'string' },
      'redirect-uri': { type: 'string' },
      region: { type: 'string' },
      sign: { type: 'boolean' },
      'no-sign': { type: 'boolean' },
    },
  });
  const [raw, ...extra] = positionals;
  if (raw === undefined || extra.length > 0) throw new Error(USAGE);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`Not a URL: ${raw}\n\n${USAGE}`);
  }
  const baseUrl = url.href.replace(/\/+$/, '');
  const loopback = isLoopback(url.hostname);
  const stageName = values.stage ?? (loopback ? 'local' : /^\/([A-Za-z0-9_-]+)\/?$/.exec(url.pathname)?.[1]);
  if (stageName === undefined) throw new Error('Which stage is it? Give --stage (the URL names none: a custom domain).');
  const stage = readStage(resolve(PROJECT_ROOT, values['config-dir'] ?? 'config'), stageName);

  const environmentId = values.env ?? stage.defaultEnvironment;
  const environment = stage.environments.find((candidate) => candidate.id === environmentId);
  if (environment === undefined) throw new Error(`Stage ${stageName} has no environment ${environmentId ?? '(no default)'}.`);
  const recipient = values.recipient ?? environment.testRecipients[0];
  if (recipient === undefined) {
    throw new Error(`Environment ${environment.id} declares no testRecipients: add one to its stage file (or give --recipient).`);
  }
  const client = chooseClient(stage, environment, values.client);
  const redirectUri = values['redirect-uri'] ?? client.redirectUris[0];
  if (redirectUri === undefined || !client.redirectUris.includes(redirectUri)) {
    throw new Error(`--redirect-uri must be one of ${client.id}'s redirect URIs: ${client.redirectUris.join(', ')}`);
  }
  const clientSecret = authMethodsOf(client).includes('none') ? undefined : env.SMOKE_CLIENT_SECRET;
  if (!authMethodsOf(client).includes('none') && clientSecret === undefined) {
    throw new Error(`${client.id} is a confidential client: set SMOKE_CLIENT_SECRET to its secret.`);
  }
  const sign = values.sign === true ? true : values['no-sign'] === true ? false : !loopback;
  const region = values.region ?? regionOf(url.hostname) ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (sign && region === undefined) throw new Error('Which region is the stage in? Give --region (or set AWS_REGION).');
  return {
    baseUrl,
    environmentId: environment.id,
    recipient,
    clientId: client.id,
    redirectUri,
    clientSecret,
    signingRegion: sign ? region : undefined,
  };
}

function readStage(configDir: string, stageName: string): StageConfig {
  const file = join(configDir, `${stageName}.json`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read the stage file ${file}: ${(error as Error).message}`);
  }
  return parseStageConfig(raw, file);
}

/**
 * The client to log in with: the one named, else the best of the environment's clients that can
 * run the whole login unattended (sends by email, without an API key, public), preferring
 * `openid` (UserInfo answers) and refresh tokens (the refresh step runs).
 */
export function chooseClient(stage: StageConfig, environment: EnvironmentConfig, named: string | undefined): ClientConfig {
  const inEnvironment = stage.clients.filter((client) => client.environments.includes(environment.id));
  if (named !== undefined) {
    const client = inEnvironment.find((candidate) => candidate.id === named);
    if (client === undefined) throw new Error(`No client ${named} in environment ${environment.id}.`);
    if (!client.channels.includes('email')) throw new Error(`${named} may not send codes by email.`);
    return client;
  }
  const usable = inEnvironment.filter(
    (client) => client.channels.includes('email') && !client.sendRequiresApiKey && authMethodsOf(client).includes('none'),
  );
  const score = (client: ClientConfig) => (grantsOpenId(client) ? 2 : 0) + (client.refreshTokens !== undefined ? 1 : 0);
  const best = [...usable].sort((a, b) => score(b) - score(a))[0];
  if (best === undefined) {
    throw new Error(`Environment ${environment.id} has no public client that sends by email without an API key: give --client.`);
  }
  return best;
}

const grantsOpenId = (client: ClientConfig) => (client.accessToken.scope ?? '').split(' ').includes('openid');

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** Runs the login, step by step, stopping at the first step that fails. */
export async function runSmoke(plan: SmokePlan, fetchImpl: typeof fetch = fetch): Promise<SmokeResult> {
  const steps: SmokeStep[] = [];
  const call = async (url: string, init: RequestInit = {}): Promise<Answer> => {
    const response = await fetchImpl(url, { ...init, redirect: 'manual' });
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not JSON: the step says so by its status.
    }
    return { status: response.status, body };
  };
  const step = async (name: string, run: () => Promise<string>): Promise<boolean> => {
    const started = Date.now();
    try {
      const detail = await run();
      steps.push({ name, ok: true, detail, ms: Date.now() - started });
      return true;
    } catch (error) {
      steps.push({ name, ok: false, detail: (error as Error).message, ms: Date.now() - started });
      return false;
    }
  };
  const query = `?env_id=${encodeURIComponent(plan.environmentId)}`;
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: plan.clientId,
      ...(plan.clientSecret === undefined ? {} : { client_secret: plan.clientSecret }),
      ...fields,
    }).toString(),
  });

  let metadata: Record<string, unknown> = {};
  let code = '';
  let tokens: Record<string, unknown> = {};
  let refreshed: Record<string, unknown> = {};
  const endpoint = (name: string) => {
    const value = metadata[name];
    if (typeof value !== 'string') throw new Error(`the discovery document has no ${name}`);
    return value;
  };

  const done = (): SmokeResult => ({ ok: steps.every((one) => one.ok), steps });

  if (
    !(await step('discovery', async () => {
      const answer = await call(`${plan.baseUrl}${DISCOVERY_PATH}`);
      expectStatus(answer, 200);
      metadata = answer.body;
      for (const name of ['issuer', 'token_endpoint', 'userinfo_endpoint', 'revocation_endpoint', 'jwks_uri']) endpoint(name);
      return `issuer ${endpoint('issuer')}`;
    }))
  ) {
    return done();
  }

  if (
    !(await step('otp/send', async () => {
      const answer = await call(`${plan.baseUrl}${SEND_PATH}${query}`, {
        method: 'POST',
        // A confidential client's secret is also its otp/send Bearer API key (lib/platform/config.ts `apiKeySha256`).
        headers: {
          'Content-Type': 'application/json',
          ...(plan.clientSecret === undefined ? {} : { Authorization: `Bearer ${plan.clientSecret}` }),
        },
        body: JSON.stringify({ auth_type: 'email', client_id: plan.clientId, redirect_uri: plan.redirectUri, user_id: plan.recipient }),
      });
      expectStatus(answer, 200);
      if (answer.body.status !== 'sent') throw new Error(`answered ${JSON.stringify(answer.body)}`);
      return `sent to the test recipient of ${plan.environmentId} by ${String(answer.body.channel)}, valid ${String(answer.body.expires_in)} s`;
    }))
  ) {
    return done();
  }

  if (
    !(await step('read the code', async () => {
      const body = JSON.stringify({ env_id: plan.environmentId, user_id: plan.recipient });
      const url = new URL(`${plan.baseUrl}${TAKE_PATH}`);
      const headers =
        plan.signingRegion === undefined ? { 'content-type': 'application/json' } : await signedHeaders(url, body, plan.signingRegion);
      const answer = await call(url.href, { method: 'POST', headers, body });
      expectStatus(answer, 200);
      const found = /\b(\d{6})\b/.exec(typeof answer.body.text === 'string' ? answer.body.text : '')?.[1];
      if (found === undefined) throw new Error('the kept message holds no six-digit code');
      code = found;
      return `taken from the test outbox${plan.signingRegion === undefined ? ' (unsigned: local runtime)' : ` (SigV4, ${plan.signingRegion})`}`;
    }))
  ) {
    return done();
  }

  if (
    !(await step('token', async () => {
      const answer = await call(
        `${endpoint('token_endpoint')}${query}`,
        form({ grant_type: 'authorization_code', code, redirect_uri: plan.redirectUri, user_id: plan.recipient }),
      );
      expectStatus(answer, 200);
      if (typeof answer.body.access_token !== 'string') throw new Error('the token response has no access_token');
      tokens = answer.body;
      return `access token (${String(answer.body.token_type)}, ${String(answer.body.expires_in)} s)${
        typeof tokens.refresh_token === 'string' ? ' and a refresh token' : ''
      }${typeof tokens.scope === 'string' ? `, scope "${tokens.scope}"` : ''}`;
    }))
  ) {
    return done();
  }

  if (
    !(await step('userinfo', async () => {
      const answer = await call(endpoint('userinfo_endpoint'), { headers: { Authorization: `Bearer ${String(tokens.access_token)}` } });
      const scope = typeof tokens.scope === 'string' ? tokens.scope.split(' ') : [];
      if (scope.includes('openid')) {
        expectStatus(answer, 200);
        if (typeof answer.body.sub !== 'string') throw new Error('UserInfo answered without a sub');
        return 'claims of the token, sub included';
      }
      // Without openid UserInfo must refuse the (valid) token with insufficient_scope (RFC 6750 §3.1).
      expectStatus(answer, 403);
      if (answer.body.error !== 'insufficient_scope') throw new Error(`answered 403 ${String(answer.body.error)}`);
      return 'the token verified; 403 insufficient_scope, as for any token without openid';
    }))
  ) {
    return done();
  }

  const hasRefresh = typeof tokens.refresh_token === 'string';
  if (
    !(await step('refresh', async () => {
      if (!hasRefresh) return `skipped: ${plan.clientId} is given no refresh tokens`;
      const answer = await call(
        `${endpoint('token_endpoint')}${query}`,
        form({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) }),
      );
      expectStatus(answer, 200);
      if (typeof answer.body.refresh_token !== 'string' || answer.body.refresh_token === tokens.refresh_token) {
        throw new Error('the refresh token was not rotated');
      }
      refreshed = answer.body;
      return 'new access token, refresh token rotated';
    }))
  ) {
    return done();
  }

  const revoked = hasRefresh
    ? { token: String(refreshed.refresh_token), hint: 'refresh_token' }
    : { token: String(tokens.access_token), hint: 'access_token' };
  if (
    !(await step('revoke', async () => {
      const answer = await call(endpoint('revocation_endpoint'), form({ token: revoked.token, token_type_hint: revoked.hint }));
      expectStatus(answer, 200);
      return `the ${revoked.hint.replace('_', ' ')} revoked`;
    }))
  ) {
    return done();
  }

  await step('revoked token refused', async () => {
    if (hasRefresh) {
      const answer = await call(
        `${endpoint('token_endpoint')}${query}`,
        form({ grant_type: 'refresh_token', refresh_token: revoked.token }),
      );
      expectStatus(answer, 400);
      if (answer.body.error !== 'invalid_grant') throw new Error(`answered 400 ${String(answer.body.error)}`);
      return 'the revoked refresh token: 400 invalid_grant';
    }
    const answer = await call(endpoint('userinfo_endpoint'), { headers: { Authorization: `Bearer ${revoked.token}` } });
    expectStatus(answer, 401);
    return 'the revoked access token: 401 at UserInfo';
  });
  return done();
}

function expectStatus(answer: Answer, status: number): void {
  if (answer.status === status) return;
  const error = typeof answer.body.error === 'string' ? ` ${answer.body.error}` : '';
  const description = typeof answer.body.error_description === 'string' ? `: ${answer.body.error_description}` : '';
  throw new Error(`answered ${answer.status}${error}${description} (expected ${status})`);
}

/** The report: one line per step. */
export function formatReport(plan: SmokePlan, result: SmokeResult): string {
  const lines = [`Smoke test of ${plan.baseUrl} (environment ${plan.environmentId}, client ${plan.clientId})`];
  for (const one of result.steps) lines.push(`  ${one.ok ? 'ok  ' : 'FAIL'} ${one.name.padEnd(22)} ${one.detail} (${one.ms} ms)`);
  lines.push(result.ok ? 'All steps passed.' : `Failed at: ${result.steps.find((one) => !one.ok)?.name ?? '?'}`);
  return lines.join('\n');
}

if (require.main === module) {
  void (async () => {
    const argv = process.argv.slice(2);
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    try {
      const plan = parsePlan(argv, process.env);
      const result = await runSmoke(plan);
      process.stdout.write(`${formatReport(plan, result)}\n`);
      process.exitCode = result.ok ? 0 : 1;
    } catch (error) {
      console.error(`smoke: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  })();
}
