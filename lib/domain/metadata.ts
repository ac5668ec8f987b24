/**
 * Authorization server metadata (RFC 8414 §2), served at /.well-known/oauth-authorization-server.
 * URLs are built from the issuer, so they are right wherever the issuer is (127.0.0.1:3000
 * locally, the API Gateway stage URL or a custom domain on AWS).
 */
/** Seconds a verifier may cache the JWKS: part of the key rotation arithmetic (docs/operations/key-rotation.md). */
export const JWKS_MAX_AGE_SECONDS = 300;
/** Seconds a client may cache the metadata document. */
export const METADATA_MAX_AGE_SECONDS = 3600;

export const PATHS = {
  otpSend: '/idp/v1/otp/send',
  token: '/idp/v1/account/token',
  introspect: '/idp/v1/account/introspect',
  jwks: '/.well-known/jwks.json',
  metadata: '/.well-known/oauth-authorization-server',
} as const;

export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    token_endpoint: `${issuer}${PATHS.token}`,
    jwks_uri: `${issuer}${PATHS.jwks}`,
    introspection_endpoint: `${issuer}${PATHS.introspect}`,
    // The code reaches the user through otp/send, not an authorization endpoint redirect, so
    // there is no authorization_endpoint (RFC 8414 allows omitting it) and no response type.
    response_types_supported: [],
    grant_types_supported: ['authorization_code'],
    // Public clients: client_id in the body, no client secret (RFC 6749 §2.1).
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    // Not IANA-registered: resource servers present a Bearer API key (RFC 6750 syntax).
    introspection_endpoint_auth_methods_supported: ['bearer'],
    // An extension (RFC 8414 §2 allows them): where codes are requested.
    otp_send_endpoint: `${issuer}${PATHS.otpSend}`,
  };
}
