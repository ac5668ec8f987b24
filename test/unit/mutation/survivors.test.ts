/**
 * test/mutation/survivors.ts, and the rule it keeps: every mutant the committed baselines record as
 * surviving is judged in docs/mutation/equivalent-mutants.md (equivalent, or unreachable, with its
 * reason), and the document judges no mutant that a test has killed since.
 */
import { readFileSync } from 'node:fs';
import {
  judgementsOf,
  NOT_JUDGED,
  readBaseline,
  survivorsOf,
  survivorTable,
  SURVIVORS_DOCUMENT,
  withTable,
  type Baseline,
} from '../../mutation/survivors';

const mutant = (line: number, column: number, status: string, mutatorName = 'StringLiteral', replacement = '""') => ({
  mutatorName,
  replacement,
  status,
  location: { start: { line, column } },
});

const baseline: Baseline = {
  files: {
    'lib/b.ts': {
      source: "const a = 'x';\nconst b = a || 'y';\n",
      mutants: [mutant(2, 11, 'Survived', 'LogicalOperator', "a && 'y'"), mutant(1, 11, 'Killed')],
    },
    'lib/a.ts': {
      source: "export const NAME = 'n';\n",
      mutants: [mutant(1, 21, 'Survived'), mutant(1, 21, 'NoCoverage', 'ObjectLiteral', '{}')],
    },
  },
};

describe('survivorsOf', () => {
  it('lists the surviving mutants only, by file and position, each with its line of source', () => {
    expect(survivorsOf(baseline)).toEqual([
      { id: 'lib/a.ts:1:21', file: 'lib/a.ts', line: 1, mutator: 'StringLiteral', replacement: '""', code: "export const NAME = 'n';" },
      { id: 'lib/b.ts:2:11', file: 'lib/b.ts', line: 2, mutator: 'LogicalOperator', replacement: "a && 'y'", code: "const b = a || 'y';" },
    ]);
  });
});

describe('survivorTable and judgementsOf', () => {
  it('writes a row per survivor, escaping pipes, and reads the rows back', () => {
    const table = survivorTable(survivorsOf(baseline), []);

    expect(table.split('\n').slice(2)).toEqual([
      '| `lib/a.ts:1:21` | StringLiteral → `""` | `export const NAME = \'n\';` | Not yet judged. |',
      "| `lib/b.ts:2:11` | LogicalOperator → `a && 'y'` | `const b = a \\|\\| 'y';` | Not yet judged. |",
    ]);
    expect(judgementsOf(table)).toEqual([
      { id: 'lib/a.ts:1:21', mutator: 'StringLiteral', judgement: NOT_JUDGED },
      { id: 'lib/b.ts:2:11', mutator: 'LogicalOperator', judgement: NOT_JUDGED },
    ]);
  });

  it('keeps a judgement, also when the mutant moved to another column of its line, but not to another line or mutator', () => {
    const known = [
      { id: 'lib/a.ts:1:7', mutator: 'StringLiteral', judgement: 'Equivalent: a label.' },
      { id: 'lib/b.ts:1:11', mutator: 'LogicalOperator', judgement: 'Another line.' },
      { id: 'lib/b.ts:2:11', mutator: 'ConditionalExpression', judgement: 'Another mutator.' },
    ];

    expect(judgementsOf(survivorTable(survivorsOf(baseline), known)).map((row) => row.judgement)).toEqual([
      'Equivalent: a label.',
      NOT_JUDGED,
    ]);
  });
});

describe('withTable', () => {
  it('replaces only its scope’s section', () => {
    const markdown =
      'a\n<!-- survivors:unit -->\nold\n<!-- /survivors:unit -->\nb\n<!-- survivors:integration -->\nkeep\n<!-- /survivors:integration -->\n';

    expect(withTable(markdown, 'unit', 'new')).toBe(
      'a\n<!-- survivors:unit -->\n\nnew\n\n<!-- /survivors:unit -->\nb\n<!-- survivors:integration -->\nkeep\n<!-- /survivors:integration -->\n',
    );
    expect(() => withTable('no sections', 'unit', 'new')).toThrow(/no <!-- survivors:unit -->/);
  });
});

describe.each(['unit', 'integration'])('the committed %s baseline and docs/mutation/equivalent-mutants.md', (scope) => {
  const markdown = readFileSync(SURVIVORS_DOCUMENT, 'utf8');
  const section = markdown.slice(markdown.indexOf(`<!-- survivors:${scope} -->`), markdown.indexOf(`<!-- /survivors:${scope} -->`));
  const rows = judgementsOf(section);
  const survivors = survivorsOf(readBaseline(scope));

  it('judges every surviving mutant (killed mutants are not survivors: the baseline is re-run after a test is added)', () => {
    const unjudged = survivors.filter(
      (survivor) => !rows.some((row) => row.id === survivor.id && row.mutator === survivor.mutator && row.judgement !== NOT_JUDGED),
    );
    expect(unjudged.map((survivor) => `${survivor.id} ${survivor.mutator}`)).toEqual([]);
  });

  it('names no mutant that no longer survives (npx tsx test/mutation/survivors.ts rewrites the tables)', () => {
    const stale = rows.filter((row) => !survivors.some((survivor) => survivor.id === row.id && survivor.mutator === row.mutator));
    expect(stale.map((row) => `${row.id} ${row.mutator}`)).toEqual([]);
  });
});
