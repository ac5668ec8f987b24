/**
 * The score the mutation bar (90%) is set on: killed (and timed-out) mutants over the covered ones,
 * `(killed + timeout) / (killed + timeout + survived)`, per file and for the run, read from
 * Stryker's JSON report (mutation-testing-report-schema). Stryker's own `break` threshold would
 * also count the mutants no test reaches, so test/mutation/run.ts applies this one instead.
 */
import { readFileSync } from 'node:fs';

export const BREAK_AT_PERCENT = 90;

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
  const sum = (key: 'killed' | 'timeout' | 'survived' | 'noCoverage' | 'other') => files.reduce((total, file) => total + file[key], 0);
  const total = withScore({
    file: 'all files',
    killed: sum('killed'),
    timeout: sum('timeout'),
    survived: sum('survived'),
    noCoverage: sum('noCoverage'),
    other: sum('other'),
  });
  return { files, total };
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
export function scoreTable(scores: { files: FileScore[]; total: FileScore }): string {
  const row = (s: FileScore) =>
    `| ${s.file} | ${s.killed} | ${s.timeout} | ${s.survived} | ${s.noCoverage} | ${s.other} | ${s.score === undefined ? '–' : `${s.score.toFixed(1)}%`} |`;
  return [
    '| File | Killed | Timeout | Survived | No coverage | Errors | Score (covered) |',
    '| --- | --: | --: | --: | --: | --: | --: |',
    ...scores.files.map(row),
    row(scores.total),
  ].join('\n');
}
