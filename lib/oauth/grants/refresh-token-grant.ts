/**
 * `grant_type=refresh_token` (RFC 6749 §6), with rotation and reuse detection (RFC 9700 §4.14.2,
 * OAuth 2.1 §4.3.1): every refresh spends the presented token and returns its successor; a spent
 * token presented again revokes its whole family. The design, and why it is race-safe:
 * docs/decisions/009-refresh-token-families.md.
 *
 * A refresh presents an unguessable token, not a one-time code: it neither counts into nor is
 * refused by the user's attempt limit or failure cap (those protect the six digits; counting
 * refreshes let anyone who knows an address make the victim's app refreshes answer 429, and an
 * app's own burst of refreshes lock its user out of the hosted page). A family has a limit of
 * its own instead, kept in its item and checked by the rotation's write (step 7).
 *
 * Steps, top to bottom:
 *   1. the parameters (invalid_request); the client, named if public, authenticated if confidential
 *      (RFC 6749 §6), with refresh tokens (invalid_client, unauthorized_client); `env_id` if given
 *      (invalid_request when unknown);
 *   2. the family the token names, read by key. An unknown token is `invalid_grant`, after the one
 *      read a known token's refusal makes too;
 *   3. the binding (the family's client and environment) and its life: not revoked, neither the
 *      idle nor the absolute lifetime run out; else `invalid_grant`;
 *   4. which token it is: the live one (rotate it), the one the last rotation spent within the
 *      reuse interval (its successor again), or any other of the family: reuse, which revokes the
 *      family, whatever else the request says;
 *   5. the scope: the original, or narrower (invalid_scope otherwise), checked before any write;
 *   6. the family's own limit (`refreshTokens.limit`): a full window is 429 with Retry-After, and
 *      the token stays live;
 *   7. the rotation: one conditional write (a transaction with an opaque access token's record)
 *      that holds the token, the lifetimes and the limit; of concurrent rotations of one token
 *      exactly one passes, and the others learn from the refused write that the token was spent
 *      (reuse, or the reuse interval's retry);
 *   8. the tokens: an access token and an ID token (with `openid`) keeping the original login's
 *      `auth_time`, `amr` and `sub`, and the successor.
 *
 * Each outcome's DynamoDB requests (a read, then at most one write: an opaque access token rides in
 * the rotation's transaction) are counted on the wire in test/http/refresh.test.ts, "DynamoDB
 * requests per refresh", races included.
 */
import '../../platform/zod';
import * as z from 'zod/mini';
import type { ClientConfig, EnvironmentConfig, ServiceConfig } from '../../platform/config';
import {
  InvalidGrantError,
  InvalidScopeError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
  UnauthorizedClientError,
} from '../../platform/errors';
import { LOG_EVENTS } from '../../platform/log-events';
import type { Clock, Log } from '../../platform/ports';
import type { RefreshFamily } from '../ports';
import { claimsWithin, type Grant } from '../access-tokens';
import { logHandleOf } from '../../keys/hmac-keys';
import {
  decoyFamilyId,
  familyHandleOf,
  familyKeyOf,
  isReuseIntervalRetry,
  keepUntilOf,
  parseRefreshToken,
  refreshLifetimesOf,
  refreshLimitRetryAfter,
  refreshTokenHash,
  refreshTokenOf,
  successorOf,
  usableUntil,
  type RefreshLifetimes,
} from '../refresh-tokens';
import { optionalTextField, parseFields, textField } from '../../platform/request-fields';
import { narrowScope } from '../scopes';
import { authenticateClient, type ClientAuthenticationDeps } from '../client-authentication';
import { environmentOf } from '../tenancy';
import { mintAccessToken, respond, type IssueTokensDeps, type TokenRequest, type TokenResponse } from '../token-response';

export interface RefreshTokenGrantDeps extends IssueTokensDeps, ClientAuthenticationDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly log: Log;
}

