/**
 * `POST /idp/v1/otp/send`: the API's request for a code. This module checks the request; issuing
 * the code (the attempt, the guards, storing and delivering it) is lib/otp/issue.ts, which the
 * hosted login page calls too.
 *
 * Order of steps:
 *   1. the body's fields and types, the user (normalised), the channel and the environment; a
 *      request that passes these "names a user", and its attempt is counted (`beginIssue`): 429
 *      before anything else is looked at;
 *   2. the client, its API key, its redirect URI, its channels; PKCE and message parameters;
 *   3. the code is issued (`issueCode`).
 *
 * The DynamoDB requests of each path are counted on the wire in test/http/otp-send.test.ts,
 * test/http/phone-guards.test.ts and test/http/known-numbers.test.ts.
 */
import '../platform/zod';
import * as z from 'zod/mini';
import type { ClientConfig } from '../platform/config';
import { InvalidRequestError, UnauthorizedClientError } from '../platform/errors';
import type { Channel } from '../platform/vocabulary';
import { enumField, optionalTextField, parseFields, textField } from '../platform/request-fields';
import { requireApiKey } from '../oauth/api-keys';
import { clientIn, environmentOf } from '../oauth/tenancy';
import { S256_CHALLENGE_PATTERN } from '../otp/codes';
import { beginIssue, checkChannel, issueCode, smsOriginHostOf, type IssueCodeDeps, type TimeLeft } from '../otp/issue';
import { normaliseUser } from '../identity/identity';
import { normalisePhone } from '../phone/phone-validation';
import { resolveLocale } from '../messages/locale';
import { validateMessage } from '../messages/messages';

export type SendCodeDeps = IssueCodeDeps;

export interface SendCodeRequest {
  /** `?env_id=`; absent means the default environment. */
  readonly environmentId: string | undefined;
  readonly fields: Record<string, unknown>;
  readonly authorization: string | undefined;
  /**
   * The source IP as API Gateway saw the connection (`requestContext.identity.sourceIp`), for the
   * per-source guard; never a client-supplied header.
   */
  readonly sourceIp: string | undefined;
  /** The function's deadline: a code is stored only when what follows fits. Absent: none (a direct call). */
  readonly timeLeft?: TimeLeft | undefined;
}

export interface SendCodeResponse {
  readonly status: 'sent';
  readonly channel: Channel;
  /** Seconds the code stays valid. */
  readonly expires_in: number;
}

/** The one `method` value beyond the default delivery by `auth_type`. */
export const SEND_METHODS = ['voice_with_otp'] as const;

/** The request body `otp/send` validates; docs/openapi.json describes it from this schema (infra/openapi/). */
export const sendFields = z.object({
  auth_type: enumField('auth_type', ['email', 'sms']),
  client_id: textField('client_id', 64),
  redirect_uri: textField('redirect_uri', 2048),
  user_id: textField('user_id', 320),
  locale: optionalTextField('locale', 35),
  message: optionalTextField('message', 4096),
  method: z.optional(
    z.enum(SEND_METHODS, { error: `method must be omitted (deliver by auth_type) or one of: ${SEND_METHODS.join(', ')}.` }),
  ),
  code_challenge: optionalTextField('code_challenge', 128),
  code_challenge_method: optionalTextField('code_challenge_method', 16),
});
type SendFields = z.infer<typeof sendFields>;

/**
 * Sends a code.
 * @example await sendCode(deps, { environmentId: undefined, fields: { auth_type: 'email', … }, authorization: undefined, sourceIp: '192.0.2.1' })
 */
export async function sendCode(deps: SendCodeDeps, request: SendCodeRequest): Promise<SendCodeResponse> {
  const fields = parseFields(sendFields, request.fields);
  const user = normaliseUser(fields.auth_type, fields.user_id, normalisePhone);
  const channel = channelOf(fields);
  const environment = environmentOf(deps.config, request.environmentId);
  const attempt = await beginIssue(deps, environment, user);

  const client = clientIn(deps.config, environment, fields.client_id);
  let serverSide = false;
  if (client.sendRequiresApiKey) {
    requireApiKey(client, request.authorization);
    // The request proved it comes from the client's servers: what `serverSide` means, never a setting alone.
    serverSide = true;
  }
  checkRedirectUri(client, fields.redirect_uri);
  checkChannel(client, environment, channel);
  const codeChallenge = codeChallengeOf(fields);
  const locale = resolveLocale(fields.locale, environment.defaultLocale);
  if (fields.message !== undefined) {
    if (!client.allowCustomMessage) throw new UnauthorizedClientError('This client may not set the message text.');
    // An SMS is measured with the origin-bound line it ends with (lib/messages/origin-bound-code.ts).
    validateMessage(fields.message, channel, channel === 'sms' ? smsOriginHostOf(deps) : undefined);
  }
  const issued = await issueCode(deps, attempt, {
    environment,
    client,
    user,
    channel,
    redirectUri: fields.redirect_uri,
    codeChallenge,
    locale,
    message: fields.message,
    sourceIp: request.sourceIp,
    serverSide,
    timeLeft: request.timeLeft,
  });
  return { status: 'sent', channel: issued.channel, expires_in: issued.expiresInSeconds };
}

function channelOf(fields: SendFields): Channel {
  if (fields.method === undefined) return fields.auth_type;
  if (fields.auth_type !== 'sms') {
    throw new InvalidRequestError("method 'voice_with_otp' requires auth_type 'sms' (a phone number to call).");
  }
  return 'voice';
}

/** Exact string comparison (RFC 6749 §3.1.2.3, OAuth 2.1 §4.1.1): no prefix or pattern matching. */
function checkRedirectUri(client: ClientConfig, redirectUri: string): void {
  if (!client.redirectUris.includes(redirectUri)) {
    throw new InvalidRequestError('redirect_uri is not registered for this client.');
  }
}

/**
 * PKCE (RFC 7636 §4.3): only S256. "plain" sends the verifier itself as the challenge, which
 * OAuth 2.1 and the security BCP (RFC 9700 §2.1.1) advise against; an absent method means plain.
 */
function codeChallengeOf(fields: SendFields): string | undefined {
  if (fields.code_challenge === undefined) {
    if (fields.code_challenge_method !== undefined) throw new InvalidRequestError('code_challenge_method requires code_challenge.');
    return undefined;
  }
  if (fields.code_challenge_method !== 'S256') {
    throw new InvalidRequestError("code_challenge_method must be 'S256'.");
  }
  if (!S256_CHALLENGE_PATTERN.test(fields.code_challenge)) {
    throw new InvalidRequestError('code_challenge must be the base64url SHA-256 of the code_verifier (43 characters).');
  }
  return fields.code_challenge;
}
