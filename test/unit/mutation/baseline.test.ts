/** test/mutation/baseline.ts: which files a mutation scope selects. */
import { inScope, scopeFiles } from '../../mutation/baseline';

describe('inScope: the mutate patterns as stryker.config.mjs writes them', () => {
  const patterns = ['lib/domain/**/*.ts', 'lib/errors.ts', '!lib/domain/send-code.ts'];

  it.each([
    ['lib/domain/codes.ts', true],
    ['lib/domain/phone-metadata/index.ts', true],
    ['lib/errors.ts', true],
    ['lib/domain/send-code.ts', false],
    ['lib/domain/codes.json', false],
    ['lib/config.ts', false],
    ['lib/errors.ts.bak', false],
    ['lib/domainx/codes.ts', false],
  ])('%s → %s', (file, expected) => {
    expect(inScope(patterns, file)).toBe(expected);
  });

  it.each(['lib/{a,b}/*.ts', 'lib/*.ts', 'lib/**/x-*.ts'])('refuses %s, a glob it cannot read, rather than match nothing', (pattern) => {
    expect(() => inScope([pattern], 'lib/a/x.ts')).toThrow(/neither a path nor dir\/\*\*\/\*\.ext/);
  });

  it('lists the files of the repository the patterns select, with / separators, sorted', () => {
    const files = scopeFiles(patterns);
    expect(files).toContain('lib/domain/codes.ts');
    expect(files).toContain('lib/errors.ts');
    expect(files).not.toContain('lib/domain/send-code.ts');
    expect(files).toEqual([...files].sort());
  });
});
