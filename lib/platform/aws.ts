/**
 * What every AWS client of the service is allowed: its attempts and timeouts, the time a call may
 * take at worst, and where it points (only local stand-ins set anything). Platform, not adapter:
 * the Lambda files size their deadlines from these (`FINISH_SEND_BUDGET_MS`) as the adapters
 * build their clients from them. What an SDK failure means is the adapters' own
 * (lib/adapters/aws-failures.ts).
 */
import type { AwsCredentialIdentity } from '@aws-sdk/types';

/**
 * Every AWS client's timeouts and retries, and why one API request fits in its function's timeout.
 *
 * How the SDK bounds a call (`@smithy/node-http-handler` 4.14, `NodeHttpHandler.handle`):
 * - `connectionTimeout`: the TCP connection (name lookup included) must be up within it;
 * - `requestTimeout`: the answer's headers must arrive within it, counted from the start of the
 *   attempt (connecting included). Without `throwOnRequestTimeout: true` it only logs a warning
 *   and the request waits on, which is how a DynamoDB that accepts connections and never answers
 *   held requests until the Lambda timed out;
 * - `socketTimeout`: an answer whose body stalls (no byte for that long) fails too; left unset,
 *   the clients fall back to a 300 s default;
 * - `maxAttempts`: the first try and its retries. The standard retry strategy waits at most
 *   50 ms before a retry after a timeout or a dropped connection, at most 1 s after throttling
 *   (doubling for later retries, `@smithy/core` retry `DefaultRetryBackoffStrategy`).
 *
 * One call lasts at most `callBudgetMs(settings)`: every attempt runs into both timeouts, with the
 * longest backoff between them (the connection timeout is in fact inside the request timeout, so
 * this over-counts it, on purpose). With the values below:
 *
 *   DynamoDB          2 × (0.25 s + 1 s) + 1 s = 3.5 s
 *   Secrets Manager   2 × (0.5 s + 1 s) + 1 s  = 4 s
 *   delivery          1 × (1 s + 3 s)          = 4 s
 *
 * The longest request is `otp/send` whose delivery fails, on a cold container: the HMAC secret
 * (1 Secrets Manager call), the attempt (1 DynamoDB write), for SMS and voice the fraud guards'
 * counters (2 windows, and a lease of the day's budget when the container's is spent: 3 writes,
 * at a day's end a few more for spent budget shards), then the code, the
 * delivery and the write that restores the previous code, one after another
 * (lib/otp/issue.ts). Those last three are what must never be cut short (a stored code
 * must get its delivery, and a failed one its restore): at most 3.5 + 4 + 3.5 = 11 s
 * (`FINISH_SEND_BUDGET_MS`), and a send stores its code only while that much time (and the
 * handler's margin) is left, or answers 503 having stored nothing. Everything before it is then
 * bounded by the function's timeout, whatever it adds up to: email 4 + 3.5 = 7.5 s, which always
 * leaves 11.5 s of the API functions' 20 s (lib/platform/routes.ts `API_TIMEOUT_SECONDS`, itself inside API
 * Gateway's 29 s); SMS 4 + 4 × 3.5 = 18 s (14.5 s when the lease pays), which would not, and is
 * answered 503 instead. The token
 * endpoint's worst is 2 secrets (the HMAC secret and the signing keys) and 2 writes, or 1 secret
 * and 3 writes (lib/otp/verify.ts): at most 2 × 4 + 2 × 3.5 = 15 s; one that fails
 * after its guess abandons the presentation (1 write more: 1 secret and the attempt, the guess,
 * the abandon, 14.5 s). A send whose save fails cancels it and puts the held code back (the
 * cancel and the restore, 7 s after the save's 3.5 s, within the 11 s; a save that landed twice
 * adds a mark, which the handler's early timeout may cut short: docs/security.md).
 * test/unit/adapters/client-settings.test.ts checks these sums.
 *
 * Not counted: the SDK lets a `Retry-After` header on a throttled answer stretch the backoff by up
 * to 5 s. A throttled answer comes fast, so such a call still ends within about 7 s, and the real
 * bounds are well below the sums (a call to a server that never answers ends after 2.05 s for
 * DynamoDB and Secrets Manager, 3 s for delivery).
 */

/** The shape every client's settings share, so `callBudgetMs` reads them all the same way. */
export interface ClientLimits {
  readonly maxAttempts: number;
  readonly requestHandler: {
    readonly connectionTimeout: number;
    readonly requestTimeout: number;
    readonly socketTimeout: number;
    readonly throwOnRequestTimeout: true;
  };
}

