/**
 * The test outbox: how `npm run smoke` (infra/smoke.ts) reads a one-time code on a deployed stage
 * without a backdoor. An environment names a few `testRecipients` (email addresses, config); a
 * code sent to one of them is issued exactly as any other (attempt counted, guards passed, code
 * stored as its HMAC), but the message, instead of going to SES, is sealed into the table: one
 * item per environment and recipient, the newest message only, for TEST_MESSAGE_TTL_SECONDS.
 * An operator takes it through the IAM-only admin route `POST /idp/v1/admin/test-messages/take`
 * (lib/admin/test-messages.ts; AWS_IAM on API Gateway, like the operator controls; the local
 * runtime serves it unsigned), which removes it as it reads it: a kept message is read once.
 *
 * Why sealed: the clear code must come back to the operator, so it cannot be stored as a hash;
 * sealed (AES-256-GCM under the `testMessage` key derived from the HMAC master secret,
 * lib/keys/hmac-keys.ts; node:crypto, so otp-send's bundle carries no JWE code) it is readable
 * only by a function holding that secret, not by anyone who can read the table or its backups.
 * The seal authenticates its environment, recipient key and deadline, so an item copied under
 * another key, or given a later deadline, does not open; it expires with the item.
 *
 * The request budget of every other send is unchanged: whether a recipient is a test recipient
 * is a look at the configuration. A test recipient's send costs one write to keep the message in
 * place of the provider's call (test/http/test-recipients.test.ts counts it).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import '../platform/zod';
import * as z from 'zod/mini';
import type { EnvironmentConfig } from '../platform/config';
import type { HmacKeys } from '../keys/hmac-keys';
import type { UserIdentity } from '../identity/identity';
import { normaliseEmail } from '../platform/email-address';

/** Seconds a kept message can be taken: twice the default code lifetime, long enough for a smoke run. */
export const TEST_MESSAGE_TTL_SECONDS = 600;

/** Which recipient's message: one environment, one user (the HMAC user key, never the address). */
export interface TestMessageKey {
  readonly environmentId: string;
  readonly userKey: string;
}

/** A message as it would have been delivered. */
export interface TestMessage {
  readonly channel: 'email';
  readonly subject: string;
  readonly text: string;
  /** When it was issued (ms). */
  readonly sentAt: number;
}

/** A kept message as the table holds it. */
export interface KeptTestMessage {
  readonly sealed: string;
  /** The message can be taken while now < notAfter (ms). */
  readonly notAfter: number;
}

/** Where kept messages live (lib/adapters/dynamodb/test-outbox.ts). */
export interface TestOutbox {
  /** Keeps `message` as the recipient's one message, replacing any earlier one (one write). */
  keep(key: TestMessageKey, message: KeptTestMessage): Promise<void>;
  /** Removes the recipient's message and returns it, or undefined when there is none (one write). */
  take(key: TestMessageKey): Promise<KeptTestMessage | undefined>;
}

/** Whether `user` is one of the environment's test recipients: an email address, compared normalised and exactly. */
export function isTestRecipient(environment: Pick<EnvironmentConfig, 'testRecipients'>, user: UserIdentity): boolean {
  if (user.authType !== 'email') return false;
  return environment.testRecipients.some((address) => normaliseEmail(address) === user.value);
}

const messageSchema = z.strictObject({
  channel: z.literal('email'),
  subject: z.string(),
  text: z.string(),
  sentAt: z.number(),
});

/** The format's version, first in the sealed text and in the authenticated data. */
const SEAL_VERSION = 'v1';

/**
 * What the seal authenticates besides the message: its recipient and its deadline, so neither an
 * item copied under another key nor a deadline moved in the table opens.
 */
function boundTo(key: TestMessageKey, notAfter: number): Buffer {
  return Buffer.from(JSON.stringify([`test-message/${SEAL_VERSION}`, key.environmentId, key.userKey, notAfter]));
}

/** The sealed form of `message` for `key`, openable until TEST_MESSAGE_TTL_SECONDS after `now` (ms): AES-256-GCM, a random 96-bit IV. */
export function sealTestMessage(keys: HmacKeys, key: TestMessageKey, message: TestMessage, now: number): KeptTestMessage {
  const notAfter = now + TEST_MESSAGE_TTL_SECONDS * 1000;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.testMessage, iv);
  cipher.setAAD(boundTo(key, notAfter));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(message), 'utf8'), cipher.final()]);
  const sealed = [SEAL_VERSION, iv, ciphertext, cipher.getAuthTag()].map((part) =>
    typeof part === 'string' ? part : part.toString('base64url'),
  );
  return { sealed: sealed.join('.'), notAfter };
}

/** The message sealed in `kept` for `key`, or undefined when it expired, was altered, or belongs to another recipient. */
export function openTestMessage(keys: HmacKeys, key: TestMessageKey, kept: KeptTestMessage, now: number): TestMessage | undefined {
  if (now >= kept.notAfter) return undefined;
  const [version, iv, ciphertext, tag, ...rest] = kept.sealed.split('.');
  if (version !== SEAL_VERSION || iv === undefined || ciphertext === undefined || tag === undefined || rest.length > 0) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keys.testMessage, Buffer.from(iv, 'base64url'));
    decipher.setAAD(boundTo(key, kept.notAfter));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const text = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    const parsed = messageSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // A wrong tag (altered, another key or recipient) or a short IV: nothing opens.
    return undefined;
  }
}
