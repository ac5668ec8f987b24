/**
 * The audit events' catalogue (docs/operations/audit-events.md): every security decision the
 * service takes, as a versioned event type, and the log lines it is derived from.
 *
 * Why derived from the logs: every decision is already logged as a LOG_EVENT
 * (lib/platform/log-events.ts), on the response path and at no request cost. Publishing from the
 * functions themselves would add an EventBridge call to every request's budget; instead a
 * CloudWatch Logs subscription on each API function's log group hands the matching lines to the
 * audit forwarder (functions/audit-forwarder.ts), which maps them with this catalogue. The local
 * runtime maps the same lines into its dev outbox (local/events.ts).
 *
 * Each event type names, in `fields`, exactly the fields it carries and their schema: that shape
 * is the whitelist (nothing else of a line is ever copied: not the logger's own keys, not the
 * CloudWatch metric metadata `_aws` or a metric's value that the log adapter adds) and the source
 * of the published JSON Schema (docs/events/<type>.v<version>.json, infra/audit-schemas.ts). The
 * fields are ids and log handles (a 12-character prefix of an HMAC key) only, never personal data:
 * a handle's pattern cannot hold an email address or a phone number.
 *
 * Versioning: a new optional field keeps the version; anything else (a field removed, renamed,
 * made required or of another type, a new value of an enumeration) is a new entry with the next
 * version, published side by side with the old one until its consumers have moved.
 */
import '../platform/zod';
import * as z from 'zod/mini';
import { LOG_EVENTS } from '../platform/log-events';
import { CHANNELS, LOGIN_METHODS } from '../platform/vocabulary';

/** A message the functions log (lib/platform/log-events.ts). */
export type LogMessage = (typeof LOG_EVENTS)[keyof typeof LOG_EVENTS];

/** A structured log line as the logger writes it (JSON): `message` and its fields. */
export type LogLine = Readonly<Record<string, unknown>>;

/** Which lines of a message are an event of a type, and what the type adds to them. */
export interface AuditSource {
  readonly message: LogMessage;
  /** The condition on the line's fields (absent: every line of the message). */
  readonly when?: (line: LogLine) => boolean;
  /** Fields the event gets from the source itself, whatever the line holds (a code check's outcome). */
  readonly set?: Readonly<Record<string, string>>;
}

export interface AuditEventType {
  /** EventBridge's `detail-type`: `<subject>.<what happened>`. */
  readonly type: string;
  readonly version: number;
  /** What the event means, for the schema and docs/operations/audit-events.md. */
  readonly description: string;
  /** The event's own fields: the whitelist of what is copied from a line, and their schema. */
  readonly fields: Readonly<Record<string, z.ZodMiniType>>;
  readonly sources: readonly AuditSource[];
}

const HANDLE = /^[A-Za-z0-9_-]{12}$/;
/** A log handle: the first 12 characters of an HMAC key (lib/keys/hmac-keys.ts `logHandleOf`). */
const handle = (what: string) =>
  z.string().check(z.regex(HANDLE), z.describe(`${what}: a log handle (12 characters of an HMAC key), never the value`));
/** A configuration id (lib/platform/config.ts): an environment's or a client's. */
const configId = (what: string) => z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/), z.describe(what));
const count = (what: string) => z.int().check(z.gte(0), z.describe(what));
/** The IAM principal API Gateway authenticated on an admin route (`anonymous` on the local runtime, which has no IAM). */
const operatorCaller = z
  .string()
  .check(
    z.regex(/^(anonymous|arn:[a-z-]+:(iam|sts)::\d{12}:[A-Za-z0-9+=,.@_/-]{1,512})$/),
    z.describe('The IAM principal API Gateway authenticated (`anonymous` on the local runtime)'),
  );
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, what: string) => z.enum(values).check(z.describe(what));

const environment = configId('The environment (`env_id`) the decision was taken in');
const client = configId('The client id');
const user = handle('The user');
const channel = oneOf(['email', 'sms', 'voice'], 'How the code went, or was to go');
/** Whether a line's `method` (a login's, lib/platform/vocabulary.ts `LoginMethod`) is a passkey's. */
const byPasskey = (line: LogLine) => line.method === 'passkey' || line.method === 'synced_passkey';
/** Whether a line's `channel` is a code's (v1 of login.completed can say no other). */
const byCode = (line: LogLine) => (CHANNELS as readonly unknown[]).includes(line.channel);
const passkey = handle('The passkey: 12 characters of the SHA-256 of its credential id, never the id');
/**
 * The authentication methods of a login (RFC 8176 §2, lib/oauth/access-tokens.ts `amrOf`): `otp`
 * with `sms` or `tel` for a code, `hwk` or `swk` with `user` and `mfa` for a passkey.
 */
