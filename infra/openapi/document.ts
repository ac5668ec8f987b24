/**
 * docs/openapi.json, built: the operations (./operations.ts), their bodies converted from the zod
 * schemas (./schemas.ts) by zod 4's JSON Schema generator, and what every operation shares:
 *
 * - the errors of the stack every function runs (lib/platform/http/handler.ts): 400 for text that is not
 *   well-formed Unicode, 500 for a bug, 503 when a dependency is down or the function is about to
 *   time out; and of body parsing (lib/platform/http/request.ts): 400, 413, 415;
 * - API Gateway's own answers, from the list the stack deploys (infra/api.ts GATEWAY_RESPONSES):
 *   403 from the WAF, 413, 429 throttling, 504, and the default 5xx;
 * - the CORS preflight (`OPTIONS`), and the 405 every other method gets (`x-unlisted-methods`);
 * - the 404 of an unknown path (`x-unknown-path`, at the root).
 *
 * The two `x-` members are this document's own: OpenAPI has no place for what an undocumented
 * method or path is answered, and the response checker of the tests (test/support/contract.ts)
 * reads them there.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { toJSONSchema } from 'zod/v4/core';
import type { $ZodType } from 'zod/v4/core';
import { PUBLIC_ROUTES } from '../../lib/platform/routes';
import { MAX_BODY_BYTES } from '../../lib/platform/http/request';
import { PREFLIGHT_ALLOW_HEADERS } from '../../lib/platform/http/cors';
import { SUPPORTED_LOCALES } from '../../lib/platform/vocabulary';
import { GATEWAY_RESPONSES } from '../api';
import { PROJECT_ROOT } from '../bundling';
import {
  BODY_LIMIT_TEXT,
  END_SESSION_PARAMETER_DESCRIPTIONS,
  OPERATIONS,
  type ErrorTable,
  type MediaType,
  type OperationSpec,
  type SchemaName,
} from './operations';
import {
  authorizationCodeTokenRequest,
  authorizeForm,
  endSessionRequest,
  logoutConfirmationForm,
  errorDescription,
  introspectionRequest,
  introspectionResponse,
  jwksResponse,
  otpTokenRequest,
  refreshTokenRequest,
  revocationRequest,
  revocationResponse,
  sendRequest,
  sendResponse,
  serverMetadata,
  tokenResponse,
  userInfoRequest,
  userInfoResponse,
  type WireErrorCode,
} from './schemas';

type Json = Record<string, unknown>;

/** The body schemas: requests as clients may send them (`input`), responses as the service sends them (`output`, strict). */
const SCHEMAS: Readonly<Record<SchemaName, { readonly schema: $ZodType; readonly io: 'input' | 'output'; readonly description: string }>> =
  {
    SendRequest: {
      schema: sendRequest,
      io: 'input',
      description: 'Sends a code to `user_id`. Unknown fields are ignored (RFC 6749 section 3.1).',
    },
    SendResponse: { schema: sendResponse, io: 'output', description: 'A code was sent.' },
    OtpTokenRequest: {
      schema: otpTokenRequest,
      io: 'input',
      description: 'Exchanges a code `otp/send` delivered, naming its user.',
    },
    AuthorizationCodeTokenRequest: {
      schema: authorizationCodeTokenRequest,
      io: 'input',
      description: "Exchanges the hosted login page's authorization code (RFC 6749 section 4.1.3, RFC 7636 section 4.5).",
    },
    RefreshTokenRequest: {
      schema: refreshTokenRequest,
      io: 'input',
      description: 'Exchanges a refresh token for new tokens and its successor (RFC 6749 section 6).',
    },
    TokenResponse: { schema: tokenResponse, io: 'output', description: 'RFC 6749 section 5.1.' },
    IntrospectionRequest: { schema: introspectionRequest, io: 'input', description: 'RFC 7662 section 2.1.' },
    IntrospectionResponse: { schema: introspectionResponse, io: 'output', description: 'RFC 7662 section 2.2.' },
    RevocationRequest: { schema: revocationRequest, io: 'input', description: 'RFC 7009 section 2.1.' },
    RevocationResponse: { schema: revocationResponse, io: 'output', description: 'RFC 7009 section 2.2: always empty.' },
    UserInfoRequest: { schema: userInfoRequest, io: 'input', description: 'RFC 6750 section 2.2: the access token in the body.' },
    UserInfoResponse: { schema: userInfoResponse, io: 'output', description: 'OpenID Connect Core section 5.3.2.' },
    AuthorizeForm: { schema: authorizeForm, io: 'input', description: "The login page's own forms; not for clients to build." },
    EndSessionRequest: {
      schema: endSessionRequest,
      io: 'input',
      description: 'OpenID Connect RP-Initiated Logout 1.0 section 2, as a form.',
    },
    LogoutConfirmationForm: {
      schema: logoutConfirmationForm,
      io: 'input',
      description: "The logout confirmation page's own form; not for clients to build.",
    },
    Jwks: { schema: jwksResponse, io: 'output', description: 'RFC 7517 section 5: public keys only.' },
    ServerMetadata: {
      schema: serverMetadata,
      io: 'output',
      description: 'RFC 8414 section 2 and OpenID Connect Discovery 1.0 section 3: both documents are this.',
    },
  };

