/**
 * `POST /idp/v1/account/token`: exchange a one-time code for an access token (RFC 6749 §4.1.3,
 * with the code delivered by `otp/send` instead of a redirect).
 *
 * Steps, top to bottom:
 *   1. the user: `user_id` (and `auth_type`, inferred from `user_id` when absent), normalised,
 *      and the environment (`?env_id=`, else the default); a request that names a user counts;
 *   2. the attempt limit for that user, across all clients, and the cap on their consecutive
 *      failed exchanges: 429 before anything else is checked;
 *   3. grant_type (unsupported_grant_type), the other parameters (invalid_request), the client
 *      (invalid_client);
 *   4. the code: one conditional write spends a try of this user's live code for this client and
 *      environment (unexpired, a try left, this exact guess not made before) and returns it; the
 *      digests and the PKCE challenge are then compared here. Anything else is `invalid_grant`,
 *      which never says which part was wrong, and counts into the user's failure run;
 *   5. the access token, as the client's settings say.
 *
 * DynamoDB requests: success 2 for a JWT (attempt, guess), 3 for an opaque token (+ the token),
 * one more when a success ends a run of failures; every refusal with invalid_grant 3 (attempt,
 * guess, failure), whether or not the user has a code (2 when the code is not even six digits).
 */
import '../zod';
import * as z from 'zod/mini';
import type { EnvironmentConfig, ServiceConfig } from '../config';
import { InvalidGrantError, InvalidRequestError, UnsupportedGrantTypeError } from '../errors';
import { LOG_EVENTS } from '../log-events';
import type { AttemptLimiter, Clock, CodeRecord, CodeStore, Log, TokenStore } from '../ports';
import { mintOpaqueToken, signAccessToken, type Grant } from './access-tokens';
import { countAttempt, countFailure, endFailureRun } from './attempts';
import { CODE_VERIFIER_PATTERN, digestCode, digestsEqual, guessDigestOf, isWellFormedCode, s256Challenge } from './codes';
import { logHandleOf, subjectOf, userKeyOf, type HmacKeys } from './hmac-keys';
import { inferAuthType, normaliseUser } from './identity';
import { enumField, optionalTextField, parseFields, textField } from './request-fields';
import type { SigningKeys } from './signing-keys';
import { clientIn, environmentOf } from './tenancy';

export interface ExchangeCodeDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly limiter: AttemptLimiter;
  readonly codes: CodeStore;
  readonly tokens: TokenStore;
  readonly hmacKeys: () => Promise<HmacKeys>;
  readonly signingKeys: () => Promise<SigningKeys>;
  readonly log: Log;
}

export interface ExchangeCodeRequest {
  readonly environmentId: string | undefined;
  readonly fields: Record<string, unknown>;
  /** The `iss` of the token: the service's issuer URL. */
  readonly issuer: string;
}

/** RFC 6749 §5.1. */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope?: string;
}

/** Step 1 needs only these; everything else is checked after the attempt is counted. */
const userFields = z.object({
  user_id: textField('user_id', 320),
  auth_type: z.optional(enumField('auth_type', ['email', 'sms'])),
});

