/**
 * Ending sessions: a logout at the end-session endpoint ends one (OpenID Connect RP-Initiated
 * Logout 1.0), an operator ends every one of a user (the admin API). Either way:
 *
 * 1. the session item is deleted (one conditional write: it serves no login from then on);
 * 2. the refresh token families that end with it are revoked: those its logins started without
 *    `offline_access` (OIDC Core §11: offline access is the one that outlives the session; the rule
 *    is written in docs/decisions/014-sso-sessions.md). An operator revokes every family of the
 *    user, offline ones too, and the API's logins' families, which have no session;
 * 3. every client it logged the user in to that registered a back-channel logout URI gets a
 *    logout token, queued (Back-Channel Logout 1.0 §2.5): delivered off the request, with
 *    retries, so a slow or failing relying party never holds up the user's logout. A failure to
 *    queue is logged and the logout stands.
 */
import type { ClientConfig, EnvironmentConfig, ServiceConfig } from '../platform/config';
import { LOG_EVENTS } from '../platform/log-events';
import type { Clock, Log } from '../platform/ports';
import type { RefreshTokenStore, RevocationReason } from '../oauth/ports';
import type { LogoutNotice, LogoutNotifier } from '../logout/ports';
import { subjectFor } from '../oauth/access-tokens';
import { logHandleOf, type HmacKeys } from '../keys/hmac-keys';
import type { SessionRecord, SessionStore, UserIndex, UserItems } from './ports';
import { sessionHandleOf } from './sessions';

export interface EndSessionsDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly log: Log;
  readonly hmacKeys: () => Promise<HmacKeys>;
  readonly sessions: SessionStore;
  readonly userIndex: UserIndex;
  readonly refreshTokens: RefreshTokenStore;
  readonly logoutNotifier: LogoutNotifier;
}

/** Why sessions end: a logout the user asked for, or an operator's action. */
export type EndReason = 'logout' | 'operator';

/** Ends the session stored under `sessionKey`, if there is one; returns it as it was. */
export async function endSession(deps: EndSessionsDeps, sessionKey: string, issuer: string): Promise<SessionRecord | undefined> {
  const session = await deps.sessions.end(sessionKey);
  if (session === undefined) return undefined;
  const items = await deps.userIndex.itemsOf(session.environmentId, session.userKey);
  const families = items.families.filter((family) => family.sid === session.sid && !family.offline);
  await revokeFamilies(deps, families, 'session_ended');
  const notices = await queueNotices(deps, [session], issuer);
  logEnded(deps, session, 'logout', families.length, notices);
  return session;
}

/**
 * Ends every session of a user in an environment and revokes every refresh token family of
 * theirs there: the operator's "sign this user out everywhere". Access tokens issued with a
 * family die with it (introspection and UserInfo check the family); a JWT without a family lives
 * out its own lifetime (at most `accessToken.ttlSeconds`).
 */
export async function endUserSessions(
  deps: EndSessionsDeps,
  environment: EnvironmentConfig,
  userKey: string,
  issuer: string,
): Promise<{ readonly sessions: number; readonly families: number }> {
  const items: UserItems = await deps.userIndex.itemsOf(environment.id, userKey);
  const ended: SessionRecord[] = [];
  for (const sessionKey of items.sessionKeys) {
    const session = await deps.sessions.end(sessionKey);
    if (session !== undefined) ended.push(session);
  }
  await revokeFamilies(deps, items.families, 'operator');
  const notices = await queueNotices(deps, ended, issuer);
  for (const session of ended) {
    logEnded(deps, session, 'operator', items.families.filter((family) => family.sid === session.sid).length, notices);
  }
  return { sessions: ended.length, families: items.families.length };
}

async function revokeFamilies(deps: EndSessionsDeps, families: UserItems['families'], reason: RevocationReason): Promise<void> {
  const now = deps.clock.now();
  await Promise.all(families.map((family) => deps.refreshTokens.revoke(family.familyKey, reason, now)));
}

/** Queues a logout token for every client of `sessions` with a back-channel logout URI; returns how many. */
async function queueNotices(deps: EndSessionsDeps, sessions: readonly SessionRecord[], issuer: string): Promise<number> {
  const keys = await deps.hmacKeys();
  const notices: LogoutNotice[] = [];
  for (const session of sessions) {
    for (const clientId of session.clients) {
      const client: ClientConfig | undefined = deps.config.client(clientId);
      if (client?.backchannelLogoutUri === undefined) continue;
      const subject = subjectFor(keys, session.environmentId, client, session.user);
      notices.push({ issuer, environmentId: session.environmentId, clientId, subject, sid: session.sid });
    }
  }
  if (notices.length === 0) return 0;
  try {
    await deps.logoutNotifier.notify(notices);
  } catch (error) {
    deps.log.error(LOG_EVENTS.logoutNoticesLost, { environment: notices[0]?.environmentId, notices: notices.length, error });
    return 0;
  }
  return notices.length;
}

function logEnded(deps: EndSessionsDeps, session: SessionRecord, reason: EndReason, families: number, notices: number): void {
  deps.log.info(LOG_EVENTS.sessionEnded, {
    environment: session.environmentId,
    user: logHandleOf(session.userKey),
    session: sessionHandleOf(session.sessionKey),
    reason,
    clients: session.clients.length,
    families,
    notices,
  });
}
