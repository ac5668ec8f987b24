/**
 * The service as a client sees it, for tests: the local API server (HTTP → API Gateway event →
 * the handlers' middy stacks) over the suite's DynamoDB Local (through a counting proxy) and SES
 * local, with this file's own table, capture server, clock and configuration.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { buildServiceConfig, parseStageConfig, type StageConfig } from '../../lib/platform/config';
import { createDeps, type Deps } from '../../lib/deps';
import { isPublic, ROUTES } from '../../lib/platform/routes';
import { preflightsOf, startApiServer, type LocalHandler, type PageRoute } from '../../local/api-server';
import type { CaptureServerOptions } from '../../local/capture';
import { LOCAL_AWS } from '../../local/dynamodb';
import type { OutboxMessage } from '../../local/outbox';
import { devRoutes, startLocalServices, type LocalServices } from '../../local/stack';
import { FileSecretSource } from '../../lib/adapters/secrets/file-secret-source';
import type { SecretSource } from '../../lib/keys/ports';
import { startDynamoDbProxy, type DynamoDbProxy } from './dynamodb-proxy';
import { FakeClock } from './fake-clock';
import { checkResponse } from './contract-recorder';
import { rememberSecret } from './log-capture';

/** The routes outside the public contract (docs/openapi.json). */
const ADMIN_PATHS = new Set(ROUTES.filter((route) => !isPublic(route)).map((route) => route.path));

export const LOCAL_CONFIG_FILE = resolve(__dirname, '../../config/local.json');
export const REDIRECT_URI = 'http://127.0.0.1:3000/callback';
export const LOCAL_API_KEY = 'local-dev-api-key';

/** The local stage configuration, as parsed JSON, for tests to adjust. */
export function localStageConfig(): StageConfig {
  return parseStageConfig(JSON.parse(readFileSync(LOCAL_CONFIG_FILE, 'utf8')));
}

/**
 * A floor under the DynamoDB request timeout against DynamoDB Local, for runs on a machine much
 * slower than usual: `npm run mutation` (test/mutation/run.ts) sets it, because instrumented code
 * on two busy cores can push the concurrency tests' bursts past 5 s. Unset, it changes nothing.
 */
const SLOW_MACHINE_TIMEOUT_MS = Number(process.env.TEST_DYNAMODB_REQUEST_TIMEOUT_MS ?? 0);

export interface TestServiceOptions {
  /** Adjusts the local configuration (limits, clients) for this service. */
  readonly config?: (config: StageConfig) => StageConfig;
  readonly capture?: CaptureServerOptions;
  /**
   * Point the service's DynamoDB client straight at another endpoint (a closed port, a server
   * that never answers, a slow proxy), without the counting proxy in between, so it sees the
   * fault exactly as it would on AWS; `dynamodb.operations()` then counts nothing.
   */
  readonly dynamodbEndpoint?: string;
  /**
   * Point the service's delivery clients elsewhere (SES, SNS, SMS-voice). The outbox still reads
   * the suite's SES local and this service's capture server, which see what got through.
   */
  readonly sesUrl?: string;
  readonly snsUrl?: string;
  readonly smsVoiceUrl?: string;
  /** Secrets folder (default: one shared by the suite); a rotation test brings its own. */
  readonly secretsDir?: string;
  /** The table, to share one between two services (a second container of the same stack). */
  readonly tableName?: string;
  /** Where secrets come from (default: files in `secretsDir`). */
  readonly secrets?: SecretSource;
  /** How long the service keeps a secret (default: the service's own default). */
  readonly secretsMaxAgeSeconds?: number;
  /**
   * The DynamoDB request timeout. Default: the service's own (250 ms) in front of a fault proxy
   * (`dynamodbEndpoint`), where the timeout is what is tested; 5 s against DynamoDB Local, whose
   * first answers on a loaded 2-core machine can pass 250 ms, and a retried request would make the
   * request counts of the budget tests flaky.
   */
  readonly dynamodbRequestTimeoutMs?: number;
  /**
   * The API server's port (default: any free one). The browser tests pick a free port first,
   * because the demo client's redirect URI, registered in the configuration, names it.
   */
  readonly port?: number;
  /** Pages the server answers beside the API (the demo client's `/`, `/login`, `/callback`). */
  readonly pages?: Readonly<Record<string, PageRoute>>;
}

