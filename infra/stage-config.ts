/**
 * A stage file as the CDK stack reads it: the functions' schema (lib/platform/config.ts) with the whole
 * `deployment` section validated, which only the stack uses. It lives here, not in lib/, so that no
 * function bundle carries it (a test reads the bundles' metafiles). `npm run config-schema` writes
 * its JSON Schema to config/stage.schema.json, which every stage file names as `$schema`, so
 * editors complete and check them.
 */
import '../lib/platform/zod';
import * as z from 'zod/mini';
import { checkStageReferences, corsSchema, emailAddress, int, stageFields } from '../lib/platform/config';
import { isEmailAddress } from '../lib/platform/email-address';

/** The retention periods CloudWatch Logs accepts, in days. */
const LOG_RETENTION_DAYS: readonly number[] = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
];
const DNS_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const hostname = () => z.string().check(z.regex(DNS_NAME, 'a lower-case DNS name'));

/**
 * Deployment-only settings, read by the CDK stack. Every field has a default, so a stage file may
 * omit any of them (config/local.json gives only `cors`, which the local runtime reads too).
 */
export const deploymentSchema = z.strictObject({
  /** AWS account (12 digits) the stage must be deployed to; absent: the CLI's. Pin it for production so wrong credentials fail. */
  account: z.optional(z.string().check(z.regex(/^\d{12}$/, 'a 12-digit AWS account id'))),
  /** AWS region of the stage; absent: the CLI's. */
  region: z.optional(z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as eu-west-1'))),
  /**
   * `retain`: the table (with deletion protection), the secrets and created SES identities survive
   * `cdk destroy` (production). `destroy`: they go with the stack (throw-away stages).
   */
  removalPolicy: z._default(z.enum(['retain', 'destroy']), 'retain'),
  /** Retention of every log group the stack creates (functions, API access and execution logs), in days. */
  logRetentionDays: z._default(
    z.int().check(z.refine((days) => LOG_RETENTION_DAYS.includes(days), `one of ${LOG_RETENTION_DAYS.join(', ')}`)),
    30,
  ),
  /** Level of the functions' logs (POWERTOOLS_LOG_LEVEL and Lambda's application log level). */
  logLevel: z._default(z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']), 'INFO'),
  /** Memory of each API function in MB; Lambda allots CPU in proportion (why 512: docs/decisions/002-bundling.md). */
  functionMemoryMb: z._default(int(128, 10_240), 512),
  /** API Gateway stage throttling: one token bucket for every route and caller together; beyond it, 429. */
  throttling: z.prefault(
    z.strictObject({
      /** Steady requests per second. */
      rateLimit: z._default(int(1, 10_000), 50),
      /** Requests allowed in a burst above the steady rate. */
      burstLimit: z._default(int(1, 5_000), 100),
    }),
    {},
  ),
  /** CORS for browser clients (the one part of this section the functions read: lib/platform/config.ts). */
  cors: corsSchema,
  /** An AWS WAF web ACL on the API stage; absent: none. */
  waf: z.optional(
    z.strictObject({
      /**
       * Per-IP rate limits, each on one API path (and, with `method`, only that method's requests):
       * at most `limit` requests per IP in the evaluation window, then 429. The default covers both
       * ways to have a code sent: otp/send, and the hosted login page's form posts (each sends a
       * code or checks one; its GET costs no DynamoDB request and sends nothing).
       */
      perIpRateLimits: z._default(
        z.array(
          z.strictObject({
            path: z.string().check(z.regex(/^\//)),
            method: z.optional(z.enum(['GET', 'POST'])),
            limit: int(10, 2_000_000_000),
          }),
        ),
        [
          { path: '/idp/v1/otp/send', limit: 100 },
          { path: '/idp/v1/account/authorize', method: 'POST', limit: 100 },
        ],
      ),
      /** The window the rate limits count over, in seconds (WAF offers these four). */
      evaluationWindowSeconds: z._default(z.literal([60, 120, 300, 600]), 300),
      /** Also block addresses on AWS's IP reputation list (the managed rule group AWSManagedRulesAmazonIpReputationList). */
      ipReputationList: z._default(z.boolean(), true),
    }),
  ),
  /**
   * A custom domain for the API (a REGIONAL endpoint, mapped at its root); any stage may have one.
   * The issuer becomes `https://<domainName>` when `issuer` is absent: no path, so every metadata
   * location a client may try is served (docs/deploy.md, "Custom domain"). Turning it on for a
   * running stage changes the issuer: tokens already issued stop verifying, and consumers must
   * take the new one.
   */
  customDomain: z.optional(
    z.strictObject({
      /** The host name clients use, e.g. `id.example.com`. */
      domainName: hostname(),
      /** An ACM certificate for the domain, in the stage's region (synthesis checks it when `region` is set). */
      certificateArn: z.string().check(z.regex(/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]+$/, 'an ACM certificate ARN')),
      /** A Route 53 public hosted zone to create the alias record in; absent: create the DNS record yourself. */
      hostedZone: z.optional(z.strictObject({ id: z.string().check(z.regex(/^Z[A-Z0-9]+$/)), name: hostname() })),
    }),
  ),
  /**
   * SES identities (domains or addresses) that cover every environment's sender, each created by the
   * stack or referenced (verified outside it). Empty: each sender's domain, referenced. The
   * functions may send only from these identities.
   */
  emailIdentities: z._default(
    z.array(
      z.strictObject({
        /** A domain (`example.com`) or an address (`no-reply@example.com`). */
        identity: z.string().check(z.refine((value) => DNS_NAME.test(value) || isEmailAddress(value), 'a domain or an email address')),
        /** Create it in this stack (an address gets a verification mail; a domain needs the DKIM records of the stack's outputs). */
        create: z._default(z.boolean(), false),
      }),
    ),
    [],
  ),
  /**
   * Account-wide SNS SMS settings, applied by the stack (SetSMSAttributes) when present. They are
   * shared by every stack in the account and region: set them from one stage only.
   */
  smsAccountSettings: z.optional(
    z.strictObject({
      /** Monthly SMS spend cap in USD: a brake on SMS pumping fraud. Must not exceed the account's quota. */
      monthlySpendLimitUsd: z.optional(int(1, 1_000_000)),
    }),
  ),
  /** Where alarms go, and the thresholds that are a matter of traffic (per 5 minutes). */
  alarms: z.prefault(
    z.strictObject({
      /** An address subscribed to the stack's alarm topic (it must confirm the subscription). */
      email: z.optional(emailAddress()),
      /** An existing SNS topic for alarms instead of the stack's own. */
      topicArn: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/, 'an SNS topic ARN'))),
      /** API 5xx responses that raise the alarm. */
      serverErrors: z._default(int(1, 100_000), 5),
      /** Failed deliveries (502 delivery_failed) that raise the alarm. */
      deliveryFailures: z._default(int(1, 100_000), 5),
      /** Attempts refused by the attempt limit (429) that raise the alarm: a surge is an attack or a broken client. */
      attemptsRefused: z._default(int(1, 1_000_000), 100),
      /** Users reaching the cap on consecutive failed exchanges that raise the alarm: each is someone guessing one user's codes. */
      failureCapsReached: z._default(int(1, 100_000), 1),
      /**
       * SMS and voice sends refused by the fraud guards (destination, per IP, per prefix, budget)
       * that raise the alarm: a surge is SMS pumping, or a guard set too tight for real traffic.
       */
      phoneSendsRefused: z._default(int(1, 1_000_000), 50),
    }),
    {},
  ),
  /**
   * Days between rotations of the JWT signing keys. Must exceed the longest access-token lifetime
   * plus the JWKS cache time (lib/keys/signing-keys.ts); the stack checks it.
   */
  signingKeyRotationDays: z._default(int(1, 365), 30),
  /**
   * Create API Gateway's account-level CloudWatch role (needed for its access and execution logs).
   * One per account and region: set false where another stack already manages it.
   */
  apiGatewayCloudWatchRole: z._default(z.boolean(), true),
});

/** A stage file as the stack validates it: every field of every section. */
export const deployableStageSchema = z
  .strictObject({ ...stageFields, deployment: z.prefault(deploymentSchema, {}) })
  .check(z.superRefine(checkStageReferences));

export type DeployableStageConfig = z.infer<typeof deployableStageSchema>;
export type DeploymentConfig = DeployableStageConfig['deployment'];

/** Parses and validates a stage file for the stack, throwing one readable message listing every problem. */
export function parseDeployableStage(raw: unknown, source = 'configuration'): DeployableStageConfig {
  const result = deployableStageSchema.safeParse(raw);
  if (!result.success) throw new Error(`Invalid ${source}:\n${z.prettifyError(result.error)}`);
  return result.data;
}
