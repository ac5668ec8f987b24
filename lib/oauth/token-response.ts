/**
 * The token response every grant ends with (RFC 6749 §5.1; OpenID Connect Core §3.1.3.3): the
 * access token as the client's settings say, a refresh token when the client has them, and an ID
 * token when the granted scope includes `openid`.
 */
import type { Log } from '../platform/ports';
import type { OpaqueTokenRecord, RefreshFamily, RefreshTokenStore, TokenStore } from './ports';
import { LOG_EVENTS } from '../platform/log-events';
import { amrOf, mintOpaqueToken, signAccessToken, type Grant } from './access-tokens';
import type { HmacKeys } from '../keys/hmac-keys';
import { signIdToken } from './id-tokens';
import {
  familyHandleOf,
  familyKeyOf,
  keepUntilOf,
  mintFirstRefreshToken,
  refreshLifetimesOf,
  refreshTokenHash,
  refreshTokenOf,
} from './refresh-tokens';
import { hasScope } from './scopes';
import type { SigningKeys } from '../keys/signing-keys';

/** RFC 6749 §5.1, with OIDC Core §3.1.3.3's `id_token`. */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope?: string;
  readonly refresh_token?: string;
  readonly id_token?: string;
}

export interface IssueTokensDeps {
  readonly tokens: TokenStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly signingKeys: () => Promise<SigningKeys>;
  readonly hmacKeys: () => Promise<HmacKeys>;
  readonly log: Log;
}

/** A request to the token endpoint, as every grant reads it (RFC 6749 §3.2). */
export interface TokenRequest {
  /** `?env_id=`; absent means the default environment (a code's or family's own must match it). */
  readonly environmentId: string | undefined;
  readonly fields: Record<string, unknown>;
  /** The Authorization header: a confidential client's credentials (RFC 6749 §2.3.1). */
  readonly authorization: string | undefined;
  /** The `iss` of the tokens: the service's issuer URL. */
  readonly issuer: string;
}

/** What a code grant knows of the login beyond the grant: whose it is, and when (ms). */
export interface Login {
  readonly userKey: string;
  readonly now: number;
}

/** An access token, and the record to store for it when it is opaque. */
export interface MintedAccessToken {
  readonly accessToken: string;
  readonly expiresIn: number;
  /** The opaque token's record, for the grant to write (alone, or with its own write); undefined for a JWT. */
  readonly opaqueRecord: OpaqueTokenRecord | undefined;
}

/**
 * Issues the tokens of a code grant (a login). With refresh tokens, the login starts a family
 * whose first token is returned. At most one DynamoDB write, whatever is stored (one transaction;
 * none for a JWT client without refresh tokens: test/http/token.test.ts counts them).
 * `logFields` name the decision in the logs (ids only).
 */
export async function issueTokens(
  deps: IssueTokensDeps,
  grant: Grant,
  login: Login,
  logFields: Record<string, unknown>,
): Promise<TokenResponse> {
  const lifetimes = refreshLifetimesOf(grant.client);
  if (lifetimes === undefined || !wantsRefreshToken(grant)) {
    const minted = await mintAccessToken(deps, grant);
    if (minted.opaqueRecord !== undefined) await deps.tokens.save(minted.opaqueRecord);
    return respond(deps, grant, minted, undefined, logFields);
  }

  const keys = await deps.hmacKeys();
  const first = mintFirstRefreshToken();
  const familyKey = familyKeyOf(keys, first.familyId);
  const bound: Grant = { ...grant, familyKey };
  const minted = await mintAccessToken(deps, bound);
  const times = { createdAt: login.now, rotatedAt: login.now };
  const family: RefreshFamily = {
    familyKey,
    environmentId: grant.environmentId,
    clientId: grant.client.id,
    userKey: login.userKey,
    subject: grant.subject,
    channel: grant.channel,
    claims: grant.claims,
    scope: grant.scope,
    authTime: grant.authTime,
    sessionId: grant.sessionId,
    ...times,
    generation: 0,
    currentHash: refreshTokenHash(keys, first),
    previousHash: undefined,
    revokedAt: undefined,
    revokedReason: undefined,
    keepUntil: keepUntilOf(lifetimes, times),
    recentRotations: [],
  };
  await deps.refreshTokens.start(family, minted.opaqueRecord);
  return respond(deps, bound, minted, refreshTokenOf(first), { ...logFields, family: familyHandleOf(familyKey) });
}

/**
 * Whether a login with refresh tokens gets one (the client's `refreshTokens.issue`): always, or for
 * an OpenID request only when it asked for `offline_access` (OIDC Core §11).
 */
function wantsRefreshToken(grant: Grant): boolean {
  if (grant.client.refreshTokens?.issue !== 'offline_access') return true;
  return !hasScope(grant.scope, 'openid') || hasScope(grant.scope, 'offline_access');
}

/** The access token of `grant`, as its client's settings say. No DynamoDB request: an opaque token's record is returned to be written. */
export async function mintAccessToken(deps: Pick<IssueTokensDeps, 'signingKeys'>, grant: Grant): Promise<MintedAccessToken> {
  if (grant.client.accessToken.format === 'jwt')
    return { ...(await signAccessToken(await deps.signingKeys(), grant)), opaqueRecord: undefined };
  const { token, record } = mintOpaqueToken(grant);
  return { accessToken: token, expiresIn: grant.client.accessToken.ttlSeconds, opaqueRecord: record };
}

/** The response: the minted access token, the refresh token if any, and the ID token when the scope has `openid`. */
export async function respond(
  deps: Pick<IssueTokensDeps, 'signingKeys' | 'log'>,
  grant: Grant,
  minted: MintedAccessToken,
  refreshToken: string | undefined,
  logFields: Record<string, unknown>,
): Promise<TokenResponse> {
  const idToken = hasScope(grant.scope, 'openid') ? await signIdToken(await deps.signingKeys(), grant, minted.accessToken) : undefined;
  deps.log.info(LOG_EVENTS.tokenIssued, {
    ...logFields,
    format: grant.client.accessToken.format,
    // `channel` for login.completed v1 (a code's), `method` and `amr` for v2 (lib/audit/events.ts).
    channel: grant.channel,
    method: grant.channel,
    amr: amrOf(grant.channel),
    idToken: idToken !== undefined,
    refreshToken: refreshToken !== undefined,
  });
  return {
    access_token: minted.accessToken,
    token_type: 'Bearer',
    expires_in: minted.expiresIn,
    ...(grant.scope === undefined ? {} : { scope: grant.scope }),
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    ...(idToken === undefined ? {} : { id_token: idToken }),
  };
}
