/**
 * Dependency arrows point one way (house style: handler → domain → port → adapter): checked on
 * the sources' import lines, so a shortcut fails here rather than in review.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

function sources(directory: string): string[] {
  return readdirSync(join(ROOT, directory)).flatMap((name) => {
    const path = join(directory, name);
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every module `file` imports: project files as paths from the root, packages by name. */
function importsOf(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  return Array.from(source.matchAll(/^(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"];?$|^import\s+['"]([^'"]+)['"];?$/gm), (match) => {
    const specifier = (match[1] ?? match[2]) as string;
    return specifier.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), specifier)) : specifier;
  });
}

it.each(['lib/platform/vocabulary.ts', 'lib/platform/email-address.ts', 'lib/platform/lazy.ts'])(
  '%s is a leaf: it imports nothing',
  (file) => {
    expect(importsOf(file)).toEqual([]);
  },
);

it('the configuration imports nothing from the capabilities (but the country list), the adapters or the HTTP layer', () => {
  expect(
    importsOf('lib/platform/config.ts').filter(
      (target) => target.startsWith('lib/') && target !== 'lib/phone/countries' && !/^lib\/platform\/(?!http\/)/.test(target),
    ),
  ).toEqual([]);
});

/** The capabilities and the endpoints: what lib/domain/ held before issue 26. */
const RULES = ['keys', 'identity', 'phone', 'messages', 'limits', 'guards', 'otp', 'oauth', 'login', 'endpoints'].flatMap((folder) =>
  sources(`lib/${folder}`),
);

it.each([...RULES, 'lib/platform/request-fields.ts'])('%s imports no adapter and no AWS SDK (the rules talk to ports)', (file) => {
  expect(
    importsOf(file).filter(
      (target) => target.startsWith('lib/adapters/') || target.startsWith('lib/deps') || /^@aws-sdk\/|^@smithy\//.test(target),
    ),
  ).toEqual([]);
});

it.each(sources('lib/adapters'))('%s imports no HTTP layer and no function', (file) => {
  expect(importsOf(file).filter((target) => /^lib\/platform\/http\/|^lib\/login\/html$|^functions\//.test(target))).toEqual([]);
});
