/**
 * `POST /idp/v1/account/introspect`: token introspection (RFC 7662) for resource servers.
 *
 * The caller authenticates with the Bearer API key of a client allowed to introspect
 * (`mayIntrospect`). Opaque tokens are looked up by their hash (one GetItem, expiry checked
 * here, not left to TTL); JWT access tokens are verified with the service's own keys and RFC
 * 9068's rules. Anything else is `{"active": false}` (§2.2: no reason given).
 *
 * Revocation (RFC 7009, lib/endpoints/revoke-token.ts) is checked last, for a token that is otherwise
 * active: a revoked opaque token has no record left; a JWT is looked up by its `jti` among the
 * revoked ones, and a token issued with a refresh token family (`sid`, or the opaque record's
 * family) is inactive once that family is revoked (RFC 7009 §2.1). At most two reads, the token's
 * and its family's: test/http/introspect.test.ts counts each case.
 *
 * A caller learns only about tokens of its own environments (RFC 7662 §4: the server decides what
 * a caller may know): the token's environment (stored with an opaque token, the `env_id` claim of
 * a JWT) must be one of the caller's, and one the token's client may still use. Environments are
 * tenants; one's resource servers see nothing of another's users.
 */
import { jwtVerify, type JWTPayload } from 'jose';
import '../platform/zod';
import * as z from 'zod/mini';
import type { ClientConfig, ServiceConfig } from '../platform/config';
import { LOG_EVENTS } from '../platform/log-events';
import type { Clock, Log } from '../platform/ports';
import type { RevocationStore, TokenStore, UserClaims } from '../oauth/ports';
import { ACCESS_TOKEN_TYPE, ENVIRONMENT_CLAIM, FAMILY_CLAIM, opaqueTokenHash } from '../oauth/access-tokens';
import { authenticateCredentials } from '../oauth/client-authentication';
import { optionalTextField, parseFields, textField } from '../platform/request-fields';
import { SIGNING_ALGORITHMS } from '../platform/vocabulary';
import { verificationKeyFor, type VerificationKeys } from '../keys/signing-keys';

export interface IntrospectDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly tokens: TokenStore;
  readonly revocations: RevocationStore;
  readonly verificationKeys: () => Promise<VerificationKeys>;
  readonly log: Log;
}

export interface IntrospectRequest {
  readonly fields: Record<string, unknown>;
  readonly authorization: string | undefined;
  readonly issuer: string;
}

/** RFC 7662 §2.2. */
export type IntrospectionResponse =
  | { readonly active: false }
  | {
      readonly active: true;
      readonly token_type: 'Bearer';
      readonly iss: string;
      readonly sub: string;
      readonly aud: string;
      readonly client_id: string;
      readonly iat: number;
      readonly exp: number;
      readonly jti: string;
      readonly auth_time?: number;
      readonly amr?: readonly string[];
      /** The login's authentication context class (a passkey login's `phr`), only when it has one. */
      readonly acr?: string;
      readonly scope?: string;
    };

const INACTIVE: IntrospectionResponse = Object.freeze({ active: false });

/** The request body (docs/openapi.json is generated from it: infra/openapi/). */
export const introspectFields = z.object({
  token: textField('token', 4096),
  /** §2.1: a hint the server may ignore; we tell the formats apart by their shape. */
  token_type_hint: optionalTextField('token_type_hint', 64),
});

/**
 * How far in the future a JWT's `iat` may be: our own tokens are stamped by the clock of the
 * container that issued them, and Lambda clocks agree to well under this. Anything later was not
 * issued by us as it claims (RFC 7519 §4.1.6 leaves the check to the application).
 */
export const IAT_SKEW_SECONDS = 5;

/** A compact JWS: three base64url segments. An opaque token is one. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export async function introspectToken(deps: IntrospectDeps, request: IntrospectRequest): Promise<IntrospectionResponse> {
  const caller = authenticateResourceServer(deps.config, request.authorization);
  const { token } = parseFields(introspectFields, request.fields);
  const found = await verifyAccessToken(deps, token, request.issuer);
  // RFC 7662 §4: a caller learns only about tokens of its own environments.
  const response = found !== undefined && caller.environments.includes(found.environmentId) ? found.response : INACTIVE;
  deps.log.info(LOG_EVENTS.tokenIntrospected, { caller: caller.id, active: response.active });
  return response;
}

/**
 * The client that may introspect, authenticated either way RFC 7662 §2.1 allows (the service's one
 * client authentication, lib/oauth/client-authentication.ts): `client_secret_basic`, what OAuth
 * client libraries send (openid-client's tokenIntrospection), or a Bearer API key (RFC 6750),
 * answered as RFC 6750 answers a Bearer credential.
 */
function authenticateResourceServer(config: ServiceConfig, authorization: string | undefined): ClientConfig {
  return authenticateCredentials(config, authorization, {
    admits: (client) => client.mayIntrospect,
    bearerRefusal: 'The API key is not valid for introspection.',
    detailPrefix: 'introspection: ',
  });
}

/** An active access token of this service: what introspection says of it, its environment, and the user's claims it carries. */
export interface VerifiedToken {
  readonly response: Extract<IntrospectionResponse, { active: true }>;
  readonly environmentId: string;
  readonly claims: UserClaims;
  /** The key of the refresh token family it was issued with, if any. */
  readonly familyKey: string | undefined;
}
type Found = VerifiedToken;

