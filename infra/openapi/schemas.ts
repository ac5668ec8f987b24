/**
 * The bodies docs/openapi.json describes, as zod schemas.
 *
 * Requests: the very schemas the handlers validate with, imported from their modules (a field added
 * there appears in the document at the next `npm run openapi`, and the staleness test fails until
 * then). The few requests a handler reads without a schema (the UserInfo form, the login page's
 * form) are described here.
 *
 * Responses: the success bodies, each checked by the compiler against the type its handler
 * returns (`ResponseTypeChecks` below), so the description cannot drift from the code; and the
 * HTTP suites check every response they receive against the document (test/support/contract.ts).
 *
 * Nothing under lib/ imports this folder: the functions' bundles carry none of it
 * (test/infra/bundle-contents.test.ts).
 */
import '../../lib/platform/zod';
import * as z from 'zod/mini';
import type { ErrorCode } from '../../lib/platform/errors';
import { authorizationCodeFields } from '../../lib/oauth/grants/authorization-code-grant';
import { otpGrantFields, otpUserFields } from '../../lib/oauth/grants/one-time-code-grant';
import { introspectFields, type IntrospectionResponse } from '../../lib/endpoints/introspect-token';
import { refreshFields } from '../../lib/oauth/grants/refresh-token-grant';
import { revokeFields, type revokeToken } from '../../lib/endpoints/revoke-token';
import { CLAIMS_SUPPORTED, type ServerMetadata } from '../../lib/endpoints/metadata';
import { sendFields, type SendCodeResponse } from '../../lib/endpoints/otp-send';
import { publicKeySetSchema, type PublicKeySet } from '../../lib/keys/signing-keys';
import type { TokenResponse } from '../../lib/oauth/token-response';
import type { UserInfoResponse } from '../../lib/endpoints/userinfo';
import { CHANNELS, CLIENT_ASSERTION_ALGORITHMS, GRANT_TYPES, SIGNING_ALGORITHMS, SUPPORTED_LOCALES } from '../../lib/platform/vocabulary';

const text = (description: string) => z.string().check(z.describe(description));
const seconds = (description: string) => z.int().check(z.minimum(0), z.describe(description));

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/** `POST /idp/v1/otp/send`. */
export const sendRequest = sendFields;

/**
 * The token endpoint's grant of the service's own API flow: the code `otp/send` delivered, with
 * the user it was sent to (lib/endpoints/token-endpoint.ts dispatches on `user_id`). `grant_type` is
 * any non-empty text to the schema (a wrong one is answered `unsupported_grant_type`, not
 * `invalid_request`); the document names the one value that succeeds.
 */
/**
 * `client_secret_post` (RFC 6749 §2.3.1): a confidential client's secret in the body, beside
 * `client_id`, instead of HTTP Basic (never both: one method per request).
 */
const clientSecret = z.optional(z.string());

/**
 * `private_key_jwt` (RFC 7523 §2.2, OIDC Core §9): a JWT the client signed with one of its
 * registered keys, and the type that says so; read by the client authentication
 * (lib/oauth/client-authentication.ts), never beside another method.
 */
const clientAssertion = {
  client_secret: clientSecret,
  client_assertion: z.optional(z.string()),
  client_assertion_type: z.optional(z.literal('urn:ietf:params:oauth:client-assertion-type:jwt-bearer')),
};

export const otpTokenRequest = z.extend(z.extend(otpGrantFields, otpUserFields.shape), {
  grant_type: z.literal('authorization_code'),
  ...clientAssertion,
});

/** The standard authorization code grant (RFC 6749 §4.1.3 with PKCE), for codes from the hosted login page. */
export const authorizationCodeTokenRequest = z.extend(authorizationCodeFields, {
  grant_type: z.literal('authorization_code'),
  ...clientAssertion,
});

/** The refresh token grant (RFC 6749 §6): a public client names itself with `client_id`, a confidential one authenticates. */
export const refreshTokenRequest = z.extend(refreshFields, { grant_type: z.literal('refresh_token'), ...clientAssertion });

/**
 * `POST /idp/v1/account/revoke` (RFC 7009 §2.1). `client_id` is read by the client authentication
 * (lib/oauth/client-authentication.ts), not by the handler's schema: a public client names itself
 * with it; beside HTTP Basic or a Bearer API key it must name the same client.
 */
export const revocationRequest = z.extend(revokeFields, { client_id: z.optional(z.string()), ...clientAssertion });

/** `POST /idp/v1/account/introspect` (RFC 7662 §2.1). */
export const introspectionRequest = introspectFields;

/** `POST /idp/v1/account/userinfo`: the access token in a form body (RFC 6750 §2.2), the alternative to the Authorization header. */
export const userInfoRequest = z.object({ access_token: z.optional(z.string().check(z.minLength(1))) });

