/**
 * Every public operation of the API, one entry each: what docs/openapi.json says about it. The
 * document (infra/openapi/document.ts) adds what every operation shares: the errors of the
 * middleware stack every function runs (lib/platform/http/handler.ts), of body parsing (lib/platform/http/request.ts)
 * and of API Gateway itself (infra/api.ts GATEWAY_RESPONSES), and the CORS preflight.
 *
 * Adding to the API is one entry here:
 * - a route: an `OperationSpec` (its path and methods must be lib/platform/routes.ts ROUTES': the generator
 *   refuses to run otherwise); a success without a body has no `schema`;
 * - a grant: its request schema (exported from its module, named in schemas.ts and document.ts
 *   `SCHEMAS` / `FIELD_DESCRIPTIONS`) in the token operation's `body.schemas`, its errors in `errors`;
 *   a new member of the token response fails to compile until schemas.ts `tokenResponse` has it;
 * - an error code: a line under its status in the operations that answer it (`{ code: 'when' }`);
 *   its headers, if any, in document.ts `HEADERS_OF_CODE`; an HTML page the login endpoint shows
 *   for a new status, in its `pages`.
 */
import { AUTHORIZATION_PARAMETERS } from '../../lib/login/authorize';
import { maxLengthOf } from '../../lib/login/request-parameters';
import { END_SESSION_PARAMETERS } from '../../lib/login/end-session';
import { PATHS } from '../../lib/endpoints/metadata';
import { MAX_BODY_BYTES } from '../../lib/platform/http/request';
import { SUPPORTED_LOCALES } from '../../lib/platform/vocabulary';
import type { WireErrorCode } from './schemas';

/** The request and response bodies of the document, by their name under `components.schemas` (document.ts). */
export type SchemaName =
  | 'SendRequest'
  | 'SendResponse'
  | 'OtpTokenRequest'
  | 'AuthorizationCodeTokenRequest'
  | 'RefreshTokenRequest'
  | 'TokenResponse'
  | 'IntrospectionRequest'
  | 'IntrospectionResponse'
  | 'RevocationRequest'
  | 'RevocationResponse'
  | 'UserInfoRequest'
  | 'UserInfoResponse'
  | 'AuthorizeForm'
  | 'EndSessionRequest'
  | 'LogoutConfirmationForm'
  | 'Jwks'
  | 'ServerMetadata';

/** The security schemes of the document (components.securitySchemes). */
export type SecuritySchemeName = 'apiKey' | 'clientSecretBasic' | 'accessToken';

/** For each status, each `error` code it carries and when. */
export type ErrorTable = Readonly<Partial<Record<number, Readonly<Partial<Record<WireErrorCode, string>>>>>>;

export type MediaType = 'application/json' | 'application/x-www-form-urlencoded';

export interface ParameterSpec {
  readonly description: string;
  readonly required?: boolean;
  readonly enum?: readonly string[];
  readonly maxLength?: number;
}

export interface OperationSpec {
  readonly path: string;
  readonly method: 'get' | 'post';
  readonly operationId: string;
  readonly tag: 'One-time codes' | 'OAuth 2.0 and OpenID Connect' | 'Discovery';
  readonly summary: string;
  readonly description: string;
  /** Alternatives (any one of them); an empty object means "no credentials". Absent: none needed. */
  readonly security?: ReadonlyArray<Partial<Record<SecuritySchemeName, readonly []>>>;
  readonly query?: Readonly<Record<string, ParameterSpec>>;
  /** The body: one schema, or several alternatives (anyOf), in each media type. */
  readonly body?: { readonly media: readonly MediaType[]; readonly schemas: readonly SchemaName[]; readonly required: boolean };
  /** The success answer (200): a JSON body of this schema, or (no `schema`) no body at all. */
  readonly success?: {
    readonly schema?: SchemaName;
    readonly description: string;
    /** `Cache-Control` of the success: `no-store` unless the answer is public (max age in seconds). */
    readonly maxAgeSeconds?: number;
    /** RFC 6749 §5.1: `Pragma: no-cache` on token (and token-describing) answers. */
    readonly pragma?: boolean;
  };
  /** HTML pages (the hosted login), by status: when each is shown. */
  readonly pages?: Readonly<Record<number, string>>;
  /** A 302 to the client: when. */
  readonly redirect?: string;
  /** The errors this operation answers itself, beyond those every function answers (document.ts). */
  readonly errors: ErrorTable;
}

