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

it.each(['lib/vocabulary.ts', 'lib/email-address.ts', 'lib/lazy.ts'])('%s is a leaf: it imports nothing', (file) => {
  expect(importsOf(file)).toEqual([]);
});

it('the configuration imports nothing from the domain, the adapters or the HTTP layer', () => {
  expect(importsOf('lib/config.ts').filter((target) => /^lib\/(domain|adapters|http)\//.test(target))).toEqual([]);
});

it.each(sources('lib/domain'))('%s imports no adapter and no AWS SDK (the domain talks to ports)', (file) => {
  expect(
    importsOf(file).filter(
      (target) => target.startsWith('lib/adapters/') || target.startsWith('lib/deps') || /^@aws-sdk\/|^@smithy\//.test(target),
    ),
  ).toEqual([]);
});

it.each(sources('lib/adapters'))('%s imports no HTTP layer and no function', (file) => {
  expect(importsOf(file).filter((target) => /^lib\/http\/|^functions\//.test(target))).toEqual([]);
});
