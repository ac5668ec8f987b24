/**
 * Every mutant the committed baselines record as surviving, and what became of it: each is killed
 * by a test (and then no longer a survivor) or judged in docs/mutation/equivalent-mutants.md with a
 * one-line reason. test/unit/mutation/survivors.test.ts fails when a survivor has no judgement or
 * the document judges a mutant that no longer survives.
 *
 * `npx tsx test/mutation/survivors.ts` rewrites the document's tables from the baselines after a
 * run, keeping every judgement already written (matched by file, line, column and mutator, or by
 * file, line and mutator when the column moved); a new survivor gets "Not yet judged.", which the
 * test refuses until someone writes the reason or a test that kills it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baselinePath, PROJECT_ROOT } from './baseline';

export const SURVIVORS_DOCUMENT = join(PROJECT_ROOT, 'docs/mutation/equivalent-mutants.md');
export const NOT_JUDGED = 'Not yet judged.';
const SCOPES = ['unit', 'integration'] as const;

interface BaselineMutant {
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: string;
  readonly location: { readonly start: { readonly line: number; readonly column: number } };
}
export interface Baseline {
  readonly files: Record<string, { readonly source: string; readonly mutants: readonly BaselineMutant[] }>;
}

export interface Survivor {
  /** `file:line:column`, as the table's first column names it. */
  readonly id: string;
  readonly file: string;
  readonly line: number;
  readonly mutator: string;
  readonly replacement: string;
  /** The mutated line of the source the baseline holds, trimmed. */
  readonly code: string;
}

/** The surviving mutants of a baseline, in file and position order. */
export function survivorsOf(baseline: Baseline): Survivor[] {
  return Object.entries(baseline.files)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([file, { source, mutants }]) => {
      const lines = source.split('\n');
      return mutants
        .filter((mutant) => mutant.status === 'Survived')
        .map((mutant) => {
          const { line, column } = mutant.location.start;
          return {
            id: `${file}:${line}:${column}`,
            file,
            line,
            mutator: mutant.mutatorName,
            replacement: mutant.replacement ?? '',
            code: (lines[line - 1] ?? '').trim(),
          };
        })
        .sort((a, b) => a.line - b.line || a.id.localeCompare(b.id) || a.replacement.localeCompare(b.replacement));
    });
}

export interface Judgement {
  readonly id: string;
  readonly mutator: string;
  readonly judgement: string;
}

/** The rows of the document's survivor tables: `| \`file:line:column\` | Mutator → … | … | judgement |`. */
export function judgementsOf(markdown: string): Judgement[] {
  return markdown.split('\n').flatMap((row) => {
    const cells = row
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
    const id = /^`([^`]+:\d+:\d+)`$/.exec(cells[0] ?? '')?.[1];
    if (cells.length !== 4 || id === undefined) return [];
    return [{ id, mutator: (cells[1] as string).split(' →')[0] as string, judgement: cells[3] as string }];
  });
}

const cell = (text: string, max: number) => {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replaceAll('|', '\\|');
};

/** The table of `survivors`, each with its judgement from `known` (or NOT_JUDGED). */
export function survivorTable(survivors: readonly Survivor[], known: readonly Judgement[]): string {
  const judgementOf = (survivor: Survivor) => {
    const exact = known.find((row) => row.id === survivor.id && row.mutator === survivor.mutator);
    const line = `${survivor.file}:${survivor.line}:`;
    const moved = known.find((row) => row.id.startsWith(line) && row.mutator === survivor.mutator);
    return (exact ?? moved)?.judgement ?? NOT_JUDGED;
  };
  return [
    '| Mutant | Mutation | Line | Judgement |',
    '| --- | --- | --- | --- |',
    ...survivors.map(
      (survivor) =>
        `| \`${survivor.id}\` | ${survivor.mutator} → \`${cell(survivor.replacement, 40)}\` | \`${cell(survivor.code, 70)}\` | ${judgementOf(survivor)} |`,
    ),
  ].join('\n');
}

/** Replaces the part of `markdown` between `<!-- survivors:<scope> -->` and `<!-- /survivors:<scope> -->`. */
export function withTable(markdown: string, scope: string, table: string): string {
  const start = `<!-- survivors:${scope} -->`;
  const end = `<!-- /survivors:${scope} -->`;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from === -1 || to < from) throw new Error(`${SURVIVORS_DOCUMENT} has no ${start} … ${end} section`);
  return `${markdown.slice(0, from + start.length)}\n\n${table}\n\n${markdown.slice(to)}`;
}

export function readBaseline(scope: string): Baseline {
  return JSON.parse(readFileSync(baselinePath(scope), 'utf8')) as Baseline;
}

async function main(): Promise<void> {
  const { format, resolveConfig } = await import('prettier');
  let markdown = readFileSync(SURVIVORS_DOCUMENT, 'utf8');
  const known = judgementsOf(markdown);
  for (const scope of SCOPES) {
    const survivors = survivorsOf(readBaseline(scope));
    const table = survivorTable(survivors, known);
    markdown = withTable(markdown, scope, table);
    const open = judgementsOf(table).filter((row) => row.judgement === NOT_JUDGED).length;
    console.log(`${scope}: ${survivors.length} survivors, ${open} not yet judged`);
  }
  const options = await resolveConfig(SURVIVORS_DOCUMENT);
  writeFileSync(SURVIVORS_DOCUMENT, await format(markdown, { ...options, filepath: SURVIVORS_DOCUMENT }));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