const ENV_ID: ParameterSpec = {
  description:
    'The environment (tenant). Absent or empty: the default one. An unknown one, or one given more than once (RFC 6749 section 3.1), is `400 invalid_request`.',
};

/** The authorization request's parameters (the compiler asks for a line for each the endpoint knows). */
const AUTHORIZATION_PARAMETER_DESCRIPTIONS: Readonly<Record<(typeof AUTHORIZATION_PARAMETERS)[number], string>> = {
  response_type: '`code` (only).',
  client_id: 'The client.',
  redirect_uri: "One of the client's registered redirect URIs, exactly.",
  scope:
    "Space-separated: `openid`, `profile`, `email`, `phone`, `offline_access` and the client's own scope; other values are ignored. Absent: the client's configured scope.",
  state: 'Returned unchanged in the redirect.',
  nonce: 'Put in the ID token (OpenID Connect Core section 3.1.2.1).',
  code_challenge:
    'PKCE (RFC 7636): the base64url SHA-256 of the `code_verifier`, 43 characters. Required, except of a confidential client registered with `requirePkce: false` that sends a `nonce` (RFC 9700 section 2.1.1).',
  code_challenge_method: '`S256`, required with `code_challenge`.',
  login_hint: 'An email address or phone number to fill in.',
  ui_locales: `Preferred locales, space-separated (then Accept-Language): ${SUPPORTED_LOCALES.join(', ')}.`,
  prompt:
    "`login` asks for a code even with a live single sign-on session; `none` answers a code from the session or `login_required`, never a page; `select_account` offers to continue as the session's user or use another account (OpenID Connect Core section 3.1.2.1).",
  max_age:
    'Seconds: a session whose `auth_time` is this old or older asks for a code again; `0` always asks (OpenID Connect Core section 3.1.2.1). The ID token then carries `auth_time`, as it always does.',
  id_token_hint:
    'An ID token this service issued (expired ones included) naming the user the client expects: a session of another user asks for a code instead (with `prompt=none`, `login_required`).',
  env_id: 'The environment. Absent: the default one.',
  request: 'Not supported: answered `request_not_supported`.',
  request_uri: 'Not supported: answered `request_uri_not_supported`.',
  response_mode:
    '`query` (the default: a 302 with the parameters in the query) or `form_post` (OAuth 2.0 Form Post Response Mode: a page that posts them to the redirect URI).',
  acr_values:
    'Space-separated (OpenID Connect Core section 3.1.2.1). `phr` asks for a phishing-resistant login, a passkey: the page offers no code, only a session a passkey started serves, `prompt=none` without one answers `login_required`, and the ID token carries `acr: phr`. Other values are ignored; so is `phr` for a client with passkeys `off`.',
};

const AUTHORIZE_QUERY: Readonly<Record<string, ParameterSpec>> = Object.fromEntries(
  AUTHORIZATION_PARAMETERS.map((name) => [name, { description: AUTHORIZATION_PARAMETER_DESCRIPTIONS[name], maxLength: maxLengthOf(name) }]),
);

/** The end-session request's parameters (the compiler asks for a line for each the endpoint knows). */
export const END_SESSION_PARAMETER_DESCRIPTIONS: Readonly<Record<(typeof END_SESSION_PARAMETERS)[number], string>> = {
  id_token_hint:
    "An ID token this service issued to the client (expired ones included: RP-Initiated Logout section 2). When it verifies and its `sid` is the browser's session (or the browser has none), the session ends without asking; otherwise the user is asked.",
  logout_hint: "Accepted and ignored: the session that ends is the browser's.",
  client_id: "The client; with `id_token_hint`, it must be the hint's audience (section 2).",
  post_logout_redirect_uri:
    "Where to send the user afterwards: only an exact match of one of the client's registered `postLogoutRedirectUris` (section 3.1), and never after a hint that does not verify; otherwise the user ends on the service's page.",
  state: 'Returned unchanged in the redirect to `post_logout_redirect_uri` (section 3).',
  ui_locales: `The pages' language, space-separated preferences (then Accept-Language): ${SUPPORTED_LOCALES.join(', ')}.`,
  env_id: "The environment. Absent: the client's one environment when it may not use the default, else the default one.",
};

