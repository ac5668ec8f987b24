/**
 * How every Lambda is bundled: one set of esbuild options, used by the CDK stack (NodejsFunction,
 * local esbuild, never Docker) and by `npm run build` (infra/build.ts, for inspection and size
 * measurement), so the bundle that is measured is the bundle that is deployed.
 *
 * The choices, with the numbers behind them, are in docs/decisions/002-bundling.md:
 * - ESM (`index.mjs`): Node 22 loads it natively; the banner gives bundled CommonJS code (the AWS
 *   SDK's dependencies) a working `require` for Node built-ins.
 * - `mainFields: ['module', 'main']`: prefer packages' ES builds, which esbuild can tree-shake.
 * - The AWS SDK v3 is bundled, not taken from the runtime: a pinned, tested version, and only the
 *   commands each handler uses (measured smaller to load than the runtime's copy).
 * - The SDK's default credential chain is replaced by the environment's credentials, which is
 *   where Lambda puts the execution role's (lib/adapters/lambda-credentials.ts): the rest of the
 *   chain never runs on Lambda and was a fifth of every bundle.
 * - UTF-8 output: the locales' texts stay as written, not as six-byte `\u` escapes per letter.
 * - Minified, with a linked source map (`index.mjs.map`, named by a comment in the bundle, without
 *   the sources' text) so stack traces map back to our files; NODE_OPTIONS=--enable-source-maps is
 *   set on every function by the stack.
 * - Tracing decided at build time (the stage's `deployment.tracing`): `process.env.IDENTITY_TRACING`
 *   is replaced by a constant, so a bundle that does not trace carries no X-Ray code at all
 *   (lib/platform/tracing.ts).
 */
import { resolve } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { LogLevel, OutputFormat, SourceMapMode, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { FUNCTIONS } from '../lib/platform/routes';
import { TRACING_OFF, TRACING_ON, TRACING_VARIABLE } from '../lib/platform/tracing';

/** The repository root: entries, the lock file and `config/` are found from here. */
export const PROJECT_ROOT = resolve(__dirname, '..');

/** The Secrets Manager rotation function of the signing key set: a Lambda, but not an API route. */
export const ROTATION_FUNCTION = 'rotate-signing-keys';

/** The back-channel logout worker: a Lambda fed by the logout queue (infra/backchannel.ts), not an API route. */
export const BACKCHANNEL_FUNCTION = 'backchannel-logout';

/** The audit forwarder: a Lambda fed by CloudWatch Logs subscriptions on the API functions' log groups (infra/audit.ts). */
export const AUDIT_FORWARDER_FUNCTION = 'audit-forwarder';

/** Every Lambda the stack deploys, by its file in functions/: the API functions, then the rotation, the logout worker and the audit forwarder. */
export function lambdaNames(): string[] {
  return [...Object.keys(FUNCTIONS), ROTATION_FUNCTION, BACKCHANNEL_FUNCTION, AUDIT_FORWARDER_FUNCTION];
}

/** The TypeScript entry of a function. */
export function entryOf(name: string): string {
  return resolve(PROJECT_ROOT, 'functions', `${name}.ts`);
}

/** Lambda's nodejs22.x runtime: the syntax esbuild may leave untranspiled. */
export const NODE_TARGET = 'node22';

/**
 * ESM has no `require`; esbuild turns a bundled CommonJS module's `require('node:…')` into a call
 * that throws unless one exists. This gives it Node's own, scoped to the bundle.
 */
export const CREATE_REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** Modules left out of the bundle: none (the SDK included; see the header). */
export const EXTERNAL_MODULES: string[] = [];

/**
 * Modules resolved to another file in every bundle: the SDK's default credential provider to the
 * environment's alone (see the header).
 */
export const ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': resolve(PROJECT_ROOT, 'lib/adapters/lambda-credentials.ts'),
};

/** Package fields esbuild reads to find a package's entry, in order: ES builds first. */
export const MAIN_FIELDS = ['module', 'main'];

/**
 * esbuild's `define` for a bundle that traces or not: lib/platform/tracing.ts's condition becomes a
 * constant, and the X-Ray code goes with the dead branch when it is false.
 */
export function tracingDefine(tracing: boolean): Record<string, string> {
  return { [`process.env.${TRACING_VARIABLE}`]: JSON.stringify(tracing ? TRACING_ON : TRACING_OFF) };
}

/** The esbuild options of every bundle; entry and output are added per function. Without tracing unless `esbuildOptionsFor` is told otherwise. */
export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: NODE_TARGET,
  format: 'esm',
  minify: true,
  sourcemap: 'linked',
  sourcesContent: false,
  mainFields: MAIN_FIELDS,
  banner: { js: CREATE_REQUIRE_BANNER },
  external: EXTERNAL_MODULES,
  alias: ALIASES,
  charset: 'utf8',
  define: tracingDefine(false),
  logLevel: 'warning',
} as const satisfies BuildOptions;

/** The file name Lambda loads (`handler: index.handler` finds `index.mjs`). */
export const BUNDLE_FILE = 'index.mjs';

/** The stage configuration beside each bundle: lib/platform/config.ts reads `${LAMBDA_TASK_ROOT}/config.json`. */
export const CONFIG_FILE_IN_BUNDLE = 'config.json';

/** The esbuild options of one function's bundle written to `outdir`, traced or not (the stage's `deployment.tracing`). */
export function esbuildOptionsFor(name: string, outdir: string, tracing = false): BuildOptions {
  return { ...ESBUILD_OPTIONS, define: tracingDefine(tracing), entryPoints: [entryOf(name)], outfile: resolve(outdir, BUNDLE_FILE) };
}

/**
 * The same options for NodejsFunction, plus the stage configuration copied beside the bundle.
 * `forceDockerBundling: false` and the local esbuild (a devDependency) mean synthesis never
 * starts Docker (test/infra/synth.test.ts proves it with a `docker` that fails).
 */
export function nodejsBundling(configFile: string, tracing: boolean): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    target: ESBUILD_OPTIONS.target,
    minify: ESBUILD_OPTIONS.minify,
    sourceMap: true,
    sourceMapMode: SourceMapMode.DEFAULT,
    sourcesContent: ESBUILD_OPTIONS.sourcesContent,
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    banner: ESBUILD_OPTIONS.banner.js,
    externalModules: [...ESBUILD_OPTIONS.external],
    define: tracingDefine(tracing),
    // NodejsFunction has no `alias` option, and does not pass its own `charset` on to esbuild
    // (aws-cdk-lib 2.276): esbuild's own flags (`--alias:from=to`, once per module).
    esbuildArgs: {
      '--alias': Object.entries(ESBUILD_OPTIONS.alias).map(([from, to]) => `${from}=${to}`),
      '--charset': ESBUILD_OPTIONS.charset,
    },
    logLevel: LogLevel.WARNING,
    forceDockerBundling: false,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir, outputDir) => [`cp ${shellQuote(configFile)} ${shellQuote(resolve(outputDir, CONFIG_FILE_IN_BUNDLE))}`],
    },
  };
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
