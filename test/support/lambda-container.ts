/**
 * A deployed function run as Lambda runs it, locally: a fresh Node process per container (its own
 * module state, environment read once, as in one execution environment), the bundle imported from
 * its asset directory by test/support/lambda-runtime.ts, and invocations handed to it one at a
 * time (Lambda never runs two at once in one environment). What the function writes to stdout and
 * stderr (its logs) is kept for the test to read.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Invocation, RuntimeMessage } from './lambda-runtime';

export interface LambdaContainerOptions {
  /** The function's name (AWS_LAMBDA_FUNCTION_NAME and the context's). */
  readonly functionName: string;
  /** The asset directory: Lambda's LAMBDA_TASK_ROOT. */
  readonly taskRoot: string;
  /** The template's `Handler` (`index.handler`). */
  readonly handler: string;
  /** Every variable the process gets: nothing is inherited from the test's own environment. */
  readonly environment: Readonly<Record<string, string>>;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
}

export interface LambdaContainer {
  invoke(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult>;
  /** What the function wrote to stdout, one entry per line, in order (Powertools' logs below ERROR). */
  logLines(): string[];
  /** What it wrote to stderr (Powertools' ERROR logs, Node's and the SDK's warnings); Lambda logs both. */
  stderrLines(): string[];
  stop(): Promise<void>;
}

let runtimeFile: string | undefined;

/** The runtime as plain JavaScript (built once per test file). */
function runtime(): string {
  if (runtimeFile === undefined) {
    const file = join(mkdtempSync(join(tmpdir(), 'lambda-runtime-')), 'runtime.mjs');
    buildSync({
      entryPoints: [join(__dirname, 'lambda-runtime.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: file,
      logLevel: 'error',
    });
    runtimeFile = file;
  }
  return runtimeFile;
}

/** Starts a container and waits until its handler is loaded (Lambda's init phase); rejects with the init error otherwise. */
export async function startLambdaContainer(options: LambdaContainerOptions): Promise<LambdaContainer> {
  const child: ChildProcess = spawn(process.execPath, [runtime()], {
    cwd: options.taskRoot,
    env: { ...options.environment },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const output = () => `${stdout}${stderr}`;
  const pending = new Map<number, { resolve: (result: APIGatewayProxyResult) => void; reject: (error: Error) => void }>();
  let exited: Error | undefined;

  await new Promise<void>((resolve, reject) => {
    child.once('message', (message: RuntimeMessage) => {
      if (message.type === 'ready') resolve();
      else
        reject(
          new Error(
            `${options.functionName} failed to initialise: ${message.type === 'init-error' ? message.message : message.type}\n${output()}`,
          ),
        );
    });
    child.once('exit', (code) => reject(new Error(`${options.functionName} exited with ${code} while initialising:\n${output()}`)));
  });
  child.removeAllListeners('exit');
  child.on('message', (message: RuntimeMessage) => {
    if (message.type !== 'result' && message.type !== 'error') return;
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.type === 'result') waiting?.resolve(message.result as APIGatewayProxyResult);
    else
      waiting?.reject(Object.assign(new Error(`${options.functionName} threw: ${message.error.message}`), { stack: message.error.stack }));
  });
  child.on('exit', (code) => {
    exited = new Error(`${options.functionName} exited with ${code}:\n${output()}`);
    for (const waiting of pending.values()) waiting.reject(exited);
    pending.clear();
  });

  let nextId = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const invokeNow = (event: APIGatewayProxyEvent) =>
    new Promise<APIGatewayProxyResult>((resolve, reject) => {
      if (exited !== undefined) return reject(exited);
      const id = (nextId += 1);
      pending.set(id, { resolve, reject });
      const invocation: Invocation = {
        id,
        event,
        context: {
          functionName: options.functionName,
          functionVersion: '$LATEST',
          invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${options.functionName}`,
          memoryLimitInMB: String(options.memoryMb),
          awsRequestId: randomUUID(),
          logGroupName: `/aws/lambda/${options.functionName}`,
          logStreamName: 'local',
          timeoutMs: options.timeoutSeconds * 1000,
        },
      };
      child.send(invocation);
    });

  return {
    invoke(event) {
      const result = queue.then(() => invokeNow(event));
      queue = result.catch(() => undefined);
      return result;
    },
    logLines: () => stdout.split('\n').filter((line) => line !== ''),
    stderrLines: () => stderr.split('\n').filter((line) => line !== ''),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await gone;
    },
  };
}