const amr = z
  .array(z.enum(['otp', 'sms', 'tel', 'hwk', 'swk', 'user', 'mfa']))
  .check(z.minLength(1), z.describe('The login’s authentication methods, as its tokens’ `amr` (RFC 8176 §2)'));
const operation = oneOf(
  ['send', 'token'],
  'Which counter: sends (otp/send, the hosted page’s sends) or code checks (token endpoint, hosted page)',
);

/** The fields of every version of operator.action, with its versions' `action`. */
const operatorActionFields = <const T extends readonly [string, ...string[]]>(actions: T) => ({
  environment,
  user,
  action: oneOf(actions, 'What the operator did'),
  caller: operatorCaller,
  completed: z.boolean().check(z.describe('Whether the action finished')),
  blocked: z.optional(z.boolean().check(z.describe('Whether the user is blocked now (block; a failed action: whether its block was set)'))),
  was_blocked: z.optional(z.boolean().check(z.describe('Unblock: whether the user was blocked'))),
  sessions_ended: z.optional(count('Sessions ended')),
  refresh_families_revoked: z.optional(count('Refresh token families revoked')),
  error: z.optional(z.string().check(z.regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/), z.describe('A failed action: the error’s name'))),
});

/** The reasons a code check fails (lib/otp/verify.ts `RejectionReason`). */
const REJECTIONS = [
  'malformed',
  'not_found',
  'expired',
  'exhausted',
  'repeated',
  'wrong_code',
  'wrong_code_last_try',
  'wrong_verifier',
  'inconsistent',
  'user_blocked',
] as const;

