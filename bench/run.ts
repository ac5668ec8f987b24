/**
 * `npm run bench`: on the machine at hand, in one run, each operation of bench/operations.ts
 * through the real bundles (`npm run build`'s output, the bytes `cdk deploy` uploads) against
 * DynamoDB Local, beside the floor (bench/floor.ts) doing the same requests with nothing else.
 * Prints and writes (bench/report.json, git-ignored) per operation the CPU per request and the
 * wall p50/p99, sequentially and with 16 in flight, each as a ratio to the floor, the DynamoDB
 * requests per operation (and the logout queue's, SQS), and each bundle's size and module-load time
 * against a bundle holding only the DynamoDB client; then the targets of docs/performance.md, met
 * or not.
 *
 * Method (docs/performance.md): every subject runs in its own Node process, warm (a warm-up
 * first, then the measured requests), the real function and its floor taking turns in short
 * chunks (A B B A A B …) so that load from elsewhere on the machine falls on both alike. With `taskset` and two
 * cores or more, DynamoDB Local's JVM, the SES stand-in and this process run on core 0 and the
 * measured processes on core 1.
 *
 *   npm run bench
 *   npm run bench -- --requests 400 --concurrent-requests 800 --load-runs 21
 *   npm run bench -- --profile    # and where each subject's CPU goes (bench/profiles/, git-ignored)
 *   npm run bench -- --only session --only logout   # only the operations whose names contain one of these
 *   npm run bench -- --tracing    # the functions built to trace (deployment.tracing), run as on Lambda with X-Ray
 *   npm run bench -- --tracing --unsampled   # the same, every request unsampled (most are, under X-Ray's default rule)
 *
 * With `--tracing` the functions' bundles hold the X-Ray SDK (lib/platform/tracing.ts) and run
 * with what Lambda gives a traced function: `AWS_EXECUTION_ENV` (Powertools traces only on
 * Lambda), `LAMBDA_TASK_ROOT` (the X-Ray SDK's Lambda mode, one facade segment per invocation),
 * a new sampled `_X_AMZN_TRACE_ID` for each request (bench/worker.ts), and the X-Ray daemon's
 * address, here a UDP socket of this process on the loopback address that counts the
 * subsegments it receives. The floor and the DynamoDB-only reference are the same as without it,
 * so each ratio to the floor, beside the untraced run's, is tracing's price; the untraced token
 * and otp-send bundles are loaded too, interleaved with the traced ones.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SourceMap } from 'node:module';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildAll, DIST } from '../infra/build';
import { BUNDLE_FILE, ESBUILD_OPTIONS, PROJECT_ROOT } from '../infra/bundling';
import { TRACING_ENVIRONMENT } from '../lib/platform/tracing';
import { FileSecretSource } from '../lib/adapters/secrets/file-secret-source';
import { buildServiceConfig, parseStageConfig } from '../lib/platform/config';
import { createDeps, tableAdapters } from '../lib/deps';
import { tableOf } from '../lib/deps/table';
import { deriveHmacKeys } from '../lib/keys/hmac-keys';
import { loadSigningKeys } from '../lib/keys/signing-keys';
import { ensureTable, LOCAL_AWS, startDynamoDbLocal } from '../local/dynamodb';
import { startCaptureServer } from '../local/capture';
import { startSesLocal } from '../local/ses';
import { EventOutbox } from '../local/events';
import { ensureLocalSecrets } from '../local/secrets';
import { lambdaEnvironment, type LocalServices } from '../local/stack';
import { startDynamoDbProxy } from '../test/support/dynamodb-proxy';
import { benchStageConfig, OPERATIONS, type Operation, type Seeding } from './operations';
import { startSqsStandIn } from './sqs';
import type { Answer, RunRequest, RunResult } from './worker';

const { values: flags } = parseArgs({
  options: {
    requests: { type: 'string', default: '200' },
    'concurrent-requests': { type: 'string', default: '384' },
    warmup: { type: 'string', default: '100' },
    'load-runs': { type: 'string', default: '15' },
    /** Cold starts (a fresh process: the import, then its first request) per subject. */
    'cold-runs': { type: 'string', default: '15' },
    out: { type: 'string', default: resolve(PROJECT_ROOT, 'bench/report.json') },
    /** Also profile one run (16 in flight) of each operation and subject: where the CPU goes, by package and file. */
    profile: { type: 'boolean', default: false },
    /** Only the operations whose names contain one of these (the bundles and the cold start are measured all the same). */
    only: { type: 'string', multiple: true, default: [] },
    /** The functions built to trace and run as traced on Lambda (see the header). */
    tracing: { type: 'boolean', default: false },
    /** With --tracing: every request unsampled (`Sampled=0`), as most are under X-Ray's default sampling rule. */
    unsampled: { type: 'boolean', default: false },
  },
});
const TRACING = flags.tracing;
const SEQUENTIAL_REQUESTS = Number(flags.requests);
const CONCURRENT_REQUESTS = Number(flags['concurrent-requests']);
/** Requests per turn of a subject before the other takes over (sequentially; with 16 in flight). */
const SEQUENTIAL_CHUNK = 20;
const CONCURRENT_CHUNK = 64;
const WARMUP = Number(flags.warmup);
const LOAD_RUNS = Number(flags['load-runs']);
const COLD_RUNS = Number(flags['cold-runs']);
/** The operation whose cold start is measured: the token function's most common request. */
const COLD_OPERATION = 'JWT exchange (ES256)';
const CONCURRENCY = 16;
/** The operations measured: all, or those `--only` names. */
const SELECTED: readonly Operation[] =
  flags.only.length === 0 ? OPERATIONS : OPERATIONS.filter((operation) => flags.only.some((part) => operation.name.includes(part)));