/** What each request field means: every field of every request schema has a line, and no line names a field that is not there. */
const FIELD_DESCRIPTIONS: Readonly<Partial<Record<SchemaName, Readonly<Record<string, string>>>>> = {
  SendRequest: {
    auth_type: '`email` or `sms`: what `user_id` is.',
    client_id: 'A client allowed in the environment.',
    redirect_uri: "One of the client's registered redirect URIs, exactly.",
    user_id: 'An email address (`email`) or a phone number in international format (`sms`). Case and format variants are one user.',
    locale: `A BCP 47 language-REGION tag: ${SUPPORTED_LOCALES.join(', ')}. Case and \`_\` do not matter; another region of a language gets its first locale, another language the environment's default.`,
    message:
      "The client's own text, for clients allowed to set one; every `%code%` becomes the code. SMS: at most 3 segments with the last line every SMS gets (`@<host> #<code>`, origin-bound); email: 2000 characters; voice: 300.",
    method: 'Omit to deliver by `auth_type`; `voice_with_otp` (with `auth_type: sms`) calls the number and speaks the code twice.',
    code_challenge: 'PKCE (RFC 7636): the base64url SHA-256 of a `code_verifier`, 43 characters.',
    code_challenge_method: '`S256`, with `code_challenge`.',
  },
  OtpTokenRequest: {
    grant_type: '`authorization_code`.',
    code: 'The six digits the user received.',
    client_id: 'The client the code was sent for.',
    redirect_uri: 'The same as in the `otp/send` that sent the code.',
    user_id: 'The user the code was sent to (any case or format variant).',
    auth_type: '`email` or `sms`; inferred from `user_id` when absent.',
    code_verifier: 'Required when the code was sent with a `code_challenge` (RFC 7636 section 4.5).',
    client_secret: "A confidential client's secret (`client_secret_post`), or HTTP Basic instead: never both.",
    client_assertion:
      "A `private_key_jwt` client's signed JWT (RFC 7523 section 3): `iss` and `sub` its client id, `aud` the issuer or this endpoint's URL, `exp` at most an hour ahead, a single-use `jti`.",
    client_assertion_type: '`urn:ietf:params:oauth:client-assertion-type:jwt-bearer`, with `client_assertion`.',
  },
  AuthorizationCodeTokenRequest: {
    grant_type: '`authorization_code`.',
    code: "The authorization code from the login page's redirect (single use, 60 s).",
    client_id: 'The client of the authorization request; optional when it authenticates with HTTP Basic.',
    redirect_uri: 'The redirect URI of the authorization request.',
    code_verifier:
      "The PKCE verifier of the authorization request's `code_challenge` (RFC 7636 section 4.5). Must be absent when that request had none (a confidential client registered `requirePkce: false`; RFC 9700 section 2.1.1).",
    client_secret: "A confidential client's secret (`client_secret_post`), or HTTP Basic instead: never both.",
    client_assertion:
      "A `private_key_jwt` client's signed JWT (RFC 7523 section 3): `iss` and `sub` its client id, `aud` the issuer or this endpoint's URL, `exp` at most an hour ahead, a single-use `jti`.",
    client_assertion_type: '`urn:ietf:params:oauth:client-assertion-type:jwt-bearer`, with `client_assertion`.',
  },
  RefreshTokenRequest: {
    grant_type: '`refresh_token`.',
    refresh_token: 'The refresh token of the last token response (single use).',
    client_id: 'The client the refresh token was issued to; optional when it authenticates with HTTP Basic.',
    scope: 'Optional: the original scope or a narrower one. Absent: the original scope.',
    client_secret: "A confidential client's secret (`client_secret_post`), or HTTP Basic instead: never both.",
    client_assertion:
      "A `private_key_jwt` client's signed JWT (RFC 7523 section 3): `iss` and `sub` its client id, `aud` the issuer or this endpoint's URL, `exp` at most an hour ahead, a single-use `jti`.",
    client_assertion_type: '`urn:ietf:params:oauth:client-assertion-type:jwt-bearer`, with `client_assertion`.',
  },
  RevocationRequest: {
    token: 'A refresh token or an access token (opaque or JWT) of the caller.',
    token_type_hint: 'Ignored: the kinds of token are told apart by their shape (RFC 7009 section 2.1 allows it).',
    client_id: 'A public client names itself (RFC 6749 section 2.1); beside credentials it must name the same client.',
    client_secret: "A confidential client's secret (`client_secret_post`), or HTTP Basic instead: never both.",
    client_assertion:
      "A `private_key_jwt` client's signed JWT (RFC 7523 section 3): `iss` and `sub` its client id, `aud` the issuer or this endpoint's URL, `exp` at most an hour ahead, a single-use `jti`.",
    client_assertion_type: '`urn:ietf:params:oauth:client-assertion-type:jwt-bearer`, with `client_assertion`.',
  },
  IntrospectionRequest: {
    token: 'An access token, opaque or JWT.',
    token_type_hint: 'Ignored: the two formats are told apart by their shape (RFC 7662 section 2.1 allows it).',
  },
  UserInfoRequest: { access_token: 'The access token, when it is not in the Authorization header.' },
  EndSessionRequest: END_SESSION_PARAMETER_DESCRIPTIONS,
  LogoutConfirmationForm: {
    confirmation: 'The validated request, sealed (encrypted, 10 minutes), bound to the session the page asked about.',
    action: '`logout` (sign out) or `stay` (stay signed in).',
  },
  AuthorizeForm: {
    csrf: "The page's CSRF token.",
    action: '`send`, `resend` or `verify`; anything else starts over.',
    user_id: '`send`: the email address or phone number.',
    channel: '`send` to a phone number: `sms` (the default) or `voice`.',
    code: '`verify`: the code the user received.',
  },
};