/** Every event type, in the order of a login. */
export const AUDIT_EVENT_TYPES = [
  {
    type: 'code.sent',
    version: 1,
    description: 'A one-time code was handed to the email, SMS or voice provider.',
    fields: { environment, client, channel, user },
    sources: [{ message: LOG_EVENTS.codeSent }],
  },
  {
    type: 'code.checked',
    version: 1,
    description:
      'A one-time code was checked, at the token endpoint or on the hosted login page: right (it was redeemed) or wrong (refused, with the reason the client is never told).',
    fields: {
      environment,
      client,
      user,
      outcome: oneOf(['right', 'wrong'], 'Whether the code was accepted'),
      reason: z.optional(oneOf(REJECTIONS, 'Why a wrong check was refused (lib/otp/verify.ts)')),
    },
    sources: [
      // The code check's refusal is the only `grant refused` without a grant: the other grants name theirs.
      { message: LOG_EVENTS.grantRefused, when: (line) => line.grant === undefined, set: { outcome: 'wrong' } },
      { message: LOG_EVENTS.tokenIssued, when: (line) => line.grant === 'one_time_code', set: { outcome: 'right' } },
      // A passkey sign-in on the page grants an authorization code too, but checked no code.
      { message: LOG_EVENTS.authorizationGranted, when: (line) => !byPasskey(line), set: { outcome: 'right' } },
    ],
  },
  {
    type: 'block.started',
    version: 1,
    description:
      'An attempt over a limit was refused and started a block of the user: the attempt limit (`limit`) or the failure cap (`failure_cap`). The block’s further refusals are not events.',
    fields: { environment, user, operation, reason: oneOf(['limit', 'failure_cap'], 'Which rule started the block') },
    sources: [{ message: LOG_EVENTS.attemptRefused, when: (line) => line.blockStarted === true }],
  },
  {
    type: 'failure_cap.reached',
    version: 1,
    description: 'A user’s run of consecutive failed code checks reached the cap: their checks are refused until the run’s window passes.',
    fields: { environment, user, failures: count('The failures in the run') },
    sources: [{ message: LOG_EVENTS.failureCapReached }],
  },
  {
    type: 'blocked_user.attempted',
    version: 1,
    description:
      'A send or a code check of a user an operator blocked: counted, answered as for a user with no code, nothing sent or issued.',
    fields: { environment, user, operation },
    sources: [{ message: LOG_EVENTS.blockedUserAttempt }],
  },
  {
    type: 'fraud_guard.refused',
    version: 1,
    description:
      'A send was refused by a fraud guard of its environment (docs/decisions/008-sms-fraud-guards.md, 010-hosted-login-abuse.md): the destination (403), the source network or the destination prefix (429), or the daily budget (503).',
    fields: {
      environment,
      channel,
      guard: oneOf(['destination', 'ip', 'prefix', 'budget'], 'The guard that refused'),
      country: z.optional(z.string().check(z.regex(/^([A-Z]{2}|001)$/), z.describe('ISO 3166-1 alpha-2 of the destination, 001 for none'))),
      reason: z.optional(oneOf(['country', 'number_type'], 'Destination guard: why')),
      numberType: z.optional(z.string().check(z.regex(/^[A-Z_]{1,32}$/), z.describe('Destination guard: the kind of number refused'))),
      source: z.optional(handle('Source guard: the network')),
      prefix: z.optional(handle('Prefix guard: the destination block')),
      range: z.optional(
        z.string().check(z.regex(/^\+\d{1,3} \d{0,3}$/), z.describe('Prefix guard: the calling code and 3 national digits')),
      ),
    },
    sources: [{ message: LOG_EVENTS.phoneSendRefused }, { message: LOG_EVENTS.emailSendRefused, set: { channel: 'email' } }],
  },
  {
    type: 'login.completed',
    version: 1,
    description:
      'Tokens were issued for a login by a code: a one-time code exchanged at the token endpoint, or an authorization code of the hosted login page (a code checked there, or a single sign-on session a code started). Its `channel` cannot say a passkey: a passkey login is in version 2 only.',
    fields: {
      environment,
      client,
      user,
      grant: oneOf(['one_time_code', 'authorization_code'], 'What was exchanged'),
      channel,
      family: z.optional(handle('The refresh token family the login started')),
    },
    sources: [
      {
        message: LOG_EVENTS.tokenIssued,
        when: (line) => (line.grant === 'one_time_code' || line.grant === 'authorization_code') && byCode(line),
      },
    ],
  },
  {
    type: 'login.completed',
    version: 2,
    description:
      'Tokens were issued for a login: a one-time code exchanged at the token endpoint, or an authorization code of the hosted login page (a code checked there, a passkey, or a single sign-on session). Version 2 says how the user logged in (`method`, a code’s channel or a passkey) and the tokens’ `amr`; published beside version 1, which says code logins only.',
    fields: {
      environment,
      client,
      user,
      grant: oneOf(['one_time_code', 'authorization_code'], 'What was exchanged'),
      method: oneOf(LOGIN_METHODS, 'How the user logged in: a code by email, sms or voice, or a device-bound or synced passkey'),
      amr,
      family: z.optional(handle('The refresh token family the login started')),
    },
    sources: [
      {
        message: LOG_EVENTS.tokenIssued,
        when: (line) => line.grant === 'one_time_code' || line.grant === 'authorization_code',
      },
    ],
  },
  {
    type: 'token.refreshed',
    version: 1,
    description: 'A refresh token was exchanged for new tokens (its family rotated).',
    fields: { environment, client, user, family: handle('The refresh token family') },
    sources: [{ message: LOG_EVENTS.tokenIssued, when: (line) => line.grant === 'refresh_token' }],
  },
  {
    type: 'refresh_token.reused',
    version: 1,
    description: 'A spent refresh token was presented again: its whole family is revoked (RFC 9700 §4.14.2).',
    fields: { environment, client, user, family: handle('The revoked family'), generation: count('The generation the family had reached') },
    sources: [{ message: LOG_EVENTS.refreshTokenReused }],
  },
  {
    type: 'token.revoked',
    version: 1,
    description:
      'A client revoked one of its tokens (RFC 7009): a refresh token (its family) or an access token. A request that revoked nothing (an unknown token, another client’s) is no event.',
    fields: {
      client,
      kind: oneOf(['refresh_token', 'access_token'], 'What was revoked'),
      format: z.optional(oneOf(['jwt', 'opaque'], 'An access token’s format')),
      family: z.optional(handle('A refresh token’s family')),
    },
    sources: [{ message: LOG_EVENTS.tokenRevoked, when: (line) => line.revoked === true }],
  },
  {
    type: 'logout',
    version: 1,
    description:
      'A single sign-on session ended: the user logged out (end-session endpoint, `logout`), or an operator ended the user’s sessions (`operator`).',
    fields: {
      environment,
      user,
      session: handle('The session'),
      reason: oneOf(['logout', 'operator'], 'Who ended it'),
      clients: count('The clients the session served'),
      families: count('Refresh token families revoked with it'),
      notices: count('Back-channel logout notices queued'),
    },
    sources: [{ message: LOG_EVENTS.sessionEnded }],
  },
  {
    type: 'passkey.registered',
    version: 1,
    description:
      'A user created a passkey on the hosted login page (after a code login): a device-bound one (`passkey`) or one its provider syncs between devices (`synced_passkey`).',
    fields: {
      environment,
      client,
      user,
      passkey,
      method: oneOf(['passkey', 'synced_passkey'], 'Whether the passkey is device-bound or synced (its backup eligibility)'),
    },
    sources: [{ message: LOG_EVENTS.passkeyRegistered }],
  },
  {
    type: 'passkey.removed',
    version: 1,
    description:
      'Passkeys were removed: one by its user on the hosted login page (`user`), or every passkey of the user in the environment by an operator (`operator`, the admin API’s remove-passkeys: operator.action has the caller).',
    fields: {
      environment,
      client: z.optional(client),
      user,
      by: oneOf(['user', 'operator'], 'Who removed them'),
      count: count('How many passkeys were removed'),
      passkey: z.optional(passkey),
    },
    sources: [{ message: LOG_EVENTS.passkeyRemoved }],
  },
  {
    type: 'operator.action',
    version: 1,
    description:
      'An operator’s call on the admin API (docs/operations/operator-controls.md): block, unblock or end-sessions, completed or failed halfway (then with what had taken effect). The actions added since (remove-passkeys) are in version 2 only.',
    fields: operatorActionFields(['block', 'unblock', 'end-sessions']),
    sources: [{ message: LOG_EVENTS.operatorAction, when: (line) => line.action !== 'remove-passkeys' }],
  },
  {
    type: 'operator.action',
    version: 2,
    description:
      'An operator’s call on the admin API (docs/operations/operator-controls.md): block, unblock, end-sessions or remove-passkeys, completed or failed halfway (then with what had taken effect). Published beside version 1, which cannot name remove-passkeys.',
    fields: {
      ...operatorActionFields(['block', 'unblock', 'end-sessions', 'remove-passkeys']),
      passkeys_removed: z.optional(count('Remove-passkeys: how many passkeys were removed')),
    },
    sources: [{ message: LOG_EVENTS.operatorAction }],
  },
  {
    type: 'test_message.taken',
    version: 1,
    description:
      'An operator (the smoke command, docs/deploy.md) took the message kept for a test recipient instead of delivering it: whoever holds it can sign in as that test user.',
    fields: {
      environment,
      user,
      caller: operatorCaller,
      found: z.boolean().check(z.describe('Whether a message was kept to take')),
    },
    sources: [{ message: LOG_EVENTS.testMessageTaken }],
  },
] as const satisfies readonly AuditEventType[];

