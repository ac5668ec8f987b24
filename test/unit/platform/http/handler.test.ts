/**
 * The shared middleware stack (lib/platform/http/handler.ts) around a stub handler: what every route's
 * response gets whatever the handler does.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { TemporarilyUnavailableError } from '../../../../lib/platform/errors';
import { logger } from '../../../../lib/platform/log';
import { apiHandler, TIMEOUT_MARGIN_MS } from '../../../../lib/platform/http/handler';
import { STRICT_TRANSPORT_SECURITY } from '../../../../lib/platform/http/security-headers';
import { apiEvent, lambdaContext } from '../../../support/api-event';
import { capturedLogs } from '../../../support/log-capture';

const ok = (): Promise<APIGatewayProxyResult> => Promise.resolve({ statusCode: 200, body: '{}' });
const route = (handle: () => Promise<APIGatewayProxyResult>) =>
  apiHandler({ methods: ['POST'], body: ['json'], cors: () => undefined }, handle);

describe('a function about to time out', () => {
  it('answers 503 temporarily_unavailable with Retry-After, in time (regression: middy’s TimeoutError became a 500)', async () => {
    const hanging = route(() => new Promise<APIGatewayProxyResult>(() => undefined));
    const started = Date.now();
    const result = await hanging(apiEvent(), lambdaContext(TIMEOUT_MARGIN_MS + 100));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result.statusCode).toBe(503);
    expect(JSON.parse(result.body)).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    expect(result.headers).toMatchObject({ 'Retry-After': '1', 'Cache-Control': 'no-store' });
  });

  it('logs why it answered 503: the function was about to time out', async () => {
    const since = capturedLogs().length;
    await route(() => new Promise<APIGatewayProxyResult>(() => undefined))(apiEvent(), lambdaContext(TIMEOUT_MARGIN_MS + 100));
    const failed = capturedLogs()
      .slice(since)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter(({ message }) => message === 'request failed');
    expect(failed).toEqual([
      expect.objectContaining({ error: 'temporarily_unavailable', status: 503, detail: 'the function was about to time out' }),
    ]);
  });

  it('leaves a handler that finishes in time alone', async () => {
    expect((await route(ok)(apiEvent(), lambdaContext(TIMEOUT_MARGIN_MS + 2000))).statusCode).toBe(200);
  });
});

describe('Strict-Transport-Security (RFC 6797)', () => {
  const https = { 'Content-Type': 'application/json', 'X-Forwarded-Proto': 'https' };

  it('is on every response of a request that came over HTTPS (API Gateway), errors included', async () => {
    expect((await route(ok)(apiEvent({ headers: https }), lambdaContext())).headers).toMatchObject({
      'Strict-Transport-Security': STRICT_TRANSPORT_SECURITY,
    });
    const refused = await route(ok)(apiEvent({ headers: https, body: '{' }), lambdaContext());
    expect(refused.statusCode).toBe(400);
    expect(refused.headers).toMatchObject({ 'Strict-Transport-Security': STRICT_TRANSPORT_SECURITY });
  });

  it('is absent over plain HTTP (the local runtime), where it would mean nothing', async () => {
    expect((await route(ok)(apiEvent(), lambdaContext())).headers ?? {}).not.toHaveProperty('Strict-Transport-Security');
  });
});

describe('errors that are not ours but carry middy’s HTTP contract (statusCode, expose)', () => {
  function throwing(error: Error) {
    return route(() => Promise.reject(error));
  }
  const httpError = (statusCode: number, message: string, expose: boolean) => Object.assign(new Error(message), { statusCode, expose });
  /** The `error` of each `unhandled error` entry logged since `since`. */
  const loggedBugs = (since: number) =>
    capturedLogs()
      .slice(since)
      .map((line) => JSON.parse(line) as { message: string; error?: unknown })
      .filter(({ message }) => message === 'unhandled error')
      .map(({ error }) => error);

  it('keeps an exposed 4xx status and message (regression: they became 500)', async () => {
    const result = await throwing(httpError(422, 'Unprocessable Entity', true))(apiEvent(), lambdaContext());
    expect(result.statusCode).toBe(422);
    expect(JSON.parse(result.body)).toEqual({ error: 'invalid_request', error_description: 'Unprocessable Entity' });
  });

  it('keeps the status of a 4xx that is not exposed, but not its message', async () => {
    const result = await throwing(httpError(404, 'no row for user alice@example.com', false))(apiEvent(), lambdaContext());
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body)).toEqual({ error: 'not_found', error_description: 'The request failed (HTTP 404).' });
  });

  it('answers a 503 as temporarily_unavailable with Retry-After, and any other 5xx as a bug', async () => {
    const unavailable = await throwing(httpError(503, 'Service Unavailable', false))(apiEvent(), lambdaContext());
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.headers).toMatchObject({ 'Retry-After': '1' });
    const bug = await throwing(httpError(500, 'stack details', true))(apiEvent(), lambdaContext());
    expect(bug.statusCode).toBe(500);
    expect(JSON.parse(bug.body)).toEqual({ error: 'server_error', error_description: 'The service met an unexpected condition.' });
  });

  it('still answers a plain error as a bug: 500 server_error, nothing of its message', async () => {
    const result = await throwing(new Error('secret detail'))(apiEvent(), lambdaContext());
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toContain('secret detail');
  });

  it('logs a bug’s name, message and the frame that threw, never its stack trace', async () => {
    const bug = new TypeError('x is not a function');
    const since = capturedLogs().length;
    await throwing(bug)(apiEvent(), lambdaContext());
    // The stack's second line (after "TypeError: …") is the frame that threw: "    at <frame>".
    const topFrame = (bug.stack as string).split('\n')[1]?.trim().replace(/^at /, '');
    expect(topFrame).toContain('handler.test.ts');
    expect(loggedBugs(since)).toEqual([{ name: 'TypeError', message: 'x is not a function', at: topFrame }]);
    // Nothing of the frames below it, anywhere in the line.
    const lowerFrame = (bug.stack as string).split('\n')[2]?.trim() as string;
    expect(capturedLogs().slice(since).join('\n')).not.toContain(lowerFrame);
  });

  it('logs a bug’s frame, not text of its message that reads like one, and no frame when the stack has none', async () => {
    const since = capturedLogs().length;
    const misleading = new Error('failed at step 2');
    await throwing(misleading)(apiEvent(), lambdaContext());
    const frameless = Object.assign(new RangeError('no frames'), { stack: undefined });
    await throwing(frameless)(apiEvent(), lambdaContext());
    const topFrame = (misleading.stack as string).split('\n')[1]?.trim().replace(/^at /, '');
    expect(loggedBugs(since)).toEqual([
      { name: 'Error', message: 'failed at step 2', at: topFrame },
      { name: 'RangeError', message: 'no frames' },
    ]);
  });

  it('logs the kind of what caused a 5xx of ours (never its message), and no cause when there was none', async () => {
    const since = capturedLogs().length;
    await throwing(new TemporarilyUnavailableError({ detail: 'storage', cause: new TypeError('secret detail') }))(
      apiEvent(),
      lambdaContext(),
    );
    await throwing(new TemporarilyUnavailableError({ detail: 'storage' }))(apiEvent(), lambdaContext());
    const lines = capturedLogs().slice(since);
    const failed = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter(({ message }) => message === 'request failed');
    expect(failed.map(({ detail, cause }) => ({ detail, cause }))).toEqual([
      { detail: 'storage', cause: { name: 'TypeError' } },
      { detail: 'storage', cause: undefined },
    ]);
    expect(lines.join('\n')).not.toContain('secret detail');
  });

  it('logs what was thrown when it is not an Error: its type', async () => {
    const since = capturedLogs().length;
    await throwing('a string' as unknown as Error)(apiEvent(), lambdaContext());
    expect(loggedBugs(since)).toEqual([{ name: 'string' }]);
  });
});

