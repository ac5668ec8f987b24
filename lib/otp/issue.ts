/**
 * Issuing a one-time code: the one place a code is generated, stored and delivered. Its callers
 * are thin: otp/send (lib/endpoints/otp-send.ts) and the hosted login page (lib/login/authorize.ts)
 * check their own requests, then call the two steps here:
 *
 *   1. `beginIssue`: the recipient's attempt is counted (per mailbox: `alice+x@` is `alice@`),
 *      before anything else is looked at; 429 when the limit refuses it;
 *   2. `issueCode`: SMS and voice pass the fraud guards (lib/guards/phone-guards.ts), email sends
 *      its source's window; a new code replaces the client's previous one for this user, if the
 *      function has the time left to deliver it and to put the previous one back should delivery
 *      fail (else 503); delivery, and if it fails (502) the last delivered code comes back.
 *
 * A recipient an operator blocked (docs/operations/operator-controls.md) gets the answer anyone
 * gets: the attempt is counted, the request checked and the guards passed as for any send, and
 * the caller answers "sent"; only the code is neither stored nor delivered. The one difference
 * left is time: no store, no provider call (tens of milliseconds), which cannot be made up
 * without waiting, and the service never waits.
 *
 * The code stays bound to the exact address or number it was sent to. The DynamoDB requests of
 * each path are counted on the wire in test/http/otp-send.test.ts (email),
 * test/http/phone-guards.test.ts and test/http/known-numbers.test.ts (SMS and voice), and
 * test/faults/storage-faults.test.ts (a failed delivery, a save that answers 503). A stage's test
 * recipient (config `testRecipients`, lib/otp/test-outbox.ts) gets its message kept for the smoke
 * command instead of delivered: one write in place of the provider's call
 * (test/http/test-recipients.test.ts).
 */
import { randomUUID } from 'node:crypto';
import type { ClientConfig, EnvironmentConfig, ServiceConfig } from '../platform/config';
import { DeliveryFailedError, InvalidRequestError, TemporarilyUnavailableError, UnauthorizedClientError } from '../platform/errors';
import type { Clock, Log } from '../platform/ports';
import type { AttemptLimiter } from '../limits/ports';
import type { KnownNumbers, SendGuards } from '../guards/ports';
import type { CodeRecord, CodeStore, SlotState } from './ports';
import type { EmailSender, SmsSender, VoiceCaller } from '../messages/ports';
import { LOG_EVENTS } from '../platform/log-events';
import type { Locale } from '../messages/locales';
import { countAttempt, UserBlockedError } from '../limits/attempts';
import { digestCode, generateCode } from './codes';
import { logHandleOf, userKeyOf, type HmacKeys } from '../keys/hmac-keys';
import type { Channel } from '../platform/vocabulary';
import { mailboxOf, type UserIdentity } from '../identity/identity';
import { guardEmailSend } from '../guards/email-guards';
import { guardPhoneSend } from '../guards/phone-guards';
import { renderEmail } from '../messages/render-email';
import { renderSms } from '../messages/render-sms';
import { renderVoice } from '../messages/render-voice';
import { destinationOf } from '../phone/destinations';
import { rpIdOf } from '../passkeys/rp-id';
import { isTestRecipient, sealTestMessage, type TestMessageKey, type TestOutbox } from './test-outbox';

export interface IssueCodeDeps {
  readonly config: ServiceConfig;
  /**
   * The issuer URL, as the handler resolved it for this request (lib/platform/http/issuer.ts):
   * an SMS names its host in its origin-bound line, unless the stage configures the passkeys' RP ID.
   */
  readonly issuer: string | undefined;
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
  /** Where a test recipient's message is kept instead of delivered (lib/otp/test-outbox.ts). */
  readonly testOutbox: TestOutbox;
  /** Read once per container per secrets max age (cached by lib/deps/secrets.ts). */
  readonly hmacKeys: () => Promise<HmacKeys>;
  readonly log: Log;
}

/**
 * The time the function has left, and the time storing, delivering and (after a failed delivery)
 * putting back the previous code may take.
 */
export interface TimeLeft {
  readonly remainingMs: () => number;
  readonly neededMs: number;
}

/** A send whose attempt was counted: what `issueCode` needs of it. */
export interface CountedSend {
  readonly keys: HmacKeys;
  readonly userKey: string;
  readonly now: number;
  /** An operator blocked the recipient: `issueCode` answers as it would, and sends nothing. */
  readonly blocked: boolean;
}

/**
 * The origination number of an SMS to `to` (E.164): the destination country's entry in
 * `sms.originationNumbers`, else `sms.originationNumber`, else none (the sender id names the
 * sender). Countries that accept no alphanumeric sender id (US, CA) deliver only from a number of
 * their own, which is why a production stage must list one for each (infra/go-live.ts).
 */
