/**
 * The artifact `cdk deploy` uploads is the artifact under test. The stage is synthesized as
 * `cdk synth` does it (test/infra/synthesize.ts, shared with other files and runs with the same
 * inputs), and every API function of the template is run as Lambda runs it
 * (test/support/lambda-container.ts): the asset directory its `Code.S3Key` names, its `Handler`,
 * exactly its template environment (CloudFormation references replaced by the local stack's
 * equivalents, as the local runtime does, and the SDK's endpoint variables pointing at the
 * stand-ins), one fresh Node process per function, API Gateway REST (v1) events from the local
 * API server. Secrets come from a Secrets Manager stand-in through the template's own ARN
 * variables, the configuration from the `config.json` beside each bundle.
 *
 * So a bundling regression (a dynamic require, a missing file, a variable the template forgets, a
 * broken source map) fails here, not first on AWS. The functions are found in the template, not
 * listed here: one added to lib/platform/routes.ts is loaded, checked for its environment and asked for an
 * error without a change to this file.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { CONFIG_FILE_IN_BUNDLE } from '../../infra/bundling';
import { LIVE_ALIAS } from '../../infra/deploy-safety';
import { loadStageFile } from '../../infra/stage';
import { completeKeySet, initialKeySet, publicKeySet } from '../../lib/keys/signing-keys';
import { ENVIRONMENT_VARIABLES, variablesOf } from '../../lib/platform/env';
import { ROUTES } from '../../lib/platform/routes';
import { startApiServer, type ApiServer, type LocalHandler } from '../../local/api-server';
import { startCaptureServer, type CaptureServer } from '../../local/capture';
import { ensureTable } from '../../local/dynamodb';
import { EventOutbox } from '../../local/events';
import { readOutbox } from '../../local/outbox';
import { lambdaEnvironment, type LocalServices } from '../../local/stack';
import { apiEvent } from '../support/api-event';
import { apiFunctionsOf, resolveVariables, type DeployedFunction } from '../support/deployed-functions';
import { codeIn, LOCAL_API_KEY, REDIRECT_URI, toTestResponse, type TestResponse } from '../support/harness';
import { startLambdaContainer, type LambdaContainer } from '../support/lambda-container';
import { LoginSession } from '../support/login-flow';
import { startSecretsManagerLocal, type SecretsManagerLocal } from '../support/secrets-manager-local';
import { functionBundles } from '../infra/function-bundles';
import { synthesizedAssembly, type CloudAssembly } from '../infra/synthesize';

/** A real stage of the CDK app; its config.json has the local clients (and the API key) the flows use. */
const STAGE = 'local';
const SEND = '/idp/v1/otp/send';
const TOKEN = '/idp/v1/account/token';
const INTROSPECT = '/idp/v1/account/introspect';
const USERINFO = '/idp/v1/account/userinfo';
const BASIC_BACKEND = `Basic ${Buffer.from(`local-backend:${LOCAL_API_KEY}`).toString('base64')}`;

/** What the template sets that is not the service's own (lib/platform/env.ts): Node's, Powertools' own variables, and the X-Ray SDK's of a traced stage (infra/functions.ts). */
const RUNTIME_VARIABLE = /^(NODE_OPTIONS|POWERTOOLS_[A-Z_]+|AWS_XRAY_CONTEXT_MISSING)$/;
/** Variables only the local runtime sets (a folder of config or secrets): never in a deployed function's environment. */
const LOCAL_ONLY: readonly string[] = ['IDP_CONFIG_FILE', 'LOCAL_SECRETS_DIR'];

let assembly: CloudAssembly;
let functions: DeployedFunction[];
let services: LocalServices;
let capture: CaptureServer;
let secretsManager: SecretsManagerLocal;
let api: ApiServer;
const containers = new Map<string, LambdaContainer>();
const routes: Record<string, LocalHandler> = {};
/** The back-channel logout queue's stand-in URL: a loopback port nothing listens on (no flow here logs out). */
const LOGOUT_QUEUE_URL = 'http://127.0.0.1:9/000000000000/logout';
/** Secret ARNs in the stand-in, by the template's secret logical id. */
const secretArns = new Map<string, string>();
/** What the functions' logs must never show (addresses, codes, tokens). */
const personal = new Set<string>();