/** `detail-type` of every event. */
export type AuditEventTypeName = (typeof AUDIT_EVENT_TYPES)[number]['type'];

/** The fields every event's detail has, before its own. */
export const ENVELOPE = {
  version: (version: number) => z.literal(version).check(z.describe('The version of this event type’s schema')),
  id: z
    .string()
    .check(
      z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      z.describe('The event’s id: the same for every delivery of one log line, so a consumer can drop repeats'),
    ),
  time: z.iso.datetime().check(z.describe('When the decision was taken (the log line’s time), UTC')),
  request: z.optional(z.string().check(z.regex(/^[A-Za-z0-9-]{1,64}$/), z.describe('The API Gateway request id, as in the access logs'))),
};

/** The schema of an event type's `detail`: the envelope and its own fields. */
export function detailSchemaOf(eventType: AuditEventType) {
  return z.object({
    version: ENVELOPE.version(eventType.version),
    id: ENVELOPE.id,
    time: ENVELOPE.time,
    request: ENVELOPE.request,
    ...eventType.fields,
  });
}

/** Every message an event is derived from, once: what the subscription filters match. */
export function auditMessages(): LogMessage[] {
  return [...new Set(AUDIT_EVENT_TYPES.flatMap((eventType) => eventType.sources.map((source) => source.message)))];
}