const END_SESSION_QUERY: Readonly<Record<string, ParameterSpec>> = Object.fromEntries(
  END_SESSION_PARAMETERS.map((name) => [
    name,
    {
      description: END_SESSION_PARAMETER_DESCRIPTIONS[name],
      maxLength: maxLengthOf(name),
    },
  ]),
);

/** What the end-session endpoint's GET and POST both answer (lib/login/end-session.ts). */
const END_SESSION_PAGES = {
  200: 'the confirmation page ("Sign out?"), when the request did not prove itself with an `id_token_hint` of the browser\'s session (or named an unregistered `post_logout_redirect_uri`); or, after a logout (or "Stay signed in") with no redirect URI to return to, the signed-out page in the user\'s language; the session cookie is cleared on a logout',
  400: "the error page: a parameter repeated or too long, an unknown client or environment, a `client_id` that is not the hint's audience; or an answer to the confirmation page that is too late (10 minutes), altered, or from a browser whose session is not the one it asked about",
} as const;

/** The SMS fraud guards' 429 (lib/guards/phone-guards.ts, docs/decisions/008-sms-fraud-guards.md), wherever SMS and voice codes are sent. */
const PHONE_SEND_LIMIT =
  "an SMS or voice send over a fraud guard's sliding window: the sends from one source IP (an IPv6 /64; not counted for clients with an API key), or to one block of phone numbers (per environment; the numbers are configuration). `Retry-After` gives the whole seconds until the window has room.";

/** The day's SMS and voice budget's 503 (lib/guards/phone-guards.ts). */
const PHONE_BUDGET_SPENT =
  "the environment's daily budget of SMS and voice messages is spent: codes by SMS or voice call are refused until the next UTC day (`Retry-After` gives the seconds until 00:00 UTC); codes by email still work";

/** The fraud guards' destination rule (403). */
const DESTINATION_NOT_ALLOWED =
  "an SMS or voice destination the environment does not allow: a country outside its `sms.allowedCountries`, a kind of number that is never a person's phone (premium rate and the like), or one the environment refuses (`sms.refusedNumberTypes`: personal numbers and VoIP by default); the description never says which";

/** The attempt limit's 429, the same words wherever a user's attempts are counted. */
const ATTEMPT_LIMIT =
  'the attempt limit for this user: at most 5 requests in any 60-second window, then a 300-second block (per environment; the numbers are configuration). `Retry-After` gives the whole seconds left.';

