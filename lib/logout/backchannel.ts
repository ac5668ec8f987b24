/**
 * Back-channel logout delivery (OpenID Connect Back-Channel Logout 1.0 §2.5, §2.8): one notice,
 * one POST of a fresh logout token to the client's back-channel logout URI, and what to do when
 * the relying party does not take it.
 *
 * `deliverLogout` is one attempt. It runs off the user's request, always: on AWS in the
 * `backchannel-logout` function, which an SQS queue feeds (infra/backchannel.ts), locally in
 * `LocalLogoutQueue` below. Both give a notice `BACKCHANNEL_MAX_ATTEMPTS` attempts and then keep it
 * as a dead letter (the queue's dead-letter queue, and its alarm; the local queue's list), so a
 * relying party that is down for a while still gets its logout, and one that never answers costs
 * a bounded number of requests.
 *
 * The attempt, step by step:
 * 1. the client, from the configuration as it is now: a client removed, or whose back-channel
 *    logout URI was removed, since the session ended gets nothing (logged, not retried);
 * 2. a logout token signed now (lib/logout/logout-tokens.ts): each attempt its own, with its own
 *    `iat`, `exp` and `jti`, so a retry minutes later is not refused as expired;
 * 3. POST `logout_token=…` as application/x-www-form-urlencoded (§2.5), redirects not followed (a
 *    3xx is not a logout, and the token goes only where the client registered), within the timeout;
 * 4. 200 or 204 is done (§2.8: 200, and some frameworks answer 204); anything else, no answer or
 *    no answer in time throws `LogoutDeliveryError`, so the caller tries again.
 *
 * Never logged: the token, the URI (the client id names it).
 */
import type { ServiceConfig } from '../platform/config';
import { BACKCHANNEL_LOG_EVENTS } from '../platform/log-events';
import type { Clock, Log, LogFields } from '../platform/ports';
import type { SigningKeys } from '../keys/signing-keys';
import { signLogoutToken } from './logout-tokens';
import type { LogoutNotice, LogoutNotifier } from './ports';

/**
 * How many times a notice is tried before it is dead-lettered: the SQS dead-letter queue's
 * `maxReceiveCount` (infra/backchannel.ts) and the local queue's limit. With the queue's
 * visibility timeout (3 minutes) between attempts, five attempts span about 12 minutes on AWS.
 */
export const BACKCHANNEL_MAX_ATTEMPTS = 5;

/**
 * How long one POST may take, answer included, in ms. A relying party's logout is a session
 * lookup and a delete: 5 s is generous, and it bounds the function's run (a batch's notices are
 * delivered side by side: infra/backchannel.ts sizes the function's timeout from this).
 */
export const BACKCHANNEL_TIMEOUT_MS = 5000;

/** §2.8: "If the logout succeeded, the RP MUST respond with HTTP 200 OK", and some frameworks answer 204. */
const DELIVERED_STATUSES: readonly number[] = [200, 204];

export interface BackchannelDeps {
  readonly config: ServiceConfig;
  readonly signingKeys: () => Promise<SigningKeys>;
  readonly clock: Clock;
  readonly log: Log;
  /** The POST's timeout in ms (default `BACKCHANNEL_TIMEOUT_MS`; tests shorten it). */
  readonly timeoutMs?: number;
}

/** Why an attempt failed: the relying party's status, no connection or answer, the timeout, or our own error (a signing key not ready). */
export type DeliveryFailure = 'status' | 'network' | 'timeout' | 'error';

/** One failed attempt: thrown so that the queue tries the notice again. */
export class LogoutDeliveryError extends Error {
  constructor(
    readonly reason: DeliveryFailure,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(status === undefined ? `back-channel logout failed: ${reason}` : `back-channel logout failed: status ${status}`, options);
    this.name = 'LogoutDeliveryError';
  }
}