/** Response headers, as the document describes them. */
const HEADERS = {
  'Retry-After': {
    description: 'Whole seconds to wait before trying again (RFC 9110 section 10.2.3).',
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description: 'The challenge (RFC 6750 section 3; `Basic` after HTTP Basic credentials, RFC 6749 section 5.2).',
    schema: { type: 'string', pattern: '^(Bearer|Basic) realm="identity"' },
  },
  Allow: { description: 'The methods the path takes.', schema: { type: 'string' } },
  Pragma: { description: 'RFC 6749 section 5.1.', schema: { type: 'string', enum: ['no-cache'] } },
  Location: {
    description: "The client's redirect URI with the response parameters in its query.",
    schema: { type: 'string', format: 'uri' },
  },
  'Set-Cookie': {
    description: 'The login transaction, sealed: HttpOnly, SameSite=Lax, this path only, Secure over HTTPS; `Max-Age=0` clears it.',
    schema: { type: 'string' },
  },
  'Content-Security-Policy': {
    description: "Nothing but the page's one stylesheet (by its hash); forms to this endpoint only; no framing.",
    schema: { type: 'string', pattern: "^default-src 'none'" },
  },
} as const satisfies Record<string, { description: string; schema: Json }>;
type HeaderName = keyof typeof HEADERS;

/** Headers a JSON error of this code always carries (lib/platform/errors.ts). */
const HEADERS_OF_CODE: Readonly<Partial<Record<WireErrorCode, readonly HeaderName[]>>> = {
  invalid_client: ['WWW-Authenticate'],
  invalid_token: ['WWW-Authenticate'],
  insufficient_scope: ['WWW-Authenticate'],
  too_many_requests: ['Retry-After'],
  delivery_failed: ['Retry-After'],
  temporarily_unavailable: ['Retry-After'],
  method_not_allowed: ['Allow'],
};

/** One way a status can be answered: a JSON error of some code, or an HTML page; with the headers it always carries. */
type Variant =
  | {
      readonly kind: 'json';
      readonly code: WireErrorCode;
      readonly when: string;
      readonly headers: readonly HeaderName[];
      /** Answered by API Gateway itself, not by a function. */
      readonly gateway?: true;
    }
  | { readonly kind: 'html'; readonly when: string; readonly headers: readonly HeaderName[]; readonly gateway?: never };