/** The local value of each secret, by the variable that names it (lib/platform/env.ts). */
let secretValues: Record<string, string>;

function environmentOf(
  fn: DeployedFunction,
  change: (variables: Record<string, string>) => Record<string, string> = (v) => v,
): Record<string, string> {
  const template = resolveVariables(assembly.template, fn.variables, {
    tableName: services.tableName,
    issuer: api.url,
    // No flow here ends a session, so nothing is ever sent to it: an address where nothing listens.
    queueUrl: LOGOUT_QUEUE_URL,
    secretArn: (logicalId, variable) => {
      const known = secretArns.get(logicalId);
      if (known !== undefined) return known;
      throw new Error(`${fn.logicalId}: no local secret for ${logicalId} (${variable})`);
    },
  });
  const sdkEndpoints = Object.fromEntries(Object.entries(lambdaEnvironment(services, api.url)).filter(([name]) => name.startsWith('AWS_')));
  return {
    ...change(template),
    // What Lambda sets in every execution environment.
    LAMBDA_TASK_ROOT: fn.assetDir,
    _HANDLER: fn.handler,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    ...(fn.logging.LogFormat === undefined ? {} : { AWS_LAMBDA_LOG_FORMAT: fn.logging.LogFormat }),
    ...(fn.logging.ApplicationLogLevel === undefined ? {} : { AWS_LAMBDA_LOG_LEVEL: fn.logging.ApplicationLogLevel }),
    AWS_DEFAULT_REGION: sdkEndpoints.AWS_REGION ?? 'us-east-1',
    AWS_SESSION_TOKEN: 'local',
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    PATH: process.env.PATH ?? '',
    // The local stand-ins, through the SDK's own variables, as the local runtime points them (local/stack.ts).
    ...sdkEndpoints,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url,
  };
}

function container(fn: DeployedFunction, environment: Record<string, string>): Promise<LambdaContainer> {
  return startLambdaContainer({
    functionName: fn.logicalId,
    taskRoot: fn.assetDir,
    handler: fn.handler,
    environment,
    memoryMb: fn.memoryMb,
    timeoutSeconds: fn.timeoutSeconds,
  });
}

/** The paths of each function the routes name (lib/platform/routes.ts): the template's API must route exactly these. */
const ROUTED: Record<string, string[]> = {};
for (const route of ROUTES) ROUTED[route.functionName] = [...(ROUTED[route.functionName] ?? []), route.path].sort();

/**
 * The functions found in the template, once checked to be every function the routes name: a loop
 * over the functions found must not pass by finding none (as when the integrations started to
 * invoke aliases, which the finding did not yet follow).
 */
function apiFunctions(): DeployedFunction[] {
  expect(functions.map((fn) => fn.spec?.name).sort()).toEqual(Object.keys(ROUTED).sort());
  return functions;
}

const named = (name: string) => {
  const fn = functions.find((candidate) => candidate.spec?.name === name);
  if (fn === undefined) throw new Error(`The template has no function ${name}`);
  return fn;
};