export const OPERATIONS: readonly OperationSpec[] = [
  {
    path: PATHS.otpSend,
    method: 'post',
    operationId: 'sendCode',
    tag: 'One-time codes',
    summary: 'Send a one-time code',
    description:
      'Sends a six-digit code by email, SMS or voice call. The code is valid for `expires_in` seconds, only for this client, redirect URI and user, and only until a newer code is sent. A client configured with `sendRequiresApiKey` must present one of its API keys as a Bearer credential.',
    security: [{}, { apiKey: [] }],
    query: { env_id: ENV_ID },
    body: { media: ['application/json'], schemas: ['SendRequest'], required: true },
    success: { schema: 'SendResponse', description: 'The code was handed to the email, SMS or voice provider.' },
    errors: {
      400: {
        invalid_request:
          'a missing or malformed field (the description names it), an invalid email address or phone number, an unknown or repeated `env_id`, an unregistered `redirect_uri`, an unsupported `method`, voice in an environment without it, a `message` without `%code%` or too long, a bad PKCE challenge',
        unauthorized_client: 'the client may not send by this channel, or may not set `message`',
      },
      401: {
        invalid_client: 'an unknown client, or one not allowed in this environment',
        invalid_token: 'the client requires an API key (`Authorization: Bearer`) and it is missing or wrong (RFC 6750 section 3)',
      },
      403: { destination_not_allowed: DESTINATION_NOT_ALLOWED },
      429: { too_many_requests: `${ATTEMPT_LIMIT} Counted per recipient mailbox. Or ${PHONE_SEND_LIMIT}` },
      502: {
        delivery_failed:
          'the email, SMS or voice provider refused the message or did not answer in time; the code just stored is discarded and the previous one stays usable. `Retry-After: 15`: a retry is a new send with a new code, and counts against the send limit',
      },
      503: {
        temporarily_unavailable: `${PHONE_BUDGET_SPENT}; or too little of the function's time is left to store, deliver and (should delivery fail) put back the previous code, and no code was stored (\`Retry-After: 1\`)`,
      },
    },
  },
  {
    path: PATHS.token,
    method: 'post',
    operationId: 'requestToken',
    tag: 'OAuth 2.0 and OpenID Connect',
    summary: 'Exchange a code or a refresh token for tokens',
    description:
      "RFC 6749 section 3.2. Two grants share `grant_type=authorization_code`: a request with `user_id` (or whose `code` is six digits) exchanges a code `otp/send` delivered (`OtpTokenRequest`); any other exchanges the hosted login page's authorization code with its PKCE verifier (`AuthorizationCodeTokenRequest`). `grant_type=refresh_token` (RFC 6749 section 6; `RefreshTokenRequest`) exchanges a refresh token, for clients configured with them: each refresh token is single use and the answer carries its successor; a spent one presented again revokes its whole family (RFC 9700 section 4.14.2). JSON or form-encoded (RFC 6749 section 4.1.3), so a standard OAuth client library works unchanged. A public client names itself with `client_id`; a confidential one authenticates on every grant, by HTTP Basic (`client_secret_basic`), `client_secret` in the body (`client_secret_post`), or a signed JWT (`private_key_jwt`, RFC 7523).",
    query: { env_id: ENV_ID },
    body: {
      media: ['application/json', 'application/x-www-form-urlencoded'],
      schemas: ['OtpTokenRequest', 'AuthorizationCodeTokenRequest', 'RefreshTokenRequest'],
      required: true,
    },
    success: { schema: 'TokenResponse', description: 'The tokens (RFC 6749 section 5.1).', pragma: true },
    errors: {
      400: {
        invalid_request:
          'a missing or malformed parameter (the description names it), an unknown or repeated `env_id`, a malformed `code_verifier`',
        unsupported_grant_type: "a `grant_type` other than 'authorization_code' and 'refresh_token'",
        invalid_grant:
          'the code is wrong, expired, used, replaced, bound to another client, redirect URI, user or environment, or its PKCE verifier does not match; the refresh token is unknown, expired (idle or absolute lifetime), revoked, already used (which revokes its family), or bound to another client or environment; the answer never says which',
        unauthorized_client: '`grant_type=refresh_token` from a client that is not issued refresh tokens',
        invalid_scope: 'a refresh asking for a `scope` the original grant did not include (RFC 6749 section 6)',
      },
      401: { invalid_client: 'an unknown client, or one not allowed in this environment' },
      429: {
        too_many_requests: `${ATTEMPT_LIMIT} Counted per user across all clients (a refresh counts for its token's user); also after 100 consecutive failed exchanges, until 24 hours after the first (NIST SP 800-63B section 5.2.2).`,
      },
    },
  },
  {
    path: PATHS.introspect,
    method: 'post',
    operationId: 'introspectToken',
    tag: 'OAuth 2.0 and OpenID Connect',
    summary: 'Token introspection (RFC 7662)',
    description:
      'For resource servers, authenticated as a client allowed to introspect, either way RFC 7662 section 2.1 allows: HTTP Basic with the client id and its API key (`client_secret_basic`), or the API key alone as a Bearer credential. A caller learns only about tokens of its own environments.',
    security: [{ clientSecretBasic: [] }, { apiKey: [] }],
    body: { media: ['application/x-www-form-urlencoded', 'application/json'], schemas: ['IntrospectionRequest'], required: true },
    success: {
      schema: 'IntrospectionResponse',
      description: "The token's state (RFC 7662 section 2.2): `active: false` alone for an expired, unknown or foreign token.",
      pragma: true,
    },
    errors: {
      400: { invalid_request: '`token` is missing or malformed' },
      401: {
        invalid_client: 'HTTP Basic credentials that are malformed, unknown, or of a client that may not introspect (a `Basic` challenge)',
        invalid_token: 'no credentials, or an API key that is not one of a client allowed to introspect (a `Bearer` challenge)',
      },
    },
  },
  {
    path: PATHS.revoke,
    method: 'post',
    operationId: 'revokeToken',
    tag: 'OAuth 2.0 and OpenID Connect',
    summary: 'Token revocation (RFC 7009)',
    description:
      "Revokes a refresh token (its whole family, and the access tokens issued with it) or an access token (introspection and UserInfo then say it is inactive; a resource server verifying JWTs itself with the JWKS accepts one until it expires). A public client names itself with `client_id`; a confidential one authenticates as at the token endpoint (RFC 7009 section 2.1): HTTP Basic (`client_secret_basic`), `client_secret` in the body (`client_secret_post`), a signed JWT (`private_key_jwt`), or its secret alone as a Bearer credential. Only the caller's own tokens are revoked. `token_type_hint` is ignored: the kinds of token are told apart by their shape.",
    security: [{}, { clientSecretBasic: [] }, { apiKey: [] }],
    body: { media: ['application/x-www-form-urlencoded', 'application/json'], schemas: ['RevocationRequest'], required: true },
    success: {
      schema: 'RevocationResponse',
      description:
        "`{}`, whatever the token was: revoked now, already revoked, expired, unknown, or another client's (RFC 7009 section 2.2: invalid tokens do not cause an error response).",
    },
    errors: {
      400: { invalid_request: '`token` is missing or malformed' },
      401: {
        invalid_client:
          'no `client_id` and no credentials, an unknown client, a client with API keys that presented none, HTTP Basic credentials or a Bearer API key that are malformed or wrong, or a `client_id` naming another client than the credentials (RFC 7009 section 2.2.1; a `Basic` challenge after HTTP Basic)',
      },
    },
  },
  {
    path: PATHS.authorize,
    method: 'get',
    operationId: 'authorize',
    tag: 'OAuth 2.0 and OpenID Connect',
    summary: 'The authorization endpoint (the hosted login page)',
    description:
      'RFC 6749 section 4.1 and OpenID Connect Core section 3.1.2: shows the login page, which sends a one-time code and checks it. PKCE (`S256`) is required of public clients. An unknown client or redirect URI gets an error page, never a redirect (RFC 6749 section 4.1.2.1); any other problem goes back to the client with `error`, `error_description`, `state` and `iss` (RFC 9207): a redirect, or with `response_mode=form_post` a page that posts them.',
    query: AUTHORIZE_QUERY,
    pages: {
      200: 'the login page, step 1: the email address or phone number (sets the transaction cookie); or, with `response_mode=form_post`, the page that posts an error to the client',
      400: 'the error page: an unknown client or environment, a redirect URI that is not registered, a repeated `client_id` or `redirect_uri`',
    },
    redirect:
      "an error of the authorization request, to the client's redirect URI with `error` (`invalid_request`, `unsupported_response_type`, `invalid_scope`, `login_required` for `prompt=none`, `request_not_supported`, `request_uri_not_supported`), `error_description`, `state` and `iss`",
    errors: {},
  },
  {
    path: PATHS.authorize,
    method: 'post',
    operationId: 'continueAuthorization',
    tag: 'OAuth 2.0 and OpenID Connect',
    summary: "The login page's form posts",
    description:
      "Sends (or resends) a code, by the same operation as `otp/send`, or checks one, by the token endpoint's rules. Needs the transaction cookie and its CSRF token. On success, redirects to the client with `code` (single use, 60 s), `state` and `iss`.",
    body: { media: ['application/x-www-form-urlencoded'], schemas: ['AuthorizeForm'], required: true },
    pages: {
      200: 'the next step: the code form after a send, or step 1 again; or, with `response_mode=form_post`, the page that posts `code`, `state` and `iss` to the client',
      400: 'a form problem shown on the page: an invalid email address or phone number, a wrong or dead code, or an expired transaction or CSRF mismatch (the "start again" page)',
      403: `the page saying codes cannot be sent to this phone number (what still works, never why): ${DESTINATION_NOT_ALLOWED}`,
      429: `the page with the attempt limit's message: ${ATTEMPT_LIMIT} Or, for an SMS or voice send, the fraud guards' message: ${PHONE_SEND_LIMIT}`,
      502: 'the page saying the code could not be delivered (`Retry-After: 15`)',
      503: `the page saying the service is temporarily unavailable (\`Retry-After: 1\`), or that codes by SMS and voice call are unavailable: ${PHONE_BUDGET_SPENT}`,
    },
    redirect: "success: to the client's redirect URI with `code`, `state` and `iss`",
    errors: {},
  },
  ...(['get', 'post'] as const).map((method): OperationSpec => ({
    path: PATHS.endSession,
    method,
    operationId: method === 'get' ? 'endSession' : 'postEndSession',
    tag: 'OAuth 2.0 and OpenID Connect',
    summary:
      method === 'get' ? 'The end-session endpoint (RP-Initiated Logout)' : 'The end-session endpoint, by POST, and its confirmation',
    description:
      method === 'get'
        ? "OpenID Connect RP-Initiated Logout 1.0: ends the browser's single sign-on session in the environment (revoking the refresh tokens issued without `offline_access` by its logins, and telling its clients with back-channel logout URIs), then redirects to the registered `post_logout_redirect_uri` with `state`, or shows the signed-out page. Without an `id_token_hint` of that session, it asks the user first and redirects nowhere before they answer."
        : "The same request as a form (section 2: GET and POST), or the confirmation page's answer (`LogoutConfirmationForm`): `logout` ends the session the page asked about, `stay` ends nothing; either returns as the request asked.",
    ...(method === 'get'
      ? { query: END_SESSION_QUERY }
      : {
          body: { media: ['application/x-www-form-urlencoded'], schemas: ['EndSessionRequest', 'LogoutConfirmationForm'], required: true },
        }),
    pages: END_SESSION_PAGES,
    redirect:
      'after a logout (or "Stay signed in"): to the client\'s registered `post_logout_redirect_uri` with `state` (section 3), clearing the session cookie on a logout',
    errors: {},
  })),
  ...(['get', 'post'] as const).map((method): OperationSpec => ({
    path: PATHS.userinfo,
    method,
    operationId: method === 'get' ? 'getUserInfo' : 'postUserInfo',
    tag: 'OAuth 2.0 and OpenID Connect',
    summary: 'UserInfo (OpenID Connect Core section 5.3)',
    description:
      'The claims the access token was granted: `sub`, and the email address or phone number with the `email` or `phone` scope. The token must have been granted `openid`. It comes as a Bearer credential or (POST only) as `access_token` in a form body, never both (RFC 6750 section 2).',
    security: method === 'get' ? [{ accessToken: [] }] : [{ accessToken: [] }, {}],
    ...(method === 'post' ? { body: { media: ['application/x-www-form-urlencoded'], schemas: ['UserInfoRequest'], required: false } } : {}),
    success: { schema: 'UserInfoResponse', description: 'The claims (OpenID Connect Core section 5.3.2).' },
    errors: {
      ...(method === 'post' ? { 400: { invalid_request: 'the token in both the Authorization header and the body' } } : {}),
      401: {
        invalid_token:
          'no access token (a challenge without an error code, RFC 6750 section 3.1), or one that is not active: expired, unknown, of another issuer',
      },
      403: { insufficient_scope: 'the token was not granted \'openid\' (a Bearer challenge with `error="insufficient_scope"`)' },
    },
  })),
  {
    path: PATHS.jwks,
    method: 'get',
    operationId: 'getJwks',
    tag: 'Discovery',
    summary: 'The public signing keys (RFC 7517)',
    description:
      'Every published key of both algorithms (ES256, RS256), each with `kid`, `alg` and `use`, including the next and the previous ones of a rotation.',
    success: { schema: 'Jwks', description: 'The JSON Web Key Set.', maxAgeSeconds: 300 },
    errors: {},
  },
  {
    path: PATHS.metadata,
    method: 'get',
    operationId: 'getAuthorizationServerMetadata',
    tag: 'Discovery',
    summary: 'Authorization server metadata (RFC 8414)',
    description: 'The same fields as the OpenID configuration: the two documents agree wherever they overlap.',
    success: { schema: 'ServerMetadata', description: 'The metadata, with URLs built from the issuer.', maxAgeSeconds: 3600 },
    errors: {},
  },
  {
    path: PATHS.openidConfiguration,
    method: 'get',
    operationId: 'getOpenIdConfiguration',
    tag: 'Discovery',
    summary: 'OpenID Provider metadata (OpenID Connect Discovery 1.0)',
    description: 'Where OpenID Connect libraries and API Gateway JWT authorizers look.',
    success: { schema: 'ServerMetadata', description: 'The metadata, with URLs built from the issuer.', maxAgeSeconds: 3600 },
    errors: {},
  },
];

/** The body limit the functions enforce (lib/platform/http/request.ts), in the 413's words. */
export const BODY_LIMIT_TEXT = `a body over ${MAX_BODY_BYTES / 1024} KiB`;
