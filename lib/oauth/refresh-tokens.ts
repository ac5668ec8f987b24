/**
 * Refresh tokens (RFC 6749 §1.5, §6) in families: every token descended from one login, rotated
 * at each use, with reuse detection (RFC 9700 §4.14.2; docs/decisions/009-refresh-token-families.md).
 *
 * A token is `<family id>.<secret>`: the family id (128 random bits) finds the family; the
 * secret is 256 random bits for a login's first token, and each successor's secret is derived
 * from its predecessor under a server key, HMAC-SHA256(refreshSuccessor, [family id, secret]),
 * so a retry of a rotation that lost its response can be given the same successor (the reuse
 * interval) without the successor ever being stored. Stored: only the keyed hash of each token,
 * and the family under the keyed hash of its id, so neither the table nor the logs (which carry
 * a prefix of that hash) hold anything a token can be rebuilt from.
 */
import { randomBytes } from 'node:crypto';
import type { ClientConfig } from '../platform/config';
import type { RefreshFamily } from './ports';
import { hmac, type HmacKeys } from '../keys/hmac-keys';
import { retryAfterSeconds } from '../limits/limits';

/** A refresh token: the family id (16 bytes) and the secret (32 bytes), base64url, joined by a dot. */
export const REFRESH_TOKEN_PATTERN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/**
 * The longest an access token lives (the configuration's maximum `accessToken.ttlSeconds`): a
 * family is kept this long past its last usable moment, so the access tokens it issued still find
 * it, revoked or not, for as long as they live.
 */
export const ACCESS_TOKEN_MAX_SECONDS = 86_400;

/** A refresh token taken apart. */
export interface PresentedRefreshToken {
  readonly familyId: string;
  readonly secret: string;
}

/** The parts of `token`, or undefined when it is not shaped like one of ours. */
export function parseRefreshToken(token: string): PresentedRefreshToken | undefined {
  const match = REFRESH_TOKEN_PATTERN.exec(token);
  return match === null ? undefined : { familyId: match[1] as string, secret: match[2] as string };
}

/** The token string of a family id and a secret. */
export function refreshTokenOf(token: PresentedRefreshToken): string {
  return `${token.familyId}.${token.secret}`;
}

/** A new family's first token: 128 random bits of id, 256 of secret, from the CSPRNG. */
export function mintFirstRefreshToken(): PresentedRefreshToken {
  return { familyId: randomBytes(16).toString('base64url'), secret: randomBytes(32).toString('base64url') };
}

/**
 * A family id that no family has, for a presented string that is not a refresh token: the request
 * then makes the same lookups as an unknown token does, so its timing says nothing.
 */
export function decoyFamilyId(): string {
  return randomBytes(16).toString('base64url');
}

/** The successor of `token` in its family: the same family id, the secret derived from this one. */
export function successorOf(keys: HmacKeys, token: PresentedRefreshToken): PresentedRefreshToken {
  return { familyId: token.familyId, secret: hmac(keys.refreshSuccessor, [token.familyId, token.secret]) };
}

/** The key a family is stored under: a keyed hash of its id, so the table never holds the id. */
export function familyKeyOf(keys: HmacKeys, familyId: string): string {
  return hmac(keys.refreshToken, ['family', familyId]);
}

/** The keyed hash a token is stored (and compared) as. */
export function refreshTokenHash(keys: HmacKeys, token: PresentedRefreshToken): string {
  return hmac(keys.refreshToken, ['token', token.familyId, token.secret]);
}

/** A short handle of a family for the logs (a prefix of its key): it correlates decisions, and rebuilds no token. */
export function familyHandleOf(familyKey: string): string {
  return familyKey.slice(0, 12);
}

/** A client's refresh token settings: its lifetimes, reuse interval and a family's own limit, in ms. */
export interface RefreshLifetimes {
  readonly idleMs: number;
  readonly absoluteMs: number;
  readonly reuseIntervalMs: number;
  /** At most `maxRefreshes` rotations of one family in any sliding window of `windowMs`. */
  readonly limit: { readonly maxRefreshes: number; readonly windowMs: number };
}

/** The lifetimes of `client`'s refresh tokens, or undefined when it has none. */
export function refreshLifetimesOf(client: ClientConfig): RefreshLifetimes | undefined {
  const settings = client.refreshTokens;
  if (settings === undefined) return undefined;
  return {
    idleMs: settings.idleSeconds * 1000,
    absoluteMs: settings.absoluteSeconds * 1000,
    reuseIntervalMs: settings.reuseIntervalSeconds * 1000,
    limit: { maxRefreshes: settings.limit.maxRefreshes, windowMs: settings.limit.windowSeconds * 1000 },
  };
}

/**
 * Whether the family's own limit lets it rotate at `now`: undefined when it has room, else the
 * whole seconds until it does (Retry-After, never more than the window). `recent` is the family's
 * window, oldest first; the limit is full when its `maxRefreshes`-th newest rotation is still in
 * the window. The rotation's conditional write enforces the same rule under concurrency.
 * @example refreshLimitRetryAfter([…, 1_000, 2_000], { maxRefreshes: 2, windowMs: 60_000 }, 31_000) // 30
 */
export function refreshLimitRetryAfter(recent: readonly number[], limit: RefreshLifetimes['limit'], now: number): number | undefined {
  const nthNewest = recent[recent.length - limit.maxRefreshes];
  if (nthNewest === undefined || nthNewest <= now - limit.windowMs) return undefined;
  return retryAfterSeconds(nthNewest + limit.windowMs, now, limit.windowMs / 1000);
}

/**
 * Whether a spent token presented at `now` is the reuse interval's retry of the rotation that spent
 * it (rotated at `rotatedAt`): within `reuseIntervalMs` after that rotation. Time is measured from
 * the rotation's own time, and a presentation whose clock reads earlier than the rotation (it read
 * its clock before the rotation that beat it was written) counts as made at the rotation: so with
 * no interval (0, the default) a spent token is never a retry, whatever the clocks say, and the
 * loser of a race is reuse (regression: it read `now < rotatedAt + 0` and got the winner's successor).
 */
export function isReuseIntervalRetry(rotatedAt: number, reuseIntervalMs: number, now: number): boolean {
  return Math.max(0, now - rotatedAt) < reuseIntervalMs;
}

/** Until when (ms) a family's live token may be used: the earlier of its idle and its absolute deadline. */
export function usableUntil(lifetimes: RefreshLifetimes, family: Pick<RefreshFamily, 'createdAt' | 'rotatedAt'>): number {
  return Math.min(family.rotatedAt + lifetimes.idleMs, family.createdAt + lifetimes.absoluteMs);
}

/** The family's TTL (epoch seconds): a day past its last usable moment, for the access tokens it issued. */
export function keepUntilOf(lifetimes: RefreshLifetimes, family: Pick<RefreshFamily, 'createdAt' | 'rotatedAt'>): number {
  return Math.ceil(usableUntil(lifetimes, family) / 1000) + ACCESS_TOKEN_MAX_SECONDS;
}
