/**
 * `POST /idp/v1/account/token`: exchange a one-time code for an access token (RFC 6749 §4.1.3,
 * with the code delivered by `otp/send` instead of a redirect).
 *
 * Steps, top to bottom:
 *   1. the user: `user_id` (and `auth_type`, inferred from `user_id` when absent), normalised
 *      (a phone number to its E.164 form, as otp/send normalised it), and the environment (`?env_id=`, else the default); a request that names a user counts;
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
 * DynamoDB requests: success 2 for a JWT (attempt, guess), 3 for an opaque token (+ the token);
 * a client with refresh tokens 3 either way (+ the family, with an opaque token's record in one
 * transaction: lib/oauth/token-response.ts `issueTokens`); one more when a success ends a run of
 * failures; every refusal with invalid_grant 3 (attempt,
 * guess, failure), whether or not the user has a code (2 when the code is not even six digits).
 * A 503 after the guess adds the abandon of its presentation, and the retry of that code the
 * take-over of the abandoned guess (one write each).
 */
import { randomUUID } from 'node:crypto';
import '../platform/zod';
import * as z from 'zod/mini';
import type { ClientConfig, EnvironmentConfig, ServiceConfig } from '../platform/config';
import { InvalidGrantError, InvalidRequestError, TemporarilyUnavailableError, UnsupportedGrantTypeError } from '../platform/errors';
import { LOG_EVENTS } from '../platform/log-events';
import type { Clock, Log } from '../platform/ports';
import type { AttemptLimiter, FailureRun } from '../limits/ports';
import type { KnownNumbers } from '../guards/ports';
import type { AbandonedPresentation, CodeRecord, CodeStore, GuessResult } from './ports';
import { userClaimsOf, type Grant } from '../oauth/access-tokens';
import { countAttempt, countFailure, endFailureRun } from '../limits/attempts';
import { CODE_VERIFIER_PATTERN, digestCode, digestsEqual, guessDigestOf, isWellFormedCode, s256Challenge } from './codes';
import { logHandleOf, subjectOf, userKeyOf, type HmacKeys } from '../keys/hmac-keys';
import { inferAuthType, normaliseUser, type UserIdentity } from '../identity/identity';
import { canonicalisePhone } from '../phone/phone-canonical';
import { enumField, optionalTextField, parseFields, textField } from '../platform/request-fields';
import { clientIn, environmentOf } from '../oauth/tenancy';
import { issueTokens, type IssueTokensDeps, type TokenResponse } from '../oauth/token-response';

/** What checking a one-time code needs (the token endpoint's OTP grant, the hosted login page). */
export interface CodeCheckDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly limiter: AttemptLimiter;
  readonly codes: CodeStore;
  /** A phone number's successful check makes it known (docs/decisions/012-known-numbers.md). */
  readonly knownNumbers: KnownNumbers;
  readonly hmacKeys: () => Promise<HmacKeys>;
  readonly log: Log;
}

export interface ExchangeCodeDeps extends CodeCheckDeps, IssueTokensDeps {}

export interface ExchangeCodeRequest {
  readonly environmentId: string | undefined;
  readonly fields: Record<string, unknown>;
  /** The `iss` of the token: the service's issuer URL. */
  readonly issuer: string;
}

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
export async function exchangeCode(deps: ExchangeCodeDeps, request: ExchangeCodeRequest): Promise<TokenResponse> {
  const named = parseFields(otpUserFields, request.fields);
  // The E.164 form alone: a number can only have a code if otp/send validated it in full.
  const user = normaliseUser(named.auth_type ?? inferAuthType(named.user_id), named.user_id, canonicalisePhone);
  const environment = environmentOf(deps.config, request.environmentId);
  const counted = await beginCodeCheck(deps, environment, user);

  const fields = parseGrantFields(request.fields);
  const client = clientIn(deps.config, environment, fields.client_id);
  const codeChallenge = fields.code_verifier === undefined ? undefined : s256Challenge(fields.code_verifier);
  const presented = { environment, client, user, redirectUri: fields.redirect_uri, code: fields.code, codeChallenge };
  return checkCode(deps, counted, presented, async (record) => {
    const { keys, now } = counted;
    const scope = client.accessToken.scope;
    const grant: Grant = {
      issuer: request.issuer,
      client,
      environmentId: environment.id,
      subject: subjectOf(keys, environment.id, user),
      channel: record.channel,
      claims: userClaimsOf(user, client, scope),
      scope,
      issuedAt: Math.floor(now / 1000),
      authTime: Math.floor(now / 1000),
    };
    return issueTokens(
      deps,
      grant,
      { userKey: counted.userKey, now },
      { environment: environment.id, client: client.id, user: logHandleOf(counted.userKey) },
    );
  });
}

/** A code check whose attempt was counted: what `checkCode` needs of it. */
export interface CountedCheck {
  readonly keys: HmacKeys;
  readonly userKey: string;
  readonly now: number;
  /** The user's failure run as it stood, so a success knows whether to end it. */
  readonly failures: FailureRun | undefined;
}

/**
 * Steps 1–2 for any caller that checks a one-time code (the token endpoint, the hosted login
 * page): the user's attempt is counted, with the cap on consecutive failures; 429 when refused.
 */
export async function beginCodeCheck(deps: CodeCheckDeps, environment: EnvironmentConfig, user: UserIdentity): Promise<CountedCheck> {
  const keys = await deps.hmacKeys();
  const userKey = userKeyOf(keys, user);
  const now = deps.clock.now();
  const failures = await countAttempt(deps, 'token', environment, userKey, now);
  return { keys, userKey, now, failures };
}

