/**
 * The token endpoint's OTP grant: a one-time code delivered by `otp/send`, exchanged for an access
 * token (RFC 6749 §4.1.3, with the code delivered by `otp/send` instead of a redirect). The seed's
 * request shape: `grant_type=authorization_code` with `user_id` and the six-digit code.
 *
 * Steps, top to bottom:
 *   1. the user: `user_id` (and `auth_type`, inferred from `user_id` when absent), normalised
 *      (a phone number to its E.164 form, as otp/send normalised it), and the environment
 *      (`?env_id=`, else the default); a request that names a user is counted (`beginVerify`,
 *      with the cap on the user's consecutive failed checks): 429 before anything else;
 *   2. grant_type (unsupported_grant_type), the other parameters (invalid_request), the client:
 *      a public one names itself, a confidential one authenticates (lib/oauth/client-authentication.ts;
 *      invalid_client);
 *   3. the code (`verifyCode`, lib/otp/verify.ts): any refusal is `invalid_grant`, which never
 *      says which part was wrong;
 *   4. the access token (and refresh token) as the client's settings say.
 *
 * The DynamoDB requests of each outcome are counted on the wire in test/http/token.test.ts and
 * test/http/guessing.test.ts.
 */
import '../../platform/zod';
import * as z from 'zod/mini';
import { InvalidGrantError, InvalidRequestError, UnsupportedGrantTypeError } from '../../platform/errors';
import { enumField, optionalTextField, parseFields, textField } from '../../platform/request-fields';
import { subjectFor, userClaimsOf, type Grant } from '../access-tokens';
import { authenticateClient, type ClientAuthenticationDeps } from '../client-authentication';
import { allowedIn, environmentOf } from '../tenancy';
import { issueTokens, type IssueTokensDeps, type TokenRequest, type TokenResponse } from '../token-response';
import { CODE_VERIFIER_PATTERN, s256Challenge } from '../../otp/codes';
import { beginVerify, verifyCode, type VerifyCodeDeps } from '../../otp/verify';
import { logHandleOf } from '../../keys/hmac-keys';
import { newSessionId } from '../sessions';
import { inferAuthType, normaliseUser } from '../../identity/identity';
import { canonicalisePhone } from '../../phone/phone-canonical';

export interface ExchangeCodeDeps extends VerifyCodeDeps, IssueTokensDeps, ClientAuthenticationDeps {}

/**
 * Step 1 needs only these; everything else is checked after the attempt is counted. With
 * `otpGrantFields`, the body of this grant (docs/openapi.json is generated from both: infra/openapi/).
 */
export const otpUserFields = z.object({
  user_id: textField('user_id', 320),
  auth_type: z.optional(enumField('auth_type', ['email', 'sms'])),
});

export const otpGrantFields = z.object({
  grant_type: textField('grant_type', 64),
  code: textField('code', 64),
  client_id: textField('client_id', 64),
  redirect_uri: textField('redirect_uri', 2048),
  code_verifier: optionalTextField('code_verifier', 128),
});

/**
 * Exchanges a code for an access token.
 * @example await exchangeCode(deps, { environmentId: undefined, fields: { grant_type: 'authorization_code', … }, issuer })
 */
export async function exchangeCode(deps: ExchangeCodeDeps, request: TokenRequest): Promise<TokenResponse> {
  const named = parseFields(otpUserFields, request.fields);
  // The E.164 form alone: a number can only have a code if otp/send validated it in full.
  const user = normaliseUser(named.auth_type ?? inferAuthType(named.user_id), named.user_id, canonicalisePhone);
  const environment = environmentOf(deps.config, request.environmentId);
  const counted = await beginVerify(deps, environment, user);

  const fields = parseGrantFields(request.fields);
  // A confidential client authenticates here as on every grant (RFC 6749 §3.2.1); a public one names itself.
  const client = allowedIn(await authenticateClient(deps, request, 'token'), environment);
  const codeChallenge = fields.code_verifier === undefined ? undefined : s256Challenge(fields.code_verifier);
  const presented = { environment, client, user, redirectUri: fields.redirect_uri, code: fields.code, codeChallenge };
  const verification = await verifyCode(deps, counted, presented, async (record) => {
    const { keys, now } = counted;
    const scope = client.accessToken.scope;
    const grant: Grant = {
      issuer: request.issuer,
      client,
      environmentId: environment.id,
      subject: subjectFor(keys, environment.id, client, user),
      channel: record.channel,
      claims: userClaimsOf(user, client, scope),
      scope,
      issuedAt: Math.floor(now / 1000),
      authTime: Math.floor(now / 1000),
      // Each exchange is a login of its own: its session.
      sessionId: newSessionId(),
    };
    return issueTokens(
      deps,
      grant,
      { userKey: counted.userKey, now },
      // `grant` names the exchange in the logs, as the other grants do (an audit event's source: lib/audit/events.ts).
      { environment: environment.id, client: client.id, user: logHandleOf(counted.userKey), grant: 'one_time_code' },
    );
  }); // Which part was wrong is the log's (the reason), never the client's: RFC 6749 §5.2 invalid_grant.
  if (!verification.verified) throw new InvalidGrantError({ detail: verification.reason });
  return verification.value;
}

/** grant_type first (RFC 6749 §5.2 orders nothing, but a wrong grant type is the more useful answer). */
function parseGrantFields(fields: Record<string, unknown>): z.infer<typeof otpGrantFields> {
  if (typeof fields.grant_type === 'string' && fields.grant_type !== '' && fields.grant_type !== 'authorization_code') {
    throw new UnsupportedGrantTypeError();
  }
  const parsed = parseFields(otpGrantFields, fields);
  if (parsed.code_verifier !== undefined && !CODE_VERIFIER_PATTERN.test(parsed.code_verifier)) {
    throw new InvalidRequestError('code_verifier must be 43-128 characters of [A-Z a-z 0-9 - . _ ~] (RFC 7636 §4.1).');
  }
  return parsed;
}