/** The budgets (docs/performance.md). */
const TARGETS = {
  cpuRatio: 1.15,
  tokenBundleBytes: 462_000,
  sendBundleBytes: 600_000,
  tokenLoadRatio: 1.3,
};

const BENCH_DIST = join(DIST, 'bench');
/** With --tracing, these functions' untraced bundles are measured too (named `<function> untraced`). */
const UNTRACED_TOO = ['token', 'otp-send'];
const UNTRACED_SUFFIX = 'untraced';
/** The issuer the handlers answer as (the local runtime's), which the logout's ID token hints carry. */
const ISSUER = 'http://localhost:3000';
const REFERENCE = 'dynamodb-only';
const FLOOR = 'floor';
const started = Date.now();
const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`);

/** Core pinning: `taskset` and at least two cores, else none (and the report says so). */
const PINNING = spawnSync('taskset', ['--version']).status === 0 && cpus().length >= 2;
const MEASURED_CORE = '1';
const SERVICES_CORE = '0';

function pin(pid: number | undefined): void {
  if (PINNING && pid !== undefined) spawnSync('taskset', ['-a', '-p', '-c', SERVICES_CORE, String(pid)], { stdio: 'ignore' });
}

/** `node args`, on the measured core when pinning. */
function nodeCommand(args: string[]): [string, string[]] {
  return PINNING ? ['taskset', ['-c', MEASURED_CORE, process.execPath, ...args]] : [process.execPath, args];
}

interface Bundle {
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
}

/** The functions (`npm run build`), the floor and the DynamoDB-only reference, all with the functions' esbuild options; the worker as plain JavaScript. */
async function buildBundles(): Promise<{ bundles: Bundle[]; worker: string }> {
  const functions = await buildAll(DIST, 'local', TRACING);
  const extra: Bundle[] = [];
  if (TRACING) {
    // The untraced bundles of the two with budgets, to load interleaved with the traced ones.
    const untraced = await buildAll(join(BENCH_DIST, 'untraced'), 'local', false);
    for (const { name, file, bytes } of untraced.filter((bundle) => UNTRACED_TOO.includes(bundle.name))) {
      extra.push({ name: `${name} ${UNTRACED_SUFFIX}`, file, bytes });
    }
  }
  for (const [name, entry] of [
    [FLOOR, 'bench/floor.ts'],
    [REFERENCE, 'bench/dynamodb-only.ts'],
  ] as const) {
    const file = join(BENCH_DIST, name, BUNDLE_FILE);
    await build({ ...ESBUILD_OPTIONS, entryPoints: [resolve(PROJECT_ROOT, entry)], outfile: file });
    extra.push({ name, file, bytes: statSync(file).size });
  }
  const worker = join(BENCH_DIST, 'worker.mjs');
  await build({
    entryPoints: [resolve(PROJECT_ROOT, 'bench/worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: worker,
    logLevel: 'error',
  });
  return { bundles: [...functions.map(({ name, file, bytes }) => ({ name, file, bytes })), ...extra], worker };
}

/** Median module-load time of each bundle, `runs` fresh processes each, interleaved in shuffled order. */
function measureLoads(bundles: readonly Bundle[], runs: number, env: Record<string, string>): Map<string, number> {
  const samples = new Map<string, number[]>(bundles.map((bundle) => [bundle.name, []]));
  for (let run = 0; run < runs; run += 1) {
    for (const bundle of [...bundles].sort(() => Math.random() - 0.5)) {
      const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(bundle.file).href)}); process.stdout.write(String(performance.now() - t));`;
      const [command, args] = nodeCommand(['--enable-source-maps', '--no-warnings', '--input-type=module', '-e', script]);
      const result = spawnSync(command, args, { env, encoding: 'utf8' });
      const ms = Number(result.stdout);
      if (result.status !== 0 || !Number.isFinite(ms)) throw new Error(`Loading ${bundle.name} failed: ${result.stderr}`);
      samples.get(bundle.name)?.push(ms);
    }
  }
  return new Map([...samples].map(([name, values]) => [name, percentile(values, 0.5)]));
}

