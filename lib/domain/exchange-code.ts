/**
 * `POST /idp/v1/account/token`: exchange a one-time code for an access token (RFC 6749 §4.1.3,
 * with the code delivered by `otp/send` instead of a redirect).
 *
 * Steps, top to bottom:
 *   1. the user: `user_id` (and `auth_type`, inferred from `user_id` when absent), normalised,
 *      and the environment (`?env_id=`, else the default); a request that names a user counts;
 *   2. the attempt limit for that user, across all clients: 429 before anything else is checked;
 *   3. grant_type (unsupported_grant_type), the other parameters (invalid_request), the client
 *      (invalid_client);
 *   4. the code: consumed by one conditional write if it is this user's latest code for this
 *      client, redirect URI, auth type and environment, unexpired, unused, with fewer than
 *      `maxTries` wrong tries, and matching the PKCE verifier; anything else is `invalid_grant`,
 *      which never says which part was wrong, and a wrong code counts against the code;
 *   5. the access token, as the client's settings say.
 *
 * DynamoDB requests: success 2 for a JWT (attempt, consumption), 3 for an opaque token (+ the
 * token); failure at most 3 (attempt, refused consumption, wrong-try count).
 */
import '../zod';
import * as z from 'zod/mini';
import type { ServiceConfig } from '../config';
import { InvalidGrantError, InvalidRequestError, UnsupportedGrantTypeError } from '../errors';
import { LOG_EVENTS } from '../log-events';
import type { AttemptLimiter, Clock, CodeRecord, CodeStore, Log, TokenStore } from '../ports';
import { mintOpaqueToken, signAccessToken, type Grant } from './access-tokens';
import { countAttempt } from './attempts';
import { CODE_VERIFIER_PATTERN, digestCode, digestsEqual, isWellFormedCode, s256Challenge } from './codes';
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

  await countAttempt(deps, 'token', environment, userKey, now);

  const fields = parseGrantFields(request.fields);
  const client = clientIn(deps.config, environment, fields.client_id);
  const logFields = { environment: environment.id, client: client.id, user: logHandleOf(userKey) };

  // A redirect URI the client never registered, or a string that is not a code, cannot match any
  // stored code: answer as for any other mismatch, without a write.
  if (!client.redirectUris.includes(fields.redirect_uri) || !isWellFormedCode(fields.code)) {
    return refuse(deps, logFields, 'malformed');
  }

  const codeDigest = digestCode(keys.code, { environmentId: environment.id, clientId: client.id, redirectUri: fields.redirect_uri, authType: user.authType, user: user.value }, fields.code);
  const codeChallenge = fields.code_verifier === undefined ? undefined : s256Challenge(fields.code_verifier);
  const slot = { clientId: client.id, userKey };
  const result = await deps.codes.consume({ ...slot, codeDigest, codeChallenge, now });

  if (result.outcome === 'rejected') {
    const reason = rejectionReason(result.record, codeDigest, codeChallenge, now);
    // Every refusal that reached the table does the same work: one conditional try count, which
    // lands only on the live code of that send (and is harmless on a dead one). Without it, a
    // refusal with no code would be a request shorter, and its timing would tell an attacker
    // whether the user has a code right now.
    const charged = result.record !== undefined && reason !== 'inconsistent' ? result.record.sendId : NO_SEND;
    await deps.codes.recordWrongTry(slot, charged);
    return refuse(deps, logFields, reason);
  }
  // The conditional write compared the digests; compare again in constant time, in the application.
  if (!digestsEqual(result.record.codeDigest, codeDigest) || result.record.environmentId !== environment.id) {
    throw new Error('A consumed code does not match the request');
  }

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
  deps.log.info(LOG_EVENTS.tokenIssued, { ...logFields, format: client.accessToken.format, channel: grant.channel });
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

type RejectionReason = 'malformed' | 'not_found' | 'expired' | 'exhausted' | 'wrong_code' | 'wrong_verifier' | 'inconsistent';

/** A send id no item has: the try count's condition fails and nothing is written. */
const NO_SEND = '-';

/**
 * Why a consumption was refused, for the logs and for try counting. The order mirrors the
 * condition: a missing code, then expiry and exhaustion (which no code can fix), then the digest
 * (compared in constant time), then PKCE.
 */
export function rejectionReason(record: CodeRecord | undefined, codeDigest: string, codeChallenge: string | undefined, now: number): RejectionReason {
  if (record === undefined) return 'not_found';
  if (record.notAfter <= now) return 'expired';
  if (record.tries >= record.maxTries) return 'exhausted';
  if (!digestsEqual(record.codeDigest, codeDigest)) return 'wrong_code';
  if (record.codeChallenge !== codeChallenge) return 'wrong_verifier';
  // Everything matched, yet the condition refused: it cannot happen with one clock value, and if
  // it ever does, the user's correct code must not be charged a wrong try.
  return 'inconsistent';
}

function refuse(deps: ExchangeCodeDeps, logFields: Record<string, unknown>, reason: RejectionReason): never {
  deps.log.info(LOG_EVENTS.grantRefused, { ...logFields, reason });
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

