/**
 * What the service says about itself, at two well-known locations that agree field by field
 * where they overlap:
 * - `/.well-known/oauth-authorization-server`: authorization server metadata (RFC 8414 §2);
 * - `/.well-known/openid-configuration`: OpenID Provider metadata (OpenID Connect Discovery 1.0
 *   §3), where OpenID Connect libraries and API Gateway's JWT authorizers look.
 * URLs are built from the issuer, so they are right wherever the issuer is (127.0.0.1:3000
 * locally, the API Gateway stage URL or a custom domain on AWS).
 *
 * Nothing is advertised that the service does not do: there is no authorization endpoint (the
 * code reaches the user through otp/send) and there are no ID tokens yet, so the fields that
 * describe them are absent rather than false.
 */
import { SIGNING_ALGORITHMS } from '../vocabulary';

/** Seconds a verifier may cache the JWKS: part of the key rotation arithmetic (docs/operations/key-rotation.md). */
export const JWKS_MAX_AGE_SECONDS = 300;
/** Seconds a client may cache the metadata documents. */
export const METADATA_MAX_AGE_SECONDS = 3600;

export const PATHS = {
  otpSend: '/idp/v1/otp/send',
  token: '/idp/v1/account/token',
  introspect: '/idp/v1/account/introspect',
  jwks: '/.well-known/jwks.json',
  metadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
} as const;

/** The metadata both documents carry (RFC 8414 §2 and OpenID Connect Discovery 1.0 §3 name them alike). */
function sharedMetadata(issuer: string) {
  return {
    issuer,
    token_endpoint: `${issuer}${PATHS.token}`,
    jwks_uri: `${issuer}${PATHS.jwks}`,
    introspection_endpoint: `${issuer}${PATHS.introspect}`,
    // No authorization endpoint yet, so no response type (both documents require the field).
    response_types_supported: [] as string[],
    grant_types_supported: ['authorization_code'],
    // Public clients at the token endpoint: client_id in the body, no client secret (RFC 6749 §2.1).
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    // Resource servers authenticate with their client id and API key (RFC 6749 §2.3.1), or with
    // the API key alone as a Bearer credential (RFC 6750 syntax; not an IANA-registered method).
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'bearer'],
    // An extension (RFC 8414 §2 allows them): where codes are requested.
    otp_send_endpoint: `${issuer}${PATHS.otpSend}`,
  };
}

/** RFC 8414 §2. */
export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return sharedMetadata(issuer);
}

/**
 * OpenID Connect Discovery 1.0 §3. `subject_types_supported` is `pairwise`: a user's `sub` differs
 * per environment (lib/domain/hmac-keys.ts). The access tokens' signing algorithms are listed
 * under an extension name (no registered field describes them; RFC 9068 leaves discovery to
 * the JWKS).
 */
export function openIdProviderMetadata(issuer: string): Record<string, unknown> {
  return {
    ...sharedMetadata(issuer),
    subject_types_supported: ['pairwise'],
    access_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
  };
}
