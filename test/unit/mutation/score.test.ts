/** test/mutation/score.ts: the covered mutants killed. */
import { scoreLine, scoresOf, scoreTable } from '../../mutation/score';

const statuses = (...list: string[]) => list.map((status) => ({ status }));

it('scores killed and timed-out mutants over the covered ones, leaving out uncovered ones and errors', () => {
  const { files, total } = scoresOf({
    files: {
      'lib/b.ts': { mutants: statuses('Killed', 'Killed', 'Timeout', 'Survived', 'NoCoverage', 'RuntimeError') },
      'lib/a.ts': { mutants: statuses('NoCoverage', 'CompileError') },
    },
  });
  expect(files.map((file) => file.file)).toEqual(['lib/a.ts', 'lib/b.ts']);
  expect(files[0]).toMatchObject({ noCoverage: 1, other: 1, score: undefined });
  expect(files[1]).toMatchObject({ killed: 2, timeout: 1, survived: 1, noCoverage: 1, other: 1, score: 75 });
  expect(total).toMatchObject({ file: 'all files', killed: 2, timeout: 1, survived: 1, noCoverage: 2, other: 2, score: 75 });
  expect(scoreTable({ files, total }).split('\n')).toEqual([
    '| File | Killed | Timeout | Survived | No coverage | Errors | Covered mutants killed |',
    '| --- | --: | --: | --: | --: | --: | --: |',
    '| lib/a.ts | 0 | 0 | 0 | 1 | 1 | – |',
    '| lib/b.ts | 2 | 1 | 1 | 1 | 1 | 75.0% |',
    '| all files | 2 | 1 | 1 | 2 | 2 | 75.0% |',
  ]);
  expect(scoreLine(total)).toBe('75.0% of covered mutants killed (3 of 4; 2 not covered, 2 errors)');
  expect(scoreLine(files[0]!)).toBe('no covered mutants (1 not covered, 1 error)');
});
