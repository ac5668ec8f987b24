/** test/mutation/plan.ts: what `npm run mutation` runs for its arguments. */
import { parseArguments, planRun, splitRange, UsageError, type Target } from '../../mutation/plan';

const PATTERNS = {
  unit: ['lib/rules/**/*.ts', 'lib/platform/errors.ts', '!lib/rules/send.ts'],
  integration: ['lib/rules/send.ts', 'lib/platform/http/**/*.ts'],
};
const named = (file: string, spec = file): Target => ({ file, spec, named: true });
const found = (file: string): Target => ({ file, spec: file, named: false });

describe('parseArguments', () => {
  it('reads files, scopes, --since and --list, and passes every other option with its value to Stryker', () => {
    expect(
      parseArguments([
        'lib/a.ts',
        'unit',
        '--force',
        'lib/b.ts:3-9',
        '--concurrency',
        '1',
        '--since',
        'main',
        '--logLevel=debug',
        '--list',
      ]),
    ).toEqual({
      scopes: ['unit'],
      targets: ['lib/a.ts', 'lib/b.ts:3-9'],
      since: 'main',
      list: true,
      stryker: ['--force', '--concurrency', '1', '--logLevel=debug'],
    });
  });

  it('takes a path after an option with a value as that value, not as a file (--incrementalFile x.json)', () => {
    expect(parseArguments(['--incrementalFile', 'reports/x.json', 'lib/a.ts'])).toMatchObject({
      targets: ['lib/a.ts'],
      stryker: ['--incrementalFile', 'reports/x.json'],
    });
  });

  it('chooses both scopes when none is named, unit then integration, and keeps -- integration alone', () => {
    expect(parseArguments([]).scopes).toEqual(['unit', 'integration']);
    expect(parseArguments(['integration', '--mutate', 'lib/platform/http/cors.ts']).scopes).toEqual(['integration']);
    expect(parseArguments(['integration', '--mutate', 'lib/platform/http/cors.ts']).stryker).toEqual([
      '--mutate',
      'lib/platform/http/cors.ts',
    ]);
  });

  it.each([
    [['--since'], /--since needs a git ref/],
    [['--since', '--force'], /--since needs a git ref/],
    [['--since='], /--since needs a git ref/],
    [['lib/a.ts', '--mutate', 'lib/b.ts'], /either as arguments .* or with --mutate/],
    [['--since', 'main', '-m', 'lib/b.ts'], /either as arguments .* or with --mutate/],
    [['changed'], /use --since/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArguments(argv)).toThrow(UsageError);
    expect(() => parseArguments(argv)).toThrow(message);
  });
});

describe('splitRange', () => {
  it.each([
    ['lib/a.ts', 'lib/a.ts', ''],
    ['lib/a.ts:10-20', 'lib/a.ts', ':10-20'],
    ['lib/a.ts:10:0-12:400', 'lib/a.ts', ':10:0-12:400'],
    ['lib/a:b.ts', 'lib/a:b.ts', ''],
  ])('%s → %s + %j', (spec, file, range) => {
    expect(splitRange(spec)).toEqual({ file, range });
  });
});

describe('planRun', () => {
  it('runs each chosen scope whole without files or --since', () => {
    expect(planRun(parseArguments(['integration']), PATTERNS, [])).toEqual({
      runs: [{ scope: 'integration', mutate: undefined }],
      skipped: [],
      unscopedChanges: 0,
    });
  });

  it('sends each file to the scope that mutates it, reports the named files neither does, and counts the changed ones', () => {
    const plan = planRun(
      parseArguments(['lib/rules/a.ts', 'lib/rules/send.ts:5-9', 'lib/platform/config.ts', '--since', 'main']),
      PATTERNS,
      [
        named('lib/rules/a.ts'),
        named('lib/rules/send.ts', 'lib/rules/send.ts:5-9'),
        named('lib/platform/config.ts'),
        found('lib/platform/errors.ts'),
        found('lib/rules/a.ts'),
        found('README.md'),
        found('test/unit/a.test.ts'),
      ],
    );

    expect(plan).toEqual({
      runs: [
        { scope: 'unit', mutate: ['lib/rules/a.ts', 'lib/platform/errors.ts'] },
        { scope: 'integration', mutate: ['lib/rules/send.ts:5-9'] },
      ],
      skipped: [{ file: 'lib/platform/config.ts', reason: 'in neither scope (stryker.config.mjs)' }],
      unscopedChanges: 2,
    });
  });

  it('skips a file of a scope that was not chosen, saying which scope it is in', () => {
    const plan = planRun(parseArguments(['unit', 'lib/platform/http/cors.ts']), PATTERNS, [named('lib/platform/http/cors.ts')]);
    expect(plan).toEqual({
      runs: [],
      skipped: [{ file: 'lib/platform/http/cors.ts', reason: 'in the integration scope, which was not chosen' }],
      unscopedChanges: 0,
    });
  });

  it('reports a folder in which no chosen scope mutates anything', () => {
    expect(planRun(parseArguments(['lib/messages/locales']), PATTERNS, [named('lib/messages/locales/')]).skipped).toEqual([
      { file: 'lib/messages/locales/', reason: 'no file in it that a chosen scope mutates' },
    ]);
  });

  it('runs nothing when --since finds no file a scope mutates', () => {
    expect(planRun(parseArguments(['--since', 'HEAD']), PATTERNS, [found('docs/a.md')])).toEqual({
      runs: [],
      skipped: [],
      unscopedChanges: 1,
    });
  });
});