beforeAll(async () => {
  assembly = synthesizedAssembly(STAGE);
  functions = apiFunctionsOf(assembly);

  const dynamodbEndpoint = process.env.TEST_DYNAMODB_ENDPOINT as string;
  const tableName = `identity-artifacts-${randomUUID()}`;
  await ensureTable(dynamodbEndpoint, tableName);
  capture = await startCaptureServer();
  secretsManager = await startSecretsManagerLocal();
  services = {
    dynamodbEndpoint,
    sesUrl: process.env.TEST_SES_URL as string,
    captureUrl: capture.url,
    tableName,
    secretsDir: '',
    configFile: '',
    // The local runtime's audit event outbox: the functions run in processes of their own, so it stays empty.
    events: new EventOutbox(),
    stop: () => Promise.resolve(),
  };

  const now = new Date();
  const keySet = await completeKeySet(await initialKeySet(now), now);
  secretValues = {
    HMAC_SECRET_ARN: randomBytes(48).toString('base64url'),
    SIGNING_KEYS_SECRET_ARN: JSON.stringify(keySet),
    VERIFICATION_KEYS_SECRET_ARN: JSON.stringify(publicKeySet(keySet)),
  };
  for (const fn of functions) {
    for (const [variable, value] of Object.entries(fn.variables)) {
      const ref = (value as { Ref?: string }).Ref;
      if (ref === undefined || assembly.template.Resources[ref]?.Type !== 'AWS::SecretsManager::Secret' || secretArns.has(ref)) continue;
      const secret = secretValues[variable];
      if (secret === undefined) throw new Error(`No local value for the secret ${variable} names`);
      const created = await secretsManager.client().send(new CreateSecretCommand({ Name: ref, SecretString: secret }));
      secretArns.set(ref, created.ARN as string);
    }
  }

  api = await startApiServer({ routes });
  await Promise.all(
    functions.map(async (fn) => {
      const started = await container(fn, environmentOf(fn));
      containers.set(fn.logicalId, started);
      for (const path of fn.paths) routes[path] = (event) => started.invoke(event);
    }),
  );
}, 300_000);

