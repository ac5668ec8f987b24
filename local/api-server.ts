/**
 * The local API: every HTTP request becomes an API Gateway event (REST API, payload v1) and goes
 * to the same handler a Lambda would run; the handler's result becomes the HTTP response. Like API
 * Gateway, it answers unknown paths itself (404) and routes every method of a known path to its
 * handler (which answers 405 for the ones it does not take).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { preflightFor, type CorsSettings, type Preflight } from '../lib/platform/http/cors';
import { API_TIMEOUT_SECONDS, isPublic, type Route } from '../lib/platform/routes';
import { listen, readBody, type Listening } from './http-server';
import { answerPreflight } from './preflight';

export type LocalHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A local-only route answered by the server itself (the dev outbox, the API's description). */
export type DevRoute = (url: URL, request: IncomingMessage) => Promise<{ status: number; body: unknown }>;

/** A local-only page the server answers itself, writing the whole response (the demo client, local/demo-client.ts). */
export type PageRoute = (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<void>;

export interface ApiServerOptions {
  readonly host?: string;
  readonly port?: number;
  /** API Gateway resource path → handler, e.g. '/idp/v1/otp/send'. */
  readonly routes: Readonly<Record<string, LocalHandler>>;
  /** Local-only routes: /__dev/ paths, the API's description. */
  readonly devRoutes?: Readonly<Record<string, DevRoute>>;
  /** API Gateway resource path → its CORS preflight, where the stage allows browsers (answered here, as API Gateway does). */
  readonly preflights?: Readonly<Record<string, Preflight>>;
  /** Pages answered locally, beside the API (the demo client's `/`, `/login`, `/callback`). */
  readonly pages?: Readonly<Record<string, PageRoute>>;
  /**
   * Called with every response of the API the server writes (not the local-only routes'): the
   * test harness checks each against docs/openapi.json (test/support/contract-recorder.ts).
   */
  readonly onResponse?: (response: WrittenResponse) => void;
}

/** A response as the server wrote it. */
export interface WrittenResponse {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | number | readonly string[]>>;
  readonly body: string;
}

export type ApiServer = Listening;

/** API Gateway's own limit is 10 MB; the local server stops reading well before that. */
const MAX_LOCAL_BODY_BYTES = 1024 * 1024;

/** The preflight of every public route the stage's CORS settings cover (the IAM-only admin routes have none, as on AWS). */
export function preflightsOf(cors: CorsSettings, routes: readonly Route[]): Record<string, Preflight> {
  const preflights: Record<string, Preflight> = {};
  for (const route of routes.filter(isPublic)) {
    const preflight = preflightFor(cors, route.path, route.methods);
    if (preflight !== undefined) preflights[route.path] = preflight;
  }
  return preflights;
}

/**
 * Listens on `host` (default 127.0.0.1) and, by default, on ::1 at the same port too: the local
 * issuer is http://localhost:PORT (WebAuthn refuses an IP address as RP ID), and where localhost
 * resolves to ::1 first (macOS, most Linux distributions' /etc/hosts), a browser would otherwise
 * wait on a refused connection, or reach whatever else listens on [::1]:PORT. Loopback only, both
 * ways; a machine without IPv6 gets the IPv4 listener alone. `url` is the IPv4 one.
 */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? '/', 'http://local');
    const write: Write = (status, headers, body) => {
      response.writeHead(status, headers);
      response.end(body);
      options.onResponse?.({ method: request.method ?? 'GET', path: url.pathname, status, headers, body: body.toString('utf8') });
    };
    handle(options, request, url, response, write).catch(() => {
      if (!response.headersSent) writeJson(write, 500, { error: 'server_error', error_description: 'The local API failed.' });
      else response.end();
    });
  };
  const first = await listen(createServer(onRequest), host, options.port);
  if (options.host !== undefined) return first;
  const ipv6 = await listenOnIpv6Loopback(createServer(onRequest), Number(new URL(first.url).port)).catch(async (error: unknown) => {
    await first.stop();
    throw error;
  });
  if (ipv6 === undefined) return first;
  return { url: first.url, stop: async () => void (await Promise.all([first.stop(), ipv6.stop()])) };
}