/** The code a user presents, and everything it must be bound to. */
export interface PresentedCode {
  readonly environment: EnvironmentConfig;
  readonly client: ClientConfig;
  readonly user: UserIdentity;
  readonly redirectUri: string;
  readonly code: string;
  /** S256 of the presented code_verifier, or undefined when none was presented. */
  readonly codeChallenge: string | undefined;
}

/**
 * Step 4 for any caller: the code is checked against the user's live code (one conditional write
 * spends a try; the digests and the PKCE challenge are compared here). When it matches, the user's
 * failure run ends and `redeem` issues what the code was presented for; otherwise the failure is
 * counted and `invalid_grant` thrown, which never says which part was wrong.
 *
 * A presentation that fails with a 503 once its guess may have been recorded (the guess's own
 * write timed out, or a later step failed) gives the user nothing, and is abandoned so that the
 * same code presented again succeeds (lib/adapters/dynamodb/code-store.ts).
 */
export async function checkCode<T>(
  deps: CodeCheckDeps,
  counted: CountedCheck,
  presented: PresentedCode,
  redeem: (record: CodeRecord) => Promise<T>,
): Promise<T> {
  const { keys, userKey, now } = counted;
  const { environment, client, user } = presented;
  const refusal = {
    deps,
    environment,
    userKey,
    now,
    failures: counted.failures,
    logFields: { environment: environment.id, client: client.id, user: logHandleOf(userKey) },
  };

  // A redirect URI the client never registered, or a string that is not a code, cannot match any
  // stored code: refuse it without spending a try of the user's live code.
  if (!client.redirectUris.includes(presented.redirectUri) || !isWellFormedCode(presented.code)) {
    return refuse(refusal, 'malformed');
  }

  const codeDigest = digestCode(
    keys.code,
    { environmentId: environment.id, clientId: client.id, redirectUri: presented.redirectUri, authType: user.authType, user: user.value },
    presented.code,
  );
  const presentation = { environmentId: environment.id, clientId: client.id, userKey, presentationId: randomUUID() };
  let result: GuessResult;
  try {
    result = await deps.codes.guess({ ...presentation, guessDigest: guessDigestOf(codeDigest, presented.codeChallenge), now });
  } catch (error) {
    throw await abandonedBy(deps, presentation, error);
  }
  if (result.outcome === 'refused') return refuse(refusal, refusedReason(result.record, result.repeated, now));
  const mismatch = comparedReason(result.record, codeDigest, presented.codeChallenge);
  // The record is the code after this try: a wrong code that spent the last one killed it.
  if (mismatch === 'wrong_code' && result.record.tries >= result.record.maxTries) return refuse(refusal, 'wrong_code_last_try');
  if (mismatch !== undefined) return refuse(refusal, mismatch);

  try {
    await endFailureRun(deps, environment, userKey, counted.failures, now);
    if (user.authType === 'sms') await rememberNumber(deps, environment, userKey, now);
    return await redeem(result.record);
  } catch (error) {
    throw await abandonedBy(deps, presentation, error);
  }
}

/**
 * The error to rethrow, once a presentation that answers 503 is abandoned. Only a 503: any other
 * failure is a bug whose effects are unknown, and the code stays used. An abandon that fails is
 * logged; the user's retry is then refused as a repetition, as before abandons existed.
 */
async function abandonedBy(deps: CodeCheckDeps, presentation: AbandonedPresentation, error: unknown): Promise<unknown> {
  if (!(error instanceof TemporarilyUnavailableError)) return error;
  try {
    await deps.codes.abandon(presentation);
  } catch (abandonError) {
    deps.log.error(LOG_EVENTS.presentationNotAbandoned, {
      environment: presentation.environmentId,
      client: presentation.clientId,
      error: (abandonError as Error).name,
    });
  }
  return error;
}

/**
 * A phone number that proved it receives its codes is known for `rememberDays`: one write, which
 * never fails the login it follows (the code is spent by now; a 503 would cost the user their
 * sign-in for a record that only saves them from a spent budget). A failure is logged.
 */
async function rememberNumber(deps: CodeCheckDeps, environment: EnvironmentConfig, userKey: string, now: number): Promise<void> {
  const days = environment.limits.knownNumbers.rememberDays;
  if (days === 0) return;
  try {
    await deps.knownNumbers.remember({ environmentId: environment.id, userKey }, now + days * 86_400_000);
  } catch (error) {
    deps.log.error(LOG_EVENTS.knownNumberNotRecorded, { environment: environment.id, error: (error as Error).name });
  }
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

/** Why an exchange was refused: logged, never told to the client. */
export type RejectionReason =
  | 'malformed'
  | 'not_found'
  | 'expired'
  | 'exhausted'
  | 'repeated'
  | 'wrong_code'
  /** A wrong code on the code's last try: the code is dead (the hosted page says so at once). */
  | 'wrong_code_last_try'
  | 'wrong_verifier'
  | 'inconsistent';

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
  readonly deps: CodeCheckDeps;
  readonly environment: EnvironmentConfig;
  readonly userKey: string;
  readonly now: number;
  /** The user's failure run as the attempt saw it. */
  readonly failures: FailureRun | undefined;
  readonly logFields: Record<string, unknown>;
}

/** invalid_grant, after counting the failure into the user's run (the cap's input). */
async function refuse(refusal: Refusal, reason: RejectionReason): Promise<never> {
  await countFailure(refusal.deps, refusal.environment, refusal.userKey, refusal.now, refusal.failures);
  refusal.deps.log.info(LOG_EVENTS.grantRefused, { ...refusal.logFields, reason });
  throw new InvalidGrantError({ detail: reason });
}
