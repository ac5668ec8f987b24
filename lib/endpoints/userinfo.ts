/**
 * `GET` and `POST /idp/v1/account/userinfo` (OpenID Connect Core 1.0 §5.3): the claims about the
 * user that the access token was granted, for the client that holds it.
 *
 * The access token comes as a Bearer credential (RFC 6750 §2.1), or in a form-encoded POST body's
 * `access_token` (§2.2); never both (§2: "MUST NOT use more than one method"). It must be an active
 * token of this service whose scope includes `openid` (§5.3: UserInfo serves OpenID Connect
 * requests). The answer is `sub` (the token's subject, §5.3.2: "MUST always be returned")
 * and the address claims the token was granted (`email`, `phone`: §5.4); no database read for a
 * JWT, one for an opaque token.
 */
import type { UserClaims } from '../oauth/ports';
import { InsufficientScopeError, InvalidRequestError, InvalidTokenError } from '../platform/errors';
import { LOG_EVENTS } from '../platform/log-events';
import { bearerCredential } from '../oauth/api-keys';
import { verifyAccessToken, type IntrospectDeps } from './introspect-token';
import { hasScope } from '../oauth/scopes';

export type UserInfoDeps = IntrospectDeps;

export interface UserInfoRequest {
  readonly authorization: string | undefined;
  /** A POST's form fields (`access_token`), none for a GET. */
  readonly fields: Record<string, unknown>;
  readonly issuer: string;
}

export type UserInfoResponse = { readonly sub: string } & UserClaims;

export async function userInfo(deps: UserInfoDeps, request: UserInfoRequest): Promise<UserInfoResponse> {
  const token = presentedToken(request);
  const verified = await verifyAccessToken(deps, token, request.issuer);
  if (verified === undefined) {
    throw new InvalidTokenError('The access token is not valid.', { bearerPresented: true, detail: 'userinfo: inactive token' });
  }
  if (!hasScope(verified.response.scope, 'openid')) throw new InsufficientScopeError('openid');
  deps.log.info(LOG_EVENTS.userInfoServed, { client: verified.response.client_id, environment: verified.environmentId });
  return { sub: verified.response.sub, ...verified.claims };
}

function presentedToken(request: UserInfoRequest): string {
  const header = request.authorization === undefined ? undefined : bearerCredential(request.authorization);
  const body = request.fields.access_token;
  if (header !== undefined && body !== undefined)
    throw new InvalidRequestError('Present the access token once: in the Authorization header or the body.');
  if (header !== undefined) return header;
  if (typeof body === 'string' && body !== '') return body;
  // RFC 6750 §3.1: a request without a token gets the challenge and no error code.
  throw new InvalidTokenError('An access token is required: Authorization: Bearer <token>.', {
    bearerPresented: request.authorization !== undefined,
  });
}
