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
/** A secret's complete ARN (with the six characters Secrets Manager appends), as IAM policies need it. */
const secretArn = () =>
  z
    .string()
    .check(
      z.regex(
        /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$/,
        "a secret's complete ARN (…:secret:<name>-<6 characters>)",
      ),
    );

/** Where one severity's alarms go: an address subscribed to a topic of the stack, or an existing topic. */
const alarmTarget = () =>
  z.strictObject({
    /** An address subscribed to the severity's topic (it must confirm the subscription). */
    email: z.optional(emailAddress()),
    /** An existing SNS topic instead of the stack's own (a pager integration's, for `page`). */
    topicArn: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/, 'an SNS topic ARN'))),
  });

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
  /**
   * API Gateway throttling; beyond it, 429. API Gateway keeps one token bucket per method of the
   * stage (not one for the whole stage): `rateLimit`/`burstLimit` are each method's unless `routes`
   * gives the method its own. Sizing: docs/operations/capacity.md.
   */
  throttling: z.prefault(
    z.strictObject({
      /** Steady requests per second, of each method without its own entry in `routes`. */
      rateLimit: z._default(int(1, 10_000), 50),
      /** Requests allowed in a burst above the steady rate, of each such method. */
      burstLimit: z._default(int(1, 5_000), 100),
      /**
       * Per-route limits, keyed `"<METHOD> <path>"` (`"POST /idp/v1/otp/send"`): a method the route
       * answers (lib/platform/routes.ts; the stack checks it). Each becomes a method setting of the stage.
       */
      routes: z._default(
        z.record(
          z.string().check(z.regex(/^(GET|POST) \/\S*$/, '"<METHOD> <path>", e.g. "POST /idp/v1/otp/send"')),
          z.strictObject({ rateLimit: int(1, 10_000), burstLimit: int(1, 5_000) }),
        ),
        {},
      ),
    }),
    {},
  ),
  /**
   * Reserved concurrency by API function name (lib/platform/routes.ts FUNCTIONS): both a floor no
   * other function can take from it and a ceiling it cannot pass. Absent: the account's shared
   * pool. Lambda keeps 100 of the account's quota unreserved; the stack checks the sum against
   * `alarms.accountConcurrencyLimit` (docs/operations/capacity.md).
   */
  reservedConcurrency: z._default(z.record(z.string(), int(1, 10_000)), {}),
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
      /**
       * Monthly SMS spend cap in USD: a brake on SMS pumping fraud. At most `grantedSpendQuotaUsd`:
       * SNS refuses a higher one, which fails the deployment (synthesis checks it).
       */
      monthlySpendLimitUsd: z.optional(int(1, 1_000_000)),
      /**
       * The account's SMS spend quota in USD, as AWS has granted it (a new account has 1; raise it
       * with a quota increase case: docs/operations/capacity.md). Only a statement: the stack cannot
       * read it offline, so synthesis trusts this figure.
       */
      grantedSpendQuotaUsd: z._default(int(1, 1_000_000), 1),
    }),
  ),
  /**
   * Where alarms go, by severity, and the thresholds that are a matter of traffic (per 5 minutes
   * unless said otherwise). docs/operations/alarms.md says which alarm has which severity.
   */
  alarms: z.prefault(
    z.strictObject({
      /** `page`: users are failing now, or money or the sending reputation is being lost: someone acts within minutes. */
      page: z._default(alarmTarget(), {}),
      /** `ticket`: worth a look within a working day (abuse held off by the limits, a slow drift, a stuck rotation). */
      ticket: z._default(alarmTarget(), {}),
      /** Requests in 5 minutes below which the API's error rates do not alarm (a few requests make a noisy percentage). */
      minimumRequests: z._default(int(1, 1_000_000), 50),
      /** Percent of the API's requests answered 5xx that pages. */
      serverErrorPercent: z._default(int(1, 100), 2),
      /** Percent of the API's requests answered 4xx (429s included) that raises a ticket: a client broken by a change, or abuse. */
      clientErrorPercent: z._default(int(1, 100), 40),
      /** Percent of the API's requests answered 429 (stage throttling or the attempt limit) that raises a ticket: capacity, or a flood. */
      throttledPercent: z._default(int(1, 100), 5),
      /** Percent of deliveries (codes handed to SES/SNS/voice) refused or failed that pages. */
      deliveryFailurePercent: z._default(int(1, 100), 10),
      /** Percent of SMS that SNS failed to deliver that pages (AWS/SNS, direct publishes to phone numbers). */
      smsFailurePercent: z._default(int(1, 100), 20),
      /** A function's p99 duration, in milliseconds, that raises a ticket (and rolls back a deployment). */
      latencyP99Ms: z._default(int(50, 60_000), 3000),
      /** The account's Lambda concurrency quota in the stage's region (1,000 unless raised: Lambda quotas). */
      accountConcurrencyLimit: z._default(int(10, 1_000_000), 1000),
      /** Percent of that quota in use that pages: every function of the account shares it. */
      accountConcurrencyPercent: z._default(int(1, 100), 80),
      /** Attempts refused by the attempt limit (429) that raise a ticket: a surge is an attack or a broken client. */
      attemptsRefused: z._default(int(1, 1_000_000), 100),
      /** Users reaching the cap on consecutive failed exchanges that raise a ticket: each is someone guessing one user's codes. */
      failureCapsReached: z._default(int(1, 100_000), 1),
      /**
       * SMS and voice sends refused by the fraud guards (destination, per IP, per prefix, budget)
       * that raise a ticket: a surge is SMS pumping, or a guard set too tight for real traffic.
       */
      phoneSendsRefused: z._default(int(1, 1_000_000), 50),
      /**
       * A monthly cost budget for the account (AWS Budgets), in USD: a ticket at 80% of it spent and
       * when the month's forecast exceeds it. Absent: no budget.
       */
      monthlyBudgetUsd: z.optional(int(1, 10_000_000)),
    }),
    {},
  ),
  /**
   * How a new version of each API function takes its traffic (infra/deploy-safety.ts): CodeDeploy
   * shifts the function's `live` alias, and rolls it back when the deployment fails or one of the
   * function's alarms goes off meanwhile. `canary`: `percent` of the traffic for `intervalMinutes`,
   * then the rest; `linear`: `percent` more every `intervalMinutes`; `all-at-once`: no wait (a
   * throw-away stage), still rolled back by an alarm that is already raised.
   */
  deploy: z.prefault(
    z.strictObject({
      strategy: z._default(z.enum(['canary', 'linear', 'all-at-once']), 'canary'),
      /** The share of traffic the new version takes first (canary) or at each step (linear). */
      percent: z._default(int(1, 99), 10),
      /** Minutes between the shifts: long enough for the alarms (5-minute periods) to see the new version. */
      intervalMinutes: z._default(int(1, 60), 5),
    }),
    {},
  ),
  /**
   * Days between rotations of the JWT signing keys. Must exceed the longest access-token lifetime
   * plus the JWKS cache time (lib/keys/signing-keys.ts); the stack checks it.
   */
  signingKeyRotationDays: z._default(int(1, 365), 30),
  /**
   * AWS X-Ray tracing: API Gateway's stage and every function (active tracing), each AWS call a
   * subsegment. On by default (what a go-live review asks for; AWS Control Tower's
   * CT.APIGATEWAY.PR.2). Its price, measured in docs/performance.md ("Tracing"): the X-Ray SDK in
   * every bundle (+124 KB, about +65 ms of CPU per cold start), CPU on every request, sampled or
   * not (the SDK's context tracking hooks every promise), and X-Ray's charges per recorded trace.
   * Off, the bundles carry no X-Ray code at all and none of it is paid.
   */
  tracing: z._default(z.boolean(), true),
  /**
   * Backups and the second region (infra/recovery.ts, docs/operations/disaster-recovery.md). A
   * prod-like stage (`removalPolicy` `retain`) gets an AWS Backup plan for its table: a recovery
   * point every hour, kept `hourlyRetentionDays`, and one a day, kept `dailyRetentionDays`. With
   * `region`, every recovery point is also copied to a vault there (stack `Identity-<stage>-recovery`,
   * deployed first) and the three secrets are replicated there: what a restore needs outlives the
   * stage's region.
   */
  recovery: z.prefault(
    z.strictObject({
      /** The second region, e.g. eu-central-1; absent: backups stay in the stage's region and the secrets have no replica. */
      region: z.optional(z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as eu-central-1'))),
      /** Days the hourly recovery points are kept, in both regions: they bound what a region's loss costs to about an hour. */
      hourlyRetentionDays: z._default(int(1, 35), 2),
      /** Days the daily recovery points are kept, in both regions (point-in-time recovery covers 35 days in the stage's region as well). */
      dailyRetentionDays: z._default(int(7, 3650), 35),
      /**
       * Build the stack around an existing table and secrets instead of creating them: the way back
       * after a region's loss, once the table is restored from a copy and the secret replicas are
       * promoted in this stage's region (docs/operations/disaster-recovery.md). Never on a running
       * stage: its own table and secrets would leave the stack (they are retained, not deleted).
       */
      adopt: z.optional(
        z.strictObject({
          /** The restored table (its TTL, point-in-time recovery and deletion protection turned on by hand). */
          tableName: z.string().check(z.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'a DynamoDB table name')),
          hmacSecretArn: secretArn(),
          signingKeysSecretArn: secretArn(),
          verificationKeysSecretArn: secretArn(),
        }),
      ),
    }),
    {},
  ),
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