describe('the logs of a request', () => {
  /** A route that logs one line, and the lines it logged (parsed) per call. */
  const logging = route(() => {
    logger.info('handled');
    return ok();
  });
  const linesOf = async (event: ReturnType<typeof apiEvent>, context: ReturnType<typeof lambdaContext>) => {
    const since = capturedLogs().length;
    await logging(event, context);
    return capturedLogs()
      .slice(since)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter(({ message }) => message === 'handled');
  };

  it('carry API Gateway’s request id as the correlation id and the Lambda request id, and none of them into the next request', async () => {
    const first = await linesOf(apiEvent({ requestContext: { requestId: 'gateway-1' } as APIGatewayProxyEvent['requestContext'] }), {
      ...lambdaContext(),
      awsRequestId: 'lambda-1',
    });
    expect(first).toEqual([expect.objectContaining({ correlation_id: 'gateway-1', function_request_id: 'lambda-1' })]);
    const second = await linesOf(apiEvent({ requestContext: { requestId: 'gateway-2' } as APIGatewayProxyEvent['requestContext'] }), {
      ...lambdaContext(),
      awsRequestId: 'lambda-2',
    });
    expect(second).toEqual([expect.objectContaining({ correlation_id: 'gateway-2', function_request_id: 'lambda-2' })]);
    // An event without a request id (a direct invocation) has none, not the last request's.
    const third = await linesOf(apiEvent({ requestContext: {} as APIGatewayProxyEvent['requestContext'] }), lambdaContext());
    expect(third).toEqual([expect.not.objectContaining({ correlation_id: expect.anything() })]);
  });
});
