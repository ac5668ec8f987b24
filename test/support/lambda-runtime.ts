/**
 * The child side of test/support/lambda-container.ts: what Lambda's Node.js runtime does with a
 * function, as far as the function can tell. It runs in a fresh `node` with exactly the function's
 * environment (so `NODE_OPTIONS` from the template applies), finds the handler module from
 * `_HANDLER` in `LAMBDA_TASK_ROOT` as the runtime does (`index.handler` → `index.js`, `.mjs` or
 * `.cjs`), imports it, and then runs one invocation at a time from its parent, each with a
 * context whose deadline is the function's timeout. Bundled to plain JavaScript by the parent:
 * no TypeScript loader stands between Node and the bundle.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A message from the parent: one invocation. */
export interface Invocation {
  readonly id: number;
  readonly event: unknown;
  readonly context: {
    readonly functionName: string;
    readonly functionVersion: string;
    readonly invokedFunctionArn: string;
    readonly memoryLimitInMB: string;
    readonly awsRequestId: string;
    readonly logGroupName: string;
    readonly logStreamName: string;
    readonly timeoutMs: number;
  };
}

/** A message to the parent. */
export type RuntimeMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'init-error'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly result: unknown }
  | { readonly type: 'error'; readonly id: number; readonly error: { name: string; message: string; stack?: string | undefined } };

const send = (message: RuntimeMessage) => process.send?.(message);

async function main(): Promise<void> {
  const root = process.env.LAMBDA_TASK_ROOT ?? '';
  const setting = process.env._HANDLER ?? '';
  const dot = setting.lastIndexOf('.');
  const [moduleName, exportName] = [setting.slice(0, dot), setting.slice(dot + 1)];
  const file = ['.js', '.mjs', '.cjs']
    .map((extension) => join(root, `${moduleName}${extension}`))
    .find((candidate) => existsSync(candidate));
  if (dot < 1 || file === undefined) {
    send({ type: 'init-error', message: `Runtime.ImportModuleError: Cannot find module '${moduleName}' in ${root}` });
    return;
  }
  let handler: unknown;
  try {
    handler = ((await import(pathToFileURL(file).href)) as Record<string, unknown>)[exportName];
  } catch (error) {
    send({ type: 'init-error', message: `Runtime.ImportModuleError: ${(error as Error).stack ?? String(error)}` });
    return;
  }
  if (typeof handler !== 'function') {
    send({ type: 'init-error', message: `Runtime.HandlerNotFound: ${setting} is undefined or not exported` });
    return;
  }
  const invoke = handler as (event: unknown, context: unknown) => Promise<unknown>;
  process.on('message', (message: Invocation) => {
    const deadline = Date.now() + message.context.timeoutMs;
    const context = {
      ...message.context,
      callbackWaitsForEmptyEventLoop: true,
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    };
    invoke(message.event, context).then(
      (result) => send({ type: 'result', id: message.id, result }),
      (error: unknown) => {
        const { name, message: text, stack } = error instanceof Error ? error : new Error(String(error));
        send({ type: 'error', id: message.id, error: { name, message: text, stack } });
      },
    );
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready' });
}

void main();