const grantFields = z.object({
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
export async function exchangeCode(deps: ExchangeCodeDeps, request: ExchangeCodeRequest): Promise<TokenResponse> {
  const named = parseFields(userFields, request.fields);
  const user = normaliseUser(named.auth_type ?? inferAuthType(named.user_id), named.user_id);
  const environment = environmentOf(deps.config, request.environmentId);
  const keys = await deps.hmacKeys();
  const userKey = userKeyOf(keys, user);
  const now = deps.clock.now();

  const failures = await countAttempt(deps, 'token', environment, userKey, now);

  const fields = parseGrantFields(request.fields);
  const client = clientIn(deps.config, environment, fields.client_id);
  const refusal = {
    deps,
    environment,
    userKey,
    now,
    logFields: { environment: environment.id, client: client.id, user: logHandleOf(userKey) },
  };

  // A redirect URI the client never registered, or a string that is not a code, cannot match any
  // stored code: refuse it without spending a try of the user's live code.
  if (!client.redirectUris.includes(fields.redirect_uri) || !isWellFormedCode(fields.code)) {
    return refuse(refusal, 'malformed');
  }

  const codeDigest = digestCode(
    keys.code,
    { environmentId: environment.id, clientId: client.id, redirectUri: fields.redirect_uri, authType: user.authType, user: user.value },
    fields.code,
  );
  const codeChallenge = fields.code_verifier === undefined ? undefined : s256Challenge(fields.code_verifier);
  const result = await deps.codes.guess({
    environmentId: environment.id,
    clientId: client.id,
    userKey,
    guessDigest: guessDigestOf(codeDigest, codeChallenge),
    now,
  });
  if (result.outcome === 'refused') return refuse(refusal, refusedReason(result.record, result.repeated, now));
  const mismatch = comparedReason(result.record, codeDigest, codeChallenge);
  if (mismatch !== undefined) return refuse(refusal, mismatch);

  await endFailureRun(deps, environment, userKey, failures);
  const grant: Grant = {
    issuer: request.issuer,
    client,
    environmentId: environment.id,
    subject: subjectOf(keys, environment.id, user),
    user,
    channel: result.record.channel,
    issuedAt: Math.floor(now / 1000),
  };
  const issued = await issueToken(deps, grant);
  deps.log.info(LOG_EVENTS.tokenIssued, { ...refusal.logFields, format: client.accessToken.format, channel: grant.channel });
  return {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    expires_in: issued.expiresIn,
    ...(client.accessToken.scope === undefined ? {} : { scope: client.accessToken.scope }),
  };
}

/** grant_type first (RFC 6749 §5.2 orders nothing, but a wrong grant type is the more useful answer). */
function parseGrantFields(fields: Record<string, unknown>): z.infer<typeof grantFields> {
  if (typeof fields.grant_type === 'string' && fields.grant_type !== '' && fields.grant_type !== 'authorization_code') {
    throw new UnsupportedGrantTypeError();
  }
  const parsed = parseFields(grantFields, fields);
  if (parsed.code_verifier !== undefined && !CODE_VERIFIER_PATTERN.test(parsed.code_verifier)) {
    throw new InvalidRequestError('code_verifier must be 43-128 characters of [A-Z a-z 0-9 - . _ ~] (RFC 7636 §4.1).');
  }
  return parsed;
}

/** Why an exchange was refused: logged, never told to the client. */
export type RejectionReason =
  'malformed' | 'not_found' | 'expired' | 'exhausted' | 'repeated' | 'wrong_code' | 'wrong_verifier' | 'inconsistent';

/** Why no try could be spent on the live code. The order mirrors the store's condition. */
export function refusedReason(record: CodeRecord | undefined, repeated: boolean, now: number): RejectionReason {
  if (record === undefined) return 'not_found';
  if (record.notAfter <= now) return 'expired';
  if (record.tries >= record.maxTries) return 'exhausted';
  // Refused with a try left and unexpired: it was this guess again, or (with another clock's
  // `now` in between) something no single clock value explains.
  return repeated ? 'repeated' : 'inconsistent';
}

/**
 * After a try was spent: undefined when the code matches (digests compared in constant time) and
 * so does the PKCE challenge, the reason otherwise. A code sent without a challenge matches only
 * an exchange without a verifier (a verifier there would be a downgrade attempt).
 */
export function comparedReason(record: CodeRecord, codeDigest: string, codeChallenge: string | undefined): RejectionReason | undefined {
  if (!digestsEqual(record.codeDigest, codeDigest)) return 'wrong_code';
  if (record.codeChallenge !== codeChallenge) return 'wrong_verifier';
  return undefined;
}

interface Refusal {
  readonly deps: ExchangeCodeDeps;
  readonly environment: EnvironmentConfig;
  readonly userKey: string;
  readonly now: number;
  readonly logFields: Record<string, unknown>;
}

/** invalid_grant, after counting the failure into the user's run (the cap's input). */
async function refuse(refusal: Refusal, reason: RejectionReason): Promise<never> {
  await countFailure(refusal.deps, refusal.environment, refusal.userKey, refusal.now);
  refusal.deps.log.info(LOG_EVENTS.grantRefused, { ...refusal.logFields, reason });
  throw new InvalidGrantError({ detail: reason });
}

async function issueToken(deps: ExchangeCodeDeps, grant: Grant): Promise<{ accessToken: string; expiresIn: number }> {
  if (grant.client.accessToken.format === 'jwt') {
    return signAccessToken(await deps.signingKeys(), grant);
  }
  const { token, record } = mintOpaqueToken(grant);
  await deps.tokens.save(record);
  return { accessToken: token, expiresIn: grant.client.accessToken.ttlSeconds };
}