type Variants = Map<number, Variant[]>;

function add(variants: Variants, status: number, variant: Variant): void {
  const list = variants.get(status) ?? [];
  list.push(variant);
  variants.set(status, list);
}

function addErrors(variants: Variants, table: ErrorTable): void {
  for (const [status, codes] of Object.entries(table)) {
    for (const [code, when] of Object.entries(codes ?? {})) {
      add(variants, Number(status), {
        kind: 'json',
        code: code as WireErrorCode,
        when,
        headers: HEADERS_OF_CODE[code as WireErrorCode] ?? [],
      });
    }
  }
}

/** What the middleware stack of every function answers (lib/platform/http/handler.ts). */
const EVERY_FUNCTION: ErrorTable = {
  400: {
    invalid_request: 'text that is not well-formed Unicode anywhere in the request: path, query, headers or body (RFC 7493 section 2.1)',
  },
  500: { server_error: 'a bug in the service' },
  503: {
    temporarily_unavailable:
      'a dependency (DynamoDB, Secrets Manager) is unreachable or did not answer in time, or the function was about to time out; `Retry-After: 1`',
  },
};

const MEDIA_TYPE_NAMES: Readonly<Record<MediaType, string>> = {
  'application/json': 'application/json',
  'application/x-www-form-urlencoded': 'application/x-www-form-urlencoded',
};

/** What body parsing answers (lib/platform/http/request.ts `parseBody`). */
function bodyErrors(media: readonly MediaType[]): ErrorTable {
  return {
    400: {
      invalid_request:
        'a body that is not UTF-8, is not valid JSON or not a JSON object, or repeats a form parameter (RFC 6749 section 3.2) or a JSON member name (RFC 7493 section 2.3)',
    },
    413: { invalid_request: `${BODY_LIMIT_TEXT} (the function)` },
    415: { invalid_request: `a Content-Type other than ${media.map((type) => MEDIA_TYPE_NAMES[type]).join(' or ')}` },
  };
}

/** When API Gateway answers each of its responses the stack customises; a new one in GATEWAY_RESPONSES needs a line here. */
const GATEWAY_WHEN: Readonly<Record<string, string>> = {
  MISSING_AUTHENTICATION_TOKEN: 'no such path (API Gateway)',
  RESOURCE_NOT_FOUND: 'no such path (API Gateway)',
  THROTTLED: "the stage's request rate limit (API Gateway throttling); `Retry-After: 1`",
  QUOTA_EXCEEDED: "a usage plan's quota (API Gateway); `Retry-After: 60`",
  REQUEST_TOO_LARGE: "a request over API Gateway's 10 MB",
  WAF_FILTERED: 'the WAF blocked the request (stages with `deployment.waf`: the IP reputation list)',
  INTEGRATION_TIMEOUT: "the function did not answer within API Gateway's integration timeout; `Retry-After: 1`",
  DEFAULT_4XX: '',
  DEFAULT_5XX:
    "API Gateway's own failure: the function failed or answered malformed (502), could not be invoked (504), or the API is misconfigured (500)",
};

/**
 * The statuses API Gateway's default 5xx answer keeps (infra/api.ts: DEFAULT_5XX has no status of
 * its own). DEFAULT_4XX is left out: every 4xx API Gateway can answer for this API (no authorizer,
 * no validator, no API key) has its own entry.
 */
const DEFAULT_5XX_STATUSES = [500, 502, 504];

/** The WAF's per-IP rate rule answers 429 itself (infra/waf.ts), with `Retry-After`. */
const WAF_RATE_LIMIT =
  "the WAF's per-IP rate limit (stages with `deployment.waf`, otp/send by default); `Retry-After` is its evaluation window";