/** The claims of OIDC Core §5.1 an access token may carry (lib/oauth/access-tokens.ts `userClaimsOf`). */
const USER_CLAIM_NAMES = ['email', 'email_verified', 'phone_number', 'phone_number_verified'] as const;

/**
 * Verifies an access token of either format (a JWT by RFC 9068 §4's rules with the service's
 * keys; an opaque token by its record): the token, or undefined when it is not active. It does not
 * look at who is asking: introspection and UserInfo each decide that.
 */
export async function verifyAccessToken(deps: IntrospectDeps, token: string, issuer: string): Promise<VerifiedToken | undefined> {
  const isJwt = JWT_SHAPE.test(token);
  const found = isJwt ? await verifyJwtAccessToken(deps, token, issuer) : await introspectOpaque(deps, token, issuer);
  if (found === undefined) return undefined;
  // The token's client must still exist and may still use the environment.
  const client = deps.config.client(found.response.client_id);
  if (client === undefined || !client.environments.includes(found.environmentId)) return undefined;
  // A revoked opaque token has no record; a JWT is checked by its jti, and either by its family.
  const revoked = await deps.revocations.isRevoked({ jti: isJwt ? found.response.jti : undefined, familyKey: found.familyKey });
  return revoked ? undefined : found;
}

/** Whether `token` is shaped like a JWT (a compact JWS); an opaque token is not. */
export function isJwtShaped(token: string): boolean {
  return JWT_SHAPE.test(token);
}

async function introspectOpaque(deps: IntrospectDeps, token: string, issuer: string): Promise<Found | undefined> {
  const record = await deps.tokens.find(opaqueTokenHash(token));
  if (record === undefined || record.expiresAt * 1000 <= deps.clock.now()) return undefined;
  const response: Found['response'] = {
    active: true,
    token_type: 'Bearer',
    iss: issuer,
    sub: record.subject,
    aud: record.audience,
    client_id: record.clientId,
    iat: record.issuedAt,
    exp: record.expiresAt,
    jti: record.jti,
    auth_time: record.authTime,
    amr: record.amr,
    ...(record.acr === undefined ? {} : { acr: record.acr }),
    ...(record.scope === undefined ? {} : { scope: record.scope }),
  };
  return { response, environmentId: record.environmentId, claims: record.claims, familyKey: record.familyKey };
}

/**
 * RFC 9068 §4: our issuer, `typ: at+jwt`, signed by one of our keys with the algorithm it was
 * published for, unexpired, with the claims our tokens carry. Not whether it was revoked: no read.
 */
export async function verifyJwtAccessToken(
  deps: Pick<IntrospectDeps, 'clock' | 'verificationKeys'>,
  token: string,
  issuer: string,
): Promise<Found | undefined> {
  const keys = await deps.verificationKeys();
  let payload: JWTPayload;
  try {
    // The key is chosen by `kid`, and only for the algorithm it was published with: a token that
    // names another `alg` for a known key finds no key (RFC 8725 §3.1, algorithm confusion).
    ({ payload } = await jwtVerify(token, (header) => verificationKeyFor(keys, header.kid, header.alg), {
      issuer,
      typ: ACCESS_TOKEN_TYPE,
      algorithms: [...SIGNING_ALGORITHMS],
      currentDate: new Date(deps.clock.now()),
      clockTolerance: 0,
    }));
  } catch {
    return undefined;
  }
  const claims = payload as JWTPayload & {
    client_id?: string;
    auth_time?: number;
    amr?: string[];
    acr?: unknown;
    scope?: string;
    [ENVIRONMENT_CLAIM]?: unknown;
    [FAMILY_CLAIM]?: unknown;
  };
  const environmentId = claims[ENVIRONMENT_CLAIM];
  const familyKey = claims[FAMILY_CLAIM];
  if (
    typeof claims.sub !== 'string' ||
    typeof claims.client_id !== 'string' ||
    typeof claims.exp !== 'number' ||
    typeof claims.jti !== 'string' ||
    typeof environmentId !== 'string' ||
    (familyKey !== undefined && typeof familyKey !== 'string')
  ) {
    return undefined;
  }
  if (typeof claims.iat === 'number' && claims.iat > deps.clock.now() / 1000 + IAT_SKEW_SECONDS) return undefined;
  const response: Found['response'] = {
    active: true,
    token_type: 'Bearer',
    iss: issuer,
    sub: claims.sub,
    aud: Array.isArray(claims.aud) ? (claims.aud[0] ?? '') : (claims.aud ?? ''),
    client_id: claims.client_id,
    iat: claims.iat ?? 0,
    exp: claims.exp,
    jti: claims.jti,
    ...(claims.auth_time === undefined ? {} : { auth_time: claims.auth_time }),
    ...(claims.amr === undefined ? {} : { amr: claims.amr }),
    ...(typeof claims.acr === 'string' ? { acr: claims.acr } : {}),
    ...(claims.scope === undefined ? {} : { scope: claims.scope }),
  };
  const userClaims: Record<string, string | boolean> = {};
  for (const name of USER_CLAIM_NAMES) {
    const value = (payload as Record<string, unknown>)[name];
    if (typeof value === 'string' || typeof value === 'boolean') userClaims[name] = value;
  }
  return { response, environmentId, claims: userClaims, familyKey };
}
