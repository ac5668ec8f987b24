/**
 * `npm run mutation`: StrykerJS (stryker.config.mjs) on demand. A measurement, not a gate: it
 * prints each file's covered mutants killed and the overall, and exits non-zero only when a run
 * fails (Stryker's own failure, or a command line it cannot follow), never because of a score.
 *
 *   npm run mutation -- lib/otp/codes.ts lib/platform/http/cors.ts   # these files, each in its scope
 *   npm run mutation -- lib/platform/http/                              # the files of a folder that a scope mutates
 *   npm run mutation -- lib/otp/codes.ts:40-60              # a line range (Stryker's syntax)
 *   npm run mutation -- --since main                           # the files changed since the branch left main
 *   npm run mutation -- unit                                   # one scope whole (both: no argument; hours)
 *   npm run mutation -- --list --since main                    # print what would run, run nothing
 *   npm run mutation -- lib/otp/codes.ts --force            # any other option goes to `stryker run`
 *
 * A file goes to the scope whose `mutate` patterns select it (test/mutation/plan.ts); a file in
 * neither is reported and skipped. `--since <ref>` takes the files changed between the ref's merge
 * base with HEAD and the working tree (uncommitted and untracked ones included).
 *
 * For the integration scope DynamoDB Local and SES local are started once for the whole run, as
 * test/support/global-setup.ts does for `npm test`: Stryker's jest runner starts jest anew for
 * every mutant, so a jest globalSetup would start Java for every mutant; the stand-ins' addresses
 * reach every test runner through the environment instead.
 */
import { execFileSync, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startDynamoDbLocal } from '../../local/dynamodb';
import { startSesLocal } from '../../local/ses';
import { inScope, PROJECT_ROOT, pruneBaseline, scopeFiles } from './baseline';
import { parseArguments, planRun, splitRange, UsageError, type Plan, type Request, type Scope, type Target } from './plan';
import { readReport, scoreLine, scoresOf, scoreTable, totalOf, type FileScore } from './score';

const STRYKER = resolve(__dirname, '../../node_modules/@stryker-mutator/core/bin/stryker.js');

function runStryker(scope: Scope, args: readonly string[], env: Record<string, string>): Promise<number> {
  const stryker = spawn(process.execPath, [STRYKER, 'run', ...args], {
    stdio: 'inherit',
    env: { ...process.env, ...env, MUTATION_SCOPE: scope },
  });
  const stop = () => stryker.kill('SIGINT');
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise<number>((done) =>
    stryker.once('exit', (code, signal) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done(code ?? (signal === null ? 1 : 130));
    }),
  );
}

/** Each scope's `mutate` patterns, as stryker.config.mjs exports them. */
async function mutatePatterns(): Promise<Record<Scope, string[]>> {
  const config = pathToFileURL(resolve(PROJECT_ROOT, 'stryker.config.mjs')).href;
  return ((await import(config)) as { MUTATE: Record<Scope, string[]> }).MUTATE;
}

