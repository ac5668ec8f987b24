/**
 * `npm run mutation`: StrykerJS (stryker.config.mjs), its two scopes one after the other, `unit`
 * then `integration`. For the integration scope DynamoDB Local and SES local are started once for
 * the whole run, as test/support/global-setup.ts does for `npm test`: Stryker's jest runner starts
 * jest anew for every mutant, so a jest globalSetup would start Java for every mutant; the
 * stand-ins' addresses reach every test runner through the environment instead.
 *
 * `npm run mutation -- changed` runs only the files changed since the local baselines (and
 * nothing when none did). `npm run mutation -- unit` (or `integration`) runs one scope; any other argument goes to
 * `stryker run` (e.g. `npm run mutation -- integration --mutate lib/domain/send-code.ts`).
 * Exits non-zero when a scope fails or scores below the break threshold.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { startDynamoDbLocal } from '../../local/dynamodb';
import { startSesLocal } from '../../local/ses';
import { pathToFileURL } from 'node:url';
import { inScope, PROJECT_ROOT, pruneBaseline, scopeFiles, staleFiles } from './baseline';
import { BREAK_AT_PERCENT, readReport, scoresOf, scoreTable } from './score';

const SCOPES = ['unit', 'integration'] as const;
type Scope = (typeof SCOPES)[number];
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

/** The scope's `mutate` patterns, as stryker.config.mjs exports them. */
async function mutatePatterns(scope: Scope): Promise<string[]> {
  const config = pathToFileURL(resolve(PROJECT_ROOT, 'stryker.config.mjs')).href;
  return ((await import(config)) as { MUTATE: Record<Scope, string[]> }).MUTATE[scope];
}

async function runScope(scope: Scope, args: readonly string[]): Promise<number> {
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
  if (status !== 0) return status;
  // The bar: 90% of the covered mutants of the scope's files (test/mutation/score.ts), this run's
  // and the baseline's results together; files the scope no longer mutates leave the baseline.
  const patterns = await mutatePatterns(scope);
  const dropped = pruneBaseline(scope, patterns);
  if (dropped.length > 0) console.log(`Left the ${scope} baseline (no longer in the scope): ${dropped.join(', ')}`);
  const report = readReport(resolve(PROJECT_ROOT, 'reports/mutation', `${scope}.json`));
  report.files = Object.fromEntries(Object.entries(report.files).filter(([file]) => inScope(patterns, file)));
  const scores = scoresOf(report);
  console.log(`\nScores over covered mutants, scope ${scope}:\n${scoreTable(scores)}`);
  const score = scores.total.score;
  if (score !== undefined && score < BREAK_AT_PERCENT) {
    console.log(`Mutation testing, scope ${scope}: ${score.toFixed(2)}% of covered mutants killed, under ${BREAK_AT_PERCENT}%.`);
    return 1;
  }
  return 0;
}

/**
 * `changed`: only the mutants of the files the local baselines do not describe as they now
 * are (test/mutation/baseline.ts); a scope with none runs nothing. The baselines' results stand
 * for every other file.
 */
async function runChanged(scopes: readonly Scope[], args: readonly string[]): Promise<number> {
  let worst = 0;
  for (const scope of scopes) {
    const patterns = await mutatePatterns(scope);
    const stale = staleFiles(scope, patterns);
    if (stale.length === 0) {
      console.log(
        `Mutation testing, scope ${scope}: the baseline describes all ${scopeFiles(patterns).length} files as they are; nothing to run.`,
      );
      continue;
    }
    console.log(`Mutation testing, scope ${scope}: changed since the baseline: ${stale.join(', ')}`);
    worst = Math.max(worst, await runScope(scope, ['--mutate', stale.join(','), ...args]));
  }
  return worst;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const chosen = SCOPES.filter((scope) => argv.includes(scope));
  const scopes = chosen.length === 0 ? SCOPES : chosen;
  const args = argv.filter((arg) => !(SCOPES as readonly string[]).includes(arg) && arg !== 'changed');
  if (argv.includes('changed')) return runChanged(scopes, args);
  let worst = 0;
  for (const scope of scopes) worst = Math.max(worst, await runScope(scope, args));
  return worst;
}

main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