/** A subject's process: its bundle imported once, runs served one after another. */
class Worker {
  private constructor(
    private readonly child: ChildProcess,
    /** The bundle's `import()` in this process: wall time, and the process's CPU time meanwhile. */
    readonly loadMs: number,
    readonly loadCpuMicros: number,
  ) {}

  static async start(workerFile: string, bundle: string, env: Record<string, string>): Promise<Worker> {
    const [command, args] = nodeCommand([workerFile, bundle]);
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    // The functions log one JSON line per request, as on Lambda: read and dropped.
    child.stdout?.resume();
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const { loadMs, loadCpuMicros } = await new Promise<{ loadMs: number; loadCpuMicros: number }>((resolveReady, reject) => {
      child.once('message', (message: { type: string; loadMs: number; loadCpuMicros: number }) => resolveReady(message));
      child.once('exit', (code) => reject(new Error(`The worker for ${bundle} exited with ${code}: ${stderr}`)));
    });
    child.removeAllListeners('exit');
    return new Worker(child, loadMs, loadCpuMicros);
  }

  run(request: Omit<RunRequest, 'type'>): Promise<RunResult> {
    return new Promise((resolveRun, reject) => {
      this.child.once('message', (message: RunResult | { type: 'failed'; message: string }) =>
        message.type === 'result' ? resolveRun(message) : reject(new Error(message.message)),
      );
      this.child.send({ type: 'run', ...request });
    });
  }

