/**
 * What `npm run mutation` is asked to do (test/mutation/run.ts): its arguments, and which files
 * each scope mutates. No file system and no git here, so test/unit/mutation/plan.test.ts holds the
 * rules: a file goes to the scope whose `mutate` patterns select it (stryker.config.mjs), a file in
 * neither is reported and skipped, and without files or `--since` each chosen scope runs whole.
 */
import { inScope } from './baseline';

export const SCOPES = ['unit', 'integration'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * Stryker 9.6's options that take no value (`stryker run --help`). Every other option takes the
 * next argument as its value, so a value that looks like a path (`--incrementalFile x.json`) is
 * never mistaken for a file to mutate.
 */
const STRYKER_FLAGS = new Set(['--ignoreStatic', '--incremental', '--allowEmpty', '--force', '--dryRunOnly', '--disableBail', '--inPlace']);

/** A mistake in the command line: reported, and the run fails without starting Stryker. */
export class UsageError extends Error {}

export interface Request {
  /** The scopes named (`unit`, `integration`), or both when none is. */
  readonly scopes: readonly Scope[];
  /** Files or folders to mutate, as given (a file may carry a Stryker line range: `file:10-20`). */
  readonly targets: readonly string[];
  /** `--since <ref>`: the files changed since the ref too. */
  readonly since: string | undefined;
  /** `--list`: print the plan, run nothing. */
  readonly list: boolean;
  /** Everything else, passed to `stryker run` as given. */
  readonly stryker: readonly string[];
}

export function parseArguments(argv: readonly string[]): Request {
  const scopes: Scope[] = [];
  const targets: string[] = [];
  const stryker: string[] = [];
  let since: string | undefined;
  let list = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (argument === '--since' || argument.startsWith('--since=')) {
      since = argument === '--since' ? argv[(index += 1)] : argument.slice('--since='.length);
      if (since === undefined || since === '' || since.startsWith('-')) throw new UsageError('--since needs a git ref, e.g. --since main');
    } else if (argument === '--list') {
      list = true;
    } else if ((SCOPES as readonly string[]).includes(argument)) {
      if (!scopes.includes(argument as Scope)) scopes.push(argument as Scope);
    } else if (argument.startsWith('-')) {
      stryker.push(argument);
      const value = argv[index + 1];
      if (!argument.includes('=') && !STRYKER_FLAGS.has(argument) && value !== undefined && !value.startsWith('-')) {
        stryker.push(value);
        index += 1;
      }
    } else if (argument === 'changed') {
      throw new UsageError('`changed` compared files with committed baselines, which are gone: use --since <git ref> (e.g. --since main)');
    } else {
      targets.push(argument);
    }
  }
  if ((targets.length > 0 || since !== undefined) && stryker.some((option) => /^(-m|--mutate)(=|$)/.test(option))) {
    throw new UsageError('Name the files either as arguments (or with --since) or with --mutate, not both');
  }
  return { scopes: scopes.length === 0 ? [...SCOPES] : scopes, targets, since, list, stryker };
}

/** A Stryker mutate spec, `file` or `file:line[:column]-line[:column]`, split into the file and its range. */
export function splitRange(spec: string): { readonly file: string; readonly range: string } {
  const match = /^(.+?)(:\d+(?::\d+)?-\d+(?::\d+)?)?$/.exec(spec);
  return { file: match?.[1] ?? spec, range: match?.[2] ?? '' };
}

/**
 * A file to mutate: its path relative to the project (with `/`), and what Stryker is given for it.
 * A path ending in `/` is a folder named on the command line in which no chosen scope mutates anything.
 */
export interface Target {
  readonly file: string;
  readonly spec: string;
  /** Named on the command line (a skipped one is listed), not found by `--since` (only counted). */
  readonly named: boolean;
}

export interface ScopeRun {
  readonly scope: Scope;
  /** The `--mutate` specs; undefined: the whole scope. */
  readonly mutate: readonly string[] | undefined;
}

export interface Plan {
  readonly runs: readonly ScopeRun[];
  /** Named files that no chosen scope mutates, each with why. */
  readonly skipped: ReadonlyArray<{ readonly file: string; readonly reason: string }>;
  /** How many files `--since` found that no chosen scope mutates. */
  readonly unscopedChanges: number;
}

/**
 * Which scope mutates which of `targets`. Without targets (and without `--since`), every chosen
 * scope runs whole; with them, a scope runs only for the files it selects, and not at all when it
 * selects none.
 */
export function planRun(request: Request, patterns: Readonly<Record<Scope, readonly string[]>>, targets: readonly Target[]): Plan {
  if (request.targets.length === 0 && request.since === undefined) {
    return { runs: request.scopes.map((scope) => ({ scope, mutate: undefined })), skipped: [], unscopedChanges: 0 };
  }
  const specs = new Map<Scope, string[]>();
  const skipped: Array<{ file: string; reason: string }> = [];
  let unscopedChanges = 0;
  for (const target of targets) {
    const scope = SCOPES.find((candidate) => inScope(patterns[candidate], target.file));
    const reason = target.file.endsWith('/')
      ? 'no file in it that a chosen scope mutates'
      : scope === undefined
        ? 'in neither scope (stryker.config.mjs)'
        : request.scopes.includes(scope)
          ? undefined
          : `in the ${scope} scope, which was not chosen`;
    if (reason === undefined && scope !== undefined) {
      const list = specs.get(scope) ?? [];
      if (!list.includes(target.spec)) list.push(target.spec);
      specs.set(scope, list);
    } else if (target.named) {
      if (!skipped.some((entry) => entry.file === target.file)) skipped.push({ file: target.file, reason: reason ?? '' });
    } else {
      unscopedChanges += 1;
    }
  }
  const runs = request.scopes.flatMap((scope) => {
    const mutate = specs.get(scope);
    return mutate === undefined ? [] : [{ scope, mutate }];
  });
  return { runs, skipped, unscopedChanges };
}
