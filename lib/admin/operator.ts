/**
 * The operator controls (docs/operations/operator-controls.md): the admin API's actions on one
 * user of one environment, the two buttons an identity team needs during an incident. Only the
 * deployment's IAM principals reach this module: API Gateway authorises the routes with AWS_IAM
 * (lib/platform/routes.ts `authorization: 'iam'`, infra/api.ts); the local runtime serves them on
 * loopback without IAM. Every call that takes effect is audited (`operator action`) with the
 * caller's IAM principal, the environment and the user's log handle, never the address.
 *
 *   - `block`: the user's sends and code checks get the answers a user with no code gets, until
 *     unblocked (the block lives in their attempt counters: lib/limits/attempts.ts, so it costs
 *     the hot path no request); then every session and refresh family of theirs ends, since a live
 *     session would log them in to another client without any code;
 *   - `unblock`: lifts it (sessions stay ended);
 *   - `end-sessions`: every session and refresh family of the user in the environment ends, and
 *     the clients those sessions served are told by back-channel logout
 *     (lib/sessions/end-sessions.ts `endUserSessions`);
 *   - `remove-passkeys`: every passkey of the user in the environment is removed (a lost or
 *     compromised device, an account recovery): their next login is by code. Their sessions stay:
 *     end them too (`end-sessions`) when the passkey may have been used by someone else.
 *
 * A user is named as everywhere else (lib/identity/identity.ts): `auth_type` inferred from
 * `user_id` when absent, the address normalised. An email's sends are counted, and so blocked,
 * per mailbox (`alice+x@` is `alice@`), its code checks per exact address.
 */
import '../platform/zod';
import * as z from 'zod/mini';
import type { EnvironmentConfig } from '../platform/config';
import { LOG_EVENTS } from '../platform/log-events';
import type { AttemptLimiter } from '../limits/ports';
import { blockUser, unblockUser, type UserCounters } from '../limits/attempts';
import { endUserSessions, type EndSessionsDeps } from '../sessions/end-sessions';
import { environmentOf } from '../oauth/tenancy';
import { logHandleOf, userKeyOf, type HmacKeys } from '../keys/hmac-keys';
import { inferAuthType, mailboxOf, normaliseUser } from '../identity/identity';
import { canonicalisePhone } from '../phone/phone-canonical';
import { enumField, parseFields, textField } from '../platform/request-fields';
import type { PasskeyStore } from '../passkeys/ports';

export interface OperatorDeps extends EndSessionsDeps {
  readonly limiter: AttemptLimiter;
  readonly passkeys: PasskeyStore;
}

/** The actions, each the last segment of its route (`/idp/v1/admin/users/<action>`). */
export const OPERATOR_ACTIONS = ['block', 'unblock', 'end-sessions', 'remove-passkeys'] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** The body every action takes: which user of which environment. No default environment: an operator names it. */
export const operatorFields = z.object({
  env_id: textField('env_id', 64),
  user_id: textField('user_id', 320),
  auth_type: z.optional(enumField('auth_type', ['email', 'sms'])),
});

export interface OperatorRequest {
  readonly action: OperatorAction;
  readonly fields: Record<string, unknown>;
  /**
   * The IAM principal API Gateway authenticated (`requestContext.identity.userArn`); undefined on
   * the local runtime, which has no IAM (logged as `anonymous`).
   */
  readonly caller: string | undefined;
  /** The issuer of the logout tokens sent for the sessions that end. */
  readonly issuer: string;
}

/** What was done, for the operator (and the audit log). `user` is the log handle, as in every log line. */
export type OperatorResponse =
  | { readonly user: string; readonly blocked: true; readonly sessions_ended: number; readonly refresh_families_revoked: number }
  | { readonly user: string; readonly blocked: false; readonly was_blocked: boolean }
  | { readonly user: string; readonly sessions_ended: number; readonly refresh_families_revoked: number }
  | { readonly user: string; readonly passkeys_removed: number };

/**
 * Runs an operator's action on a user.
 * @example await operate(deps, { action: 'block', fields: { env_id: 'prod', user_id: 'alice@example.com' }, caller: 'arn:aws:iam::123456789012:user/ops', issuer })
 */
export async function operate(deps: OperatorDeps, request: OperatorRequest): Promise<OperatorResponse> {
  const fields = parseFields(operatorFields, request.fields);
  const user = normaliseUser(fields.auth_type ?? inferAuthType(fields.user_id), fields.user_id, canonicalisePhone);
  const environment = environmentOf(deps.config, fields.env_id);
  const keys: HmacKeys = await deps.hmacKeys();
  const userKey = userKeyOf(keys, user);
  const counters: UserCounters = { send: userKeyOf(keys, mailboxOf(user)), token: userKey };
  const handle = logHandleOf(userKey);
  const audit = { action: request.action, environment: environment.id, user: handle, caller: request.caller ?? 'anonymous' };

  // What has taken effect so far: a failure halfway (a block set, its sessions not yet ended) is audited as such.
  const progress: { blocked?: boolean } = {};
  let done: OperatorResponse;
  try {
    done = await act(deps, request, { environment, userKey, counters, handle }, progress);
  } catch (error) {
    deps.log.warn(LOG_EVENTS.operatorAction, { ...audit, completed: false, ...progress, error: (error as Error).name });
    throw error;
  }
  deps.log.info(LOG_EVENTS.operatorAction, { ...audit, completed: true, ...done });
  return done;
}

interface Target {
  readonly environment: EnvironmentConfig;
  readonly userKey: string;
  readonly counters: UserCounters;
  readonly handle: string;
}

async function act(
  deps: OperatorDeps,
  request: OperatorRequest,
  target: Target,
  progress: { blocked?: boolean },
): Promise<OperatorResponse> {
  const { environment, userKey, counters, handle } = target;
  switch (request.action) {
    case 'block': {
      // The block first: no code can start a new session while the existing ones are ended.
      await blockUser(deps, environment, counters, deps.clock.now());
      progress.blocked = true;
      const ended = await endUserSessions(deps, environment, userKey, request.issuer);
      return { user: handle, blocked: true, sessions_ended: ended.sessions, refresh_families_revoked: ended.families };
    }
    case 'unblock':
      return { user: handle, blocked: false, was_blocked: await unblockUser(deps, environment, counters, deps.clock.now()) };
    case 'end-sessions': {
      const ended = await endUserSessions(deps, environment, userKey, request.issuer);
      return { user: handle, sessions_ended: ended.sessions, refresh_families_revoked: ended.families };
    }
    case 'remove-passkeys': {
      const removed = await deps.passkeys.removeAll(environment.id, userKey);
      // Beside the operator's audit line: the passkeys' own history (passkey.removed) has every removal.
      deps.log.info(LOG_EVENTS.passkeyRemoved, { by: 'operator', count: removed, environment: environment.id, user: handle });
      return { user: handle, passkeys_removed: removed };
    }
  }
}
