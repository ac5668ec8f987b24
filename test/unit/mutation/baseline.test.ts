/** test/mutation/baseline.ts: which files a mutation scope selects. */
import { inScope, scopeFiles } from '../../mutation/baseline';

describe('inScope: the mutate patterns as stryker.config.mjs writes them', () => {
  const patterns = ['lib/otp/**/*.ts', 'lib/platform/errors.ts', '!lib/otp/issue.ts'];

  it.each([
    ['lib/otp/codes.ts', true],
    ['lib/otp/nested/index.ts', true],
    ['lib/platform/errors.ts', true],
    ['lib/otp/issue.ts', false],
    ['lib/otp/codes.json', false],
    ['lib/platform/config.ts', false],
    ['lib/platform/errors.ts.bak', false],
    ['lib/otpx/codes.ts', false],
  ])('%s → %s', (file, expected) => {
    expect(inScope(patterns, file)).toBe(expected);
  });

  it.each(['lib/{a,b}/*.ts', 'lib/*.ts', 'lib/**/x-*.ts'])('refuses %s, a glob it cannot read, rather than match nothing', (pattern) => {
    expect(() => inScope([pattern], 'lib/a/x.ts')).toThrow(/neither a path nor dir\/\*\*\/\*\.ext/);
  });

  it('lists the files of the repository the patterns select, with / separators, sorted', () => {
    const files = scopeFiles(patterns);
    expect(files).toContain('lib/otp/codes.ts');
    expect(files).toContain('lib/platform/errors.ts');
    expect(files).not.toContain('lib/otp/issue.ts');
    expect(files).toEqual([...files].sort());
  });
});