afterAll(async () => {
  await Promise.all([...containers.values()].map((started) => started.stop()));
  await api?.stop();
  await capture?.close();
  await secretsManager?.stop();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
  return toTestResponse(
    await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
  );
}

async function postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<TestResponse> {
  return toTestResponse(
    await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

/** The code of the newest message to `userId`, from the SES stand-in or the SMS capture. */
async function latestCode(userId: string): Promise<string> {
  const [message] = await readOutbox(services.sesUrl, services.captureUrl, userId);
  const code = message === undefined ? undefined : codeIn(message.text);
  if (code === undefined) throw new Error('no code in the outbox');
  personal.add(code);
  return code;
}

const newEmail = () => {
  const email = `artifact-${randomUUID().slice(0, 8)}@example.com`;
  personal.add(email);
  return email;
};

describe('the assembly', () => {
  it('routes every API path to a function declared in lib/platform/routes.ts, whose asset holds the bundle, its source map and the stage file', () => {
    expect(Object.fromEntries(functions.map((fn) => [fn.spec?.name ?? fn.logicalId, fn.paths]))).toEqual(ROUTED);
    for (const fn of apiFunctions()) {
      expect({
        fn: fn.logicalId,
        declared: fn.spec !== undefined,
        // What runs here is what the API invokes: the function's version behind its alias (infra/deploy-safety.ts).
        invokedAs: fn.alias?.name,
        handler: fn.handler,
        files: ['index.mjs', 'index.mjs.map', CONFIG_FILE_IN_BUNDLE].filter((file) => existsSync(join(fn.assetDir, file))),
      }).toEqual({
        fn: fn.logicalId,
        declared: true,
        invokedAs: LIVE_ALIAS,
        handler: 'index.handler',
        files: ['index.mjs', 'index.mjs.map', CONFIG_FILE_IN_BUNDLE],
      });
      expect(readFileSync(join(fn.assetDir, CONFIG_FILE_IN_BUNDLE), 'utf8')).toBe(readFileSync(loadStageFile(STAGE).file, 'utf8'));
    }
  });

  it('deploys, byte for byte, the bundle `npm run build` writes and the benchmark measures', async () => {
    // Traced as the stage says (deployment.tracing, lib/platform/tracing.ts), as `npm run build -- --stage` builds it:
    // esbuildOptionsFor's bundles, built in-process (shared with test/infra/tracing.test.ts: see function-bundles.ts).
    const built = await functionBundles(loadStageFile(STAGE).config.deployment.tracing);
    for (const fn of apiFunctions()) {
      const code = built.get(fn.spec?.name ?? '')?.outputs.find((file) => file.name.endsWith('.mjs'))?.text;
      expect({ fn: fn.logicalId, identical: code === readFileSync(join(fn.assetDir, 'index.mjs'), 'utf8') }).toEqual({
        fn: fn.logicalId,
        identical: true,
      });
    }
  }, 120_000);

  it('gives each function every variable its code requires (lib/platform/env.ts), only variables the schema knows, and nothing local-only', () => {
    for (const fn of apiFunctions()) {
      const variables = Object.keys(fn.variables);
      const required = variablesOf(fn.spec ?? { table: [], secrets: [] });
      expect({
        fn: fn.logicalId,
        missing: required.filter((variable) => !variables.includes(variable)),
        unknown: variables.filter(
          (variable) => !(ENVIRONMENT_VARIABLES as string[]).includes(variable) && !RUNTIME_VARIABLE.test(variable),
        ),
        localOnly: variables.filter((variable) => LOCAL_ONLY.includes(variable)),
        sourceMaps: fn.variables.NODE_OPTIONS,
      }).toEqual({ fn: fn.logicalId, missing: [], unknown: [], localOnly: [], sourceMaps: '--enable-source-maps' });
    }
  });
});

describe('the bundles, run as Lambda runs them with their template environment', () => {
  it('send → exchange → introspect by email: a JWT the JWKS verifies, and the introspection of it', async () => {
    // Arrange
    const email = newEmail();

    // Act
    const sent = await post(SEND, { auth_type: 'email', client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: email });
    const code = await latestCode(email);
    const exchanged = await postForm(TOKEN, {
      grant_type: 'authorization_code',
      code,
      client_id: 'local-web',
      redirect_uri: REDIRECT_URI,
      user_id: email.toUpperCase(),
    });
    const token = String(exchanged.body.access_token);
    personal.add(token);
    const jwks = await toTestResponse(await fetch(`${api.url}/.well-known/jwks.json`));
    const introspected = await postForm(INTROSPECT, { token }, { Authorization: BASIC_BACKEND });

    // Assert
    expect({ status: sent.status, body: sent.body }).toEqual({ status: 200, body: { status: 'sent', channel: 'email', expires_in: 300 } });
    expect({ status: exchanged.status, type: exchanged.body.token_type, cache: exchanged.headers.get('cache-control') }).toEqual({
      status: 200,
      type: 'Bearer',
      cache: 'no-store',
    });
    expect(jwks.status).toBe(200);
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks.body as unknown as JSONWebKeySet), {
      issuer: api.url,
      audience: 'http://127.0.0.1:3000/api',
      typ: 'at+jwt',
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(introspected.status).toBe(200);
    expect(introspected.body).toEqual(expect.objectContaining({ active: true, sub: payload.sub, client_id: 'local-web', iss: api.url }));
  });

  it('send → exchange → introspect of an opaque token (the token item written by one function, read by another)', async () => {
    const email = newEmail();
    await post(SEND, { auth_type: 'email', client_id: 'local-opaque', redirect_uri: REDIRECT_URI, user_id: email });
    const exchanged = await post(TOKEN, {
      grant_type: 'authorization_code',
      code: await latestCode(email),
      client_id: 'local-opaque',
      redirect_uri: REDIRECT_URI,
      user_id: email,
    });
    const token = String(exchanged.body.access_token);
    personal.add(token);

    const introspected = await postForm(INTROSPECT, { token }, { Authorization: BASIC_BACKEND });

    expect(exchanged.status).toBe(200);
    expect(token).not.toContain('.');
    expect(introspected.body).toEqual(expect.objectContaining({ active: true, client_id: 'local-opaque' }));
  });

  it('an SMS code sent to a number written one way is exchanged with the number written another (one user key in both bundles)', async () => {
    const [written, rewritten, e164] = ['+1 (415) 555-2671', '001 415 555 2671', '+14155552671'];
    personal.add(e164);
    const sent = await post(SEND, { auth_type: 'sms', client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: written });
    const exchanged = await post(TOKEN, {
      grant_type: 'authorization_code',
      code: await latestCode(e164),
      client_id: 'local-web',
      redirect_uri: REDIRECT_URI,
      auth_type: 'sms',
      user_id: rewritten,
    });
    personal.add(String(exchanged.body.access_token));

    expect({ sent: sent.status, channel: sent.body.channel, exchanged: exchanged.status }).toEqual({
      sent: 200,
      channel: 'sms',
      exchanged: 200,
    });
  });

  it('the hosted login page: an HTML page, a code by email, the redirect with an authorization code, its exchange, and UserInfo', async () => {
    // Arrange
    const email = newEmail();
    const session = new LoginSession({ url: api.url, latestCode });

    // Act
    const page = await session.start();
    const sent = await session.post(page, 'send', { user_id: email });
    const redirected = await session.post(sent, 'verify', { code: await latestCode(email) });
    const authorizationCode = redirected.location?.searchParams.get('code') ?? '';
    personal.add(authorizationCode);
    const tokens = await postForm(TOKEN, {
      grant_type: 'authorization_code',
      code: authorizationCode,
      client_id: 'local-web',
      redirect_uri: REDIRECT_URI,
      code_verifier: session.verifier,
    });
    const accessToken = String(tokens.body.access_token);
    personal.add(accessToken);
    const userinfo = await toTestResponse(await fetch(`${api.url}${USERINFO}`, { headers: { Authorization: `Bearer ${accessToken}` } }));

    // Assert
    expect({ status: page.status, type: page.headers.get('content-type') }).toEqual({ status: 200, type: 'text/html; charset=utf-8' });
    expect(page.html).toContain('<form');
    expect(sent.status).toBe(200);
    expect({ status: redirected.status, target: `${redirected.location?.origin ?? ''}${redirected.location?.pathname ?? ''}` }).toEqual({
      status: 302,
      target: REDIRECT_URI,
    });
    expect({ status: tokens.status, idToken: typeof tokens.body.id_token }).toEqual({ status: 200, idToken: 'string' });
    expect({ status: userinfo.status, email: userinfo.body.email, sub: typeof userinfo.body.sub }).toEqual({
      status: 200,
      email,
      sub: 'string',
    });
  });

  it('the discovery documents name the issuer the template gives the functions', async () => {
    const metadata = await toTestResponse(await fetch(`${api.url}/.well-known/openid-configuration`));
    expect({ status: metadata.status, issuer: metadata.body.issuer, jwks: metadata.body.jwks_uri }).toEqual({
      status: 200,
      issuer: api.url,
      jwks: `${api.url}/.well-known/jwks.json`,
    });
  });

  /** One refusal per function, each its own error (the JSON ones in the service's `{error, error_description}`). */
  const ERRORS: Record<string, { request: () => Promise<TestResponse>; status: number; error: string }> = {
    'otp-send': { request: () => post(SEND, { auth_type: 'email' }), status: 400, error: 'invalid_request' },
    token: { request: () => postForm(TOKEN, { grant_type: 'password' }), status: 400, error: 'unsupported_grant_type' },
    introspect: { request: () => postForm(INTROSPECT, { token: 'x' }), status: 401, error: 'invalid_token' },
    userinfo: { request: async () => toTestResponse(await fetch(`${api.url}${USERINFO}`)), status: 401, error: 'invalid_token' },
    'well-known': {
      request: async () => toTestResponse(await fetch(`${api.url}/.well-known/jwks.json`, { method: 'POST' })),
      status: 405,
      error: 'method_not_allowed',
    },
  };

  it.each(Object.entries(ERRORS))('%s refuses a bad request with its error', async (name, expected) => {
    expect(functions.some((fn) => fn.spec?.name === name)).toBe(true);
    const response = await expected.request();
    expect({ status: response.status, error: response.body.error, described: typeof response.body.error_description }).toEqual({
      status: expected.status,
      error: expected.error,
      described: 'string',
    });
  });

  it('authorize answers an unknown client with an error page, never a redirect', async () => {
    expect(named('authorize').paths).toContain('/idp/v1/account/authorize');
    const response = await fetch(`${api.url}/idp/v1/account/authorize?response_type=code&client_id=nobody`, { redirect: 'manual' });
    expect({ status: response.status, type: response.headers.get('content-type'), location: response.headers.get('location') }).toEqual({
      status: 400,
      type: 'text/html; charset=utf-8',
      location: null,
    });
  });

  it('every function (found in the template) refuses a method it does not take with 405 and the JSON error', async () => {
    const asked: string[] = [];
    for (const fn of apiFunctions()) {
      for (const path of fn.paths) {
        asked.push(path);
        const response = await toTestResponse(await fetch(`${api.url}${path}`, { method: 'DELETE' }));
        expect({ path, status: response.status, error: response.body.error, allow: response.headers.get('allow') !== null }).toEqual({
          path,
          status: 405,
          error: 'method_not_allowed',
          allow: true,
        });
      }
    }
    expect(asked.sort()).toEqual(ROUTES.map((route) => route.path).sort());
  });

  it('logged JSON lines only (stderr also has Node’s warnings), with no environment error and nothing personal (addresses, codes, tokens)', () => {
    for (const fn of apiFunctions()) {
      const started = containers.get(fn.logicalId);
      const [logs, stderr] = [started?.logLines() ?? [], started?.stderrLines() ?? []];
      const notJson = logs.filter((line) => {
        try {
          return typeof JSON.parse(line) !== 'object';
        } catch {
          return true;
        }
      });
      const everything = [...logs, ...stderr];
      expect({
        fn: fn.logicalId,
        notJson,
        environmentErrors: everything.filter((line) => /Invalid environment|Missing environment variable/.test(line)),
        leaked: [...personal].filter((secret) => everything.some((line) => line.toLowerCase().includes(secret.toLowerCase()))),
      }).toEqual({ fn: fn.logicalId, notJson: [], environmentErrors: [], leaked: [] });
    }
  });
});

describe('a function whose template environment lacks a variable its code reads', () => {
  /** The unhandled error the function logged, as Powertools wrote it. */
  function loggedError(lines: readonly string[]): { message: string; at?: string; stack?: string } | undefined {
    for (const line of lines) {
      try {
        const entry = JSON.parse(line) as { message?: string; error?: { message: string; at?: string; stack?: string } };
        if (entry.message === 'unhandled error' && entry.error !== undefined) return entry.error;
      } catch {
        // not a structured line
      }
    }
    return undefined;
  }

  async function tokenWithout(variable: string, change: (environment: Record<string, string>) => Record<string, string> = (e) => e) {
    const fn = named('token');
    const started = await container(
      fn,
      change(
        environmentOf(fn, (variables) => {
          const { [variable]: _removed, ...rest } = variables;
          return rest;
        }),
      ),
    );
    try {
      const response = await started.invoke(apiEvent({ resource: TOKEN, path: TOKEN, body: JSON.stringify({ user_id: 'a@example.com' }) }));
      return { response, error: loggedError([...started.logLines(), ...started.stderrLines()]) };
    } finally {
      await started.stop();
    }
  }

  it('fails its requests (a 500 naming nothing), and the logged frame that threw names our TypeScript through the source map', async () => {
    const { response, error } = await tokenWithout('TABLE_NAME');

    expect({ status: response.statusCode, body: JSON.parse(response.body) as unknown }).toEqual({
      status: 500,
      body: { error: 'server_error', error_description: 'The service met an unexpected condition.' },
    });
    expect(error?.message).toBe('Missing environment variable TABLE_NAME');
    expect(error?.at).toMatch(/\/lib\/platform\/env\.ts:\d+:\d+/);
    // The frame, not the stack trace: no trace in the logs (house rules).
    expect(error?.stack).toBeUndefined();
  });

  it('without the template’s NODE_OPTIONS (--enable-source-maps) the same frame names only the bundle', async () => {
    const { error } = await tokenWithout('TABLE_NAME', ({ NODE_OPTIONS: _options, ...rest }) => rest);

    expect(error?.at).toMatch(/index\.mjs:\d+:\d+/);
    expect(error?.at).not.toMatch(/\/lib\/.*\.ts:/);
  });
});