/** What an attempt that did not throw did: delivered, or skipped (no client or no URI any more: nothing to retry). */
export type DeliveryOutcome = 'delivered' | 'skipped';

/**
 * One delivery attempt of `notice` (the `attempt`th, 1-based, for the logs).
 * @example
 * await deliverLogout(deps, notice, 2); // 'delivered' or 'skipped', or throws LogoutDeliveryError
 */
export async function deliverLogout(deps: BackchannelDeps, notice: LogoutNotice, attempt = 1): Promise<DeliveryOutcome> {
  const fields: LogFields = { environment: notice.environmentId, client: notice.clientId, attempt };
  // 1. The client as configured now.
  const client = deps.config.client(notice.clientId);
  const uri = client?.backchannelLogoutUri;
  if (client === undefined || uri === undefined) {
    deps.log.info(BACKCHANNEL_LOG_EVENTS.skipped, { ...fields, reason: client === undefined ? 'unknown_client' : 'no_uri' });
    return 'skipped';
  }

  // 2. A token of this attempt's own.
  let token: string;
  try {
    token = await signLogoutToken(await deps.signingKeys(), client, notice, deps.clock.now());
  } catch (error) {
    deps.log.warn(BACKCHANNEL_LOG_EVENTS.failed, { ...fields, reason: 'error', detail: nameOf(error) });
    throw new LogoutDeliveryError('error', undefined, { cause: error });
  }

  // 3. The POST, within the timeout.
  let status: number;
  try {
    const response = await fetch(uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: token }).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.timeoutMs ?? BACKCHANNEL_TIMEOUT_MS),
    });
    status = response.status;
    // The answer's body says nothing we act on (§2.8 allows an error body on 400): release the connection.
    await response.body?.cancel().catch(() => undefined);
  } catch (error) {
    const reason = nameOf(error) === 'TimeoutError' ? 'timeout' : 'network';
    deps.log.warn(BACKCHANNEL_LOG_EVENTS.failed, {
      ...fields,
      reason,
      ...(reason === 'network' ? { detail: networkDetail(error) } : {}),
    });
    throw new LogoutDeliveryError(reason, undefined, { cause: error });
  }

  // 4. Delivered, or a failure to retry.
  if (!DELIVERED_STATUSES.includes(status)) {
    deps.log.warn(BACKCHANNEL_LOG_EVENTS.failed, { ...fields, reason: 'status', status });
    throw new LogoutDeliveryError('status', status);
  }
  deps.log.info(BACKCHANNEL_LOG_EVENTS.delivered, { ...fields, status });
  return 'delivered';
}

/** Logs that a notice's last attempt failed. Both queues call it, so the event means the same on AWS and locally. */
export function logDeadLetter(log: Log, notice: LogoutNotice, attempts: number): void {
  log.error(BACKCHANNEL_LOG_EVENTS.deadLettered, { environment: notice.environmentId, client: notice.clientId, attempts });
}

/** The error's name (a DOMException's too: AbortSignal.timeout rejects with a `TimeoutError`). */
function nameOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : 'unknown';
}

/** A network failure's code (`ECONNREFUSED`, `ECONNRESET`…): fetch wraps it as the `cause` of a "fetch failed" TypeError. */
function networkDetail(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? cause.code : nameOf(error);
}

/** Runs `run` after `delayMs`: timers in the local runtime, anything a test likes (so tests never wait for a backoff). */
export type Scheduler = (delayMs: number, run: () => void) => void;

