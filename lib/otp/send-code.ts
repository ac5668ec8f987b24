/**
 * `POST /idp/v1/otp/send`: generate a six-digit code, store its digest, deliver it.
 *
 * Order of steps (each a small function below, read top to bottom):
 *   1. the body's fields and types, the user (normalised), the channel and the environment;
 *      a request that passes these "names a user" and is counted;
 *   2. the attempt limit for that recipient: 429 before anything else is looked at;
 *   3. the client, its API key, its redirect URI, its channels; PKCE and message parameters;
 *   4. SMS and voice only: the fraud guards (lib/guards/phone-guards.ts: the destination, the
 *      source IP, the destination prefix, the day's budget);
 *   5. a new code replaces the client's previous one for this user, if the function has the time
 *      left to deliver it and to put the previous one back should delivery fail (else 503);
 *   6. delivery; if it fails (502) the previous code is put back (or the new one removed).
 *
 * The attempt limit counts per recipient mailbox (`mailboxOf`: `alice+x@` is `alice@`), while the
 * code stays bound to the exact address it was sent to.
 *
 * DynamoDB requests: the attempt and the code, two writes by key; an email send that did not
 * present the client's key adds its source's email window (three). An SMS or voice send adds the
 * guards' writes: the source's window, the number's known allowance and the prefix window: five,
 * when the container's lease of the day's budget pays (9 sends in 10 of a busy container), six
 * when it takes a lease; four for a known number within its allowance (no prefix window, no
 * budget: docs/decisions/012-known-numbers.md); one fewer for a send that presented the client's
 * key, which is not counted per source (docs/decisions/008-sms-fraud-guards.md, measured in
 * test/http/phone-guards.test.ts and test/http/known-numbers.test.ts). A refused attempt is one
 * (two when it starts a block); a send refused by a guard makes the attempt and the counters
 * taken before the refusal; a failed delivery adds the write that puts back the last delivered
 * code, and a save that fails (503) the cancel and, when the save landed after all, that write
 * (more only when other sends for the same user change the slot at the same moment).
 */
import { randomUUID } from 'node:crypto';
import '../platform/zod';
import * as z from 'zod/mini';
import type { ClientConfig, EnvironmentConfig, ServiceConfig } from '../platform/config';
import { DeliveryFailedError, InvalidRequestError, TemporarilyUnavailableError, UnauthorizedClientError } from '../platform/errors';
import type { Clock, Log } from '../platform/ports';
import type { AttemptLimiter } from '../limits/ports';
import type { KnownNumbers, SendGuards } from '../guards/ports';
import type { CodeRecord, CodeStore, SlotState } from './ports';
import type { EmailSender, SmsSender, VoiceCaller } from '../messages/ports';
import { LOG_EVENTS } from '../platform/log-events';
import type { Locale } from '../messages/locales';
import { requireApiKey } from '../oauth/api-keys';
import { countAttempt } from '../limits/attempts';
import { digestCode, generateCode, S256_CHALLENGE_PATTERN } from './codes';
import { logHandleOf, userKeyOf, type HmacKeys } from '../keys/hmac-keys';
import type { Channel } from '../platform/vocabulary';
import { mailboxOf, normaliseUser, type UserIdentity } from '../identity/identity';
import { guardEmailSend } from '../guards/email-guards';
import { guardPhoneSend } from '../guards/phone-guards';
import { normalisePhone } from '../phone/phone-validation';
import { enumField, optionalTextField, parseFields, textField } from '../platform/request-fields';
import { clientIn, environmentOf } from '../oauth/tenancy';
import { resolveLocale } from '../messages/locale';
import { validateMessage } from '../messages/messages';
import { renderEmail } from '../messages/render-email';
import { renderSms } from '../messages/render-sms';
import { renderVoice } from '../messages/render-voice';

export interface SendCodeDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly limiter: AttemptLimiter;
  /** The send guards' counters. */
  readonly guards: SendGuards;
  /** Numbers that completed a login recently: their own allowance past the prefix and budget guards. */
  readonly knownNumbers: KnownNumbers;
  readonly codes: CodeStore;
  readonly email: EmailSender;
  readonly sms: SmsSender;
  readonly voice: VoiceCaller;
  /** Read once per container per secrets max age (cached by lib/deps/secrets.ts). */
  readonly hmacKeys: () => Promise<HmacKeys>;
  readonly log: Log;
}

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