  stop(): void {
    this.child.kill();
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

interface Measured {
  requests: number;
  cpuMicros: number;
  latencies: number[];
  unexpected: Record<string, { count: number; body: string }>;
}

const summary = (measured: Measured) => ({
  requests: measured.requests,
  cpuMsPerRequest: measured.cpuMicros / measured.requests / 1000,
  p50Ms: percentile(measured.latencies, 0.5),
  p99Ms: percentile(measured.latencies, 0.99),
  unexpected: measured.unexpected,
});

const ratio = (real: number, floor: number) => Math.round((real / floor) * 100) / 100;
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

async function main(): Promise<void> {
  const loadBefore = loadavg();
  log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`,
  );
  log(PINNING ? 'pinning: services on core 0, measured processes on core 1' : 'pinning: none (no taskset, or one core)');
  pin(process.pid);

  log(
    `building the bundles (npm run build${TRACING ? ' -- --tracing: traced, as a stage with deployment.tracing' : ', untraced'}), the floor and the DynamoDB-only reference…`,
  );
  const { bundles, worker: workerFile } = await buildBundles();

  log('starting DynamoDB Local and the SES stand-in…');
  const dynamodb = await startDynamoDbLocal();
  pin(dynamodb.pid);
  const ses = await startSesLocal();
  const capture = await startCaptureServer();
  const tableName = `identity-bench-${Date.now()}`;
  await ensureTable(dynamodb.endpoint, tableName);
  const secretsDir = mkdtempSync(join(tmpdir(), 'identity-bench-secrets-'));
  await ensureLocalSecrets(secretsDir);
  // The logout queue as on AWS (bench/sqs.ts), and the local stage with what the logout operation needs (operations.ts).
  const sqs = await startSqsStandIn();
  const configDir = mkdtempSync(join(tmpdir(), 'identity-bench-config-'));
  const configFile = join(configDir, 'local.json');
  writeFileSync(configFile, JSON.stringify(benchStageConfig(JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'config/local.json'), 'utf8')))));
  const services: LocalServices = {
    dynamodbEndpoint: dynamodb.endpoint,
    sesUrl: ses.url,
    captureUrl: capture.url,
    tableName,
    secretsDir,
    configFile,
    // The local runtime's audit event outbox: the bench's functions run in processes of their own, so it stays empty.
    events: new EventOutbox(),
    stop: () => Promise.resolve(),
  };
  const config = buildServiceConfig(parseStageConfig(JSON.parse(readFileSync(services.configFile, 'utf8'))));
  const secrets = new FileSecretSource(secretsDir);
  const seeding: Seeding = {
    config,
    keys: deriveHmacKeys(await secrets.hmacSecret()),
    signingKeys: await loadSigningKeys(await secrets.signingKeySet()),
    issuer: ISSUER,
    ...tableAdapters(tableOf(tableName, { endpoint: dynamodb.endpoint, ...LOCAL_AWS }, 5000)),
    // For what a seeding makes through the service's own handlers in this process; their logs dropped.
    service: createDeps({
      config,
      tableName,
      secrets,
      endpoints: { dynamodb: dynamodb.endpoint },
      ...LOCAL_AWS,
      issuer: ISSUER,
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      dynamodbRequestTimeoutMs: 5000,
    }),
  };
  // The X-Ray daemon's stand-in (--tracing): counts what the functions send it, one UDP datagram per (sub)segment.
  const daemon = createSocket('udp4');
  let segmentsReceived = 0;
  daemon.on('message', () => (segmentsReceived += 1));
  await new Promise<void>((resolveBound) => daemon.bind(0, '127.0.0.1', resolveBound));
  daemon.unref();
  /** What Lambda gives a traced function (infra/functions.ts TRACING_ENVIRONMENT, and the runtime's own). */
  const tracingEnvironment = TRACING
    ? {
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
        ...TRACING_ENVIRONMENT,
        BENCH_TRACE_IDS: flags.unsampled ? 'unsampled' : 'sampled',
      }
    : {};
  /** As the local runtime sets it, plus what the stack sets on every function (infra/functions.ts). */
  const environment = (taskRoot: string, endpoint = dynamodb.endpoint) => ({
    ...tracingEnvironment,
    PATH: process.env.PATH ?? '',
    ...lambdaEnvironment({ ...services, dynamodbEndpoint: endpoint }, ISSUER),
    // As the stack sets it on the functions that end sessions (infra/backchannel.ts `grantNotify`).
    LOGOUT_QUEUE_URL: sqs.queueUrl,
    AWS_ENDPOINT_URL_SQS: sqs.url,
    LAMBDA_TASK_ROOT: taskRoot,
    NODE_OPTIONS: '--enable-source-maps',
    POWERTOOLS_SERVICE_NAME: 'identity',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
  });
  const bundleOf = (name: string) => bundles.find((bundle) => bundle.name === name) as Bundle;
  const subjects = (operation: Operation) => ({
    real: { bundle: bundleOf(operation.function), exportName: 'handler' },
    floor: { bundle: bundleOf(FLOOR), exportName: operation.floor },
  });

  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadAverageAtStart: loadBefore, pinning: PINNING },
    tracing: TRACING ? (flags.unsampled ? 'on, unsampled' : 'on, sampled') : 'off',
    settings: {
      sequentialRequests: SEQUENTIAL_REQUESTS,
      concurrentRequests: CONCURRENT_REQUESTS,
      concurrency: CONCURRENCY,
      chunks: { sequential: SEQUENTIAL_CHUNK, concurrent: CONCURRENT_CHUNK },
      warmup: WARMUP,
      loadRuns: LOAD_RUNS,
      coldRuns: COLD_RUNS,
    },
  };
  const workers: Worker[] = [];
  try {
    log(`module load: ${LOAD_RUNS} fresh processes per bundle, interleaved…`);
    const loads = measureLoads(bundles, LOAD_RUNS, { PATH: process.env.PATH ?? '', AWS_REGION: LOCAL_AWS.region, ...tracingEnvironment });
    const referenceLoad = loads.get(REFERENCE) ?? NaN;
    report.bundles = bundles.map((bundle) => ({
      name: bundle.name,
      file: relative(PROJECT_ROOT, bundle.file),
      bytes: bundle.bytes,
      loadMs: loads.get(bundle.name),
      loadRatio: ratio(loads.get(bundle.name) ?? NaN, referenceLoad),
    }));

    log('DynamoDB requests per operation (through a counting proxy), and the answers’ fields…');
    const proxy = await startDynamoDbProxy(dynamodb.endpoint);
    const requestsPerOperation: Record<string, RequestsReport> = {};
    for (const operation of SELECTED) {
      const counted: Partial<Record<'real' | 'floor', { requests: number; kinds: string; fields: string; segments: number }>> = {};
      for (const [subject, { bundle, exportName }] of Object.entries(subjects(operation)) as Array<
        ['real' | 'floor', { bundle: Bundle; exportName: string }]
      >) {
        const counter = await Worker.start(workerFile, bundle.file, environment(join(DIST, operation.function), proxy.endpoint));
        const events = await operation.requests(seeding, 11, `count-${subject}-${randomTag()}`);
        await counter.run({ exportName, events: events.slice(0, 1), warmup: 1, concurrency: 1, expectedStatus: operation.expectedStatus });
        proxy.reset();
        sqs.reset();
        segmentsReceived = 0;
        const result = await counter.run({
          exportName,
          events: events.slice(1),
          warmup: 0,
          concurrency: 1,
          expectedStatus: operation.expectedStatus,
        });
        // The segments arrive over UDP, after the answers: a moment for the last ones.
        await new Promise((resolveWait) => setTimeout(resolveWait, TRACING ? 300 : 0));
        const segments = segmentsReceived / result.requests;
        counter.stop();
        const failures = Object.entries(result.unexpected);
        if (failures.length > 0) {
          throw new Error(
            `${operation.name} (${subject}) answered ${failures.map(([status, seen]) => `${status}: ${seen.body}`).join('; ')}`,
          );
        }
        const operations = proxy.operations();
        // Which requests, per request: `PutItem + 2 UpdateItem`, in a stable order; then the
        // logout queue's, if any (`SQS SendMessageBatch`), which are not DynamoDB requests.
        const perKind = (all: readonly string[], prefix = '') =>
          [...new Set(all)].sort().map((kind) => {
            const perRequest = all.filter((candidate) => candidate === kind).length / result.requests;
            return `${perRequest === 1 ? '' : `${perRequest} `}${prefix}${kind}`;
          });
        const kinds = [...perKind(operations), ...perKind(sqs.operations(), 'SQS ')].join(' + ');
        counted[subject] = { requests: operations.length / result.requests, kinds, fields: fieldsOf(result.sample), segments };
      }
      const { real, floor } = counted as Record<'real' | 'floor', { requests: number; kinds: string; fields: string; segments: number }>;
      // The floor must answer what the service answers, or the comparison measures less work.
      if (real.fields !== floor.fields) throw new Error(`${operation.name}: the service answers ${real.fields}, the floor ${floor.fields}`);
      requestsPerOperation[operation.name] = {
        real: real.requests,
        floor: floor.requests,
        realKinds: real.kinds,
        floorKinds: floor.kinds,
        ...(TRACING ? { segmentsPerRequest: real.segments } : {}),
      };
      log(
        `  ${operation.name}: ${real.kinds} / ${floor.kinds}${real.kinds === floor.kinds ? '' : '  ✗ the floor differs'}${TRACING ? `; X-Ray subsegments per request ${real.segments}` : ''}`,
      );
    }
    await proxy.stop();

    log(`cold starts: ${COLD_RUNS} fresh processes per subject, each the import and then one ${COLD_OPERATION}, interleaved…`);
    report.coldStart = await measureColdStarts(
      OPERATIONS.find((operation) => operation.name === COLD_OPERATION) as Operation,
      (operation, subject) => subjects(operation)[subject],
      (operation) => environment(join(DIST, operation.function)),
      seeding,
      workerFile,
    );

    log('timed runs…');
    // One pair of processes per function: its bundle, and a floor that serves the same operations
    // in the same order, so both have had the same warm-up (V8 optimises what it has run most).
    const pairs = new Map<string, { real: Worker; floor: Worker }>();
    const workerOf = async (name: string, subject: 'real' | 'floor') => {
      let pair = pairs.get(name);
      if (pair === undefined) {
        pair = {
          real: await Worker.start(workerFile, bundleOf(name).file, environment(join(DIST, name))),
          floor: await Worker.start(workerFile, bundleOf(FLOOR).file, environment(join(DIST, name))),
        };
        pairs.set(name, pair);
        workers.push(pair.real, pair.floor);
      }
      return pair[subject];
    };

    const operations = [];
    for (const operation of SELECTED) {
      const modes: Record<string, unknown> = {};
      for (const [mode, count, concurrency] of [
        ['sequential', SEQUENTIAL_REQUESTS, 1],
        ['16 in flight', CONCURRENT_REQUESTS, CONCURRENCY],
      ] as const) {
        const totals: Record<'real' | 'floor', Measured> = {
          real: { requests: 0, cpuMicros: 0, latencies: [], unexpected: {} },
          floor: { requests: 0, cpuMicros: 0, latencies: [], unexpected: {} },
        };
        // Every request's user and stored code first, then each subject warmed up, then the two
        // alternating in short chunks (A B B A A B …), so load from elsewhere falls on both alike.
        const prepared = {
          real: await operation.requests(seeding, WARMUP + count, `real-${randomTag()}`),
          floor: await operation.requests(seeding, WARMUP + count, `floor-${randomTag()}`),
        };
        const chunk = concurrency === 1 ? SEQUENTIAL_CHUNK : CONCURRENT_CHUNK;
        const runOf = async (subject: 'real' | 'floor', events: readonly unknown[], warmup: number) => {
          const worker = await workerOf(operation.function, subject);
          return worker.run({
            exportName: subject === 'real' ? 'handler' : operation.floor,
            events,
            warmup,
            concurrency,
            expectedStatus: operation.expectedStatus,
          });
        };
        for (const subject of ['real', 'floor'] as const) await runOf(subject, prepared[subject].slice(0, WARMUP), WARMUP);
        for (let start = WARMUP, pair = 0; start < WARMUP + count; start += chunk, pair += 1) {
          const order: Array<'real' | 'floor'> = pair % 2 === 0 ? ['real', 'floor'] : ['floor', 'real'];
          for (const subject of order) {
            const result = await runOf(subject, prepared[subject].slice(start, start + chunk), 0);
            const total = totals[subject];
            total.requests += result.requests;
            total.cpuMicros += result.cpuMicros;
            total.latencies.push(...result.latencies);
            for (const [status, seen] of Object.entries(result.unexpected)) {
              total.unexpected[status] = { count: (total.unexpected[status]?.count ?? 0) + seen.count, body: seen.body };
            }
          }
        }
        const real = summary(totals.real);
        const floor = summary(totals.floor);
        modes[mode] = {
          real,
          floor,
          cpuRatio: ratio(real.cpuMsPerRequest, floor.cpuMsPerRequest),
          p50Ratio: ratio(real.p50Ms, floor.p50Ms),
          p99Ratio: ratio(real.p99Ms, floor.p99Ms),
        };
        log(
          `  ${operation.name}, ${mode}: CPU ${real.cpuMsPerRequest.toFixed(3)} / ${floor.cpuMsPerRequest.toFixed(3)} ms per request = ${ratio(real.cpuMsPerRequest, floor.cpuMsPerRequest)}×`,
        );
      }
      operations.push({
        name: operation.name,
        function: operation.function,
        dynamodbRequests: requestsPerOperation[operation.name],
        ...modes,
      });
    }
    report.operations = operations;

    if (flags.profile) {
      log('profiles (one extra run of each operation and subject, 16 in flight)…');
      const profiles: Record<string, unknown> = {};
      mkdirSync(PROFILE_DIR, { recursive: true });
      for (const operation of SELECTED) {
        for (const subject of ['real', 'floor'] as const) {
          const { bundle, exportName } = subjects(operation)[subject];
          const worker = await workerOf(operation.function, subject);
          const profileFile = join(PROFILE_DIR, `${operation.name.replace(/[^a-z0-9]+/gi, '-')}.${subject}.cpuprofile`);
          const events = await operation.requests(seeding, WARMUP + CONCURRENT_REQUESTS, `profile-${subject}-${randomTag()}`);
          const result = await worker.run({
            exportName,
            events,
            warmup: WARMUP,
            concurrency: CONCURRENCY,
            expectedStatus: operation.expectedStatus,
            profileFile,
          });
          profiles[`${operation.name}, ${subject}`] = selfTimeByOrigin(profileFile, bundle.file, result.requests);
        }
      }
      report.profiles = profiles;
    }
    report.loadAverageAtEnd = loadavg();
    report.seconds = Math.round((Date.now() - started) / 1000);
    report.targets = targetsOf(report);
  } finally {
    for (const worker of workers) worker.stop();
    daemon.close();
    await capture.close();
    await ses.stop();
    await sqs.stop();
    await dynamodb.stop();
    // The secrets (an HMAC key, private signing keys) were made for this run only.
    rmSync(secretsDir, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  }

  mkdirSync(resolve(flags.out, '..'), { recursive: true });
  writeFileSync(flags.out, `${JSON.stringify(report, null, 2)}\n`);
  print(report);
  log(`report: ${relative(PROJECT_ROOT, flags.out)}`);
}

const randomTag = () => Math.random().toString(36).slice(2, 10);

/**
 * What an answer says, for comparing the floor's with the service's: the names of a JSON body's
 * fields; where a redirect goes and the names of its query's parameters; the cookies it sets.
 */
function fieldsOf(answer: Answer | undefined): string {
  if (answer === undefined) return '{}';
  const values = (name: string) => [
    ...Object.entries(answer.headers ?? {})
      .filter(([key]) => key.toLowerCase() === name)
      .map(([, value]) => String(value)),
    ...Object.entries(answer.multiValueHeaders ?? {})
      .filter(([key]) => key.toLowerCase() === name)
      .flatMap(([, list]) => list.map(String)),
  ];
  const parts: string[] = [];
  if (answer.body !== '') {
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      body = undefined;
    }
    parts.push(typeof body === 'object' && body !== null ? `{${Object.keys(body).sort().join(', ')}}` : 'a body that is not JSON');
  }
  for (const location of new Set(values('location'))) {
    const url = new URL(location);
    parts.push(`a redirect to ${url.origin}${url.pathname} with ${[...new Set(url.searchParams.keys())].sort().join(', ')}`);
  }
  const cookies = [...new Set(values('set-cookie').map((cookie) => cookie.slice(0, cookie.indexOf('='))))].sort();
  if (cookies.length > 0) parts.push(`cookies ${cookies.join(', ')}`);
  return parts.join('; ');
}

interface ColdStart {
  importMs: number;
  firstRequestMs: number;
  totalMs: number;
  cpuMs: number;
}
type ColdStartReport = Record<'real' | 'floor', ColdStart> & { operation: string; totalRatio: number; cpuRatio: number };

/**
 * A cold start as Lambda pays it: a fresh process imports the bundle, then serves its first
 * request (reading its secrets and configuration, building its clients, compiling what runs for
 * the first time). `COLD_RUNS` of each subject, interleaved in a shuffled order; the medians of
 * the import, the first request, their sum, and the process's CPU time over both.
 */
async function measureColdStarts(
  operation: Operation,
  subjectOf: (operation: Operation, subject: 'real' | 'floor') => { bundle: Bundle; exportName: string },
  environmentOf: (operation: Operation) => Record<string, string>,
  seeding: Seeding,
  workerFile: string,
): Promise<ColdStartReport> {
  const samples: Record<'real' | 'floor', ColdStart[]> = { real: [], floor: [] };
  for (let run = 0; run < COLD_RUNS; run += 1) {
    for (const subject of (['real', 'floor'] as const).slice().sort(() => Math.random() - 0.5)) {
      const { bundle, exportName } = subjectOf(operation, subject);
      const events = await operation.requests(seeding, 1, `cold-${subject}-${randomTag()}`);
      const worker = await Worker.start(workerFile, bundle.file, environmentOf(operation));
      const result = await worker.run({ exportName, events, warmup: 0, concurrency: 1, expectedStatus: operation.expectedStatus });
      worker.stop();
      if (Object.keys(result.unexpected).length > 0)
        throw new Error(`${operation.name} (${subject}), cold: ${JSON.stringify(result.unexpected)}`);
      const firstRequestMs = result.latencies[0] ?? NaN;
      samples[subject].push({
        importMs: worker.loadMs,
        firstRequestMs,
        totalMs: worker.loadMs + firstRequestMs,
        cpuMs: (worker.loadCpuMicros + result.cpuMicros) / 1000,
      });
    }
  }
  const medians = (list: ColdStart[]): ColdStart => ({
    importMs: percentile(
      list.map((sample) => sample.importMs),
      0.5,
    ),
    firstRequestMs: percentile(
      list.map((sample) => sample.firstRequestMs),
      0.5,
    ),
    totalMs: percentile(
      list.map((sample) => sample.totalMs),
      0.5,
    ),
    cpuMs: percentile(
      list.map((sample) => sample.cpuMs),
      0.5,
    ),
  });
  const real = medians(samples.real);
  const floor = medians(samples.floor);
  log(
    `  ${operation.name}: import + first request ${real.totalMs.toFixed(1)} / ${floor.totalMs.toFixed(1)} ms, CPU ${real.cpuMs.toFixed(1)} / ${floor.cpuMs.toFixed(1)} ms`,
  );
  return {
    operation: operation.name,
    real,
    floor,
    totalRatio: ratio(real.totalMs, floor.totalMs),
    cpuRatio: ratio(real.cpuMs, floor.cpuMs),
  };
}

const PROFILE_DIR = resolve(PROJECT_ROOT, 'bench/profiles');

/**
 * Where a profiled run's CPU went, in µs per request, by origin: our files (lib/…, functions/…)
 * and packages by name, found through the bundle's source map; Node's own modules and V8's
 * pseudo-frames (garbage collector, program) by their names. The top 15.
 */
function selfTimeByOrigin(profileFile: string, bundleFile: string, requests: number): Record<string, number> {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as {
    nodes: Array<{ id: number; callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number } }>;
    samples: number[];
    timeDeltas: number[];
  };
  const map = new SourceMap(JSON.parse(readFileSync(`${bundleFile}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
  const bundleUrl = pathToFileURL(bundleFile).href;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = nodes.get(id)?.callFrame;
    if (frame === undefined) return;
    let origin: string;
    if (frame.url === bundleUrl) {
      const source = (map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string }).originalSource ?? '(bundle)';
      origin = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1] ?? relative(PROJECT_ROOT, resolve(bundleFile, '..', source));
    } else {
      origin = frame.url === '' ? `(${frame.functionName || 'native'})` : frame.url.replace(/^node:internal\/([^/]+).*/, 'node:$1');
    }
    totals.set(origin, (totals.get(origin) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  return Object.fromEntries(
    [...totals]
      .filter(([origin]) => origin !== '((idle))')
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([origin, micros]) => [origin, Math.round(micros / requests)]),
  );
}

interface ModeReport {
  real: ReturnType<typeof summary>;
  floor: ReturnType<typeof summary>;
  cpuRatio: number;
  p50Ratio: number;
  p99Ratio: number;
}
/** DynamoDB requests per request of an operation, in all and by kind, for the real bundle and the floor. */
interface RequestsReport {
  real: number;
  floor: number;
  realKinds: string;
  floorKinds: string;
  /** With --tracing: the X-Ray subsegments the real function sent per request. */
  segmentsPerRequest?: number;
}
interface OperationReport {
  name: string;
  dynamodbRequests: RequestsReport;
  sequential: ModeReport;
  '16 in flight': ModeReport;
}
interface BundleReport {
  name: string;
  bytes: number;
  loadMs: number;
  loadRatio: number;
}

function targetsOf(report: Record<string, unknown>): Array<{ target: string; value: number; budget: number; met: boolean }> {
  const operations = report.operations as OperationReport[];
  const bundles = report.bundles as BundleReport[];
  const bundle = (name: string) => bundles.find((candidate) => candidate.name === name) as BundleReport;
  const targets: Array<{ target: string; value: number; budget: number; met?: boolean }> = operations.flatMap((operation) =>
    (['sequential', '16 in flight'] as const).map((mode) => ({
      target: `${operation.name}, ${mode}: CPU per request ÷ floor`,
      value: operation[mode].cpuRatio,
      budget: TARGETS.cpuRatio,
    })),
  );
  for (const operation of operations) {
    const counted = operation.dynamodbRequests;
    // Equal kinds, not only equal counts: the floor must make the same requests.
    targets.push({
      target: `${operation.name}: DynamoDB requests (${counted.realKinds}) = the floor's (${counted.floorKinds})`,
      value: counted.real,
      budget: counted.floor,
      met: counted.realKinds === counted.floorKinds,
    });
  }
  targets.push(
    { target: 'token bundle, bytes', value: bundle('token').bytes, budget: TARGETS.tokenBundleBytes },
    { target: 'otp-send bundle, bytes', value: bundle('otp-send').bytes, budget: TARGETS.sendBundleBytes },
    { target: `token module load ÷ ${REFERENCE}`, value: bundle('token').loadRatio, budget: TARGETS.tokenLoadRatio },
  );
  return targets.map((target) => ({ ...target, met: target.met ?? target.value <= target.budget }));
}

function print(report: Record<string, unknown>): void {
  const operations = report.operations as OperationReport[];
  const bundles = report.bundles as BundleReport[];
  const row = (cells: Array<string | number>, widths: number[]) =>
    cells.map((cell, index) => String(cell).padStart(widths[index] ?? 10)).join('  ');
  if (report.tracing !== 'off') {
    console.log(
      `\nTracing ${String(report.tracing)}: the functions built to trace and run as traced on Lambda (--tracing); the floor untraced`,
    );
  }
  console.log('\nPer request: the real bundle ÷ the floor (CPU is this process’s user + system time; wall is each request’s own)');
  const widths = [52, 13, 8, 14, 8, 14, 8, 10, 6];
  console.log(row(['operation, mode', 'CPU ms', '× floor', 'p50 ms', '× floor', 'p99 ms', '× floor', 'DDB req', 'errors'], widths));
  for (const operation of operations) {
    for (const mode of ['sequential', '16 in flight'] as const) {
      const m = operation[mode];
      const errors =
        Object.values(m.real.unexpected).reduce((sum, seen) => sum + seen.count, 0) +
        Object.values(m.floor.unexpected).reduce((sum, seen) => sum + seen.count, 0);
      console.log(
        row(
          [
            `${operation.name}, ${mode}`,
            `${m.real.cpuMsPerRequest.toFixed(3)}/${m.floor.cpuMsPerRequest.toFixed(3)}`,
            m.cpuRatio.toFixed(2),
            `${m.real.p50Ms.toFixed(2)}/${m.floor.p50Ms.toFixed(2)}`,
            m.p50Ratio.toFixed(2),
            `${m.real.p99Ms.toFixed(1)}/${m.floor.p99Ms.toFixed(1)}`,
            m.p99Ratio.toFixed(2),
            `${operation.dynamodbRequests.real}/${operation.dynamodbRequests.floor}`,
            errors,
          ],
          widths,
        ),
      );
    }
  }
  console.log(`\nBundles (KB = 1000 bytes; load: median of fresh processes, with --enable-source-maps as deployed)`);
  for (const bundle of bundles) {
    console.log(
      row(
        [bundle.name, kb(bundle.bytes), `${bundle.loadMs.toFixed(1)} ms`, `${bundle.loadRatio.toFixed(2)}× ${REFERENCE}`],
        [22, 12, 10, 22],
      ),
    );
  }
  const cold = report.coldStart as ColdStartReport;
  console.log(`\nCold start of ${cold.operation} (median of fresh processes): the import, then the first request; real / floor`);
  for (const [label, key] of [
    ['import', 'importMs'],
    ['first request', 'firstRequestMs'],
    ['import + first request', 'totalMs'],
    ['CPU over both', 'cpuMs'],
  ] as const) {
    console.log(`  ${label.padEnd(24)} ${cold.real[key].toFixed(1).padStart(7)} / ${cold.floor[key].toFixed(1).padStart(7)} ms`);
  }
  console.log('\nTargets (docs/performance.md)');
  for (const target of report.targets as Array<{ target: string; value: number; budget: number; met: boolean }>) {
    console.log(`  ${target.met ? '✓' : '✗'} ${target.target}: ${target.value} (budget ${target.budget})`);
  }
  if (report.profiles !== undefined) {
    console.log('\nWhere the CPU goes, µs per request (self time by origin, one profiled run each, 16 in flight)');
    for (const [subject, origins] of Object.entries(report.profiles as Record<string, Record<string, number>>)) {
      console.log(
        `  ${subject}: ${Object.entries(origins)
          .map(([origin, micros]) => `${origin} ${micros}`)
          .join(', ')}`,
      );
    }
  }
  const [one, five] = report.loadAverageAtEnd as number[];
  console.log(`\nLoad average at the end: ${one?.toFixed(2)} (1 min), ${five?.toFixed(2)} (5 min); ${report.seconds as number} s in all.`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
