/**
 * `grant_type=authorization_code` with a code from the hosted login page (RFC 6749 §4.1.3, with
 * PKCE, RFC 7636 §4.5): only the standard parameters, `code`, `redirect_uri`, `client_id` and
 * `code_verifier`. No `user_id`: the code names its user.
 *
 * Steps, top to bottom:
 *   1. the parameters (invalid_request); the client (RFC 6749 §3.2.1): a public client names
 *      itself with `client_id`, a confidential one authenticates by its registered method
 *      (lib/oauth/client-authentication.ts), else 401 invalid_client. A client whose codes only its
 *      own servers may request never gets here (the authorization endpoint refuses it), and one
 *      with a secret that uses the page cannot be impersonated with its client id alone. A client
 *      that must use PKCE (every public one; a confidential one unless `requirePkce: false`) and
 *      sent no `code_verifier` is invalid_request here, its code unspent;
 *   2. the code: consumed by one conditional write if it exists and is unexpired (single use);
 *   3. its binding: the same client and redirect URI, and PKCE (`pkceHolds`: the verifier's S256
 *      is the code's challenge, compared in constant time, or neither exists); anything else is
 *      `invalid_grant`. The code is spent either way: a code presented with the wrong verifier is
 *      what an interceptor would do (RFC 7636 §1);
 *   4. the tokens: an access token as the client's settings say, a refresh token (a new family)
 *      when the client has them, and an ID token with `openid`.
 *
 * The code is 256 random bits, minted only after a code check on the page that the user's attempt
 * limit counted, and spent by its first presentation: an exchange neither counts into nor is
 * refused by that limit or the failure cap (they protect guessable one-time codes). Counted, a user
 * who needed the limit's 5 checks on the page got a redirect whose exchange was the 6th attempt:
 * 429, the code spent, a login the page had just completed failed at the client (regression tests
 * in test/http/authorize.test.ts).
 *
 * The code's consumption is one write, and what the tokens store at most one more (one
 * transaction): counted on the wire in test/http/authorize.test.ts, "DynamoDB requests per step".
 */
import '../../platform/zod';
import * as z from 'zod/mini';
import { authMethodsOf, type ClientConfig, type ServiceConfig } from '../../platform/config';
import { InvalidGrantError, InvalidRequestError } from '../../platform/errors';
import { LOG_EVENTS } from '../../platform/log-events';
import type { Clock, Log } from '../../platform/ports';
import type { AuthorizationCodeStore } from '../ports';
import type { Grant } from '../access-tokens';
import { authorizationCodeHash } from '../authorization-codes';
import { authenticateClient, type ClientAuthenticationDeps } from '../client-authentication';
import { CODE_VERIFIER_PATTERN, digestsEqual, s256Challenge } from '../../otp/codes';
import { logHandleOf } from '../../keys/hmac-keys';
import { optionalTextField, parseFields, textField } from '../../platform/request-fields';
import { issueTokens, type IssueTokensDeps, type TokenRequest, type TokenResponse } from '../token-response';

export interface AuthorizationCodeGrantDeps extends IssueTokensDeps, ClientAuthenticationDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly authorizationCodes: AuthorizationCodeStore;
  readonly log: Log;
}

/** The body of this grant (docs/openapi.json is generated from it: infra/openapi/). */
export const authorizationCodeFields = z.object({
  code: textField('code', 256),
  // RFC 6749 §4.1.3: required of a client that does not authenticate (a public one); a client
  // that authenticates with HTTP Basic need not repeat it (lib/oauth/client-authentication.ts).
  client_id: optionalTextField('client_id', 64),
  redirect_uri: textField('redirect_uri', 2048),
  // Required of every client that must use PKCE (all public ones); see `pkceHolds`.
  code_verifier: optionalTextField('code_verifier', 128),
});

/** Exchanges an authorization code for the tokens. */
export async function exchangeAuthorizationCode(deps: AuthorizationCodeGrantDeps, request: TokenRequest): Promise<TokenResponse> {
  const fields = parseFields(authorizationCodeFields, request.fields);
  if (fields.code_verifier !== undefined && !CODE_VERIFIER_PATTERN.test(fields.code_verifier)) {
    throw new InvalidRequestError('code_verifier must be 43-128 characters of [A-Z a-z 0-9 - . _ ~] (RFC 7636 §4.1).');
  }
  const client = await authenticateClient(deps, request, 'token');
  // Asked before the code is spent: a client that must use PKCE and forgot the verifier can retry.
  if (fields.code_verifier === undefined && requiresPkce(client)) {
    throw new InvalidRequestError('code_verifier is required (PKCE, RFC 7636).');
  }
  const keys = await deps.hmacKeys();
  const now = deps.clock.now();

  const record = await deps.authorizationCodes.consume(authorizationCodeHash(keys, fields.code), now);
  const logFields = { client: client.id, grant: 'authorization_code' };
  if (record === undefined) return refuse(deps, logFields, 'not_found_or_expired');
  const environment = deps.config.environment(record.environmentId);
  const bound =
    record.clientId === client.id &&
    record.redirectUri === fields.redirect_uri &&
    pkceHolds(record.codeChallenge, fields.code_verifier) &&
    (request.environmentId === undefined || request.environmentId === record.environmentId) &&
    environment !== undefined &&
    client.environments.includes(environment.id);
  if (!bound || environment === undefined) return refuse(deps, { ...logFields, user: logHandleOf(record.userKey) }, 'binding');

  const grant: Grant = {
    issuer: request.issuer,
    client,
    environmentId: environment.id,
    subject: record.subject,
    channel: record.channel,
    claims: record.claims,
    scope: record.scope,
    issuedAt: Math.floor(now / 1000),
    authTime: record.authTime,
    nonce: record.nonce,
    sessionId: record.sessionId,
  };
  return issueTokens(
    deps,
    grant,
    { userKey: record.userKey, now },
    { ...logFields, environment: environment.id, user: logHandleOf(record.userKey) },
  );
}

/** Whether `client` must prove a PKCE verifier: every public client, and a confidential one unless registered `requirePkce: false`. */
function requiresPkce(client: ClientConfig): boolean {
  return client.requirePkce || authMethodsOf(client).includes('none');
}

/**
 * PKCE's binding (RFC 7636 §4.6): the verifier's S256 is the code's challenge, compared in
 * constant time. A code issued without a challenge (a confidential client that sent a nonce
 * instead) takes no verifier: RFC 9700 §2.1.1 requires a request with one to be refused. A client
 * that sends a verifier sent a challenge, so a code without one means the challenge was stripped
 * on the way (a PKCE downgrade attack), and refusing it is how that is noticed.
 */
function pkceHolds(challenge: string | undefined, verifier: string | undefined): boolean {
  if (challenge === undefined) return verifier === undefined;
  return verifier !== undefined && digestsEqual(challenge, s256Challenge(verifier));
}

function refuse(deps: AuthorizationCodeGrantDeps, logFields: Record<string, unknown>, reason: string): never {
  deps.log.info(LOG_EVENTS.grantRefused, { ...logFields, reason });
  throw new InvalidGrantError({ detail: reason });
}
