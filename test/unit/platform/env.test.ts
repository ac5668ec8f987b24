/** The environment variables, read by one schema (lib/platform/env.ts), and only there. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ENVIRONMENT_VARIABLES, readEnvironment, required, variablesOf } from '../../../lib/platform/env';
import { FUNCTIONS } from '../../../lib/platform/routes';

const ROOT = resolve(__dirname, '../../..');

describe('readEnvironment', () => {
  it('reads what is set, treats an empty value as unset, defaults the secrets’ max age to 300 s, and ignores other variables', () => {
    // The limit overrides among them: only the local runtime reads those (local/limit-overrides.ts).
    expect(readEnvironment({ TABLE_NAME: 'identity', ISSUER: '', TOKEN_MAX_ATTEMPTS: '3', PATH: '/bin' })).toEqual({
      TABLE_NAME: 'identity',
      ISSUER: undefined,
      SECRETS_MAX_AGE_SECONDS: 300,
    });
    expect(readEnvironment({ SECRETS_MAX_AGE_SECONDS: '60' }).SECRETS_MAX_AGE_SECONDS).toBe(60);
    // The local runtime's issuer is an IP address and a port (regression: a URL check that wanted a domain refused it).
    expect(readEnvironment({ ISSUER: 'http://127.0.0.1:3000' }).ISSUER).toBe('http://127.0.0.1:3000');
  });

  it('fails fast with every problem at once, naming each variable and never quoting a value', () => {
    const message = (() => {
      try {
        readEnvironment({ ISSUER: 'not a url', HMAC_SECRET_ARN: 'secret-value', SECRETS_MAX_AGE_SECONDS: '-5' });
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message.split('\n')).toEqual([
      'Invalid environment:',
      expect.stringMatching(/^✖ ISSUER: /),
      '✖ HMAC_SECRET_ARN: a Secrets Manager secret ARN',
      '✖ SECRETS_MAX_AGE_SECONDS: a positive integer',
    ]);
    expect(message).not.toContain('secret-value');
  });

  it('names a missing required variable', () => {
    expect(() => required(readEnvironment({}), 'TABLE_NAME')).toThrow('Missing environment variable TABLE_NAME');
  });
});

describe('variablesOf: what each function reads, from its declaration', () => {
  it.each(Object.values(FUNCTIONS))('$name', (spec) => {
    const variables = variablesOf(spec);
    expect(variables).toContain('ISSUER');
    expect(variables.includes('TABLE_NAME')).toBe(spec.table.length > 0);
    expect(variables.includes('HMAC_SECRET_ARN')).toBe((spec.secrets as readonly string[]).includes('hmac'));
    for (const variable of variables) expect(ENVIRONMENT_VARIABLES).toContain(variable);
  });
});

it('is the only place in lib/ and functions/ that reads process.env (regression: four places, three styles)', () => {
  const files = (directory: string): string[] =>
    readdirSync(directory).flatMap((name) => {
      const path = join(directory, name);
      return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
    });
  const readers = [...files(join(ROOT, 'lib')), ...files(join(ROOT, 'functions'))]
    .filter((file) => /process\.env\b/.test(stripComments(readFileSync(file, 'utf8'))))
    .map((file) => relative(ROOT, file));
  // lib/platform/tracing.ts reads no variable when deployed: `process.env.IDENTITY_TRACING` is a
  // build-time constant the bundler replaces, so that a stage without tracing has no X-Ray code.
  expect(readers).toEqual(['lib/platform/env.ts', 'lib/platform/tracing.ts']);
  expect(stripComments(readFileSync(join(ROOT, 'lib/platform/tracing.ts'), 'utf8')).match(/process\.env\.\w+/g)).toEqual([
    'process.env.IDENTITY_TRACING',
  ]);
});

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
}
