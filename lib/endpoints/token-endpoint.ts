/**
 * `POST /idp/v1/account/token` (RFC 6749 §3.2): one endpoint, a module per grant, dispatched by the
 * table `GRANTS` (a new grant is one entry).
 *
 * - A request that names a user (`user_id`), or whose `code` is a six-digit one-time code, is the
 *   service's own API flow: the code delivered by `otp/send` (lib/oauth/grants/one-time-code-grant.ts). Its
 *   attempt is counted before anything else is checked, the grant type included.
 * - `grant_type=authorization_code` with a code from the hosted login page: the standard
 *   exchange, with PKCE and nothing else (lib/oauth/grants/authorization-code-grant.ts).
 * - `grant_type=refresh_token` (RFC 6749 §6): rotation with reuse detection
 *   (lib/oauth/grants/refresh-token-grant.ts). First, whatever else the request holds: a refresh names
 *   no user, and any `user_id` in it is an unknown parameter, ignored (RFC 6749 §3.1).
 * - Any other grant type: `unsupported_grant_type` (RFC 6749 §5.2).
 */
import { InvalidRequestError, UnsupportedGrantTypeError } from '../platform/errors';
import { exchangeAuthorizationCode, type AuthorizationCodeGrantDeps } from '../oauth/grants/authorization-code-grant';
import { isWellFormedCode } from '../otp/codes';
import { exchangeCode, type ExchangeCodeDeps } from '../oauth/grants/one-time-code-grant';
import { refreshTokens, type RefreshTokenGrantDeps } from '../oauth/grants/refresh-token-grant';
import type { TokenRequest, TokenResponse } from '../oauth/token-response';

export type { TokenRequest };

export interface TokenEndpointDeps extends ExchangeCodeDeps, AuthorizationCodeGrantDeps, RefreshTokenGrantDeps {}

/** One grant the endpoint serves: which requests are it, and what answers them. */
interface GrantEntry {
  readonly grant: string;
  readonly accepts: (fields: Record<string, unknown>) => boolean;
  readonly handle: (deps: TokenEndpointDeps, request: TokenRequest) => Promise<TokenResponse>;
}

/** The grants, in the order a request is matched against them: the first that accepts it answers. */
const GRANTS: readonly GrantEntry[] = [
  // A refresh names no user: whatever else it holds (a `user_id` is an unknown parameter).
  { grant: 'refresh_token', accepts: (fields) => fields.grant_type === 'refresh_token', handle: refreshTokens },
  // The seed's request shape, kept as it works: `user_id`, or a six-digit code, is the API flow
  // whatever the grant type says (its attempt is counted before the grant type is checked).
  {
    grant: 'authorization_code (one-time code)',
    accepts: (fields) => fields.user_id !== undefined || (typeof fields.code === 'string' && isWellFormedCode(fields.code)),
    handle: exchangeCode,
  },
  { grant: 'authorization_code', accepts: (fields) => fields.grant_type === 'authorization_code', handle: exchangeAuthorizationCode },
];

/** Answers a token request with the grant it is. */
export async function requestToken(deps: TokenEndpointDeps, request: TokenRequest): Promise<TokenResponse> {
  const { fields } = request;
  const entry = GRANTS.find((candidate) => candidate.accepts(fields));
  if (entry !== undefined) return entry.handle(deps, request);
  if (fields.grant_type === undefined || fields.grant_type === '') throw new InvalidRequestError('grant_type is required.');
  throw new UnsupportedGrantTypeError();
}