/** The grant's parameters, beside `grant_type` (also the API description's: infra/openapi/schemas.ts). */
export const refreshFields = z.object({
  refresh_token: textField('refresh_token', 256),
  // RFC 6749 §3.2.1: a public client identifies itself with client_id; a confidential one
  // authenticates (with HTTP Basic it need not repeat it: lib/oauth/client-authentication.ts).
  client_id: optionalTextField('client_id', 64),
  scope: optionalTextField('scope', 1024),
});

/** Refreshes: the successor of the presented token, a new access token, and an ID token with `openid`. */
export async function refreshTokens(deps: RefreshTokenGrantDeps, request: TokenRequest): Promise<TokenResponse> {
  const fields = parseFields(refreshFields, request.fields);
  // RFC 6749 §6: a confidential client authenticates to refresh; the family stays bound to it.
  const client = await authenticateClient(deps, request, 'token');
  const lifetimes = refreshLifetimesOf(client);
  if (lifetimes === undefined) throw new UnauthorizedClientError('This client is not issued refresh tokens.');
  if (request.environmentId !== undefined) environmentOf(deps.config, request.environmentId);

  const keys = await deps.hmacKeys();
  const now = deps.clock.now();
  // Not shaped like a refresh token: looked up as an unknown one (a family id nobody has).
  const presented = parseRefreshToken(fields.refresh_token) ?? { familyId: decoyFamilyId(), secret: '' };
  const familyKey = familyKeyOf(keys, presented.familyId);
  const logFields = { client: client.id, grant: 'refresh_token', family: familyHandleOf(familyKey) };

  const family = await deps.refreshTokens.find(familyKey);
  if (family === undefined) return refuse(deps, logFields, 'not_found');
  const environment = deps.config.environment(family.environmentId);
  const userFields = { ...logFields, environment: family.environmentId, user: logHandleOf(family.userKey) };
  if (!isBound(family, client, environment, request.environmentId)) return refuse(deps, userFields, 'binding');
  if (family.revokedAt !== undefined) return refuse(deps, userFields, 'revoked');
  if (now >= usableUntil(lifetimes, family)) {
    return refuse(deps, userFields, now >= family.createdAt + lifetimes.absoluteMs ? 'absolute_expiry' : 'idle_expiry');
  }

  const presentedHash = refreshTokenHash(keys, presented);
  const role = roleOf(family, presentedHash, lifetimes, now);
  if (role === 'spent') return revokeForReuse(deps, family, now, userFields);

  const scope = narrowScope(fields.scope, family.scope);
  if ('refused' in scope) {
    deps.log.info(LOG_EVENTS.grantRefused, { ...userFields, reason: 'invalid_scope' });
    throw new InvalidScopeError();
  }
  const grant: Grant = {
    issuer: request.issuer,
    client,
    environmentId: family.environmentId,
    subject: family.subject,
    channel: family.channel,
    claims: claimsWithin(family.claims, client, scope.granted),
    scope: scope.granted,
    issuedAt: Math.floor(now / 1000),
    authTime: family.authTime,
    sessionId: family.sessionId,
    familyKey,
  };
  const successor = successorOf(keys, presented);
  if (role === 'live') checkLimit(deps, family, lifetimes, now, userFields);
  const minted = await mintAccessToken(deps, grant);

  if (role === 'live') {
    const result = await deps.refreshTokens.rotate(
      {
        familyKey,
        presentedHash,
        successorHash: refreshTokenHash(keys, successor),
        now,
        issuedAfter: now - lifetimes.idleMs,
        startedAfter: now - lifetimes.absoluteMs,
        keepUntil: keepUntilOf(lifetimes, { createdAt: family.createdAt, rotatedAt: now }),
        limit: { maxRefreshes: lifetimes.limit.maxRefreshes, windowStart: now - lifetimes.limit.windowMs },
      },
      minted.opaqueRecord,
    );
    if (!result.rotated) {
      // Another request changed the family between the read and this write: it rotated the same
      // token (so this one was spent: reuse, or the reuse interval's retry) or revoked the family.
      const changed = result.family;
      if (changed === undefined || changed.revokedAt !== undefined) return refuse(deps, userFields, 'revoked');
      const roleNow = roleOf(changed, presentedHash, lifetimes, now);
      // Still live: no write changed the family. Neither its lifetime conditions nor its limit can
      // have refused it (the read passed the same ones with the same clock, and only a rotation,
      // which would have spent this token, adds to the window), so a concurrent transaction on the
      // family cancelled this one and did not land either (TransactionConflict). The token is still
      // good: 503, whose retry rotates it, where invalid_grant would make the client drop a live token.
      if (roleNow === 'live') throw new TemporarilyUnavailableError({ detail: 'rotation cancelled by a concurrent transaction' });
      if (roleNow === 'spent') return revokeForReuse(deps, changed, now, userFields);
      if (minted.opaqueRecord !== undefined) await deps.tokens.save(minted.opaqueRecord);
      return respond(deps, grant, minted, refreshTokenOf(successor), { ...userFields, reuseInterval: true });
    }
    return respond(deps, grant, minted, refreshTokenOf(successor), userFields);
  }

  // A retry within the reuse interval: the successor the rotation issued, derived again.
  if (minted.opaqueRecord !== undefined) await deps.tokens.save(minted.opaqueRecord);
  return respond(deps, grant, minted, refreshTokenOf(successor), { ...userFields, reuseInterval: true });
}

