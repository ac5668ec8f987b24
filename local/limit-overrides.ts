/**
 * The limit overrides, for experiments with `npm start` and for tests (README: the attempt limit,
 * the fraud guards): environment variables that shorten the stage file's limits in every
 * environment, e.g. `TOKEN_MAX_ATTEMPTS=2 npm start`.
 *
 * Only the local runtime applies them, when it builds the configuration the handlers read: it
 * writes the stage file with the overrides applied into `.local/config/` and points
 * IDP_CONFIG_FILE at it. The functions' own code (lib/platform/config.ts, lib/platform/env.ts) never reads these
 * variables, so a deployed function cannot be made to honour them, whoever sets them on it: a
 * deployed stage takes its limits from its stage file alone, which is reviewed like code.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import '../lib/platform/zod';
import * as z from 'zod/mini';
import { parseStageConfig, type LimitConfig, type SendWindowConfig, type StageConfig } from '../lib/platform/config';

/** Each overridable limit, by the variable that sets it. */
const LIMIT_OVERRIDES = {
  token: { maxAttempts: 'TOKEN_MAX_ATTEMPTS', windowSeconds: 'TOKEN_WINDOW_SECONDS', blockSeconds: 'TOKEN_BLOCK_SECONDS' },
  send: { maxAttempts: 'OTP_SEND_MAX', windowSeconds: 'OTP_SEND_WINDOW_SECONDS', blockSeconds: 'OTP_SEND_BLOCK_SECONDS' },
  // Locally every request comes from a loopback address, so the per-IP guard is the one to shorten.
  sendPerIp: { maxSends: 'OTP_SEND_IP_MAX', windowSeconds: 'OTP_SEND_IP_WINDOW_SECONDS' },
} as const satisfies {
  token: Record<keyof LimitConfig, string>;
  send: Record<keyof LimitConfig, string>;
  sendPerIp: Record<keyof SendWindowConfig, string>;
};
type OverriddenLimit = keyof typeof LIMIT_OVERRIDES;

/** Every variable the local runtime reads as a limit override. */
export const LIMIT_OVERRIDE_VARIABLES = Object.values(LIMIT_OVERRIDES).flatMap((fields) => Object.values(fields) as string[]);

/** A positive integer of at most six digits; set but empty counts as unset (a shell `X=`). */
const overrideSchema = z.object(
  Object.fromEntries(
    LIMIT_OVERRIDE_VARIABLES.map((variable) => [
      variable,
      z.optional(z.string().check(z.regex(/^([1-9][0-9]{0,5})?$/, 'a positive integer'))),
    ]),
  ),
);

/**
 * Applies the TOKEN_*, OTP_SEND_* and OTP_SEND_IP_* variables of `env` on top of the stage's
 * limits, in every environment, and validates the result as a stage file. Returns `config` itself
 * when none is set. An invalid value is named, never quoted (as lib/platform/env.ts reads variables).
 * @example applyLimitOverrides(stage, { TOKEN_MAX_ATTEMPTS: '2' })
 */
export function applyLimitOverrides(config: StageConfig, env: Readonly<Record<string, string | undefined>>): StageConfig {
  const parsed = overrideSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `✖ ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid environment:\n${problems.join('\n')}`);
  }
  const overrides: Partial<Record<OverriddenLimit, Record<string, number>>> = {};
  const applied: string[] = [];
  for (const limit of Object.keys(LIMIT_OVERRIDES) as OverriddenLimit[]) {
    for (const [field, variable] of Object.entries(LIMIT_OVERRIDES[limit])) {
      const raw = parsed.data[variable];
      if (raw === undefined || raw === '') continue;
      overrides[limit] = { ...overrides[limit], [field]: Number(raw) };
      applied.push(`${variable}=${raw}`);
    }
  }
  if (applied.length === 0) return config;
  return parseStageConfig(
    {
      ...config,
      environments: config.environments.map((environment) => ({
        ...environment,
        limits: {
          ...environment.limits,
          token: { ...environment.limits.token, ...overrides.token },
          send: { ...environment.limits.send, ...overrides.send },
          sendPerIp: { ...environment.limits.sendPerIp, ...overrides.sendPerIp },
        },
      })),
    },
    `configuration after the limit overrides ${applied.join(', ')}`,
  );
}

/**
 * The stage file the local handlers should read: `stageFile` itself when `env` sets no override,
 * else a copy with the overrides applied, written into `directory`. The copy is named after its
 * content, so two local runs with the same overrides share one file and never overwrite another's.
 */
export function configFileWithOverrides(stageFile: string, env: Readonly<Record<string, string | undefined>>, directory: string): string {
  const stage = parseStageConfig(JSON.parse(readFileSync(stageFile, 'utf8')), stageFile);
  const overridden = applyLimitOverrides(stage, env);
  if (overridden === stage) return stageFile;
  const text = `${JSON.stringify(overridden, null, 2)}\n`;
  const file = join(directory, `${basename(stageFile, '.json')}-${createHash('sha256').update(text).digest('hex').slice(0, 12)}.json`);
  mkdirSync(directory, { recursive: true });
  // Written beside and renamed: another process may be reading the same name.
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, text);
  renameSync(partial, file);
  return file;
}

/** The overrides `env` sets, as `NAME=value`, for a line telling the person who set them. */
export function overridesIn(env: Readonly<Record<string, string | undefined>>): string[] {
  return LIMIT_OVERRIDE_VARIABLES.flatMap((variable) => {
    const value = env[variable];
    return value === undefined || value === '' ? [] : [`${variable}=${value}`];
  });
}