/** API Gateway's own answers, on a known path (`unknownPath`: on any other). */
function gatewayVariants(variants: Variants, unknownPath: boolean): void {
  for (const response of GATEWAY_RESPONSES) {
    const type = response.type.responseType;
    const when = GATEWAY_WHEN[type];
    if (when === undefined) throw new Error(`GATEWAY_WHEN has no line for ${type}: say when API Gateway answers it`);
    if (type === 'DEFAULT_4XX') continue;
    const isNotFound = response.status === '404';
    if (isNotFound !== unknownPath && !(unknownPath && (response.status === '403' || response.status === '429'))) continue;
    const headers = Object.keys(response.headers ?? {}).filter((name): name is HeaderName => name in HEADERS);
    const statuses = response.status === undefined ? DEFAULT_5XX_STATUSES : [Number(response.status)];
    for (const status of statuses)
      add(variants, status, { kind: 'json', code: response.error as WireErrorCode, when, headers, gateway: true });
  }
  add(variants, 429, { kind: 'json', code: 'too_many_requests', when: WAF_RATE_LIMIT, headers: ['Retry-After'], gateway: true });
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The JSON error body of a status: `{error, error_description}` with exactly these codes. */
function errorSchema(codes: readonly WireErrorCode[]): Json {
  return {
    type: 'object',
    properties: { error: { type: 'string', enum: [...new Set(codes)] }, error_description: ref('ErrorDescription') },
    required: ['error', 'error_description'],
    additionalProperties: false,
  };
}

/** A header of a response: a reference to the shared required one, or the optional one inline. */
function header(name: HeaderName, required: boolean): Json {
  return required ? { $ref: `#/components/headers/${name.replaceAll('-', '')}` } : { ...HEADERS[name], required: false };
}

/** `components.headers`: each header, required (responses where it is optional carry it inline). */
function headerComponents(): Record<string, Json> {
  const components: Record<string, Json> = {
    CacheControlNoStore: { description: 'Never cached.', required: true, schema: { type: 'string', enum: ['no-store'] } },
  };
  for (const [name, spec] of Object.entries(HEADERS)) components[name.replaceAll('-', '')] = { ...spec, required: true };
  return components;
}

const CACHE_NO_STORE = { $ref: '#/components/headers/CacheControlNoStore' };

/** How the description of a response only API Gateway gives begins. */
const ANSWERED_BY_GATEWAY = 'Answered by API Gateway itself (infra/api.ts), in the same error shape.';

/** The responses of a set of variants, by status, with the description saying which code answers when. */
function responsesOf(variants: Variants): Record<string, Json> {
  const responses: Record<string, Json> = {};
  for (const status of [...variants.keys()].sort((a, b) => a - b)) {
    const list = variants.get(status) ?? [];
    const json = list.filter((variant) => variant.kind === 'json');
    const html = list.filter((variant) => variant.kind === 'html');
    const headerNames = [...new Set(list.flatMap((variant) => variant.headers))].sort();
    const headers: Record<string, Json> = { 'Cache-Control': CACHE_NO_STORE };
    for (const name of headerNames)
      headers[name] = header(
        name,
        list.every((variant) => variant.headers.includes(name)),
      );
    const lines = [
      ...[...new Set(json.map((variant) => `- \`${variant.code}\`: ${variant.when}${variant.when.endsWith('.') ? '' : '.'}`))],
      ...html.map((variant) => `- HTML: ${variant.when}.`),
    ];
    const byGateway = list.every((variant) => variant.gateway === true);
    responses[String(status)] = {
      description: `${byGateway ? `${ANSWERED_BY_GATEWAY}\n\n` : ''}${lines.join('\n')}`,
      headers,
      content: {
        ...(html.length > 0 ? { 'text/html': { schema: { type: 'string', description: 'An HTML page.' } } } : {}),
        ...(json.length > 0 ? { 'application/json': { schema: errorSchema(json.map((variant) => variant.code)) } } : {}),
      },
    };
  }
  return responses;
}

/** The headers an HTML page of the login endpoint carries (lib/login/html.ts). */
function pageHeaders(status: number): HeaderName[] {
  return ['Content-Security-Policy', ...([429, 502, 503].includes(status) ? (['Retry-After'] as const) : [])];
}

function operationObject(spec: OperationSpec): Json {
  const variants: Variants = new Map();
  for (const [status, when] of Object.entries(spec.pages ?? {}))
    add(variants, Number(status), { kind: 'html', when, headers: pageHeaders(Number(status)) });
  addErrors(variants, EVERY_FUNCTION);
  if (spec.body !== undefined) addErrors(variants, bodyErrors(spec.body.media));
  addErrors(variants, spec.errors);
  gatewayVariants(variants, false);
  const responses = responsesOf(variants);

  if (spec.pages?.[200] !== undefined) {
    // The page sets (or clears) the transaction cookie.
    const page = responses['200'] as { headers: Record<string, Json> };
    page.headers['Set-Cookie'] = header('Set-Cookie', false);
    page.headers.Pragma = header('Pragma', true);
  }
  if (spec.success !== undefined) {
    responses['200'] = {
      description: spec.success.description,
      headers: {
        'Cache-Control':
          spec.success.maxAgeSeconds === undefined
            ? CACHE_NO_STORE
            : {
                description: 'Public, cacheable this long.',
                required: true,
                schema: { type: 'string', enum: [`public, max-age=${spec.success.maxAgeSeconds}`] },
              },
        ...(spec.success.pragma === true ? { Pragma: header('Pragma', true) } : {}),
      },
      ...(spec.success.schema === undefined ? {} : { content: { 'application/json': { schema: ref(spec.success.schema) } } }),
    };
  }
  if (spec.redirect !== undefined) {
    responses['302'] = {
      description: `A redirect (RFC 6749 section 4.1.2): ${spec.redirect}.`,
      headers: {
        Location: header('Location', true),
        'Cache-Control': CACHE_NO_STORE,
        'Set-Cookie': header('Set-Cookie', false),
      },
    };
  }

  const parameters = Object.entries(spec.query ?? {}).map(([name, parameter]) => ({
    name,
    in: 'query',
    required: parameter.required ?? false,
    description: parameter.description,
    schema: { type: 'string', ...(parameter.maxLength === undefined ? {} : { maxLength: parameter.maxLength }) },
  }));
  const body =
    spec.body === undefined
      ? undefined
      : {
          required: spec.body.required,
          content: Object.fromEntries(
            spec.body.media.map((type) => [
              type,
              { schema: spec.body!.schemas.length === 1 ? ref(spec.body!.schemas[0] as string) : { anyOf: spec.body!.schemas.map(ref) } },
            ]),
          ),
        };
  return sortResponses({
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: spec.description,
    security: spec.security === undefined ? [] : spec.security.map((alternative) => ({ ...alternative })),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body === undefined ? {} : { requestBody: body }),
    responses,
  });
}