/** The end-session endpoint's request as a form (OpenID Connect RP-Initiated Logout 1.0 section 2: GET or POST; lib/login/end-session.ts). */
export const endSessionRequest = z.object({
  id_token_hint: z.optional(z.string()),
  logout_hint: z.optional(z.string()),
  client_id: z.optional(z.string()),
  post_logout_redirect_uri: z.optional(z.string()),
  state: z.optional(z.string()),
  ui_locales: z.optional(z.string()),
  env_id: z.optional(z.string()),
});

/** The end-session endpoint's confirmation page's form (lib/login/logout-page.ts). */
export const logoutConfirmationForm = z.object({
  confirmation: z.string(),
  action: z.enum(['logout', 'stay']),
});

/** The hosted login page's form posts (lib/login/authorize.ts `continueAuthorization`). */
export const authorizeForm = z.object({
  csrf: z.string(),
  action: z.optional(z.enum(['send', 'resend', 'verify'])),
  user_id: z.optional(z.string()),
  channel: z.optional(z.enum(['sms', 'voice'])),
  code: z.optional(z.string()),
});

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

/** `otp/send`'s 200. */
export const sendResponse = z.strictObject({
  status: z.literal('sent'),
  channel: z.enum(CHANNELS as readonly ['email', 'sms', 'voice']).check(z.describe('How the code went: by email, SMS or a voice call.')),
  expires_in: seconds('Seconds the code stays valid.'),
});

/**
 * The token response (RFC 6749 §5.1; OIDC Core §3.1.3.3 adds `id_token`). A new member (a refresh
 * token) is one more optional field here: the compiler asks for it as soon as `TokenResponse` has it.
 */
export const tokenResponse = z.strictObject({
  access_token: text('An RFC 9068 JWT or an opaque token, as the client is configured.').check(z.minLength(1)),
  token_type: z.literal('Bearer'),
  expires_in: seconds('Seconds until the access token expires.'),
  scope: z.optional(text('The granted scope, when there is one (RFC 6749 section 3.3).')),
  refresh_token: z.optional(
    text(
      'For clients configured with refresh tokens: single use, exchanged at this endpoint with `grant_type=refresh_token` (RFC 6749 section 6).',
    ).check(z.minLength(1)),
  ),
  id_token: z.optional(text("An OpenID Connect ID token, when the granted scope includes 'openid'.")),
});

/** RFC 7662 §2.2: a live token of the caller's environments, or just `{"active": false}`. */
export const introspectionResponse = z.union([
  z.strictObject({ active: z.literal(false) }),
  z.strictObject({
    active: z.literal(true),
    token_type: z.literal('Bearer'),
    iss: z.string(),
    sub: text(
      'The subject: stable per user and environment, the same for every client of the environment, never the email address or phone number.',
    ),
    aud: z.string(),
    client_id: z.string(),
    iat: seconds('Seconds since the epoch.'),
    exp: seconds('Seconds since the epoch.'),
    jti: z.string(),
    auth_time: z.optional(seconds('Seconds since the epoch: when the user proved possession of the code.')),
    amr: z.optional(
      z
        .array(z.string())
        .check(
          z.describe(
            "Authentication methods (RFC 8176, registered values only): 'otp', plus 'sms' or 'tel' for a code by text message or phone call; for a passkey 'hwk' (device-bound) or 'swk' (synced), with 'user' and 'mfa'.",
          ),
        ),
    ),
    acr: z.optional(text("The authentication context class: 'phr' (phishing-resistant) for a passkey login; absent for a code login.")),
    scope: z.optional(z.string()),
  }),
]);

/** RFC 7009 §2.2: an empty JSON object, whatever the token was (unknown, expired, another client's, already revoked). */
export const revocationResponse = z.strictObject({});

/** OIDC Core §5.3.2: `sub` and the address claims the token's scope grants (§5.4). */
export const userInfoResponse = z.strictObject({
  sub: z.string(),
  email: z.optional(z.string()),
  email_verified: z.optional(z.boolean()),
  phone_number: z.optional(z.string()),
  phone_number_verified: z.optional(z.boolean()),
});

/** The JWKS (RFC 7517 §5): the schema the verifying functions accept a published key set with. */
export const jwksResponse = publicKeySetSchema;

/** What `private_key_jwt` assertions may be signed with (RFC 8414 §2 `*_auth_signing_alg_values_supported`), in order. */
const clientAssertionAlgorithms = z.tuple([
  z.literal(CLIENT_ASSERTION_ALGORITHMS[0]),
  z.literal(CLIENT_ASSERTION_ALGORITHMS[1]),
  z.literal(CLIENT_ASSERTION_ALGORITHMS[2]),
  z.literal(CLIENT_ASSERTION_ALGORITHMS[3]),
]);

