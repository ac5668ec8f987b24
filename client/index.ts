/**
 * A typed client of the identity service: openapi-fetch over the types openapi-typescript
 * generates from docs/openapi.json (client/schema.ts, `npm run openapi`). Paths, bodies, query
 * parameters and every documented response, errors included, are typed; it runs wherever `fetch`
 * does (Node 20+, browsers). No Lambda imports it: it is for the service's callers, the tests and
 * the local demo.
 *
 * @example
 * const idp = createIdentityClient('http://localhost:3000');
 * const sent = await idp.POST('/idp/v1/otp/send', {
 *   body: { auth_type: 'email', client_id: 'local-web', redirect_uri: 'http://127.0.0.1:3000/callback', user_id: 'alice@example.com' },
 * });
 * if (sent.error !== undefined) throw new Error(`${sent.response.status} ${sent.error.error}: ${sent.error.error_description}`);
 * const token = await idp.POST('/idp/v1/account/token', {
 *   body: { grant_type: 'authorization_code', code, client_id: 'local-web', redirect_uri: 'http://127.0.0.1:3000/callback', user_id: 'alice@example.com' },
 * });
 * console.log(token.data?.access_token);
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };

/** The client: `GET`, `POST`, `OPTIONS` on the documented paths, each answer typed by status. */
export type IdentityClient = Client<paths>;

/**
 * A client of the service at `baseUrl` (the issuer: `http://localhost:3000` for `npm start`, a
 * stage's API URL or custom domain on AWS). `options` are openapi-fetch's (a `fetch` of your own,
 * default headers, middleware).
 */
export function createIdentityClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): IdentityClient {
  return createClient<paths>({ bodySerializer: serializeBody, ...options, baseUrl: baseUrl.replace(/\/+$/, '') });
}

/**
 * JSON, or a form when the request says `Content-Type: application/x-www-form-urlencoded`
 * (`FORM`), leaving out absent fields. openapi-fetch's own serializer does the same, but decides
 * with `instanceof Function`, which fails where `Headers` comes from another realm (a test runner's
 * sandbox): it then sent the form's fields as JSON.
 */
function serializeBody(body: unknown, headers?: Headers | Record<string, string>): string | FormData {
  if (typeof FormData !== 'undefined' && body instanceof FormData) return body;
  const contentType =
    headers === undefined
      ? undefined
      : typeof (headers as Headers).get === 'function'
        ? (headers as Headers).get('content-type')
        : ((headers as Record<string, string>)['Content-Type'] ?? (headers as Record<string, string>)['content-type']);
  if (contentType?.split(';', 1)[0]?.trim().toLowerCase() !== FORM['Content-Type']) return JSON.stringify(body);
  const form = new URLSearchParams();
  // Form fields are text (every form body of this API is strings only).
  for (const [name, value] of Object.entries(body as Record<string, string | undefined>)) if (value !== undefined) form.set(name, value);
  return form.toString();
}

/**
 * Headers for a form-encoded body (RFC 6749 §4.1.3, RFC 7662 §2.1): openapi-fetch then encodes
 * `body` as `application/x-www-form-urlencoded` instead of JSON.
 * @example await idp.POST('/idp/v1/account/introspect', { body: { token }, headers: { ...FORM, Authorization: basicAuth(id, key) } });
 */
export const FORM = Object.freeze({ 'Content-Type': 'application/x-www-form-urlencoded' });

/** `Authorization` for a Bearer credential: an API key, or an access token for UserInfo (RFC 6750 §2.1). */
export function bearer(credential: string): string {
  return `Bearer ${credential}`;
}

/**
 * `Authorization` for `client_secret_basic` (RFC 6749 §2.3.1): the client id and its secret (an
 * API key), each form-urlencoded, then base64. `btoa` exists in browsers and in Node.
 */
export function basicAuth(clientId: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replaceAll('%20', '+');
  return `Basic ${btoa(`${encode(clientId)}:${encode(secret)}`)}`;
}

type Schemas = components['schemas'];
export type SendRequest = Schemas['SendRequest'];
export type SendResponse = Schemas['SendResponse'];
export type OtpTokenRequest = Schemas['OtpTokenRequest'];
export type AuthorizationCodeTokenRequest = Schemas['AuthorizationCodeTokenRequest'];
export type TokenResponse = Schemas['TokenResponse'];
export type IntrospectionResponse = Schemas['IntrospectionResponse'];
export type UserInfoResponse = Schemas['UserInfoResponse'];
export type Jwks = Schemas['Jwks'];
export type ServerMetadata = Schemas['ServerMetadata'];
/** Any error answer: `{error, error_description}`; each operation's answers narrow `error` by status. */
export type ErrorResponse = Schemas['Error'];