export interface TestService {
  readonly url: string;
  readonly clock: FakeClock;
  readonly deps: Deps;
  readonly services: LocalServices;
  readonly dynamodb: DynamoDbProxy;
  /**
   * POST a JSON body (or a raw string with its own content type); `from` sends it from that local
   * address (a loopback address other than 127.0.0.1: Linux routes all of 127.0.0.0/8 to the
   * loopback interface; macOS needs `sudo ifconfig lo0 alias 127.0.0.2`), which the service sees as
   * the source IP, as API Gateway's `sourceIp`.
   */
  post(path: string, body: unknown, init?: { headers?: Record<string, string>; raw?: boolean; from?: string }): Promise<TestResponse>;
  /** POST a form-encoded body (application/x-www-form-urlencoded). */
  postForm(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<TestResponse>;
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>;
  /** The outbox for a recipient, newest first. */
  outbox(userId: string): Promise<OutboxMessage[]>;
  /** The code of the newest message to `userId` (remembered as a secret the logs must not show). */
  latestCode(userId: string): Promise<string>;
  /**
   * The whole API flow for one user: send a code, read it from the outbox, exchange it. Returns the
   * token response (its tokens remembered as secrets the logs must not show).
   */
  signIn(userId: string, options?: { clientId?: string; environmentId?: string }): Promise<TestResponse>;
  stop(): Promise<void>;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
  readonly text: string;
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  // The configuration first: a test of a refused one starts nothing that would outlive it.
  const stage = (options.config ?? ((config) => config))(localStageConfig());
  const config = buildServiceConfig(parseStageConfig(stage));
  const real = requiredEnv('TEST_DYNAMODB_ENDPOINT');
  // The service talks to DynamoDB through a counting proxy, unless a test points it elsewhere;
  // the table is always created on the real one.
  const dynamodb = await startDynamoDbProxy(real);
  const services = await startLocalServices({
    dynamodb: { endpoint: real },
    ses: { url: requiredEnv('TEST_SES_URL') },
    capture: options.capture ?? {},
    tableName: options.tableName ?? `identity-test-${randomUUID()}`,
    secretsDir: options.secretsDir ?? resolve(__dirname, `../../.local/test-secrets`),
  });
  const clock = new FakeClock();
  const deps = createDeps({
    config,
    tableName: services.tableName,
    secrets: options.secrets ?? new FileSecretSource(services.secretsDir),
    clock,
    ...(options.secretsMaxAgeSeconds === undefined ? {} : { secretsMaxAgeSeconds: options.secretsMaxAgeSeconds }),
    ...(options.dynamodbRequestTimeoutMs === undefined && options.dynamodbEndpoint !== undefined
      ? {}
      : { dynamodbRequestTimeoutMs: Math.max(options.dynamodbRequestTimeoutMs ?? 5_000, SLOW_MACHINE_TIMEOUT_MS) }),
    endpoints: {
      dynamodb: options.dynamodbEndpoint ?? dynamodb.endpoint,
      ses: options.sesUrl ?? services.sesUrl,
      sns: options.snsUrl ?? services.captureUrl,
      smsVoice: options.smsVoiceUrl ?? services.captureUrl,
    },
    ...LOCAL_AWS,
  });
  const routes: Record<string, LocalHandler> = {};
  for (const route of ROUTES) {
    const module = (await import(`../../functions/${route.functionName}`)) as { createHandler(deps: () => Deps): LocalHandler };
    routes[route.path] = module.createHandler(() => deps);
  }
  const api = await startApiServer({
    routes,
    devRoutes: devRoutes(services),
    preflights: preflightsOf(stage.deployment?.cors, ROUTES),
    // Every response is checked against docs/openapi.json; a test that got one it does not describe fails.
    // The IAM-only admin routes are not in it (lib/platform/routes.ts): test/http/operator.test.ts asserts their whole answers.
    onResponse: (response) => {
      if (!ADMIN_PATHS.has(response.path)) checkResponse(response);
    },
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.pages === undefined ? {} : { pages: options.pages }),
  });