function sortResponses(operation: Json & { responses: Record<string, Json> }): Json {
  const responses = Object.fromEntries(Object.entries(operation.responses).sort(([a], [b]) => Number(a) - Number(b)));
  return { ...operation, responses };
}

/** The 405 of a method a path does not take, OPTIONS too where the stage allows no browser origin (lib/platform/http/request.ts `allowMethods`). */
const METHOD_NOT_ALLOWED =
  'a method the path does not take (HEAD included), and OPTIONS where the stage allows no browser origin on the path (`deployment.cors`); `Allow` lists the methods it takes';

/** The CORS preflight of a path: API Gateway's answer where the stage allows browsers, the function's 405 elsewhere. */
function preflightOperation(operationIds: readonly string[]): Json {
  const variants: Variants = new Map();
  addErrors(variants, EVERY_FUNCTION);
  addErrors(variants, { 405: { method_not_allowed: METHOD_NOT_ALLOWED } });
  gatewayVariants(variants, false);
  const responses = responsesOf(variants);
  const allowHeader = (description: string) => ({ description, required: true, schema: { type: 'string' } });
  responses['204'] = {
    description:
      "The preflight (answered by API Gateway from the stage's `deployment.cors`): the request's origin when it is allowed, else the first allowed origin, which the browser then refuses.",
    headers: {
      'Access-Control-Allow-Origin': allowHeader('An allowed origin.'),
      'Access-Control-Allow-Methods': allowHeader("The path's methods and OPTIONS."),
      'Access-Control-Allow-Headers': allowHeader(`${PREFLIGHT_ALLOW_HEADERS.join(', ')}.`),
      'Access-Control-Max-Age': {
        description: 'Seconds a browser may keep the answer.',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
    },
  };
  const name = operationIds[0] ?? 'unknown';
  return sortResponses({
    operationId: `${name}Preflight`,
    tags: ['CORS'],
    summary: 'CORS preflight',
    description: `Where the stage configuration allows browsers (\`deployment.cors\`), API Gateway answers the preflight; actual answers then carry \`Access-Control-Allow-Origin\` for an allowed origin, errors included, and expose \`Retry-After\` and \`WWW-Authenticate\`.`,
    security: [],
    responses,
  });
}

/** What any method a path does not take is answered (lib/platform/http/request.ts `allowMethods`): 405 with `Allow`. */
function unlistedMethodResponses(): Record<string, Json> {
  const variants: Variants = new Map();
  addErrors(variants, EVERY_FUNCTION);
  addErrors(variants, { 405: { method_not_allowed: METHOD_NOT_ALLOWED } });
  gatewayVariants(variants, false);
  return responsesOf(variants);
}

/** What a path the API does not have is answered: API Gateway's 404 (the local runtime answers the same). */
function unknownPathResponses(): Record<string, Json> {
  const variants: Variants = new Map();
  gatewayVariants(variants, true);
  return responsesOf(variants);
}

/** A component schema from zod: input or output shape, without `$schema`, with each field described. */
function componentSchema(name: SchemaName): Json {
  const { schema, io, description } = SCHEMAS[name];
  const { $schema: _dialect, ...json } = toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'throw' }) as Json;
  const descriptions = FIELD_DESCRIPTIONS[name];
  if (descriptions !== undefined) {
    const properties = (json.properties ?? {}) as Record<string, Json>;
    const missing = Object.keys(properties).filter((field) => descriptions[field] === undefined);
    const extra = Object.keys(descriptions).filter((field) => properties[field] === undefined);
    if (missing.length > 0 || extra.length > 0) {
      throw new Error(
        `FIELD_DESCRIPTIONS.${name} does not match the schema: missing ${missing.join(', ') || '-'}; extra ${extra.join(', ') || '-'}`,
      );
    }
    for (const [field, property] of Object.entries(properties)) properties[field] = { description: descriptions[field], ...property };
  }
  return { description, ...json };
}