function git(args: readonly string[]): string {
  return execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The files changed since `ref` left HEAD's line (its merge base), working tree and untracked files included. */
function changedSince(ref: string): string[] {
  let base: string;
  try {
    base = git(['merge-base', ref, 'HEAD']).trim();
  } catch {
    throw new UsageError(`--since ${ref}: git knows no such commit, or it shares no history with HEAD`);
  }
  const names = (output: string) => output.split('\0').filter((name) => name !== '');
  const changed = names(git(['diff', '--name-only', '-z', '--diff-filter=d', base]));
  const untracked = names(git(['ls-files', '--others', '--exclude-standard', '-z']));
  return [...new Set([...changed, ...untracked])].sort();
}

/**
 * The command line's files and folders (relative to where npm was started) and the `--since`
 * files, as targets. A folder stands for the files in it that a scope mutates.
 */
function targetsOf(request: Request, patterns: Record<Scope, string[]>): Target[] {
  const from = process.env.INIT_CWD ?? process.cwd();
  const targets: Target[] = [];
  for (const argument of request.targets) {
    const { file: path, range } = splitRange(argument);
    const file = relative(PROJECT_ROOT, resolve(from, path)).split(sep).join('/');
    if (file === '' || file === '..' || file.startsWith('../'))
      throw new UsageError(`${argument}: name a file or folder inside the project`);
    const kind = statSync(resolve(PROJECT_ROOT, file), { throwIfNoEntry: false });
    if (kind === undefined) throw new UsageError(`${argument}: no such file or folder`);
    if (kind.isDirectory()) {
      if (range !== '') throw new UsageError(`${argument}: a line range needs a file`);
      const inFolder = request.scopes.flatMap((scope) => scopeFiles(patterns[scope], file));
      // Named, so that a folder with nothing to mutate is reported (its trailing / tells planRun).
      if (inFolder.length === 0) targets.push({ file: `${file}/`, spec: file, named: true });
      for (const inside of inFolder) targets.push({ file: inside, spec: inside, named: true });
    } else {
      targets.push({ file, spec: `${file}${range}`, named: true });
    }
  }
  if (request.since !== undefined) {
    for (const file of changedSince(request.since)) targets.push({ file, spec: file, named: false });
  }
  return targets;
}

function describePlan(plan: Plan, request: Request, patterns: Record<Scope, string[]>): string {
  const lines = plan.runs.map(({ scope, mutate }) =>
    mutate === undefined ? `  ${scope}: the whole scope (${scopeFiles(patterns[scope]).length} files)` : `  ${scope}: ${mutate.join(', ')}`,
  );
  if (plan.runs.length === 0) lines.push('  nothing to mutate');
  for (const { file, reason } of plan.skipped) lines.push(`  skipped ${file}: ${reason}`);
  if (plan.unscopedChanges > 0)
    lines.push(`  ${plan.unscopedChanges} other file(s) changed since ${request.since ?? ''}: no chosen scope mutates them`);
  return `Mutation testing:\n${lines.join('\n')}`;
}

/** Runs one scope; its scores are those of `files` (the whole scope when undefined), read from its JSON report. */
async function runScope(scope: Scope, args: readonly string[], patterns: readonly string[], files: readonly string[] | undefined) {
  console.log(`\nMutation testing, scope ${scope}: started ${new Date().toISOString()}`);
  const started = Date.now();
  let status: number;
  if (scope === 'unit') {
    status = await runStryker(scope, args, {});
  } else {
    const [dynamodb, ses] = await Promise.all([startDynamoDbLocal(), startSesLocal()]);
    try {
      status = await runStryker(scope, args, {
        TEST_DYNAMODB_ENDPOINT: dynamodb.endpoint,
        TEST_SES_URL: ses.url,
        // Instrumented code on a busy machine: the concurrency tests' bursts need more than 5 s.
        TEST_DYNAMODB_REQUEST_TIMEOUT_MS: '30000',
      });
    } finally {
      await Promise.all([dynamodb.stop(), ses.stop()]);
    }
  }
  console.log(`Mutation testing, scope ${scope}: exit ${status} after ${Math.round((Date.now() - started) / 1000)} s`);
  if (status !== 0) return { status, scores: [] };
  const dropped = pruneBaseline(scope, patterns);
  if (dropped.length > 0) console.log(`Left the ${scope} baseline (no longer in the scope): ${dropped.join(', ')}`);
  let report;
  try {
    report = readReport(resolve(PROJECT_ROOT, 'reports/mutation', `${scope}.json`));
  } catch {
    console.log(`Mutation testing, scope ${scope}: no JSON report (reports/mutation/${scope}.json), so no scores.`);
    return { status, scores: [] };
  }
  // The report also carries the baseline's results for files this run did not mutate.
  const wanted = (file: string) => (files === undefined ? inScope(patterns, file) : files.includes(file));
  report.files = Object.fromEntries(Object.entries(report.files).filter(([file]) => wanted(file)));
  const scores = scoresOf(report);
  console.log(`\nCovered mutants killed, scope ${scope}:\n${scoreTable(scores)}`);
  console.log(`Scope ${scope}: ${scoreLine(scores.total)}`);
  return { status, scores: scores.files };
}

async function main(): Promise<number> {
  const request = parseArguments(process.argv.slice(2));
  const patterns = await mutatePatterns();
  const plan = planRun(request, patterns, targetsOf(request, patterns));
  console.log(describePlan(plan, request, patterns));
  if (request.list) return 0;
  let worst = 0;
  const measured: FileScore[] = [];
  for (const { scope, mutate } of plan.runs) {
    const args = mutate === undefined ? request.stryker : ['--mutate', mutate.join(','), ...request.stryker];
    const files = mutate?.map((spec) => splitRange(spec).file);
    const { status, scores } = await runScope(scope, args, patterns[scope], files);
    worst = Math.max(worst, status);
    measured.push(...scores);
  }
  if (plan.runs.length > 1 && measured.length > 0) console.log(`\nOverall: ${scoreLine(totalOf(measured))}`);
  return worst;
}

main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    console.error(error instanceof UsageError ? `npm run mutation: ${error.message}` : error);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
