/**
 * Access tokens, as the client's settings say:
 * - `jwt`: an RFC 9068 JWT access token, signed with the current key of the client's algorithm
 *   (ES256 by default, or RS256; header `typ: at+jwt`, `kid`), verifiable by a resource server with
 *   nothing but the JWKS;
 * - `opaque`: 256 random bits, meaningful only through introspection (RFC 7662); stored only as
 *   its SHA-256.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { sectorOf, type ClientConfig } from '../platform/config';
import { subjectOf, type HmacKeys } from '../keys/hmac-keys';
import { TemporarilyUnavailableError } from '../platform/errors';
import type { OpaqueTokenRecord, UserClaims } from './ports';
import { isPasskeyMethod, type LoginMethod, type SigningAlgorithm } from '../platform/vocabulary';
import type { UserIdentity } from '../identity/identity';
import { hasScope } from './scopes';
import type { SigningKey, SigningKeys } from '../keys/signing-keys';

/** RFC 9068 §2.1: the media type of JWT access tokens, `application/at+jwt`, as `typ`. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/**
 * RFC 8176 authentication method references (§2), registered values only (docs/api.md, "amr"):
 * - a code: `otp` (a one-time password), plus `sms` (by text message to the user's number) or
 *   `tel` (by a phone call). RFC 8176 registers no value for email, so an email code is `otp` alone;
 * - a passkey: `hwk` (proof of possession of a hardware-secured key: a device-bound passkey) or
 *   `swk` (of a software-secured key: a synced passkey, whose private key a provider copies
 *   between devices), with `user` (the authenticator's user verification, a biometric or PIN:
 *   required by every ceremony) and `mfa`: a key held plus a user verified is two factors, NIST
 *   SP 800-63B's multi-factor cryptographic authenticator.
 * A relying party tells a passkey login from a code login by `hwk`/`swk` (or by `acr`: `acrOf`).
 */
export function amrOf(method: LoginMethod): string[] {
  switch (method) {
    case 'email':
      return ['otp'];
    case 'sms':
      return ['otp', 'sms'];
    case 'voice':
      return ['otp', 'tel'];
    case 'passkey':
      return ['hwk', 'user', 'mfa'];
    case 'synced_passkey':
      return ['swk', 'user', 'mfa'];
  }
}

/**
 * The `acr` of a login by a passkey: `phr`, "phishing-resistant" (OpenID Connect Extended
 * Authentication Profile (EAP) ACR Values 1.0 §2): the browser binds every assertion to the
 * relying party's domain, so a look-alike site cannot relay it. A client asks for it with
 * `acr_values=phr`; discovery advertises it (`acr_values_supported`).
 */
export const PHISHING_RESISTANT_ACR = 'phr';

/**
 * The `acr` claim of a login by `method` (OIDC Core §2): `phr` for a passkey, and none for a code,
 * which no registered ACR value describes better than its absence (a code can be phished). Tokens
 * carry `acr` only when this is defined.
 */
export function acrOf(method: LoginMethod): string | undefined {
  return isPasskeyMethod(method) ? PHISHING_RESISTANT_ACR : undefined;
}

/** The `sub` of `user` for `client` (its `subjectType`: the same for every client, or per sector, OIDC Core §8). */
export function subjectFor(keys: HmacKeys, environmentId: string, client: ClientConfig, user: UserIdentity): string {
  return subjectOf(keys, environmentId, user, client.subjectType === 'pairwise' ? sectorOf(client) : undefined);
}

/**
 * The claim that binds a JWT to the environment it was issued in (the request's `env_id`):
 * introspection answers only for callers of that environment, so a client allowed in two
 * environments cannot carry a token from one into the other.
 */
export const ENVIRONMENT_CLAIM = 'env_id';

/** The `aud` of a client's tokens in an environment: its per-environment audience, else its audience. */
export function audienceOf(client: ClientConfig, environmentId: string): string {
  return client.accessToken.audienceByEnvironment?.[environmentId] ?? client.accessToken.audience;
}

/**
 * The user's address as OpenID Connect claims (OIDC Core §5.1), only where the grant's scope asks
 * for it (`email`, `phone`: §5.4) or the client always wants it (`includeUserIdClaim`). Personal
 * data stays out of tokens otherwise. The address is verified: the user just proved they receive
 * codes at it.
 */
export function userClaimsOf(user: UserIdentity, client: ClientConfig, scope: string | undefined): UserClaims {
  if (user.authType === 'email') {
    return client.accessToken.includeUserIdClaim || hasScope(scope, 'email') ? { email: user.value, email_verified: true } : {};
  }
  return client.accessToken.includeUserIdClaim || hasScope(scope, 'phone') ? { phone_number: user.value, phone_number_verified: true } : {};
}

/**
 * The claims of `claims` that `scope` still covers: a refresh that narrows the scope (RFC 6749 §6)
 * drops the address claims that only the dropped `email` or `phone` scope granted. A client that
 * always wants them (`includeUserIdClaim`) keeps them.
 */
export function claimsWithin(claims: UserClaims, client: ClientConfig, scope: string | undefined): UserClaims {
  if (client.accessToken.includeUserIdClaim) return claims;
  const kept: Record<string, string | boolean> = {};
  for (const [name, value] of Object.entries(claims)) {
    if (hasScope(scope, name.startsWith('phone_') ? 'phone' : 'email')) kept[name] = value;
  }
  return kept;
}