export function smsOriginationOf(sms: EnvironmentConfig['sms'], to: string): string | undefined {
  const byCountry: Readonly<Record<string, string | undefined>> = sms.originationNumbers ?? {};
  return byCountry[destinationOf(to).country] ?? sms.originationNumber;
}

/**
 * The host an SMS's origin-bound last line names (lib/messages/origin-bound-code.ts): the passkeys'
 * RP ID, so that the code and the passkeys are bound to the same domain.
 * @throws {Error} without an issuer (a handler that did not resolve it for the request: our bug)
 */
export function smsOriginHostOf(deps: Pick<IssueCodeDeps, 'config' | 'issuer'>): string {
  if (deps.issuer === undefined) throw new Error('the issuer was not resolved for this request');
  return rpIdOf(deps.config.passkeyRpId, deps.issuer);
}

/**
 * Step 1: the recipient's attempt is counted per mailbox, before anything else is looked at; 429
 * when the limit refuses it.
 */
export async function beginIssue(deps: IssueCodeDeps, environment: EnvironmentConfig, user: UserIdentity): Promise<CountedSend> {
  const keys = await deps.hmacKeys();
  const now = deps.clock.now();
  let blocked = false;
  try {
    await countAttempt(deps, 'send', environment, userKeyOf(keys, mailboxOf(user)), now);
  } catch (error) {
    // Never the caller's to see: the request goes on as any other, up to the code itself.
    if (!(error instanceof UserBlockedError)) throw error;
    blocked = true;
  }
  return { keys, userKey: userKeyOf(keys, user), now, blocked };
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
  /** The function's deadline: a code is stored only when what follows fits. Absent: none (a direct call). */
  readonly timeLeft?: TimeLeft | undefined;
}

/** What was issued: the channel it went by, and the seconds it stays valid. */
export interface IssuedCode {
  readonly channel: Channel;
  readonly expiresInSeconds: number;
}

/**
 * Step 2: the guards, the code stored in place of the client's previous one for this user, and
 * its delivery; after a failed delivery (502) the last delivered code comes back.
 */
export async function issueCode(deps: IssueCodeDeps, attempt: CountedSend, send: CodeToSend): Promise<IssuedCode> {
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
  // A blocked recipient: every check above ran as for anyone, the answer is the same, nothing is sent.
  if (attempt.blocked) return { channel, expiresInSeconds: environment.code.ttlSeconds };

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
    const content = { code, locale: send.locale, message: send.message, expiresInSeconds: environment.code.ttlSeconds };
    // A stage's test recipient (config `testRecipients`): the message is kept, sealed, for the smoke
    // command to take through the admin API, in place of the provider's call (lib/otp/test-outbox.ts).
    if (isTestRecipient(environment, user)) await keepTestMessage(deps, keys, environment, userKey, content, now);
    else await deliver(deps, environment, user, channel, content);
  } catch (error) {
    if (error instanceof DeliveryFailedError) {
      await discardQuietly(deps, record, (now) => deps.codes.discard(record, slot, now));
      deps.log.warn(LOG_EVENTS.deliveryFailed, { ...logFields, detail: error.detail });
    }
    throw error;
  }
  deps.log.info(LOG_EVENTS.codeSent, logFields);
  return { channel, expiresInSeconds: environment.code.ttlSeconds };
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

interface MessageContent {
  readonly code: string;
  readonly locale: Locale;
  readonly message: string | undefined;
  readonly expiresInSeconds: number;
}

async function deliver(
  deps: IssueCodeDeps,
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
      const { text } = renderSms({ ...input, originHost: smsOriginHostOf(deps) });
      await deps.sms.sendSms({
        to: user.value,
        text,
        senderId: environment.sms.senderId,
        originationNumber: smsOriginationOf(environment.sms, user.value),
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

/** The email a test recipient would have received, sealed and kept for 10 minutes (one write). */
async function keepTestMessage(
  deps: IssueCodeDeps,
  keys: HmacKeys,
  environment: EnvironmentConfig,
  userKey: string,
  content: MessageContent,
  now: number,
): Promise<void> {
  const key: TestMessageKey = { environmentId: environment.id, userKey };
  const { subject, text } = renderEmail({ ...content, serviceName: environment.serviceName });
  await deps.testOutbox.keep(key, sealTestMessage(keys, key, { channel: 'email', subject, text, sentAt: now }, now));
}

/**
 * Stores the code, or, when the write fails with its outcome unknown (a 503: it may land later),
 * cancels it before answering, so that the code the user already holds stays usable, as after a
 * failed delivery. A failed cancel is logged, not raised over the 503.
 */
async function saveOrCancel(deps: IssueCodeDeps, record: CodeRecord, keep: number): Promise<SlotState> {
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
async function discardQuietly(deps: IssueCodeDeps, record: CodeRecord, discard: (now: number) => Promise<void>): Promise<void> {
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
