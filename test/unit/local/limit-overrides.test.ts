/**
 * local/limit-overrides.ts: the TOKEN_*, OTP_SEND_* and OTP_SEND_IP_* variables that shorten the
 * limits for `npm start` and tests, applied by the local runtime to the stage file it hands the
 * handlers (the functions' own code never reads them: test/unit/platform/config.test.ts, loadServiceConfig).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadServiceConfig, parseStageConfig, type LimitConfig, type StageConfig } from '../../../lib/platform/config';
import { applyLimitOverrides, configFileWithOverrides, LIMIT_OVERRIDE_VARIABLES, overridesIn } from '../../../local/limit-overrides';

const LOCAL_FILE = join(__dirname, '../../../config/local.json');
const readLocal = (): unknown => JSON.parse(readFileSync(LOCAL_FILE, 'utf8'));

/** A valid stage file with two environments, both with the default limits. */
function twoEnvironments(limits?: Record<string, unknown>) {
  const environment = (id: string) => ({
    id,
    serviceName: 'Example',
    email: { sender: 'no-reply@example.test' },
    ...(limits && { limits }),
  });
  return {
    defaultEnvironment: 'dev',
    environments: [environment('dev'), environment('staging')],
    clients: [
      {
        id: 'web',
        environments: ['dev', 'staging'],
        redirectUris: ['https://app.example.test/callback'],
        accessToken: { format: 'jwt', audience: 'api' },
      },
    ],
  };
}
const stage = (limits?: Record<string, unknown>): StageConfig => parseStageConfig(twoEnvironments(limits));

