/**
 * Which files of a mutation scope the local incremental baseline
 * (reports/mutation/stryker-incremental-<scope>.json, git-ignored) does not describe as they now
 * are: new files, and files whose source differs from the source the baseline's mutants were run
 * against. Those are the files whose mutants `npm run mutation -- changed` runs; for the others the
 * baseline's results stand (Stryker's incremental mode reuses them).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const PROJECT_ROOT = join(__dirname, '../..');

export function baselinePath(scope: string): string {
  return join(PROJECT_ROOT, 'reports/mutation', `stryker-incremental-${scope}.json`);
}

/**
 * Whether `file` (relative, with `/`) matches Stryker's `mutate` patterns as this project writes
 * them: an exact path, or `dir/**\/*.ts`; a leading `!` excludes.
 */
export function inScope(patterns: readonly string[], file: string): boolean {
  const matches = (pattern: string) => {
    const recursive = /^(.*\/)\*\*\/\*(\.[a-z]+)$/.exec(pattern);
    return recursive === null ? pattern === file : file.startsWith(recursive[1] as string) && file.endsWith(recursive[2] as string);
  };
  const included = patterns.some((pattern) => !pattern.startsWith('!') && matches(pattern));
  return included && !patterns.some((pattern) => pattern.startsWith('!') && matches(pattern.slice(1)));
}

/** Every file under lib/ that `patterns` select, sorted. */
export function scopeFiles(patterns: readonly string[]): string[] {
  return (readdirSync(join(PROJECT_ROOT, 'lib'), { recursive: true }) as string[])
    .map((name) =>
      relative(PROJECT_ROOT, join(PROJECT_ROOT, 'lib', name))
        .split(sep)
        .join('/'),
    )
    .filter((file) => inScope(patterns, file))
    .sort();
}

/** The files of the scope whose current source is not the one the baseline holds. */
export function staleFiles(scope: string, patterns: readonly string[]): string[] {
  let recorded: Record<string, { source?: string }> = {};
  try {
    recorded = (JSON.parse(readFileSync(baselinePath(scope), 'utf8')) as { files: typeof recorded }).files;
  } catch {
    // No baseline yet: every file is stale.
  }
  return scopeFiles(patterns).filter((file) => recorded[file]?.source !== readFileSync(join(PROJECT_ROOT, file), 'utf8'));
}

/**
 * Drops from the scope's baseline the files the scope no longer mutates (a file moved to the
 * other scope): Stryker keeps every file of an earlier report in the incremental file.
 */
export function pruneBaseline(scope: string, patterns: readonly string[]): string[] {
  const path = baselinePath(scope);
  const baseline = JSON.parse(readFileSync(path, 'utf8')) as { files: Record<string, unknown> };
  const dropped = Object.keys(baseline.files).filter((file) => !inScope(patterns, file));
  if (dropped.length === 0) return [];
  for (const file of dropped) delete baseline.files[file];
  writeFileSync(path, JSON.stringify(baseline));
  return dropped;
}