/** The whole document. `version` is the package's. */
export function openApiDocument(version: string): Json {
  const paths: Record<string, Json> = {};
  // The public API only: the IAM-only admin routes are the deployment's own (docs/operations/operator-controls.md).
  for (const route of PUBLIC_ROUTES) {
    const specs = OPERATIONS.filter((spec) => spec.path === route.path);
    const methods = specs.map((spec) => spec.method.toUpperCase());
    if (methods.join() !== route.methods.join()) {
      throw new Error(
        `${route.path}: lib/platform/routes.ts says ${route.methods.join(', ')}, infra/openapi/operations.ts describes ${methods.join(', ')}`,
      );
    }
    const item: Json = {};
    for (const spec of specs) item[spec.method] = operationObject(spec);
    item.options = preflightOperation(specs.map((spec) => spec.operationId));
    paths[route.path] = item;
  }
  const orphans = OPERATIONS.filter((spec) => !PUBLIC_ROUTES.some((route) => route.path === spec.path));
  if (orphans.length > 0)
    throw new Error(`Operations on no route of lib/platform/routes.ts: ${orphans.map((spec) => spec.path).join(', ')}`);

  const unlisted = unlistedMethodResponses();
  const unknown = unknownPathResponses();
  const schemas: Record<string, Json> = {};
  for (const name of Object.keys(SCHEMAS) as SchemaName[]) schemas[name] = componentSchema(name);
  const { $schema: _dialect, ...description } = toJSONSchema(errorDescription, { io: 'output', target: 'draft-2020-12' }) as Json;
  schemas.ErrorDescription = description;
  const allCodes = codesIn([
    ...Object.values(paths).flatMap((item) =>
      Object.values(item as Record<string, { responses: Record<string, Json> }>).map((operation) => operation.responses),
    ),
    unlisted,
    unknown,
  ]);
  const responses = shareResponses(paths, [unlisted, unknown]);
  schemas.Error = {
    description: 'Every error answer (RFC 6749 section 5.2): each response lists the codes of its status.',
    ...errorSchema(allCodes),
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Identity service',
      version,
      summary: 'Passwordless login: one-time codes by email, SMS or voice, exchanged for OAuth 2.0 / OpenID Connect tokens.',
      description: [
        'Every failure is JSON `{"error", "error_description"}`; each response below lists the `error` codes of its status and when each is answered, API Gateway\'s own answers (throttling, WAF, timeouts) included.',
        `Bodies over ${MAX_BODY_BYTES / 1024} KiB are refused; every string in a request must be well-formed Unicode.`,
        'Any method a path does not list is answered 405 with `Allow` (`x-unlisted-methods`); a path not listed, 404 (`x-unknown-path`).',
        'Generated by `npm run openapi` (infra/openapi/) from the zod schemas the functions validate with; do not edit.',
      ].join('\n\n'),
    },
    servers: [
      { url: 'http://localhost:3000', description: '`npm start` (the local runtime)' },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com/{stage}',
        description: "A deployed stage's API Gateway URL (or its custom domain, without the stage)",
        variables: {
          apiId: { default: 'abcdef1234', description: 'The REST API id (the stack output).' },
          region: { default: 'eu-west-1' },
          stage: { default: 'prod', description: 'The stage name (`-c stage=`).' },
        },
      },
    ],
    tags: [
      { name: 'One-time codes', description: "The service's own API flow: send a code, then exchange it at the token endpoint." },
      { name: 'OAuth 2.0 and OpenID Connect', description: 'Standard endpoints, for any OAuth 2.1 / OpenID Connect client library.' },
      { name: 'Discovery', description: 'Keys and metadata, public and cacheable.' },
      { name: 'CORS', description: 'Browser preflights, where the stage allows browser origins.' },
    ],
    security: [],
    paths,
    components: {
      schemas,
      responses,
      headers: headerComponents(),
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A client's API key (RFC 6750 syntax): required on `otp/send` by clients configured so (`sendRequiresApiKey`), and accepted for introspection from clients allowed to introspect.",
        },
        clientSecretBasic: {
          type: 'http',
          scheme: 'basic',
          description: '`client_secret_basic` (RFC 6749 section 2.3.1): the client id and one of its API keys, for introspection.',
        },
        accessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT (RFC 9068) or opaque',
          description: "An access token granted 'openid', for UserInfo.",
        },
      },
    },
    'x-unlisted-methods': { responses: unlisted },
    'x-unknown-path': { responses: unknown },
  };
}

