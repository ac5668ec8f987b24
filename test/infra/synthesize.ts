/**
 * Synthesizes a stage in-process, once per test file, as `cdk synth` would (cdk.json's feature
 * flags, cdk-nag as a validation plugin, the local esbuild), with a `docker` on the PATH that
 * fails and leaves a mark, so any attempt to bundle with Docker is seen, and NodejsFunction's
 * `npx --no-install esbuild` going straight to the project's esbuild (`withProjectEsbuild`).
 *
 * `synthesizedAssembly` is the cloud assembly alone (template, assets manifest, bundles), shared
 * by every test file, worker and run with the same inputs: see there.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, join, relative } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { addStage, cdkJsonContext, createApp, type IdentityApp } from '../../infra/app';
import { PROJECT_ROOT } from '../../infra/bundling';
import { stackNameOf } from '../../infra/identity-stack';

export interface SynthesizedStage extends IdentityApp {
  readonly template: Template;
  /** The template as plain JSON. */
  readonly json: TemplateJson;
  /** The cloud assembly directory (bundles are `asset.<hash>/` in it). */
  readonly outdir: string;
}

export interface TemplateJson {
  Resources: Record<
    string,
    { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string; UpdateReplacePolicy?: string; DependsOn?: string[] }
  >;
  Outputs?: Record<string, { Value: unknown }>;
}

/** A directory with a `docker` that records it was called and fails. */
export function failingDocker(): { dir: string; called: () => boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'no-docker-'));
  const mark = join(dir, 'docker-was-called');
  writeFileSync(join(dir, 'docker'), `#!/bin/sh\necho "$@" >> '${mark}'\nexit 1\n`);
  chmodSync(join(dir, 'docker'), 0o755);
  return { dir, called: () => existsSync(mark) };
}

const NPX_DIR_PREFIX = 'identity-npx-';
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * NodejsFunction runs the project's esbuild as npm's `npx --no-install esbuild …` (aws-cdk-lib's
 * PackageManager.runBinCommand), once per function: npm's own start-up is 0.7 s of CPU a function,
 * half of what each bundled stage costs beyond esbuild. While `build` runs (construction is when
 * NodejsFunction bundles), an `npx` first on the PATH runs exactly that command itself: the same
 * `node_modules/.bin/esbuild`, the same arguments, the same working directory, so the bundles are
 * the ones npx would produce; any other `npx` call goes to the real one. cdk-synth.test.ts runs
 * the real `cdk synth`, npx included.
 */
export function withProjectEsbuild<T>(build: () => T): T {
  const path = process.env.PATH ?? '';
  const npx = path
    .split(delimiter)
    .filter((dir) => !basename(dir).startsWith(NPX_DIR_PREFIX))
    .map((dir) => join(dir, 'npx'))
    .find((candidate) => existsSync(candidate));
  if (npx === undefined) return build();
  const dir = join(tmpdir(), `${NPX_DIR_PREFIX}${createHash('sha256').update(`${npx}\0${PROJECT_ROOT}`).digest('hex').slice(0, 16)}`);
  const script = [
    '#!/bin/sh',
    `if [ "$1" = "--no-install" ] && [ "$2" = "esbuild" ]; then shift 2; exec ${shellQuote(join(PROJECT_ROOT, 'node_modules/.bin/esbuild'))} "$@"; fi`,
    `exec ${shellQuote(npx)} "$@"`,
    '',
  ].join('\n');
  if (!existsSync(join(dir, 'npx')) || readFileSync(join(dir, 'npx'), 'utf8') !== script) {
    mkdirSync(dir, { recursive: true });
    const partial = join(dir, `npx.${process.pid}.partial`);
    writeFileSync(partial, script, { mode: 0o755 });
    renameSync(partial, join(dir, 'npx'));
  }
  process.env.PATH = `${dir}${delimiter}${path}`;
  try {
    return build();
  } finally {
    process.env.PATH = path;
  }
}

/**
 * Synthesizes `stage` (its file from `configDir`, default config/: test/infra/production-stage.ts
 * gives the filled-in production copy). cdk-nag runs first on its own, so that a finding (which
 * would also stop the synthesis itself) is reported by name rather than as a failed synthesis.
 */