/**
 * What the presented token is to its family: `live` (the one to rotate), `retry` (the one the
 * last rotation spent, again within the reuse interval: it gets the same successor), or `spent`
 * (any other: a token that was used before, or a forged secret with the family's id, which only
 * a holder of one of its tokens knows). Hashes are keyed digests, compared as strings: equal
 * length, and a timing difference would tell only about a digest the caller cannot steer.
 */
function roleOf(family: RefreshFamily, presentedHash: string, lifetimes: RefreshLifetimes, now: number): 'live' | 'retry' | 'spent' {
  if (presentedHash === family.currentHash) return 'live';
  if (presentedHash === family.previousHash && isReuseIntervalRetry(family.rotatedAt, lifetimes.reuseIntervalMs, now)) return 'retry';
  return 'spent';
}

/** The family's own limit: 429 with Retry-After when its window is full; nothing is written. */
function checkLimit(
  deps: RefreshTokenGrantDeps,
  family: RefreshFamily,
  lifetimes: RefreshLifetimes,
  now: number,
  logFields: Record<string, unknown>,
): void {
  const retryAfter = refreshLimitRetryAfter(family.recentRotations, lifetimes.limit, now);
  if (retryAfter === undefined) return;
  deps.log.info(LOG_EVENTS.grantRefused, { ...logFields, reason: 'family_limit', retryAfterSeconds: retryAfter });
  throw new TooManyRequestsError(retryAfter, { limit: 'refreshes' });
}

/** The family's client presents the token, in its environment (which the client may still use). */
function isBound(
  family: RefreshFamily,
  client: ClientConfig,
  environment: EnvironmentConfig | undefined,
  requestedEnvironment: string | undefined,
): environment is EnvironmentConfig {
  return (
    environment !== undefined &&
    family.clientId === client.id &&
    client.environments.includes(environment.id) &&
    (requestedEnvironment === undefined || requestedEnvironment === environment.id)
  );
}

/** A spent token presented again: the whole family is revoked, and every later use of any of its tokens fails. */
async function revokeForReuse(
  deps: RefreshTokenGrantDeps,
  family: RefreshFamily,
  now: number,
  logFields: Record<string, unknown>,
): Promise<never> {
  await deps.refreshTokens.revoke(family.familyKey, 'reuse', now);
  deps.log.warn(LOG_EVENTS.refreshTokenReused, { ...logFields, generation: family.generation });
  return refuse(deps, logFields, 'reuse');
}

function refuse(deps: RefreshTokenGrantDeps, logFields: Record<string, unknown>, reason: string): never {
  deps.log.info(LOG_EVENTS.grantRefused, { ...logFields, reason });
  throw new InvalidGrantError({ detail: reason, presented: 'refresh_token' });
}
