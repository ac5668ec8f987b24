/**
 * Authlib's web app (authlib_flow.py beside this file), run by Debian's Python as a child process.
 * Asynchronously: the service it talks to runs in this test's own process, so a synchronous
 * child would block the event loop the service answers on, and wait for it forever.
 *
 * The app listens on a loopback port of its choosing and says which; the test registers its
 * redirect URI, starts the service, then hands the app the issuer. After one login the app
 * prints what it saw and exits.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';

/**
 * Debian's interpreter, where python3-authlib and python3-requests are (.ci/run installs them):
 * the `python3` on PATH may be another one (pyenv) that does not see Debian's packages.
 */
export const DEBIAN_PYTHON = '/usr/bin/python3';

const SCRIPT = resolve(__dirname, 'authlib_flow.py');

/** What the app saw after the login (authlib_flow.py `callback`), or the library's error. */
export interface AuthlibResult {
  readonly query?: string[];
  readonly id_token?: Record<string, unknown>;
  readonly userinfo?: Record<string, unknown>;
  readonly refreshed?: { rotated: boolean; new_access_token: boolean; userinfo: Record<string, unknown> };
  readonly error?: string;
  readonly description?: string;
}

export interface AuthlibApp {
  readonly origin: string;
  /** Tells the app the issuer: it reads the discovery document, then serves /login and /callback. */
  start(issuer: string): void;
  /** What the app printed once the login was done, when it has exited. */
  result(): Promise<AuthlibResult>;
  /** Stops the app if it is still running (a test that failed before the login ended). */
  stop(): void;
}

export async function launchAuthlibApp(clientId: string, clientSecret: string): Promise<AuthlibApp> {
  const running = promisify(execFile)(DEBIAN_PYTHON, [SCRIPT, clientId], {
    // Only what the app needs: the secret stays out of argv, where any process could read it.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', RP_CLIENT_SECRET: clientSecret },
    // A safety net only: afterAll stops the app; a test that hangs fails on its own timeout first.
    timeout: 300_000,
  });
  const { child } = running;
  const exited = running.catch((error: unknown) => error as { stdout?: string; stderr?: string; message: string });
  const { port } = JSON.parse(await firstLine(child.stdout, exited)) as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    start: (issuer) => child.stdin?.end(`${issuer}\n`),
    async result() {
      const outcome = await exited;
      const lines = (outcome.stdout ?? '').trim().split('\n');
      if (lines.length < 2) throw new Error(`the Authlib app ended without a result: ${'stderr' in outcome ? outcome.stderr : ''}`);
      return JSON.parse(lines[lines.length - 1] ?? '{}') as AuthlibResult;
    },
    stop: () => {
      if (child.exitCode === null) child.kill();
    },
  };
}

/** The first line the child prints, or its stderr if it exits first. */
function firstLine(stream: Readable | null, exited: Promise<{ stderr?: string; message?: string }>): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let text = '';
    stream?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end >= 0) resolvePromise(text.slice(0, end));
    });
    void exited.then((outcome) => reject(new Error(`the Authlib app exited: ${outcome.stderr ?? outcome.message ?? ''}`)));
  });
}
