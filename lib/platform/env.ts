/**
 * The environment variables the functions read: one schema, parsed once per container (by
 * lib/deps/secrets.ts, and by the rotation function), failing fast with one message that lists every
 * problem. Nothing else in lib/ or functions/ reads `process.env` (Powertools reads its own
 * POWERTOOLS_* variables, and the AWS SDK its AWS_* ones).
 *
 * Which function needs which variable is derived from its declaration in lib/platform/routes.ts
 * (`variablesOf`), so the CDK stack sets exactly those and a test can check a function's
 * template environment against what its code reads.
 */
import './zod';
import * as z from 'zod/mini';
import type { FunctionSpec } from './routes';

/** Set but empty counts as unset (CloudFormation cannot unset a variable, and a shell `X=` is empty). */
const blankAsAbsent = <T extends z.ZodMiniType<unknown, string>>(inner: T) =>
  z.optional(
    z.pipe(
      z.pipe(
        z.string(),
        z.transform((value) => (value === '' ? undefined : value)),
      ),
      z.optional(inner),
    ),
  );
const text = () => blankAsAbsent(z.string());
/** An ARN of a Secrets Manager secret. */
const secretArn = () =>
  blankAsAbsent(z.string().check(z.regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+$/, 'a Secrets Manager secret ARN')));
/** A positive integer of at most six digits, as a string. */
const positive = () => z.string().check(z.regex(/^[1-9][0-9]{0,5}$/, 'a positive integer'));

const environmentSchema = z.object({
  /** The stage configuration file. Absent: `config.json` beside the handler (`LAMBDA_TASK_ROOT`). */
  IDP_CONFIG_FILE: text(),
  /** Set by Lambda: the folder the bundle (and its config.json) was unpacked to. */
  LAMBDA_TASK_ROOT: text(),
  /** The issuer URL (`iss`, and the base of the metadata URLs); absent: the stage file's, else the request's. */
  ISSUER: blankAsAbsent(z.url({ protocol: /^https?$/ })),
  /** The table, for the functions that use it. */
  TABLE_NAME: text(),
  /** The secrets, each only in the functions that may read it. */
  HMAC_SECRET_ARN: secretArn(),
  SIGNING_KEYS_SECRET_ARN: secretArn(),
  VERIFICATION_KEYS_SECRET_ARN: secretArn(),
  /**
   * The back-channel logout queue (an SQS queue URL), for the functions that end sessions and queue
   * logout tokens (lib/deps/logout-notifier.ts); set by the stack with the grant to send to it
   * (infra/backchannel.ts). Absent locally: the local runtime delivers in process.
   */
  LOGOUT_QUEUE_URL: blankAsAbsent(z.url({ protocol: /^https?$/ })),
  /** The audit forwarder's EventBridge bus and its events' `source`, `identity.<stage>` (infra/audit.ts). */
  AUDIT_EVENT_BUS_NAME: text(),
  AUDIT_EVENT_SOURCE: text(),
  /** Locally: a folder of secret files instead of Secrets Manager (the local runtime and tests). */
  LOCAL_SECRETS_DIR: text(),
  /**
   * How long a container keeps a secret before reading it again, in seconds (default 300), so a
   * rotated or revoked key stops being used within that time without recycling any function.
   */
  SECRETS_MAX_AGE_SECONDS: z._default(
    z.pipe(
      blankAsAbsent(positive()),
      z.transform((value) => (value === undefined ? 300 : Number(value))),
    ),
    300,
  ),
});

export type ServiceEnvironment = z.infer<typeof environmentSchema>;
export type EnvironmentVariable = keyof ServiceEnvironment;

/** Every variable the schema knows. */
export const ENVIRONMENT_VARIABLES = Object.keys(environmentSchema.shape) as EnvironmentVariable[];

/**
 * Parses the environment, throwing one readable message that lists every problem (a variable's
 * value is never quoted: an ARN is harmless, but the rule is simpler without exceptions).
 * @example readEnvironment({ TABLE_NAME: 'identity', ISSUER: 'https://id.example.com' })
 */
export function readEnvironment(env: Record<string, string | undefined> = process.env): ServiceEnvironment {
  const result = environmentSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid environment:\n${problems.map((problem) => `✖ ${problem}`).join('\n')}`);
  }
  return result.data;
}

/** A variable the caller cannot do without. */
export function required<K extends EnvironmentVariable>(env: ServiceEnvironment, name: K): NonNullable<ServiceEnvironment[K]> {
  const value = env[name];
  if (value === undefined) throw new Error(`Missing environment variable ${name}`);
  return value;
}

/**
 * The variables a deployed API function needs, from its declaration: the issuer always, the table
 * if it uses one, and the ARN of each secret it may read. The CDK stack sets exactly these.
 */
export function variablesOf(spec: Pick<FunctionSpec, 'table' | 'secrets' | 'queues'>): EnvironmentVariable[] {
  const variables: EnvironmentVariable[] = ['ISSUER'];
  if (spec.table.length > 0) variables.push('TABLE_NAME');
  if (spec.secrets.includes('hmac')) variables.push('HMAC_SECRET_ARN');
  if (spec.secrets.includes('signingKeys')) variables.push('SIGNING_KEYS_SECRET_ARN');
  if (spec.secrets.includes('verificationKeys')) variables.push('VERIFICATION_KEYS_SECRET_ARN');
  if (spec.queues?.includes('logout') === true) variables.push('LOGOUT_QUEUE_URL');
  return variables;
}