/** RFC 8414 §2 and OpenID Connect Discovery 1.0 §3: both documents are this. */
export const serverMetadata = z.strictObject({
  issuer: z.url(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  userinfo_endpoint: z.url(),
  jwks_uri: z.url(),
  introspection_endpoint: z.url(),
  scopes_supported: z.array(z.string()),
  response_types_supported: z.tuple([z.literal('code')]),
  response_modes_supported: z.tuple([z.literal('query'), z.literal('form_post')]),
  grant_types_supported: z.array(z.enum(GRANT_TYPES)),
  authorization_response_iss_parameter_supported: z.literal(true),
  subject_types_supported: z.tuple([z.literal('public'), z.literal('pairwise')]),
  id_token_signing_alg_values_supported: z.array(z.enum(SIGNING_ALGORITHMS)),
  access_token_signing_alg_values_supported: z.array(z.enum(SIGNING_ALGORITHMS)),
  claims_supported: z.array(z.enum(CLAIMS_SUPPORTED)),
  acr_values_supported: z.tuple([z.literal('phr')]),
  ui_locales_supported: z.array(z.enum(SUPPORTED_LOCALES)),
  request_parameter_supported: z.literal(false),
  request_uri_parameter_supported: z.literal(false),
  claims_parameter_supported: z.literal(false),
  token_endpoint_auth_methods_supported: z.tuple([
    z.literal('none'),
    z.literal('client_secret_basic'),
    z.literal('client_secret_post'),
    z.literal('private_key_jwt'),
  ]),
  token_endpoint_auth_signing_alg_values_supported: clientAssertionAlgorithms,
  code_challenge_methods_supported: z.tuple([z.literal('S256')]),
  introspection_endpoint_auth_methods_supported: z.tuple([z.literal('client_secret_basic')]),
  revocation_endpoint: z.url(),
  revocation_endpoint_auth_methods_supported: z.tuple([
    z.literal('none'),
    z.literal('client_secret_basic'),
    z.literal('client_secret_post'),
    z.literal('private_key_jwt'),
  ]),
  revocation_endpoint_auth_signing_alg_values_supported: clientAssertionAlgorithms,
  otp_send_endpoint: z.url().check(z.describe('An extension (RFC 8414 section 2 allows them): where the API flow requests codes.')),
  end_session_endpoint: z.url().check(z.describe('OpenID Connect RP-Initiated Logout 1.0 section 2.1.')),
  backchannel_logout_supported: z.literal(true),
  backchannel_logout_session_supported: z.literal(true),
});

/**
 * Every `error` a JSON error body can carry: the service's (lib/platform/errors.ts) and the one only API
 * Gateway's own answers use (`access_denied`, the WAF's: infra/api.ts GATEWAY_RESPONSES).
 */
export type WireErrorCode = ErrorCode | 'access_denied';

/**
 * `error_description` (RFC 6749 §5.2): printable ASCII without `"` and `\` (lib/platform/errors.ts
 * `describable`), so it can be quoted in a WWW-Authenticate challenge.
 */
export const errorDescription = z
  .string()
  .check(z.regex(/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/), z.describe('Human-readable, in English; never echoes the request.'));

// ---------------------------------------------------------------------------------------------
// Compile-time checks: each response schema accepts exactly what its handler's type allows.
// ---------------------------------------------------------------------------------------------

/** `T` with every member and array readonly, so that `readonly` alone is no difference. */
type Frozen<T> = T extends readonly (infer U)[] ? readonly Frozen<U>[] : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;
/** True when the two types are identical once frozen: the same members, each as optional and of the same type. */
type Same<A, B> = (<T>() => T extends Frozen<A> ? 1 : 2) extends <T>() => T extends Frozen<B> ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

/**
 * Fails to compile when a handler's answer and its described schema part ways. UserInfo's claims
 * are typed as a loose record in the domain (any OIDC claim name), so there only the described
 * shape is checked to be one the handler may return.
 */
export type ResponseTypeChecks = [
  Expect<Same<z.output<typeof sendResponse>, SendCodeResponse>>,
  Expect<Same<z.output<typeof tokenResponse>, TokenResponse>>,
  Expect<Same<z.output<typeof introspectionResponse>, IntrospectionResponse>>,
  Expect<Same<z.output<typeof jwksResponse>, PublicKeySet>>,
  Expect<Same<z.output<typeof serverMetadata>, ServerMetadata>>,
  Expect<Same<z.output<typeof revocationResponse>, Awaited<ReturnType<typeof revokeToken>>>>,
  Expect<[z.output<typeof userInfoResponse>] extends [UserInfoResponse] ? true : false>,
];