/** Every `error` code the JSON error bodies of these responses carry, sorted. */
function codesIn(maps: ReadonlyArray<Record<string, Json>>): WireErrorCode[] {
  const codes = maps.flatMap((map) => Object.values(map).flatMap((response) => codesOf(response)));
  return [...new Set(codes)].sort();
}

/** The `error` codes of one response's JSON body. */
function codesOf(response: Json): WireErrorCode[] {
  const content = response.content as Record<string, { schema?: { properties?: { error?: { enum?: WireErrorCode[] } } } }> | undefined;
  return content?.['application/json']?.schema?.properties?.error?.enum ?? [];
}

/** Reason phrases (RFC 9110 section 15), the names of shared responses. */
const REASONS: Readonly<Record<number, string>> = {
  204: 'Preflight',
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  413: 'ContentTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
};

/**
 * Moves every response that several operations share word for word into `components.responses`,
 * named by its status's reason phrase (then by its codes), and refers to it: the document stays
 * readable and small while each operation still lists every status it can answer.
 */
function shareResponses(paths: Record<string, Json>, extra: ReadonlyArray<Record<string, Json>>): Record<string, Json> {
  const operations = Object.values(paths).flatMap((item) => Object.values(item as Record<string, { responses: Record<string, Json> }>));
  const maps = [...operations.map((operation) => operation.responses), ...extra];
  const seen = new Map<string, number>();
  for (const map of maps)
    for (const response of Object.values(map)) seen.set(JSON.stringify(response), (seen.get(JSON.stringify(response)) ?? 0) + 1);
  const names = new Map<string, string>();
  const components: Record<string, Json> = {};
  for (const map of maps) {
    for (const [status, response] of Object.entries(map)) {
      const key = JSON.stringify(response);
      if ((seen.get(key) ?? 0) < 2 || (Number(status) < 400 && status !== '204')) continue;
      let name = names.get(key);
      if (name === undefined) {
        const reason = REASONS[Number(status)] ?? `Status${status}`;
        const base =
          String(response.description).startsWith(ANSWERED_BY_GATEWAY) && !reason.includes('Gateway') ? `${reason}ByApiGateway` : reason;
        const codes = codesOf(response)
          .map((code) => code.replace(/(^|_)([a-z])/g, (_match, _separator: string, letter: string) => letter.toUpperCase()))
          .join('Or');
        name = [base, `${base}${codes}`].find((candidate) => components[candidate] === undefined) ?? `${base}${names.size}`;
        names.set(key, name);
        components[name] = response;
      }
      map[status] = { $ref: `#/components/responses/${name}` };
    }
  }
  return components;
}

/** Where the document is committed (and where the local runtime serves it from). */
export const OPENAPI_FILE = resolve(PROJECT_ROOT, 'docs/openapi.json');

/** The package's version: the document's `info.version`. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The document as committed: stable formatting, a final newline. */
export function openApiJson(version: string): string {
  return `${JSON.stringify(openApiDocument(version), null, 2)}\n`;
}
