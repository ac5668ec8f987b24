/**
 * The score a run reports: the covered mutants killed, `(killed + timeout) / (killed + timeout +
 * survived)`, per file and overall, read from Stryker's JSON report (mutation-testing-report-schema).
 * Stryker's own mutation score also counts the mutants no test reaches, which says more about
 * coverage (jest measures that) than about whether the tests check what they run. A measurement,
 * not a gate: test/mutation/run.ts prints it and exits non-zero only when a run fails.
 */
import { readFileSync } from 'node:fs';

export interface FileScore {
  readonly file: string;
  readonly killed: number;
  readonly timeout: number;
  readonly survived: number;
  readonly noCoverage: number;
  /** Errors (compile or runtime) and ignored mutants: in no score. */
  readonly other: number;
  /** Percent of covered mutants detected; undefined when none is covered. */
  readonly score: number | undefined;
}

type Report = { files: Record<string, { mutants: Array<{ status: string }> }> };

export function scoresOf(report: Report): { files: FileScore[]; total: FileScore } {
  const files = Object.entries(report.files)
    .map(([file, { mutants }]) =>
      scoreOf(
        file,
        mutants.map((mutant) => mutant.status),
      ),
    )
    .sort((a, b) => a.file.localeCompare(b.file));
  return { files, total: totalOf(files) };
}

/** The scores of `files` added up. */
export function totalOf(files: readonly FileScore[], label = 'all files'): FileScore {
  const sum = (key: 'killed' | 'timeout' | 'survived' | 'noCoverage' | 'other') => files.reduce((total, file) => total + file[key], 0);
  return withScore({
    file: label,
    killed: sum('killed'),
    timeout: sum('timeout'),
    survived: sum('survived'),
    noCoverage: sum('noCoverage'),
    other: sum('other'),
  });
}

function scoreOf(file: string, statuses: readonly string[]): FileScore {
  const count = (status: string) => statuses.filter((candidate) => candidate === status).length;
  const known = ['Killed', 'Timeout', 'Survived', 'NoCoverage'];
  return withScore({
    file,
    killed: count('Killed'),
    timeout: count('Timeout'),
    survived: count('Survived'),
    noCoverage: count('NoCoverage'),
    other: statuses.filter((status) => !known.includes(status)).length,
  });
}

function withScore(counts: Omit<FileScore, 'score'>): FileScore {
  const detected = counts.killed + counts.timeout;
  const covered = detected + counts.survived;
  return { ...counts, score: covered === 0 ? undefined : (100 * detected) / covered };
}

export function readReport(path: string): Report {
  return JSON.parse(readFileSync(path, 'utf8')) as Report;
}

/** A Markdown table of the scores, as docs/mutation.md records them. */
export function scoreTable(scores: { files: readonly FileScore[]; total: FileScore }): string {
  const row = (s: FileScore) =>
    `| ${s.file} | ${s.killed} | ${s.timeout} | ${s.survived} | ${s.noCoverage} | ${s.other} | ${s.score === undefined ? '–' : `${s.score.toFixed(1)}%`} |`;
  return [
    '| File | Killed | Timeout | Survived | No coverage | Errors | Covered mutants killed |',
    '| --- | --: | --: | --: | --: | --: | --: |',
    ...scores.files.map(row),
    row(scores.total),
  ].join('\n');
}

/** One line for a total: `96.1% of covered mutants killed (2677 of 2785; 59 not covered, 12 errors)`. */
export function scoreLine(total: FileScore): string {
  const detected = total.killed + total.timeout;
  const rest = `${total.noCoverage} not covered, ${total.other} error${total.other === 1 ? '' : 's'}`;
  if (total.score === undefined) return `no covered mutants (${rest})`;
  return `${total.score.toFixed(1)}% of covered mutants killed (${detected} of ${detected + total.survived}; ${rest})`;
}