function thrownMessage(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const ATTEMPT_LIMIT_DEFAULTS: LimitConfig = { maxAttempts: 5, windowSeconds: 60, blockSeconds: 300 };
const PER_IP_DEFAULTS = { maxSends: 10, windowSeconds: 3600 };

describe('applyLimitOverrides', () => {
  it.each<[string, 'token' | 'send', keyof LimitConfig]>([
    ['TOKEN_MAX_ATTEMPTS', 'token', 'maxAttempts'],
    ['TOKEN_WINDOW_SECONDS', 'token', 'windowSeconds'],
    ['TOKEN_BLOCK_SECONDS', 'token', 'blockSeconds'],
    ['OTP_SEND_MAX', 'send', 'maxAttempts'],
    ['OTP_SEND_WINDOW_SECONDS', 'send', 'windowSeconds'],
    ['OTP_SEND_BLOCK_SECONDS', 'send', 'blockSeconds'],
  ])('%s sets %s.%s in every environment and nothing else', (variable, operation, field) => {
    // Arrange
    const config = stage();
    const other = operation === 'token' ? 'send' : 'token';

    // Act
    const overridden = applyLimitOverrides(config, { [variable]: '7' });

    // Assert
    expect(overridden.environments).toHaveLength(2);
    for (const [index, environment] of overridden.environments.entries()) {
      expect(environment.limits).toEqual({
        ...config.environments[index]!.limits,
        [operation]: { ...ATTEMPT_LIMIT_DEFAULTS, [field]: 7 },
        [other]: ATTEMPT_LIMIT_DEFAULTS,
      });
    }
  });

  it.each<[string, keyof typeof PER_IP_DEFAULTS, string]>([
    ['OTP_SEND_IP_MAX', 'maxSends', '3'],
    ['OTP_SEND_IP_WINDOW_SECONDS', 'windowSeconds', '60'],
  ])('%s sets sendPerIp.%s in every environment and nothing else', (variable, field, value) => {
    const config = stage();
    const overridden = applyLimitOverrides(config, { [variable]: value });
    for (const [index, environment] of overridden.environments.entries()) {
      expect(environment.limits).toEqual({
        ...config.environments[index]!.limits,
        sendPerIp: { ...PER_IP_DEFAULTS, [field]: Number(value) },
      });
    }
  });

  it('applies all of them together', () => {
    const env = Object.fromEntries(LIMIT_OVERRIDE_VARIABLES.map((variable, index) => [variable, String(index + 2)]));
    const overridden = applyLimitOverrides(stage(), env);
    for (const environment of overridden.environments) {
      expect([environment.limits.token, environment.limits.send, environment.limits.sendPerIp]).toEqual([
        { maxAttempts: 2, windowSeconds: 3, blockSeconds: 4 },
        { maxAttempts: 5, windowSeconds: 6, blockSeconds: 7 },
        { maxSends: 8, windowSeconds: 9 },
      ]);
    }
  });

  it('overrides the limits a file sets, not only the defaults', () => {
    const overridden = applyLimitOverrides(parseStageConfig(readLocal()), { TOKEN_BLOCK_SECONDS: '2' });
    expect(overridden.environments[0]!.limits.token).toEqual({ maxAttempts: 5, windowSeconds: 60, blockSeconds: 2 });
  });

  it('keeps a configured failure cap (regression: the overrides rebuilt limits without it)', () => {
    const overridden = applyLimitOverrides(stage({ failures: { maxConsecutive: 7, windowSeconds: 3600 } }), { TOKEN_MAX_ATTEMPTS: '2' });
    expect(overridden.environments[0]!.limits.failures).toEqual({ maxConsecutive: 7, windowSeconds: 3600 });
  });

  it('returns the configuration itself when no variable is set (an empty one counts as unset, others are ignored)', () => {
    const config = stage();
    expect(applyLimitOverrides(config, {})).toBe(config);
    expect(applyLimitOverrides(config, { TOKEN_MAX_ATTEMPTS: '', UNRELATED: '1' })).toBe(config);
  });

  it('does not modify the configuration it is given', () => {
    const config = stage();
    applyLimitOverrides(config, { TOKEN_MAX_ATTEMPTS: '2' });
    expect(config.environments[0]!.limits.token.maxAttempts).toBe(5);
  });

  it.each([
    ['TOKEN_MAX_ATTEMPTS', '0'],
    ['TOKEN_WINDOW_SECONDS', '1.5'],
    ['TOKEN_BLOCK_SECONDS', 'abc'],
    ['OTP_SEND_MAX', '-1'],
    ['OTP_SEND_WINDOW_SECONDS', 'five'],
    ['OTP_SEND_BLOCK_SECONDS', '0'],
    ['OTP_SEND_IP_MAX', '1e3'],
    ['OTP_SEND_IP_WINDOW_SECONDS', '-60'],
  ])('rejects %s=%j with a message naming the variable, not quoting its value', (variable, value) => {
    expect(thrownMessage(() => applyLimitOverrides(stage(), { [variable]: value }))).toBe(
      `Invalid environment:\n✖ ${variable}: a positive integer`,
    );
  });

  it('re-validates the result against the schema (TOKEN_MAX_ATTEMPTS above 50, OTP_SEND_IP_MAX above 100 are refused)', () => {
    expect(thrownMessage(() => applyLimitOverrides(stage(), { TOKEN_MAX_ATTEMPTS: '51' }))).toMatch(
      /TOKEN_MAX_ATTEMPTS=51[\s\S]*limits\.token\.maxAttempts/,
    );
    expect(thrownMessage(() => applyLimitOverrides(stage(), { OTP_SEND_IP_MAX: '101' }))).toMatch(
      /OTP_SEND_IP_MAX=101[\s\S]*limits\.sendPerIp\.maxSends/,
    );
  });
});

describe('configFileWithOverrides: the stage file the local handlers read', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'limit-overrides-'));
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it('is the stage file itself when no override is set, and writes nothing', () => {
    expect(configFileWithOverrides(LOCAL_FILE, { PATH: '/bin', TOKEN_MAX_ATTEMPTS: '' }, directory)).toBe(LOCAL_FILE);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('is a copy with the overrides applied, which the functions load as they are (the Lambda path reads no variable)', () => {
    // Act
    const file = configFileWithOverrides(LOCAL_FILE, { TOKEN_MAX_ATTEMPTS: '2', OTP_SEND_IP_MAX: '3' }, directory);

    // Assert
    expect(file.startsWith(directory)).toBe(true);
    const loaded = loadServiceConfig({ IDP_CONFIG_FILE: file }).stage;
    expect(loaded).toEqual(applyLimitOverrides(parseStageConfig(readLocal()), { TOKEN_MAX_ATTEMPTS: '2', OTP_SEND_IP_MAX: '3' }));
    expect(loaded.environments[0]!.limits.token.maxAttempts).toBe(2);
    expect(loaded.environments[0]!.limits.sendPerIp.maxSends).toBe(3);
  });

  it('names the copy after its content: the same overrides share one file, other overrides get another', () => {
    const first = configFileWithOverrides(LOCAL_FILE, { TOKEN_MAX_ATTEMPTS: '2' }, directory);
    expect(configFileWithOverrides(LOCAL_FILE, { TOKEN_MAX_ATTEMPTS: '2' }, directory)).toBe(first);
    expect(configFileWithOverrides(LOCAL_FILE, { TOKEN_MAX_ATTEMPTS: '3' }, directory)).not.toBe(first);
    expect(readdirSync(directory)).toHaveLength(2);
  });

  it('refuses an invalid override before writing anything', () => {
    expect(() => configFileWithOverrides(LOCAL_FILE, { OTP_SEND_MAX: '0' }, directory)).toThrow('✖ OTP_SEND_MAX: a positive integer');
    expect(readdirSync(directory)).toEqual([]);
  });
});

it('overridesIn lists the overrides set, for the line npm start prints', () => {
  expect(overridesIn({ OTP_SEND_IP_MAX: '2', TOKEN_MAX_ATTEMPTS: '3', TOKEN_BLOCK_SECONDS: '', PATH: '/bin' })).toEqual([
    'TOKEN_MAX_ATTEMPTS=3',
    'OTP_SEND_IP_MAX=2',
  ]);
});