export function synthesize(stage: string, configDir?: string): SynthesizedStage {
  const outdir = mkdtempSync(join(tmpdir(), `cdk-${stage}-`));
  const identity = withProjectEsbuild(() =>
    createApp(stage, { context: { ...cdkJsonContext(), ...(configDir === undefined ? {} : { configDir }) }, outdir }),
  );
  // The packs infra/app.ts `addNagChecks` registers.
  const findings = [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
    pack
      .validateScope(identity.app)
      .violations.map(
        (violation) => `${violation.ruleName} at ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
      ),
  );
  if (findings.length > 0) throw new Error(`cdk-nag findings in stage ${stage}:\n${findings.join('\n')}`);
  const template = Template.fromStack(identity.stack);
  return { ...identity, template, json: template.toJSON() as TemplateJson, outdir };
}

/** A synthesized cloud assembly, as `cdk deploy` would read it. */
export interface CloudAssembly {
  /** The assembly directory: the template, the assets manifest and each bundle's `asset.<hash>/`. */
  readonly outdir: string;
  readonly template: TemplateJson;
  /** The assets manifest (`<stack>.assets.json`): which directory is uploaded to which S3 key. */
  readonly assets: { files: Record<string, { source: { path: string }; destinations: Record<string, { objectKey: string }> }> };
}

/** What a stage's assembly is made from: a change to any of these makes a new one. */
const ASSEMBLY_INPUTS = [
  'functions',
  'lib',
  'infra',
  'config',
  'cdk.json',
  'package-lock.json',
  'tsconfig.json',
  'node_modules/.package-lock.json',
];
/** A synthesis that takes longer than this is taken to have died with its lock held. */
const STALE_LOCK_MS = 10 * 60_000;

/**
 * The cloud assembly of `stage`, bundles included, as `cdk synth` writes it (cdk.json's feature
 * flags, the local esbuild), without cdk-nag (stack.test.ts checks its rules; the assembly is the
 * same). Bundling every function takes 40-80 s on a loaded 2-core machine, so an assembly is
 * synthesized once per content of its inputs (the sources, the stage files, the lock files) and
 * kept in the temp directory: another test file, worker or run with the same inputs reads it from
 * there. Concurrent callers wait for the one that synthesizes (a lock directory).
 */
export function synthesizedAssembly(stage: string, configDir?: string): CloudAssembly {
  const dir = join(tmpdir(), `identity-assembly-${stage}-${inputsDigest(stage, configDir).slice(0, 16)}`);
  const lock = `${dir}.lock`;
  for (;;) {
    if (existsSync(join(dir, 'manifest.json'))) return readAssembly(dir, stage);
    try {
      mkdirSync(lock);
    } catch {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
      continue;
    }
    try {
      if (!existsSync(join(dir, 'manifest.json'))) {
        const partial = mkdtempSync(`${dir}.partial-`);
        const app = new App({ context: { ...cdkJsonContext(), ...(configDir === undefined ? {} : { configDir }) }, outdir: partial });
        withProjectEsbuild(() => addStage(app, stage));
        app.synth();
        renameSync(partial, dir);
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

function readAssembly(outdir: string, stage: string): CloudAssembly {
  const read = (file: string) => JSON.parse(readFileSync(join(outdir, file), 'utf8')) as unknown;
  return {
    outdir,
    template: read(`${stackNameOf(stage)}.template.json`) as TemplateJson,
    assets: read(`${stackNameOf(stage)}.assets.json`) as CloudAssembly['assets'],
  };
}

/** SHA-256 over the stage name and every input file (path and content), the stage file from `configDir` included. */
function inputsDigest(stage: string, configDir?: string): string {
  const hash = createHash('sha256').update(stage);
  const visit = (path: string): void => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
      return;
    }
    hash.update(relative(PROJECT_ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
  };
  for (const input of ASSEMBLY_INPUTS) visit(join(PROJECT_ROOT, input));
  if (configDir !== undefined) visit(join(configDir, `${stage}.json`));
  return hash.digest('hex');
}