/**
 * The claim that names the refresh token family an access token was issued with: `sid`, the
 * session id (registered in the IANA JWT claims registry by OpenID Connect Front-Channel Logout
 * §3); a family is the client's session with the user. Revoking the family makes the access
 * token inactive at introspection (RFC 7009 §2.1). Its value is the family's key, from which no
 * refresh token can be rebuilt.
 */
export const FAMILY_CLAIM = 'sid';

/** What a token says about its grant, whatever its format. */
export interface Grant {
  readonly issuer: string;
  readonly client: ClientConfig;
  readonly environmentId: string;
  readonly subject: string;
  /** How the user logged in: a code's channel or a passkey (for `amr` and `acr`). */
  readonly channel: LoginMethod;
  /** The user's address claims the grant carries (`userClaimsOf`). */
  readonly claims: UserClaims;
  /** The granted scope, space-separated (RFC 6749 §3.3), if any. */
  readonly scope: string | undefined;
  /** Seconds since the epoch: when the tokens are issued. */
  readonly issuedAt: number;
  /** Seconds since the epoch: when the user proved possession of the code (`auth_time`). */
  readonly authTime: number;
  /** The authorization request's `nonce`, for the ID token (OIDC Core §3.1.2.1). */
  readonly nonce?: string | undefined;
  /** The login's session id: the ID token's `sid` (OIDC Front-Channel Logout §3), when known. */
  readonly sessionId?: string | undefined;
  /** The key of the refresh token family the tokens are issued with, if any. */
  readonly familyKey?: string | undefined;
}

export interface IssuedToken {
  readonly accessToken: string;
  readonly expiresIn: number;
}

/**
 * Signs an RFC 9068 access token. Claims: iss, sub, aud, client_id, iat, exp, jti (§2.2), and
 * auth_time, amr, acr (§2.2.1, a passkey login's only), scope, the environment (`env_id`), the refresh token family (`sid`) when there
 * is one, and the user's address where the grant carries it (`userClaimsOf`), under the OpenID
 * Connect claim names.
 */
export async function signAccessToken(keys: SigningKeys, grant: Grant): Promise<IssuedToken> {
  const settings = grant.client.accessToken;
  const signer = signingKeyFor(keys, settings.signingAlgorithm);
  const claims: Record<string, unknown> = {
    client_id: grant.client.id,
    [ENVIRONMENT_CLAIM]: grant.environmentId,
    auth_time: grant.authTime,
    amr: amrOf(grant.channel),
    ...acrClaimOf(grant.channel),
    ...(grant.scope === undefined ? {} : { scope: grant.scope }),
    ...(grant.familyKey === undefined ? {} : { [FAMILY_CLAIM]: grant.familyKey }),
    ...grant.claims,
  };
  const accessToken = await new SignJWT(claims)
    .setProtectedHeader({ alg: settings.signingAlgorithm, typ: ACCESS_TOKEN_TYPE, kid: signer.kid })
    .setIssuer(grant.issuer)
    .setSubject(grant.subject)
    .setAudience(audienceOf(grant.client, grant.environmentId))
    .setIssuedAt(grant.issuedAt)
    .setExpirationTime(grant.issuedAt + settings.ttlSeconds)
    .setJti(randomUUID())
    .sign(signer.key);
  return { accessToken, expiresIn: settings.ttlSeconds };
}

/** `{ acr }` for a login by a passkey, `{}` otherwise: a token carries `acr` only when it is defined. */
export function acrClaimOf(method: LoginMethod): { acr?: string } {
  const acr = acrOf(method);
  return acr === undefined ? {} : { acr };
}

/** The hash an opaque token is stored and looked up by. */
export function opaqueTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** A new opaque token (256 bits from the CSPRNG, base64url) and the record to store for it. */
export function mintOpaqueToken(grant: Grant): { token: string; record: OpaqueTokenRecord } {
  const token = randomBytes(32).toString('base64url');
  const settings = grant.client.accessToken;
  return {
    token,
    record: {
      tokenHash: opaqueTokenHash(token),
      subject: grant.subject,
      clientId: grant.client.id,
      environmentId: grant.environmentId,
      audience: audienceOf(grant.client, grant.environmentId),
      scope: grant.scope,
      jti: randomUUID(),
      amr: amrOf(grant.channel),
      acr: acrOf(grant.channel),
      issuedAt: grant.issuedAt,
      authTime: grant.authTime,
      expiresAt: grant.issuedAt + settings.ttlSeconds,
      claims: grant.claims,
      familyKey: grant.familyKey,
    },
  };
}

/**
 * The current key of `alg`. A key set stored before RS256 existed has none until its next
 * rotation creates the group (docs/operations/key-rotation.md): a dependency not ready yet (503),
 * not the client's fault.
 */
export function signingKeyFor(keys: SigningKeys, alg: SigningAlgorithm): SigningKey {
  const key = keys.current.get(alg);
  if (key === undefined) throw new TemporarilyUnavailableError({ detail: `no current ${alg} signing key: rotate the signing keys once` });
  return key;
}
