/**
 * One benchmark subject in its own Node process (bundled to plain JavaScript by bench/run.ts, so
 * no TypeScript loader stands between Node and the code measured): it imports a bundle (a
 * function's `index.mjs` from `npm run build`, or the floor), then serves runs sent by its parent.
 * A run is a list of API Gateway events; the first `warmup` are invoked and not measured, the rest
 * with at most `concurrency` in flight, each timed, and the process's CPU time (user + system,
 * `process.cpuUsage`) over the measured part divided by their number is the CPU per request. The
 * process stays up between runs, as a warm Lambda container does.
 *
 * With `BENCH_TRACE_IDS` set (`npm run bench -- --tracing`), each request gets a new trace header
 * (sampled, or with `--unsampled` not) in `_X_AMZN_TRACE_ID`, as the Lambda runtime sets it for each invocation, so a
 * traced function's subsegments belong to a new trace each time (with 16 in flight the variable
 * is shared and the last one set wins, which changes where a subsegment goes, not its cost).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

export interface RunRequest {
  readonly type: 'run';
  readonly exportName: string;
  readonly events: readonly unknown[];
  readonly warmup: number;
  readonly concurrency: number;
  readonly expectedStatus: number;
  /** Where to write a CPU profile (V8's .cpuprofile) of the measured part, if anywhere. */
  readonly profileFile?: string | undefined;
}

export interface RunResult {
  readonly type: 'result';
  readonly requests: number;
  readonly cpuMicros: number;
  readonly wallMs: number;
  /** Each measured request's duration, in ms. */
  readonly latencies: number[];
  /** Answers other than the expected status, by status, with one body of each for the report. */
  readonly unexpected: Record<string, { count: number; body: string }>;
  /** One measured answer of the expected status, if any: run.ts compares the real one's fields (body, redirect, cookies) with the floor's. */
  readonly sample: Answer | undefined;
}

/** An API Gateway proxy result, as the handlers return it. */
export interface Answer {
  readonly statusCode: number;
  readonly body: string;
  readonly headers?: Record<string, unknown>;
  readonly multiValueHeaders?: Record<string, unknown[]>;
}

type Handler = (event: unknown, context: unknown) => Promise<Answer>;

const TIMEOUT_MS = 20_000;
let requestNumber = 0;
const TRACE_IDS = process.env.BENCH_TRACE_IDS !== undefined;
/** `Sampled=1` (every request recorded and sent), or `Sampled=0` with BENCH_TRACE_IDS=unsampled (what most requests are under X-Ray's default sampling). */
const SAMPLED = process.env.BENCH_TRACE_IDS === 'unsampled' ? '0' : '1';
/** The invocation's X-Ray trace header: a root of this second and the request's number, a parent id, the sampling decision. */
const traceHeader = (n: number) =>
  `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${n.toString(16).padStart(24, '0')};Parent=${n.toString(16).padStart(16, '0')};Sampled=${SAMPLED}`;

function context() {
  const deadline = Date.now() + TIMEOUT_MS;
  requestNumber += 1;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'bench',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench',
    memoryLimitInMB: '512',
    awsRequestId: `bench-${requestNumber}`,
    logGroupName: '/aws/lambda/bench',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function run(module: Record<string, unknown>, request: RunRequest): Promise<RunResult> {
  const handler = module[request.exportName] as Handler | undefined;
  if (typeof handler !== 'function') throw new Error(`The bundle exports no ${request.exportName}`);
  let unexpected: Record<string, { count: number; body: string }> = {};
  let sample: Answer | undefined;
  const invoke = async (event: unknown): Promise<number> => {
    if (TRACE_IDS) process.env._X_AMZN_TRACE_ID = traceHeader(requestNumber + 1);
    const started = performance.now();
    const result = await handler(event, context());
    const elapsed = performance.now() - started;
    if (result.statusCode !== request.expectedStatus) {
      const seen = (unexpected[result.statusCode] ??= { count: 0, body: result.body.slice(0, 300) });
      seen.count += 1;
    } else {
      sample ??= { statusCode: result.statusCode, body: result.body, headers: result.headers, multiValueHeaders: result.multiValueHeaders };
    }
    return elapsed;
  };
  for (const event of request.events.slice(0, request.warmup)) await invoke(event);
  const measured = request.events.slice(request.warmup);
  unexpected = {};
  sample = undefined;

  const latencies = new Array<number>(measured.length);
  let next = 0;
  const lane = async () => {
    while (next < measured.length) {
      const index = next;
      next += 1;
      latencies[index] = await invoke(measured[index]);
    }
  };
  const profiler = request.profileFile === undefined ? undefined : await startProfiler();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await Promise.all(Array.from({ length: request.concurrency }, lane));
  const cpu = process.cpuUsage(cpuBefore);
  if (profiler !== undefined && request.profileFile !== undefined) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(request.profileFile, JSON.stringify(profile));
    profiler.disconnect();
  }
  return {
    type: 'result',
    requests: measured.length,
    cpuMicros: cpu.user + cpu.system,
    wallMs: performance.now() - wallBefore,
    latencies,
    unexpected,
    sample,
  };
}

async function startProfiler(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return session;
}

async function main(): Promise<void> {
  const file = process.argv[2] ?? '';
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const cpu = process.cpuUsage(cpuBefore);
  process.send?.({ type: 'ready', loadMs: performance.now() - started, loadCpuMicros: cpu.user + cpu.system });
  process.on('message', (request: RunRequest) => {
    run(module, request).then(
      (result) => process.send?.(result),
      (error: unknown) => process.send?.({ type: 'failed', message: (error as Error).stack ?? String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}

void main();