/**
 * The time the function has left, and the time storing, delivering and (after a failed delivery)
 * putting back the previous code may take.
 */
export interface TimeLeft {
  readonly remainingMs: () => number;
  readonly neededMs: number;
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
  const attempt = await beginSend(deps, environment, user);

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
    validateMessage(fields.message, channel);
  }
  return completeSend(deps, attempt, {
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
}

/** A send whose attempt was counted: what `completeSend` needs of it. */
export interface CountedSend {
  readonly keys: HmacKeys;
  readonly userKey: string;
  readonly now: number;
}

/**
 * Steps 1–2 of a send, for any caller (otp/send, the hosted login page): the recipient's attempt
 * is counted per mailbox, before anything else is looked at; 429 when the limit refuses it.
 */
export async function beginSend(deps: SendCodeDeps, environment: EnvironmentConfig, user: UserIdentity): Promise<CountedSend> {
  const keys = await deps.hmacKeys();
  const now = deps.clock.now();
  await countAttempt(deps, 'send', environment, userKeyOf(keys, mailboxOf(user)), now);
  return { keys, userKey: userKeyOf(keys, user), now };
}

/** What is sent, once the request has been checked. */
export interface CodeToSend {
  readonly environment: EnvironmentConfig;
  readonly client: ClientConfig;
  readonly user: UserIdentity;
  readonly channel: Channel;
  readonly redirectUri: string;
  readonly codeChallenge: string | undefined;
  readonly locale: Locale;
  readonly message: string | undefined;
  /**
   * The source IP as API Gateway saw the connection (`requestContext.identity.sourceIp`), for the
   * per-source guards; never a client-supplied header.
   */
  readonly sourceIp: string | undefined;
  /**
   * True only when this request presented the client's API key (otp/send for a client that
   * requires one): the send comes from the client's servers, whose address is not its users', so
   * it is not counted per source. Never derived from the client's settings: the hosted login page
   * sends without any key, always counted per source (docs/security.md, the third review).
   */
  readonly serverSide: boolean;
  /** The function's deadline (`SendCodeRequest.timeLeft`); absent: none. */
  readonly timeLeft?: TimeLeft | undefined;
}

/**
 * Steps 4–6, for any caller (otp/send, the hosted login page): SMS and voice sends pass the fraud
 * guards; a new code replaces the client's previous one for this user, if the function has the
 * time to deliver it and to put the previous one back; it is delivered, and if delivery fails
 * (502) the last delivered code comes back.
 */
export async function completeSend(deps: SendCodeDeps, attempt: CountedSend, send: CodeToSend): Promise<SendCodeResponse> {
  const { keys, userKey, now } = attempt;
  const { environment, client, user, channel } = send;
  if (channel === 'email') {
    if (!send.serverSide) await guardEmailSend(deps, { environment, sourceIp: send.sourceIp, keys, now });
  } else {
    await guardPhoneSend(deps, {
      environment,
      channel,
      phone: user.value,
      userKey,
      sourceIp: send.sourceIp,
      serverSide: send.serverSide,
      keys,
      now,
    });
  }

  // A stored code must get its delivery, and a failed delivery the restore of the previous code:
  // never start what the function's timeout could cut short (slow writes before this point, the
  // SMS guards' included, then cost a 503 and leave no code behind).
  if (send.timeLeft !== undefined && send.timeLeft.remainingMs() < send.timeLeft.neededMs) {
    throw new TemporarilyUnavailableError({ detail: 'too little time left to store and deliver a code' });
  }

  const code = generateCode();
  const record: CodeRecord = {
    environmentId: environment.id,
    clientId: client.id,
    userKey,
    channel,
    codeDigest: digestCode(
      keys.code,
      { environmentId: environment.id, clientId: client.id, redirectUri: send.redirectUri, authType: user.authType, user: user.value },
      code,
    ),
    sendId: randomUUID(),
    createdAt: now,
    notAfter: now + environment.code.ttlSeconds * 1000,
    tries: 0,
    maxTries: environment.code.maxTries,
    codeChallenge: send.codeChallenge,
  };
  // The history keeps as many replaced codes as sends can be in flight at once for one user.
  const slot = await saveOrCancel(deps, record, environment.limits.send.maxAttempts);

  const logFields = { environment: environment.id, client: client.id, channel, user: logHandleOf(userKey) };
  try {
    await deliver(deps, environment, user, channel, {
      code,
      locale: send.locale,
      message: send.message,
      expiresInSeconds: environment.code.ttlSeconds,
    });
  } catch (error) {
    if (error instanceof DeliveryFailedError) {
      await discardQuietly(deps, record, (now) => deps.codes.discard(record, slot, now));
      deps.log.warn(LOG_EVENTS.deliveryFailed, { ...logFields, detail: error.detail });
    }
    throw error;
  }
  deps.log.info(LOG_EVENTS.codeSent, logFields);
  return { status: 'sent', channel, expires_in: environment.code.ttlSeconds };
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

/** The client may send by this channel, and the environment offers it. */
export function checkChannel(client: ClientConfig, environment: EnvironmentConfig, channel: Channel): void {
  if (!client.channels.includes(channel)) {
    throw new UnauthorizedClientError(`This client may not send codes by ${channel}.`);
  }
  if (channel === 'voice' && environment.voice === undefined) {
    throw new InvalidRequestError('Voice delivery is not available in this environment.');
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

interface MessageContent {
  readonly code: string;
  readonly locale: Locale;
  readonly message: string | undefined;
  readonly expiresInSeconds: number;
}

async function deliver(
  deps: SendCodeDeps,
  environment: EnvironmentConfig,
  user: UserIdentity,
  channel: Channel,
  content: MessageContent,
): Promise<void> {
  const input = { ...content, serviceName: environment.serviceName };
  switch (channel) {
    case 'email': {
      const { subject, text, html } = renderEmail(input);
      await deps.email.sendEmail({
        to: user.value,
        from: formatMailbox(environment.email.senderName, environment.email.sender),
        subject,
        text,
        html,
        configurationSet: environment.email.configurationSet,
      });
      return;
    }
    case 'sms': {
      const { text } = renderSms(input);
      await deps.sms.sendSms({
        to: user.value,
        text,
        senderId: environment.sms.senderId,
        originationNumber: environment.sms.originationNumber,
      });
      return;
    }
    case 'voice': {
      // checkChannel has made sure voice is configured.
      const voice = environment.voice as NonNullable<EnvironmentConfig['voice']>;
      const { ssml, voiceId } = renderVoice(input);
      await deps.voice.sendVoiceMessage({
        to: user.value,
        ssml,
        voiceId,
        originationIdentity: voice.originationIdentity,
        configurationSet: voice.configurationSet,
      });
      return;
    }
  }
}

/**
 * Stores the code, or, when the write fails with its outcome unknown (a 503: it may land later),
 * cancels it before answering, so that the code the user already holds stays usable, as after a
 * failed delivery. A failed cancel is logged, not raised over the 503.
 */
async function saveOrCancel(deps: SendCodeDeps, record: CodeRecord, keep: number): Promise<SlotState> {
  try {
    return await deps.codes.save(record, keep);
  } catch (error) {
    if (error instanceof TemporarilyUnavailableError) await discardQuietly(deps, record, (now) => deps.codes.cancel(record, now));
    throw error;
  }
}

/**
 * A failed send changes nothing but the attempt counter: its code must not stay usable, and the
 * last code that reached the user (perhaps a minute ago, by another channel) comes back
 * (lib/otp/code-history.ts); so must a save cancelled after its 503. A failure to do so is logged,
 * not raised over the 502 or the 503.
 */
async function discardQuietly(deps: SendCodeDeps, record: CodeRecord, discard: (now: number) => Promise<void>): Promise<void> {
  try {
    await discard(deps.clock.now());
  } catch (error) {
    deps.log.error(LOG_EVENTS.discardFailed, { environment: record.environmentId, client: record.clientId, error: (error as Error).name });
  }
}

/**
 * An RFC 5322 mailbox. A display name that is not printable ASCII is an RFC 2047 encoded word, as
 * SES requires for `Source`.
 */
export function formatMailbox(name: string | undefined, address: string): string {
  if (name === undefined) return address;
  const encoded = /^[\x20-\x7e]*$/.test(name) ? `"${name}"` : `=?UTF-8?B?${Buffer.from(name, 'utf8').toString('base64')}?=`;
  return `${encoded} <${address}>`;
}