/** The real scheduler: a timer that does not keep the process alive on its own. */
export const timerScheduler: Scheduler = (delayMs, run) => {
  setTimeout(run, delayMs).unref();
};

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` failed, locally: 1, 2, 4, 8 s, so
 * that a developer sees a dead letter within a quarter of a minute (on AWS the queue's visibility
 * timeout spaces the attempts instead).
 */
export function localBackoffMs(attempt: number): number {
  return 1000 * 2 ** (attempt - 1);
}

/** A notice whose last attempt failed, as the local queue keeps it. */
export interface DeadLetter {
  readonly notice: LogoutNotice;
  readonly attempts: number;
  /** The last attempt's failure: a reason, and the status when the relying party answered. */
  readonly reason: DeliveryFailure;
  readonly status?: number;
  /** When it was dead-lettered (ms, by the deps' clock). */
  readonly at: number;
}

/** The dead letters the local queue keeps at most (the oldest go first): a development aid, not a store. */
export const LOCAL_DEAD_LETTERS_KEPT = 100;

export interface LocalLogoutQueueOptions {
  /** When attempts run (default: timers). */
  readonly scheduler?: Scheduler;
  /** Attempts per notice (default `BACKCHANNEL_MAX_ATTEMPTS`, the AWS queue's). */
  readonly maxAttempts?: number;
  /** The wait after a failed attempt (default `localBackoffMs`). */
  readonly backoffMs?: (attempt: number) => number;
}

/**
 * The local runtime's queue: the same delivery as the AWS function, in this process. `notify`
 * returns as soon as the notices are handed to the scheduler, never waiting for a relying party,
 * as the SQS notifier returns once the queue has them. A failed attempt is tried again after a
 * backoff, up to `maxAttempts`; then the notice joins `deadLetters`.
 * @example
 * const queue = new LocalLogoutQueue(deps);
 * await queue.notify([notice]); // returns at once
 * await queue.settled(); // tests: every notice delivered, skipped or dead-lettered
 */
export class LocalLogoutQueue implements LogoutNotifier {
  private readonly scheduler: Scheduler;
  private readonly maxAttempts: number;
  private readonly backoffMs: (attempt: number) => number;
  private readonly dead: DeadLetter[] = [];
  /** Notices not yet delivered, skipped or dead-lettered (waiting for an attempt or in one). */
  private pending = 0;
  private idle: Array<() => void> = [];

  constructor(
    private readonly deps: BackchannelDeps,
    options: LocalLogoutQueueOptions = {},
  ) {
    this.scheduler = options.scheduler ?? timerScheduler;
    this.maxAttempts = options.maxAttempts ?? BACKCHANNEL_MAX_ATTEMPTS;
    this.backoffMs = options.backoffMs ?? localBackoffMs;
  }

  notify(notices: readonly LogoutNotice[]): Promise<void> {
    for (const notice of notices) {
      this.pending += 1;
      this.scheduler(0, () => void this.attempt(notice, 1));
    }
    return Promise.resolve();
  }

  /** The notices whose last attempt failed, oldest first (at most `LOCAL_DEAD_LETTERS_KEPT`). */
  get deadLetters(): readonly DeadLetter[] {
    return [...this.dead];
  }

  /** Resolves once no notice is waiting or being delivered (at once if none is). */
  settled(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private async attempt(notice: LogoutNotice, attempt: number): Promise<void> {
    try {
      await deliverLogout(this.deps, notice, attempt);
    } catch (error) {
      if (attempt < this.maxAttempts) {
        this.scheduler(this.backoffMs(attempt), () => void this.attempt(notice, attempt + 1));
        return;
      }
      const failure = error instanceof LogoutDeliveryError ? error : new LogoutDeliveryError('error', undefined, { cause: error });
      this.dead.push({
        notice,
        attempts: attempt,
        reason: failure.reason,
        ...(failure.status === undefined ? {} : { status: failure.status }),
        at: this.deps.clock.now(),
      });
      if (this.dead.length > LOCAL_DEAD_LETTERS_KEPT) this.dead.shift();
      logDeadLetter(this.deps.log, notice, attempt);
    }
    this.done();
  }

  private done(): void {
    this.pending -= 1;
    if (this.pending > 0) return;
    const waiting = this.idle;
    this.idle = [];
    for (const resolve of waiting) resolve();
  }
}