  const service: TestService = {
    url: api.url,
    clock,
    deps,
    services,
    dynamodb,
    async post(path, body, init = {}) {
      const headers = { 'Content-Type': 'application/json', ...init.headers };
      const text = init.raw === true ? (body as string) : JSON.stringify(body);
      if (init.from !== undefined) return postFrom(`${api.url}${path}`, init.from, headers, text);
      return toTestResponse(await fetch(`${api.url}${path}`, { method: 'POST', headers, body: text }));
    },
    async postForm(path, fields, headers = {}) {
      const response = await fetch(`${api.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields).toString(),
      });
      return toTestResponse(response);
    },
    async get(path, headers = {}) {
      return toTestResponse(await fetch(`${api.url}${path}`, { headers }));
    },
    async outbox(userId) {
      const response = await fetch(`${api.url}/__dev/outbox?user_id=${encodeURIComponent(userId)}`);
      return ((await response.json()) as { messages: OutboxMessage[] }).messages;
    },
    async latestCode(userId) {
      const [message] = await service.outbox(userId);
      const code = message === undefined ? undefined : codeIn(message.text);
      if (code === undefined) throw new Error('no code in the outbox');
      rememberSecret(code);
      return code;
    },
    async signIn(userId, { clientId = 'local-web', environmentId } = {}) {
      const query = environmentId === undefined ? '' : `?env_id=${encodeURIComponent(environmentId)}`;
      const sent = await service.post(`${SEND_PATH}${query}`, sendBody(userId, clientId));
      if (sent.status !== 200) throw new Error(`otp/send answered ${sent.status}: ${sent.text}`);
      const response = await service.post(`${TOKEN_PATH}${query}`, exchangeBody(userId, await service.latestCode(userId), clientId));
      for (const token of [response.body.access_token, response.body.refresh_token, response.body.id_token]) {
        if (typeof token === 'string') rememberSecret(token);
      }
      return response;
    },
    async stop() {
      await api.stop();
      await services.stop();
      await dynamodb.stop();
    },
  };
  return service;
}

/** The six-digit code in a message's text (a voice text spells it "0 1 2 3 4 5"). */
export function codeIn(text: string): string | undefined {
  const compact = /\b(\d{6})\b/.exec(text)?.[1];
  if (compact !== undefined) return compact;
  return /\b(\d(?: \d){5})\b/.exec(text)?.[1]?.replaceAll(' ', '');
}

/** A POST from a given local address (node:http binds it; fetch cannot without undici's Agent). */
async function postFrom(url: string, localAddress: string, headers: Record<string, string>, body: string): Promise<TestResponse> {
  return toTestResponse(await fetchFrom(url, localAddress, { method: 'POST', headers, body }));
}

/**
 * A request from a given local address, answered as `fetch` would with `redirect: 'manual'` (the
 * local server sees `localAddress` as the source IP; see `TestService.post`).
 */
export function fetchFrom(
  url: string,
  localAddress: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  const headers = { ...init.headers, ...(init.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(init.body)) }) };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: init.method ?? 'GET', headers, localAddress, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, one);
        }
        resolve(new Response(Buffer.concat(chunks), { status: incoming.statusCode ?? 0, headers: responseHeaders }));
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

export async function toTestResponse(response: Response): Promise<TestResponse> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = {};
  }
  return { status: response.status, headers: response.headers, body, text };
}

/**
 * The headers the service answered with: all but those the local server's HTTP stack adds on its
 * own (Date, Connection, Keep-Alive, Content-Length), so a test can assert them exactly.
 */
export function serviceHeaders(headers: Headers): Record<string, string> {
  const transport = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  return Object.fromEntries([...headers].filter(([name]) => !transport.has(name)));
}

export const SEND_PATH = '/idp/v1/otp/send';
export const TOKEN_PATH = '/idp/v1/account/token';

/** The JSON body of an `otp/send` for `userId` (auth_type from its shape) by `clientId`. */
export function sendBody(userId: string, clientId = 'local-web', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { auth_type: userId.includes('@') ? 'email' : 'sms', client_id: clientId, redirect_uri: REDIRECT_URI, user_id: userId, ...extra };
}

/** The JSON body of a token request exchanging `code` for `userId` with `clientId`. */
export function exchangeBody(
  userId: string,
  code: string,
  clientId = 'local-web',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT_URI, user_id: userId, ...extra };
}

/** The structured log entries (Powertools JSON) with this message, parsed. */
export function logEntries(lines: readonly string[], message: string): Array<Record<string, unknown>> {
  const entries: Array<Record<string, unknown>> = [];
  for (const line of lines) {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.message === message) entries.push(entry);
    } catch {
      // Not one of the service's structured lines.
    }
  }
  return entries;
}

/**
 * A service whose limits are adjusted for every environment (`token`, `send`, `failures`, `code`,
 * the page's `sendsPerTransaction`, and the send guards' `sendPerIp`, `emailPerIp`,
 * `sendPerPrefix`, `dailyPhoneBudget`, `knownNumbers`).
 */
export function withLimits(adjust: {
  token?: object;
  send?: object;
  failures?: object;
  code?: object;
  sendPerIp?: object;
  emailPerIp?: object;
  sendsPerTransaction?: number;
  sendPerPrefix?: object;
  dailyPhoneBudget?: object;
  knownNumbers?: object;
}): (config: StageConfig) => StageConfig {
  return (config) => ({
    ...config,
    environments: config.environments.map((environment) => ({
      ...environment,
      code: { ...environment.code, ...adjust.code },
      limits: {
        token: { ...environment.limits.token, ...adjust.token },
        send: { ...environment.limits.send, ...adjust.send },
        failures: { ...environment.limits.failures, ...adjust.failures },
        sendPerIp: { ...environment.limits.sendPerIp, ...adjust.sendPerIp },
        emailPerIp: { ...environment.limits.emailPerIp, ...adjust.emailPerIp },
        sendsPerTransaction: adjust.sendsPerTransaction ?? environment.limits.sendsPerTransaction,
        sendPerPrefix: { ...environment.limits.sendPerPrefix, ...adjust.sendPerPrefix },
        dailyPhoneBudget: { ...environment.limits.dailyPhoneBudget, ...adjust.dailyPhoneBudget },
        knownNumbers: { ...environment.limits.knownNumbers, ...adjust.knownNumbers },
      },
    })),
  });
}

/** A unique email address for one test, so tests never share counters or codes. */
export function uniqueEmail(label = 'user'): string {
  return `${label}.${randomUUID().slice(0, 8)}@example.com`;
}

/** A unique, valid US phone number (+1 415 555 01xx is reserved for fiction, so use 2xx-9xx exchanges). */
export function uniquePhone(): string {
  const n = Math.floor(Math.random() * 9_000_000) + 1_000_000;
  return `+1415${String(n).padStart(7, '0').replace(/^[01]/, '2')}`;
}

/** A variable test/support/global-setup.ts sets (the suite's stand-ins' addresses). */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set: run the tests with npm test`);
  return value;
}
