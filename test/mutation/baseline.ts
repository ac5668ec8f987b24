/**
 * The mutation scopes' files and baselines: which files a scope's `mutate` patterns select
 * (stryker.config.mjs), and each scope's incremental baseline, local state in
 * reports/mutation/stryker-incremental-<scope>.json (git-ignored), which Stryker's incremental
 * mode reads to reuse the result of every mutant whose code and tests did not change.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const PROJECT_ROOT = join(__dirname, '../..');

export function baselinePath(scope: string): string {
  return join(PROJECT_ROOT, 'reports/mutation', `stryker-incremental-${scope}.json`);
}

/**
 * Whether `file` (relative, with `/`) matches Stryker's `mutate` patterns as this project writes
 * them: an exact path, or `dir/**\/*.ts`; a leading `!` excludes. Any other glob throws, so a
 * pattern this cannot read never quietly leaves its files out of both scopes.
 */
export function inScope(patterns: readonly string[], file: string): boolean {
  const matches = (pattern: string) => {
    const recursive = /^(.*\/)\*\*\/\*(\.[a-z]+)$/.exec(pattern);
    if (recursive === null && /[*?[\]{}]/.test(pattern)) {
      throw new Error(`The mutate pattern ${pattern} is neither a path nor dir/**/*.ext: teach test/mutation/baseline.ts to read it`);
    }
    return recursive === null ? pattern === file : file.startsWith(recursive[1] as string) && file.endsWith(recursive[2] as string);
  };
  const included = patterns.some((pattern) => !pattern.startsWith('!') && matches(pattern));
  return included && !patterns.some((pattern) => pattern.startsWith('!') && matches(pattern.slice(1)));
}

/** Every file under `folder` (lib/ by default; relative to the project) that `patterns` select, sorted. */
export function scopeFiles(patterns: readonly string[], folder = 'lib'): string[] {
  return (readdirSync(join(PROJECT_ROOT, folder), { recursive: true }) as string[])
    .map((name) =>
      relative(PROJECT_ROOT, join(PROJECT_ROOT, folder, name))
        .split(sep)
        .join('/'),
    )
    .filter((file) => inScope(patterns, file))
    .sort();
}

/**
 * Drops from the scope's baseline the files the scope no longer mutates (a file moved to the
 * other scope): Stryker keeps every file of an earlier report in the incremental file.
 */
export function pruneBaseline(scope: string, patterns: readonly string[]): string[] {
  const path = baselinePath(scope);
  // A run that stops after the dry run (--dryRunOnly) writes none.
  if (!existsSync(path)) return [];
  const baseline = JSON.parse(readFileSync(path, 'utf8')) as { files: Record<string, unknown> };
  const dropped = Object.keys(baseline.files).filter((file) => !inScope(patterns, file));
  if (dropped.length === 0) return [];
  for (const file of dropped) delete baseline.files[file];
  writeFileSync(path, JSON.stringify(baseline));
  return dropped;
}
