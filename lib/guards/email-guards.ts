/**
 * The guard every email send passes that a client's own servers did not make (otp/send without
 * an API key, the hosted login page): at most N sends per source IP (an IPv6 /64) in a sliding
 * window, 429 with Retry-After beyond (docs/decisions/010-hosted-login-abuse.md). Email costs
 * nothing per message, but one source mailing many addresses is email bombing, and its bounces and
 * complaints get the SES account paused, which stops every email login. The per-recipient attempt
 * limit, first, bounds what one address receives; this bounds what one source sends.
 *
 * The window is the fraud guards' (lib/adapters/dynamodb/send-guards.ts), under a key of its own
 * (`guard#email_ip#…`), so email and SMS sends from one source are counted apart.
 *
 * One write, counted or refused (test/http/otp-send.test.ts counts a send's requests).
 */
import type { EnvironmentConfig } from '../platform/config';
import { TooManyRequestsError } from '../platform/errors';
import { LOG_EVENTS } from '../platform/log-events';
import type { Log } from '../platform/ports';
import type { SendGuards } from './ports';
import { guardKeyOf, logHandleOf, type HmacKeys } from '../keys/hmac-keys';
import { sourceNetworkOf } from './source-network';

export interface EmailGuardDeps {
  readonly guards: SendGuards;
  readonly log: Log;
}

export interface EmailSend {
  readonly environment: EnvironmentConfig;
  /** API Gateway's `requestContext.identity.sourceIp`. Personal data: never logged, never a key in clear. */
  readonly sourceIp: string | undefined;
  readonly keys: HmacKeys;
  readonly now: number;
}

/**
 * Counts the send into its source's window, or throws 429 (logged as `email send refused`).
 * @example await guardEmailSend(deps, { environment, sourceIp: '192.0.2.1', keys, now })
 */
export async function guardEmailSend(deps: EmailGuardDeps, send: EmailSend): Promise<void> {
  const { environment } = send;
  const sourceKey = guardKeyOf(send.keys, 'ip', sourceNetworkOf(send.sourceIp));
  const decision = await deps.guards.countSend(
    { guard: 'email_ip', environmentId: environment.id, subjectKey: sourceKey },
    environment.limits.emailPerIp,
    send.now,
  );
  if (decision.allowed) return;
  deps.log.warn(LOG_EVENTS.emailSendRefused, { environment: environment.id, guard: 'ip', source: logHandleOf(sourceKey) });
  throw new TooManyRequestsError(decision.retryAfterSeconds, { limit: 'email_sends', detail: 'email per source IP' });
}