/**
 * DynamoDB answers a single-item read or write in single-digit milliseconds: a second without an
 * answer means it is unreachable or in trouble, and the caller is better served by a 503 with
 * Retry-After than by a longer wait. The retry covers one dropped connection or throttled write.
 */
export const DYNAMODB_CLIENT_SETTINGS: ClientLimits = clientLimits({ maxAttempts: 2, connectionTimeout: 250, requestTimeout: 1000 });

/**
 * `GetSecretValue` answers in tens of milliseconds; it runs once per secret per container and max age
 * (the values are cached, lib/deps/secrets.ts), so a slow or failed read costs one request a 503, not all.
 * The rotation function uses the same limits: its calls are idempotent and Secrets Manager
 * retries a failed rotation step.
 */
export const SECRETS_MANAGER_CLIENT_SETTINGS: ClientLimits = clientLimits({ maxAttempts: 2, connectionTimeout: 500, requestTimeout: 1000 });

/**
 * The delivery clients (SES, SNS, SMS-voice): a provider that has not answered in 3 s is a 502 the
 * user can retry. One attempt only: once the request is on the wire, neither a timeout nor a
 * dropped connection says whether the provider accepted it, and a retry could call or text the
 * user twice and double the wait. A connection that could not even be opened is not retried
 * either; the user's retry is a new send with a new code, and the failed one's code never works
 * (lib/otp/issue.ts restores the previous one).
 */
export const DELIVERY_CLIENT_SETTINGS: ClientLimits = clientLimits({ maxAttempts: 1, connectionTimeout: 1000, requestTimeout: 3000 });

/**
 * SQS (`SendMessageBatch` of the back-channel logout notices, lib/adapters/sqs/logout-queue.ts):
 * answers in tens of milliseconds, like DynamoDB, and gets DynamoDB's limits (3.5 s a call). A
 * retry after a timeout may queue a notice twice: its relying party then gets two logout tokens
 * for one session, which §2.7 of Back-Channel Logout makes harmless (a session logged out twice).
 */
export const QUEUE_CLIENT_SETTINGS: ClientLimits = clientLimits({ maxAttempts: 2, connectionTimeout: 250, requestTimeout: 1000 });

/** The backoff before retry `n` (0 for the first) is at most this many ms (throttling's base, doubled per retry). */
const MAX_BACKOFF_MS = (retry: number): number => Math.min(1000 * 2 ** retry, 20_000);

/**
 * The longest one SDK call can last with these settings, in ms: every attempt runs into both
 * timeouts, with the longest backoff before each retry.
 * @example callBudgetMs(DYNAMODB_CLIENT_SETTINGS) // 3500
 */
export function callBudgetMs(settings: ClientLimits): number {
  const { maxAttempts, requestHandler } = settings;
  let backoff = 0;
  for (let retry = 0; retry < maxAttempts - 1; retry += 1) backoff += MAX_BACKOFF_MS(retry);
  return maxAttempts * (requestHandler.connectionTimeout + requestHandler.requestTimeout) + backoff;
}

/**
 * The longest the end of a send can take once its code is stored: the write that stores it, the
 * delivery, and the write that puts the previous code back when the delivery fails (11 s).
 */
export const FINISH_SEND_BUDGET_MS = 2 * callBudgetMs(DYNAMODB_CLIENT_SETTINGS) + callBudgetMs(DELIVERY_CLIENT_SETTINGS);

function clientLimits(limits: { maxAttempts: number; connectionTimeout: number; requestTimeout: number }): ClientLimits {
  return Object.freeze({
    maxAttempts: limits.maxAttempts,
    // Handler options, not a handler instance: each client builds its own handler and connection
    // pool from them (RenewableClient destroys a replaced client's pool).
    requestHandler: Object.freeze({
      connectionTimeout: limits.connectionTimeout,
      requestTimeout: limits.requestTimeout,
      socketTimeout: limits.requestTimeout,
      throwOnRequestTimeout: true as const,
    }),
  });
}

/** Where an SDK client goes. All undefined on AWS, where the SDK resolves everything itself. */
export interface AwsClientOptions {
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
  readonly credentials?: AwsCredentialIdentity | undefined;
}

/** The options with the undefined ones left out, as the SDK clients' configs want them. */
export function clientConfig(options: AwsClientOptions): { endpoint?: string; region?: string; credentials?: AwsCredentialIdentity } {
  return {
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
  };
}