/** Where the kernel has no IPv6 loopback (IPv6 disabled, or no IPv6 at all). */
const NO_IPV6 = new Set(['EADDRNOTAVAIL', 'EAFNOSUPPORT']);

/** `server` on [::1]:`port`, or undefined on a machine without IPv6; any other failure (EADDRINUSE) is thrown. */
async function listenOnIpv6Loopback(server: Server, port: number): Promise<Listening | undefined> {
  try {
    return await listen(server, '::1', port);
  } catch (error) {
    if (NO_IPV6.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}

/** Writes a response (and reports it, for an API route). */
type Write = (status: number, headers: Record<string, string | string[]>, body: Buffer) => void;

async function handle(
  options: ApiServerOptions,
  request: IncomingMessage,
  url: URL,
  response: ServerResponse,
  write: Write,
): Promise<void> {
  // Local-only routes and pages: written without reporting, since the API's description does not cover them.
  const writeLocal: Write = (status, headers, body) => {
    response.writeHead(status, headers);
    response.end(body);
  };
  const dev = options.devRoutes?.[url.pathname];
  if (dev !== undefined) {
    if (request.method !== 'GET')
      return writeJson(writeLocal, 405, { error: 'method_not_allowed', error_description: 'GET only.' }, { Allow: 'GET' });
    const result = await dev(url, request);
    return writeJson(writeLocal, result.status, result.body);
  }
  const page = options.pages?.[url.pathname];
  if (page !== undefined) {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return writeJson(writeLocal, 405, { error: 'method_not_allowed', error_description: 'GET only.' }, { Allow: 'GET' });
    return page(request, response, url);
  }
  const handler = options.routes[url.pathname];
  if (handler === undefined) {
    return writeJson(write, 404, { error: 'not_found', error_description: 'No such endpoint.' });
  }
  const preflight = options.preflights?.[url.pathname];
  if (request.method === 'OPTIONS' && preflight !== undefined) {
    request.resume();
    const answer = answerPreflight(preflight, request.headers.origin);
    return write(answer.status, { ...answer.headers }, Buffer.alloc(0));
  }
  const body = await readBody(request, MAX_LOCAL_BODY_BYTES);
  if (body === undefined) {
    return writeJson(write, 413, { error: 'invalid_request', error_description: 'The request body is too large.' });
  }
  const event = toEvent(request, url, body);
  const result = await handler(event, toContext(url.pathname));
  const headers: Record<string, string | string[]> = { ...result.headers } as Record<string, string>;
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  write(result.statusCode, headers, Buffer.from(result.body, result.isBase64Encoded === true ? 'base64' : 'utf8'));
}

/** The event API Gateway (REST, Lambda proxy integration, payload v1) would send. */
export function toEvent(request: IncomingMessage, url: URL, body: Buffer): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] as string;
    const value = request.rawHeaders[index + 1] as string;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query: Record<string, string> = {};
  const multiValueQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    (multiValueQuery[name] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  const now = Date.now();
  const method = request.method ?? 'GET';
  return {
    resource: url.pathname,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: null,
    stageVariables: null,
    body: body.length === 0 ? null : body.toString('utf8'),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      domainName: request.headers.host ?? 'localhost',
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        user: null,
        userAgent: request.headers['user-agent'] ?? null,
        userArn: null,
      },
      path: url.pathname,
      protocol: `HTTP/${request.httpVersion}`,
      requestId: randomUUID(),
      requestTimeEpoch: now,
      resourceId: 'local',
      resourcePath: url.pathname,
      stage: 'local',
    },
  };
}

function toContext(path: string): Context {
  const started = Date.now();
  const functionName = `identity-local${path.replaceAll(/[^a-z0-9]+/gi, '-')}`;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    // The deployed functions' timeout, so a slow request runs out of time here as it would there.
    getRemainingTimeInMillis: () => Math.max(0, API_TIMEOUT_SECONDS * 1000 - (Date.now() - started)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function writeJson(write: Write, status: number, body: unknown, headers: Record<string, string> = {}): void {
  write(
    status,
    { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
    Buffer.from(JSON.stringify(body)),
  );
}
