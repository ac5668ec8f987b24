/**
 * Every function's bundle as esbuild builds it in-process with the options the stack deploys
 * (infra/bundling.ts `esbuildOptionsFor`), traced or not: its metafile and its output files' text.
 *
 * tracing.test.ts (both sets), bundle-contents.test.ts (untraced) and
 * test/e2e/deployed-artifacts.test.ts (as the stage traces) read the same bundles, so each set is
 * built once per content of its inputs and kept in the temp directory, where another test file,
 * worker or run finds it; concurrent callers wait for the one that builds (a lock directory), as
 * test/infra/synthesize.ts's assemblies do. A kept set is used only when
 * - its key matches: the options of every bundle (entry, output, define, aliases…), esbuild's
 *   version, this file, and the content of every file under functions/ and lib/, tsconfig.json and
 *   both lock files (what decides which files the bundles are made of); and
 * - every file its metafiles name as an input (node_modules' included) still has the content it
 *   had when the set was built (what the bundles are made of).
 * Anything else is built afresh, so a kept set is always the set a fresh build would give.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { build, version as esbuildVersion, type Metafile } from 'esbuild';
import { esbuildOptionsFor, lambdaNames, PROJECT_ROOT } from '../../infra/bundling';

export interface FunctionBundle {
  readonly metafile: Metafile;
  /** The output files (the bundle and its source map), in esbuild's order: name (no directory) and text. */
  readonly outputs: ReadonlyArray<{ readonly name: string; readonly text: string }>;
}

interface KeptSet {
  /** SHA-256 of every input file of every bundle, by path relative to the project root. */
  readonly inputs: Record<string, string>;
  readonly bundles: Record<string, FunctionBundle>;
}

/** What decides the files a bundle is made of; the files themselves are checked by content on every read. */
const KEY_INPUTS = [
  'functions',
  'lib',
  'tsconfig.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
  'test/infra/function-bundles.ts',
];
/** A build that takes longer than this is taken to have died with its lock held. */
const STALE_LOCK_MS = 5 * 60_000;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The output directory esbuild is told (the bundles are not written: it only names the outputs). */
const outdirOf = (name: string) => join(tmpdir(), 'identity-function-bundles', name);

const sets = new Map<boolean, Promise<ReadonlyMap<string, FunctionBundle>>>();

/** Every function's bundle (lambdaNames()), traced or not; built at most once per content of its inputs. */
export function functionBundles(tracing: boolean): Promise<ReadonlyMap<string, FunctionBundle>> {
  let set = sets.get(tracing);
  if (set === undefined) {
    set = keptOrBuilt(tracing);
    sets.set(tracing, set);
  }
  return set;
}

async function keptOrBuilt(tracing: boolean): Promise<ReadonlyMap<string, FunctionBundle>> {
  const file = join(tmpdir(), `identity-function-bundles-${tracing ? 'traced' : 'untraced'}-${keyOf(tracing).slice(0, 16)}.json`);
  const lock = `${file}.lock`;
  for (;;) {
    const kept = read(file);
    if (kept !== undefined) return kept;
    try {
      mkdirSync(lock);
    } catch {
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held !== undefined && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else await sleep(250);
      continue;
    }
    try {
      const kept = read(file);
      if (kept !== undefined) return kept;
      const built = await buildAll(tracing);
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, JSON.stringify(built));
      renameSync(partial, file);
      return new Map(Object.entries(built.bundles));
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

async function buildAll(tracing: boolean): Promise<KeptSet> {
  const bundles: Record<string, FunctionBundle> = {};
  await Promise.all(
    lambdaNames().map(async (name) => {
      const result = await build({ ...esbuildOptionsFor(name, outdirOf(name), tracing), write: false, metafile: true });
      bundles[name] = {
        metafile: result.metafile,
        outputs: result.outputFiles.map((output) => ({ name: relative(outdirOf(name), output.path), text: output.text })),
      };
    }),
  );
  const inputs: Record<string, string> = {};
  for (const bundle of Object.values(bundles)) for (const input of Object.keys(bundle.metafile.inputs)) inputs[input] ??= contentOf(input);
  return { inputs, bundles };
}

/** The kept set in `file`, if there is one and every input it was built from is unchanged. */
function read(file: string): ReadonlyMap<string, FunctionBundle> | undefined {
  if (!existsSync(file)) return undefined;
  const kept = JSON.parse(readFileSync(file, 'utf8')) as KeptSet;
  if (Object.entries(kept.inputs).some(([input, digest]) => contentOf(input) !== digest)) return undefined;
  return new Map(Object.entries(kept.bundles));
}

/** A metafile input's content digest (inputs are named relative to the working directory; esbuild's own namespaced inputs as is). */
function contentOf(input: string): string {
  const path = resolve(input);
  return input.includes(':') || !existsSync(path) ? `missing:${input}` : sha256(readFileSync(path));
}

/** SHA-256 over the options of every bundle, esbuild's version and every key input (path and content). */
function keyOf(tracing: boolean): string {
  const hash = createHash('sha256')
    .update(process.cwd())
    .update('\0')
    .update(esbuildVersion)
    .update('\0')
    .update(JSON.stringify(lambdaNames().map((name) => esbuildOptionsFor(name, outdirOf(name), tracing))));
  const visit = (path: string): void => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
      return;
    }
    hash.update(relative(PROJECT_ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
  };
  for (const input of KEY_INPUTS) visit(join(PROJECT_ROOT, input));
  return hash.digest('hex');
}
