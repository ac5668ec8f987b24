/**
 * What the service says about itself, at two well-known locations that agree field by field
 * where they overlap:
 * - `/.well-known/oauth-authorization-server`: authorization server metadata (RFC 8414 §2);
 * - `/.well-known/openid-configuration`: OpenID Provider metadata (OpenID Connect Discovery 1.0
 *   §3), where OpenID Connect libraries and API Gateway's JWT authorizers look.
 * URLs are built from the issuer, so they are right wherever the issuer is (127.0.0.1:3000
 * locally, the API Gateway stage URL or a custom domain on AWS).
 *
 * Nothing is advertised that the service does not do, and what it does is advertised in both.
 */
import type { ServiceConfig } from '../config';
import { GRANT_TYPES, SIGNING_ALGORITHMS, SUPPORTED_LOCALES } from '../vocabulary';
import { scopesOf, STANDARD_SCOPES } from './scopes';

/** Seconds a verifier may cache the JWKS: part of the key rotation arithmetic (docs/operations/key-rotation.md). */
export const JWKS_MAX_AGE_SECONDS = 300;
/** Seconds a client may cache the metadata documents. */
export const METADATA_MAX_AGE_SECONDS = 3600;

export const PATHS = {
  otpSend: '/idp/v1/otp/send',
  token: '/idp/v1/account/token',
  introspect: '/idp/v1/account/introspect',
  revoke: '/idp/v1/account/revoke',
  authorize: '/idp/v1/account/authorize',
  userinfo: '/idp/v1/account/userinfo',
  jwks: '/.well-known/jwks.json',
  metadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
} as const;

/** The claims ID tokens and UserInfo carry (OIDC Core §2, §5.1): lib/domain/id-tokens.ts, lib/domain/access-tokens.ts. */
export const CLAIMS_SUPPORTED = [
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'amr',
  'at_hash',
  'email',
  'email_verified',
  'phone_number',
  'phone_number_verified',
] as const;

/**
 * The metadata, the same in both documents (RFC 8414 §2 registers the OpenID Connect fields too,
 * so both documents can say everything).
 */
function metadata(issuer: string, config: ServiceConfig): Record<string, unknown> {
  const clientScopes = config.stage.clients.flatMap((client) => scopesOf(client.accessToken.scope));
  const issuesRefreshTokens = config.stage.clients.some((client) => client.refreshTokens !== undefined);
  return {
    issuer,
    authorization_endpoint: `${issuer}${PATHS.authorize}`,
    token_endpoint: `${issuer}${PATHS.token}`,
    userinfo_endpoint: `${issuer}${PATHS.userinfo}`,
    jwks_uri: `${issuer}${PATHS.jwks}`,
    introspection_endpoint: `${issuer}${PATHS.introspect}`,
    scopes_supported: [...new Set([...STANDARD_SCOPES, ...clientScopes])],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    // refresh_token only where a client is issued refresh tokens: nothing is advertised that no client can do.
    grant_types_supported: GRANT_TYPES.filter((grant) => grant !== 'refresh_token' || issuesRefreshTokens),
    // RFC 9207: the authorization response carries `iss`, so a client can tell which server answered.
    authorization_response_iss_parameter_supported: true,
    // A user's `sub` differs per environment (lib/domain/hmac-keys.ts).
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    // No registered field names the access tokens' algorithms (RFC 9068 leaves it to the JWKS).
    access_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    claims_supported: [...CLAIMS_SUPPORTED],
    ui_locales_supported: [...SUPPORTED_LOCALES],
    // OIDC Discovery §3 defaults request_uri_parameter_supported to true: say it is not.
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    claims_parameter_supported: false,
    // Public clients at the token endpoint: client_id in the body, no client secret (RFC 6749 §2.1).
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    // Resource servers authenticate with their client id and API key (RFC 6749 §2.3.1), or with
    // the API key alone as a Bearer credential (RFC 6750 syntax; not an IANA-registered method).
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'bearer'],
    // RFC 7009 (registered by RFC 8414 §2): public clients name themselves (`none`), clients with
    // API keys authenticate as they do for introspection (lib/domain/client-authentication.ts).
    revocation_endpoint: `${issuer}${PATHS.revoke}`,
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'bearer'],
    // An extension (RFC 8414 §2 allows them): where the API flow requests codes.
    otp_send_endpoint: `${issuer}${PATHS.otpSend}`,
  };
}

/** RFC 8414 §2. */
export function authorizationServerMetadata(issuer: string, config: ServiceConfig): Record<string, unknown> {
  return metadata(issuer, config);
}

/** OpenID Connect Discovery 1.0 §3. */
export function openIdProviderMetadata(issuer: string, config: ServiceConfig): Record<string, unknown> {
  return metadata(issuer, config);
}
