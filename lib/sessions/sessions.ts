/**
 * Single sign-on sessions (docs/decisions/014-sso-sessions.md): what a session is worth to an
 * authorization request. A hosted login starts one; while it lives, an authorization request of
 * the same environment in the same browser logs the user in without a code, keeping the session's
 * `auth_time` and `amr` (OIDC Core §3.1.2.1–§3.1.2.3) and its `sid`.
 *
 * The browser holds only a reference (256 random bits) in a cookie (session-cookie.ts); the table
 * holds the session under a keyed hash of it, so a read of the table or the logs gives nobody a
 * cookie. The `sid` that tokens carry is a second random id, never the reference.
 */
import { randomBytes } from 'node:crypto';
import type { EnvironmentConfig } from '../platform/config';
import { hmac, type HmacKeys } from '../keys/hmac-keys';
import type { SessionRecord, SessionRenewal, SessionUse } from './ports';

/** A session reference as the cookie carries it: 32 bytes, base64url. */
export const SESSION_REFERENCE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new cookie reference: 256 bits from the CSPRNG. */
export function newSessionReference(): string {
  return randomBytes(32).toString('base64url');
}

/** The key a session is stored under: a keyed hash of its cookie reference. */
export function sessionKeyOf(keys: HmacKeys, reference: string): string {
  return hmac(keys.session, ['session', reference]);
}

/** A short handle of a session for the logs (a prefix of its key): it correlates, and rebuilds no cookie. */
export function sessionHandleOf(sessionKey: string): string {
  return sessionKey.slice(0, 12);
}

/** Until when (ms) `session` may serve a login: the earlier of its idle and its absolute deadline. */
export function sessionUsableUntil(environment: EnvironmentConfig, session: Pick<SessionRecord, 'createdAt' | 'lastSeenAt'>): number {
  return Math.min(
    session.lastSeenAt + environment.sessions.idleSeconds * 1000,
    session.createdAt + environment.sessions.absoluteSeconds * 1000,
  );
}

/** Whether `session` is alive at `now` for `environment` (never another environment's). */
export function isSessionLive(environment: EnvironmentConfig, session: SessionRecord, now: number): boolean {
  return session.environmentId === environment.id && now < sessionUsableUntil(environment, session);
}

/** The TTL (epoch seconds) of a session used at `now`: its last usable moment; expiry itself is checked in code. */
export function sessionKeepUntil(environment: EnvironmentConfig, session: Pick<SessionRecord, 'createdAt'>, now: number): number {
  return Math.ceil(sessionUsableUntil(environment, { createdAt: session.createdAt, lastSeenAt: now }) / 1000);
}

/** The conditional use of `session` by `clientId` at `now`: the store writes it only if the session is still live then. */
export function sessionUseOf(environment: EnvironmentConfig, session: SessionRecord, clientId: string, now: number): SessionUse {
  return {
    sessionKey: session.sessionKey,
    environmentId: environment.id,
    clientId,
    now,
    seenAfter: now - environment.sessions.idleSeconds * 1000,
    startedAfter: now - environment.sessions.absoluteSeconds * 1000,
    keepUntil: sessionKeepUntil(environment, session, now),
  };
}

/**
 * The re-authentication of `session` by a new code of its user at `now`: its `auth_time`, channel
 * and absolute lifetime start again (a new code is a new authentication), its `sid` and clients
 * stay. The store writes it only if the session is still live and still that user's.
 */
export function sessionRenewalOf(
  environment: EnvironmentConfig,
  session: SessionRecord,
  login: { readonly clientId: string; readonly channel: SessionRecord['channel']; readonly authTime: number; readonly now: number },
): SessionRenewal {
  return {
    ...sessionUseOf(environment, session, login.clientId, login.now),
    userKey: session.userKey,
    channel: login.channel,
    authTime: login.authTime,
    keepUntil: sessionKeepUntil(environment, { createdAt: login.now }, login.now),
  };
}
