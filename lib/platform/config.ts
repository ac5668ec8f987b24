/**
 * Environments and clients are code: one JSON file per stage (`config/<stage>.json`), validated by
 * this schema, frozen, and read once per Lambda container (never from the table, never per
 * request). The CDK app validates the same file with the same schema at synthesis, so a bad file
 * fails `cdk synth` rather than a cold start.
 *
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import './zod';
import * as z from 'zod/mini';
import { PHONE_COUNTRIES, type PhoneCountry } from '../phone/countries';
import { isEmailAddress } from './email-address';
import type { ServiceEnvironment } from './env';
import {
  CHANNELS,
  CLIENT_ASSERTION_ALGORITHMS,
  GRANT_TYPES,
  RESPONSE_TYPES,
  SIGNING_ALGORITHMS,
  SUBJECT_TYPES,
  SUPPORTED_LOCALES,
  TOKEN_ENDPOINT_AUTH_METHODS,
  isPasskeyMethod,
  type Channel,
  type GrantType,
  type LoginMethod,
  type TokenEndpointAuthMethod,
} from './vocabulary';

/** Ids appear in DynamoDB keys and logs: keep them to a safe, delimiter-free alphabet. */
// Spelled without the `i` flag: JSON Schema patterns (config/stage.schema.json) have no flags.
const id = () => z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'ids are 1-64 of [A-Za-z0-9._-]'));
const int = (min: number, max: number) => z.int().check(z.gte(min), z.lte(max));
const sha256Hex = z.string().check(z.regex(/^[0-9a-f]{64}$/, 'API keys are stored as lower-case hex SHA-256 digests'));
/** An email address as the service accepts one (lib/platform/email-address.ts): the one validator. */
export const emailAddress = () => z.string().check(z.refine(isEmailAddress, 'an email address (lower-case domain, no quoted local part)'));
/** Shared with the deployment schema (infra/stage-config.ts). */
export { int };

const limitSchema = (defaults: Readonly<{ maxAttempts: number; windowSeconds: number; blockSeconds: number }>) =>
  z._default(
    z.strictObject({
      /** Attempts processed per user in any sliding window (default 5). */
      maxAttempts: z._default(int(1, 50), defaults.maxAttempts),
      /** Length of the sliding window, in seconds (default 60). */
      windowSeconds: z._default(int(1, 86_400), defaults.windowSeconds),
      /** How long the attempt that exceeds the limit blocks the user, in seconds (default 300). */
      blockSeconds: z._default(int(1, 86_400), defaults.blockSeconds),
    }),
    // A factory: a shared default object would be shared (and frozen) across parses.
    () => ({ ...defaults }),
  );

const ATTEMPT_LIMIT_DEFAULTS = Object.freeze({ maxAttempts: 5, windowSeconds: 60, blockSeconds: 300 });

/** Refresh token lifetimes (`refreshTokens`): Auth0's and Okta's defaults for idle and absolute lifetime. */
/** An environment's SSO session lifetimes (`sessions`): Auth0's defaults, 3 days idle and 7 days in all. */
const SESSION_DEFAULTS = Object.freeze({ idleSeconds: 3 * 86_400, absoluteSeconds: 7 * 86_400 });

/** Hosts a back-channel logout URI may use plain http on: this machine's (a local relying party). */
const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

const REFRESH_DEFAULTS = Object.freeze({ idleSeconds: 30 * 86_400, absoluteSeconds: 90 * 86_400, reuseIntervalSeconds: 0 });

/**
 * The most rotations a family's limit can count: the family item keeps the times of this many
 * (lib/adapters/dynamodb/refresh-token-store.ts), whatever the configured limit, so changing the
 * limit never misreads an item written under another.
 */
export const MAX_REFRESH_WINDOW = 20;

/**
 * A refresh family's own limit (docs/decisions/009-refresh-token-families.md): an app refreshes
 * once per access token lifetime, a few times at once with several tabs; 10 a minute is far above
 * that and far below a client stuck in a loop.
 */
const REFRESH_LIMIT_DEFAULTS = Object.freeze({ maxRefreshes: 10, windowSeconds: 60 });

/**
 * NIST SP 800-63B §5.2.2: at most 100 consecutive failed attempts on one account. The per-minute
 * limit alone lets a patient attacker make 7,200 guesses a day; this cap bounds them per rolling run.
 */
const FAILURE_CAP_DEFAULTS = Object.freeze({ maxConsecutive: 100, windowSeconds: 86_400 });

const failureCapSchema = z._default(
  z.strictObject({
    /** Consecutive failed code exchanges (invalid_grant) for one user after which the token endpoint refuses that user. */
    maxConsecutive: z._default(int(1, 10_000), FAILURE_CAP_DEFAULTS.maxConsecutive),
    /**
     * How long a run of failures counts: a failure more than this after the run's first one starts
     * a new run, and a capped user is refused until this long after the run's first failure.
     */
    windowSeconds: z._default(int(60, 30 * 86_400), FAILURE_CAP_DEFAULTS.windowSeconds),
  }),
  () => ({ ...FAILURE_CAP_DEFAULTS }),
);

/**
 * The most sends a guard's window can count. Each window remembers one time per send it counts
 * (lib/adapters/dynamodb/send-guards.ts): 100 keeps the update expression within DynamoDB's 4 KB
 * limit on expressions and the item near 1 KB (one write unit). docs/decisions/008-sms-fraud-guards.md.
 */
export const MAX_WINDOW_SENDS = 100;

const windowSchema = <T extends { maxSends: number; windowSeconds: number }>(defaults: Readonly<T>) => ({
  /** Sends counted in any sliding window. */
  maxSends: z._default(int(1, MAX_WINDOW_SENDS), defaults.maxSends),
  /** Length of the sliding window, in seconds. */
  windowSeconds: z._default(int(1, 86_400), defaults.windowSeconds),
});

/** The per-source-IP guard's defaults: 10 SMS or voice sends per hour from one IP (or IPv6 /64). */
const SEND_PER_IP = Object.freeze({ maxSends: 10, windowSeconds: 3600 });
/**
 * The per-source-IP guard of email sends: 30 an hour from one IP (or IPv6 /64). Email costs nothing
 * per message, but a flood of it is email bombing and the bounces and complaints that get the SES
 * account paused (then every email login is down): docs/decisions/010-hosted-login-abuse.md.
 */
const EMAIL_PER_IP = Object.freeze({ maxSends: 30, windowSeconds: 3600 });
/** Codes one hosted login transaction may send (docs/decisions/010-hosted-login-abuse.md). */
const SENDS_PER_TRANSACTION = 5;
/**
 * The per-destination-prefix guard's defaults: 20 sends an hour to one block of numbers, a block
 * being the country calling code and the first 6 digits of the national number (a NANP exchange,
 * NPA-NXX, of 10,000 numbers). Why these numbers: docs/decisions/008-sms-fraud-guards.md.
 */
const SEND_PER_PREFIX = Object.freeze({ digits: 6, maxSends: 20, windowSeconds: 3600 });
/** The daily budget's default: 1,000 SMS and voice messages per environment per UTC day. */
const DAILY_PHONE_BUDGET = Object.freeze({ maxMessages: 1000 });

/** The most sends a known number's own allowance can count (its item keeps this many times). */
export const MAX_KNOWN_NUMBER_SENDS = 10;
/**
 * Known numbers (docs/decisions/012-known-numbers.md): a number that completed a login in the
 * environment within 30 days gets up to 5 SMS and voice sends in any 24 hours past the prefix and
 * budget guards: a person signs in a few times a day at most.
 */
const KNOWN_NUMBERS = Object.freeze({ rememberDays: 30, maxSendsPerDay: 5 });

/**
 * An environment's passkey settings: "Not now" on the hosted page's passkey offer holds for 30
 * days in that browser, long enough not to nag, short enough that a user who once declined is
 * asked again (docs/decisions/016-passkeys.md).
 */
const PASSKEY_DEFAULTS = Object.freeze({ askAgainDays: 30 });

/**
 * The kinds of number an environment may refuse for SMS and voice codes even in a country it
 * allows, by libphonenumber's `PhoneNumberType`: `PERSONAL_NUMBER` (personal numbering, "follow
 * me" numbers that forward wherever their holder says: UK +44 70, ES +34 70x, DE +49 700) and
 * `VOIP` (numbers of internet telephony services: UK +44 56, FR +33 9). Premium rate and the other
 * kinds that are never a person's phone are refused everywhere, so they are not settings.
 */
export const REFUSABLE_NUMBER_TYPES = ['PERSONAL_NUMBER', 'VOIP'] as const;
export type RefusableNumberType = (typeof REFUSABLE_NUMBER_TYPES)[number];

/**
 * `sms.refusedNumberTypes`' default: both. Revenue-share fraud (SMS pumping, toll fraud) asks for
 * codes to numbers whose range holder is paid for each message or call that ends there and shares
 * it with the attacker; personal and VoIP ranges are among its classics (blocks that are easy to
 * obtain, reach no particular handset, and, for personal numbers, carry high termination rates).
 * Few people sign in with one; an environment whose users do empties the list, or keeps one type
 * (docs/decisions/008-sms-fraud-guards.md, "1. Allowed destinations").
 */
const REFUSED_NUMBER_TYPES: readonly RefusableNumberType[] = REFUSABLE_NUMBER_TYPES;

/** An ISO 3166-1 alpha-2 code, as libphonenumber names the regions of phone numbers. */
const phoneCountry = () => z.enum(PHONE_COUNTRIES, { error: 'an ISO 3166-1 alpha-2 country code (GB, not UK)' });

const environmentSchema = z.strictObject({
  /** Selected by `?env_id=`; part of every code's binding and every attempt counter's key. */
  id: id(),
  /** Product name used in the default message texts and the email subject. */
  serviceName: z.string().check(z.minLength(1), z.maxLength(40)),
  /** Locale of the default texts when a request names none, or one we do not have. */
  defaultLocale: z._default(z.enum(SUPPORTED_LOCALES), 'en-US'),
  email: z.strictObject({
    /** SES-verified sender address (the `From`). */
    sender: emailAddress(),
    /** Display name in the `From` header. */
    senderName: z.optional(z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[^"\r\n<>]+$/))),
    /** Optional SES configuration set (event publishing, suppression). */
    configurationSet: z.optional(z.string().check(z.minLength(1))),
  }),
  /**
   * Email addresses whose codes are kept instead of delivered, for `npm run smoke` against a
   * deployed stage (lib/otp/test-outbox.ts): a send to one is checked, limited and stored as any
   * other, but the message is sealed into the table for 10 minutes, readable once through the
   * IAM-only admin route `POST /idp/v1/admin/test-messages/take`. Compared to the normalised address
   * (lower-cased), exactly: `smoke+1@` is another user. A few at most: each is a user that anyone
   * with the account's admin access can log in as.
   */
  testRecipients: z._default(z.array(emailAddress()).check(z.maxLength(5)), []),
  sms: z._default(
    z.strictObject({
      /** Alphanumeric sender id where the destination country supports one (3GPP: 1-11 characters). */
      senderId: z.optional(z.string().check(z.regex(/^(?=.*[A-Za-z])[A-Za-z0-9]{1,11}$/))),
      /** Origination number (E.164) for a destination country without an entry in `originationNumbers`. */
      originationNumber: z.optional(z.e164()),
      /**
       * Origination numbers (E.164, registered in AWS End User Messaging SMS) by destination country
       * (ISO 3166-1 alpha-2). A country that accepts no alphanumeric sender id (the United States,
       * Canada, China) delivers only from a number of its own kind (a US toll-free, 10DLC or short
       * code; a Canadian long or short code), so a stage that allows one must name it: synthesis
       * refuses a production stage that does not (infra/go-live.ts). A message to that country is
       * sent from its number, any other by `originationNumber`, else by `senderId`.
       */
      originationNumbers: z.optional(z.partialRecord(phoneCountry(), z.e164())),
      /**
       * The countries (ISO 3166-1 alpha-2, as libphonenumber assigns a number to one) whose numbers
       * may get SMS and voice codes; any other number is answered 403 `destination_not_allowed`.
       * Empty (the default): no SMS or voice codes in this environment. Premium-rate, shared-cost,
       * UAN, voicemail and pager numbers, and the international networks +881/+882/+883, are
       * refused whatever this lists (docs/decisions/008-sms-fraud-guards.md).
       */
      allowedCountries: z._default(z.array(phoneCountry()), (): PhoneCountry[] => []),
      /**
       * Kinds of number refused in this environment whatever its countries (403
       * `destination_not_allowed`): personal numbers and VoIP by default, two ranges revenue-share
       * fraud uses (`REFUSED_NUMBER_TYPES`). Empty it, or list one, where your users have them.
       */
      refusedNumberTypes: z._default(z.array(z.enum(REFUSABLE_NUMBER_TYPES)), (): RefusableNumberType[] => [...REFUSED_NUMBER_TYPES]),
    }),
    () => ({ allowedCountries: [], refusedNumberTypes: [...REFUSED_NUMBER_TYPES] }),
  ),
  /** Voice calls (`method: "voice_with_otp"`); absent means voice is not offered in this environment. */
  voice: z.optional(
    z.strictObject({
      /** A voice-capable phone number, pool or ARN registered in AWS End User Messaging. */
      originationIdentity: z.string().check(z.minLength(1)),
      /** Optional configuration set for event destinations. */
      configurationSet: z.optional(z.string().check(z.minLength(1))),
    }),
  ),
  code: z._default(
    z.strictObject({
      /** Lifetime of a one-time code, in seconds (default 300). Checked by the application, never left to TTL. */
      ttlSeconds: z._default(int(30, 3600), 300),
      /** Wrong tries after which a code dies, whatever its remaining lifetime (Auth0 uses 3). */
      maxTries: z._default(int(1, 10), 3),
    }),
    () => ({ ttlSeconds: 300, maxTries: 3 }),
  ),
  /**
   * The single sign-on session a hosted login starts (docs/decisions/014-sso-sessions.md): while it
   * lives, another authorization request of this environment in the same browser is answered
   * without a code. It ends after `idleSeconds` without a login it served (default 3 days), or
   * `absoluteSeconds` after the code that started it (default 7 days), whichever comes first:
   * Auth0's defaults. Every new code it saves costs a message; a session outlives the tab, not
   * the week.
   */
  sessions: z._default(
    z.strictObject({
      idleSeconds: z._default(int(60, 30 * 86_400), SESSION_DEFAULTS.idleSeconds),
      absoluteSeconds: z._default(int(60, 90 * 86_400), SESSION_DEFAULTS.absoluteSeconds),
    }),
    () => ({ ...SESSION_DEFAULTS }),
  ),
  /** Passkeys on the hosted login page (docs/decisions/016-passkeys.md); which clients offer them is the client's `passkeys`. */
  passkeys: z._default(
    z.strictObject({
      /**
       * How long "Not now" on the page's passkey offer holds in that browser, in days (default
       * 30): a cookie of this environment that lasts this long stops the offer after a code login.
       */
      askAgainDays: z._default(int(1, 365), PASSKEY_DEFAULTS.askAgainDays),
    }),
    () => ({ ...PASSKEY_DEFAULTS }),
  ),
  limits: z._default(
    z.strictObject({
      /** The token endpoint, per normalised user_id across all clients. */
      token: limitSchema(ATTEMPT_LIMIT_DEFAULTS),
      /** `otp/send`, per recipient mailbox (see `mailboxOf` in lib/identity/identity.ts). */
      send: limitSchema(ATTEMPT_LIMIT_DEFAULTS),
      /** The token endpoint's cap on consecutive failed exchanges per user (NIST SP 800-63B §5.2.2). */
      failures: failureCapSchema,
      /**
       * SMS and voice sends per source IP (an IPv6 address counts by its /64), in a sliding window
       * (default 10 per hour). Refused with 429 and Retry-After, as the attempt limit is. Email is
       * not counted. The IP is API Gateway's `requestContext.identity.sourceIp`, never a header.
       */
      sendPerIp: z._default(z.strictObject(windowSchema(SEND_PER_IP)), () => ({ ...SEND_PER_IP })),
      /**
       * Email sends per source IP (an IPv6 address counts by its /64), in a sliding window (default
       * 30 per hour), on otp/send and the hosted login page alike; refused with 429 and Retry-After.
       * A client that authenticates its sends with an API key is not counted (its servers send for
       * all its users), as for SMS. The IP is API Gateway's `requestContext.identity.sourceIp`.
       */
      emailPerIp: z._default(z.strictObject(windowSchema(EMAIL_PER_IP)), () => ({ ...EMAIL_PER_IP })),
      /**
       * Codes one hosted login transaction may send, whatever the channel and recipient (default
       * 5: the first, a resend or two, a corrected address); the next one ends the transaction (the
       * user starts again from the app). The per-source guards bound what many transactions send.
       */
      sendsPerTransaction: z._default(int(1, 50), SENDS_PER_TRANSACTION),
      /**
       * SMS and voice sends to one block of numbers, in a sliding window (default 20 per hour): the
       * same country calling code and the same first `digits` digits of the national number. SMS
       * pumping rotates through a range of numbers, so the per-recipient limit never trips; this does.
       */
      sendPerPrefix: z._default(
        z.strictObject({
          /** Leading digits of the national number that make a block (default 6: 10,000 numbers of a 10-digit plan). */
          digits: z._default(int(1, 12), SEND_PER_PREFIX.digits),
          ...windowSchema(SEND_PER_PREFIX),
        }),
        () => ({ ...SEND_PER_PREFIX }),
      ),
      /**
       * The most SMS and voice messages (together) this environment sends per UTC day (default
       * 1,000). When they are spent, SMS and voice sends answer 503 with Retry-After until the next
       * UTC day; email keeps working. An alarm fires at 80%. Choosing it: docs/deploy.md.
       */
      dailyPhoneBudget: z._default(
        z.strictObject({
          /** Messages per UTC day; never exceeded (docs/decisions/008-sms-fraud-guards.md). */
          maxMessages: z._default(int(1, 100_000_000), DAILY_PHONE_BUDGET.maxMessages),
        }),
        () => ({ ...DAILY_PHONE_BUDGET }),
      ),
      /**
       * Known numbers: a number that completed a login (a code checked right, by the token
       * endpoint or the hosted page) in this environment within `rememberDays` days is exempt
       * from the prefix guard and the daily budget for up to `maxSendsPerDay` SMS and voice sends
       * in any 24 hours; the destination and per-source guards still apply. So an attacker who
       * spends the budget stops SMS only for numbers never seen before, while the budget stays the
       * ceiling of what those cost. `rememberDays: 0` turns it off. The record is keyed by the
       * number's HMAC, as every counter (docs/decisions/012-known-numbers.md).
       */
      knownNumbers: z._default(
        z.strictObject({
          rememberDays: z._default(int(0, 365), KNOWN_NUMBERS.rememberDays),
          maxSendsPerDay: z._default(int(1, MAX_KNOWN_NUMBER_SENDS), KNOWN_NUMBERS.maxSendsPerDay),
        }),
        () => ({ ...KNOWN_NUMBERS }),
      ),
    }),
    () => ({
      token: { ...ATTEMPT_LIMIT_DEFAULTS },
      send: { ...ATTEMPT_LIMIT_DEFAULTS },
      failures: { ...FAILURE_CAP_DEFAULTS },
      sendPerIp: { ...SEND_PER_IP },
      emailPerIp: { ...EMAIL_PER_IP },
      sendsPerTransaction: SENDS_PER_TRANSACTION,
      sendPerPrefix: { ...SEND_PER_PREFIX },
      dailyPhoneBudget: { ...DAILY_PHONE_BUDGET },
      knownNumbers: { ...KNOWN_NUMBERS },
    }),
  ),
});

/** JWK members that only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4). */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/**
 * A client's public key (RFC 7517 §4), for its `private_key_jwt` assertions: an EC, RSA or OKP
 * key, never a private or symmetric one (a stage file is not the place for a client's secrets).
 */
const publicJwk = z
  .looseObject({
    kty: z.enum(['EC', 'RSA', 'OKP']),
    kid: z.optional(z.string().check(z.minLength(1))),
    alg: z.optional(z.enum(CLIENT_ASSERTION_ALGORITHMS)),
    use: z.optional(z.literal('sig')),
  })
  .check(
    z.refine(
      (key) => PRIVATE_JWK_MEMBERS.every((member) => !(member in key)),
      'a public key: no private members (d, p, q, dp, dq, qi, oth, k)',
    ),
    // A key Node cannot import would refuse every assertion at request time: say so at load.
    z.refine(isImportableKey, 'a key that imports: the members its kty and crv need, in base64url'),
  );

/** Whether `key` is a public JWK Node can import (RFC 7517, RFC 7518 §6: EC, RSA, OKP). */
function isImportableKey(key: Record<string, unknown>): boolean {
  try {
    createPublicKey({ key: key as JsonWebKey, format: 'jwk' });
    return true;
  } catch {
    return false;
  }
}

const clientSchema = z.strictObject({
  /** The `client_id` clients send. */
  id: id(),
  /** Environments the client may use. */
  environments: z.array(id()).check(z.minLength(1)),
  /** Redirect URIs, compared by exact string match (RFC 6749 §3.1.2, OAuth 2.1). */
  redirectUris: z.array(z.url()).check(z.minLength(1)),
  /** Channels this client may send codes by (voice costs money: clients opt in). */
  channels: z._default(z.array(z.enum(CHANNELS)).check(z.minLength(1)), (): Channel[] => ['email', 'sms']),
  accessToken: z.strictObject({
    /** `jwt`: RFC 9068, verifiable with the JWKS. `opaque`: random, checked by introspection. */
    format: z.enum(['jwt', 'opaque']),
    /** Access token lifetime in seconds. */
    ttlSeconds: z._default(int(60, 86_400), 3600),
    /**
     * How JWTs of this client are signed (RFC 7518): ES256, the default (short, fast: about 0.13 ms
     * a token), or RS256 for consumers that verify RSA only, such as API Gateway's JWT
     * authorizers (about 0.8 ms a token; docs/api.md, "Verifying tokens").
     */
    signingAlgorithm: z._default(z.enum(SIGNING_ALGORITHMS), 'ES256'),
    /** The `aud` of JWT access tokens (RFC 9068 §2.2): the resource server's identifier. */
    audience: z.string().check(z.minLength(1)),
    /**
     * A different `aud` per environment, for a client used in several: a resource server of one
     * environment then refuses another's tokens even when it verifies them locally with the JWKS.
     */
    audienceByEnvironment: z.optional(z.record(id(), z.string().check(z.minLength(1)))),
    /** Space-separated scope granted to every token of this client, if any. */
    scope: z.optional(z.string().check(z.regex(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/))),
    /**
     * Put the user's email (`email`) or phone (`phone_number`) in JWTs. Off by default: personal data
     * stays out of tokens unless a client asks.
     */
    includeUserIdClaim: z._default(z.boolean(), false),
  }),
  /**
   * Whether this client may replace the message text (`message` with `%code%`). Off by default:
   * free text sent from the service's own sender and number is a phishing and spam relay, so it is
   * for clients you trust (typically ones that also require an API key).
   */
  allowCustomMessage: z._default(z.boolean(), false),
  /** Whether `otp/send` requires `Authorization: Bearer <api key>` from this client. */
  sendRequiresApiKey: z._default(z.boolean(), false),
  /**
   * Whether the client may use the hosted login page (the authorization endpoint). Absent: yes,
   * unless `sendRequiresApiKey`: a client whose codes only its own servers may request cannot
   * have them requested by anyone through the page (which sends without its key), so it is
   * refused there with an error page, and `true` beside `sendRequiresApiKey` is a configuration
   * error. A client with API keys that uses the page must present one at the token endpoint.
   */
  hostedLogin: z.optional(z.boolean()),
  /**
   * Passkeys on the hosted login page for this client (docs/decisions/016-passkeys.md):
   * `offered` (the default): after a code login the page offers to create one, and a user who has
   * one may sign in with it; `required` ("required after enrolment"): as `offered`, and a user who
   * has a passkey in the environment is sent no code by the page (by any channel) and signs in
   * with it: no SMS to pay for once enrolled; `off`: the page neither offers nor accepts passkeys
   * for this client, and a session started by a passkey does not log the user in to it.
   */
  passkeys: z._default(z.enum(['off', 'offered', 'required']), 'offered'),
  /**
   * SHA-256 (hex) of the client's secret: what makes it confidential. The same secret
   * authenticates it at the token, revocation and introspection endpoints and is otp/send's
   * Bearer API key (the name is the seed's). Several, so a secret can be rotated without downtime.
   */
  apiKeySha256: z._default(
    z.array(sha256Hex).check(z.maxLength(2, 'at most two secrets at once: the current one and the one replacing it')),
    (): string[] => [],
  ),
  /**
   * How the client authenticates at the token endpoint (OpenID Connect Dynamic Client
   * Registration §2, RFC 7591 §2): `none` (a public client), `client_secret_basic` or
   * `client_secret_post`. Absent: `none` for a client without a secret; a client with one may use
   * either secret method, or its Bearer API key (as Cognito's app clients take either). No
   * `client_secret_jwt`: the service never holds a secret in clear.
   */
  tokenEndpointAuthMethod: z.optional(z.enum(TOKEN_ENDPOINT_AUTH_METHODS)),
  /**
   * The client's public keys (RFC 7591 §2 `jwks`), for `private_key_jwt`: its assertions must be
   * signed by one of them (RFC 7523 §3). Several, so a key can be rotated; a key with a `kid` is
   * chosen by the assertion's `kid`.
   */
  jwks: z.optional(z.strictObject({ keys: z.array(publicJwk).check(z.minLength(1)) })),
  /**
   * The grant types the client uses at the token endpoint (RFC 7591 §2 `grant_types`), stated for
   * the registration's sake and checked against the settings that decide them:
   * `authorization_code` (the hosted login's codes and the API's one-time codes: every client) and
   * `refresh_token` exactly when the client has `refreshTokens` (a refresh from any other client
   * is `unauthorized_client`, RFC 6749 §5.2). Absent: what the settings say.
   */
  grantTypes: z.optional(z.array(z.enum(GRANT_TYPES)).check(z.minLength(1))),
  /** The response types the client may ask for (RFC 7591 §2 `response_types`): only `code`. */
  responseTypes: z._default(z.array(z.enum(RESPONSE_TYPES)).check(z.minLength(1)), (): (typeof RESPONSE_TYPES)[number][] => ['code']),
  /**
   * How this client's ID tokens are signed (OIDC Registration §2 `id_token_signed_response_alg`):
   * RS256 by default, as that specification says and every OpenID library expects unless told
   * otherwise, or ES256. Independent of the access token's `signingAlgorithm`.
   */
  idTokenSignedResponseAlg: z._default(z.enum(SIGNING_ALGORITHMS), 'RS256'),
  /**
   * ID token lifetime in seconds (default 1 hour). The ID token says who logged in and when; it
   * is not a credential for APIs, so it need not live as long or as short as the access token.
   */
  idTokenTtlSeconds: z._default(int(60, 86_400), 3600),
  /**
   * `sub` for this client (OIDC Core §8): `public`, the default (one per user and environment,
   * the same for every client), or `pairwise`: one per user, environment and sector (§8.1), so
   * clients of different sectors cannot correlate a user by `sub`.
   */
  subjectType: z._default(z.enum(SUBJECT_TYPES), 'public'),
  /**
   * The sector of a pairwise client (OIDC Core §8.1 `sector_identifier_uri`): its host is the
   * sector identifier. Required when the redirect URIs are on more than one host; absent, the
   * sector is the redirect URIs' host. The service does not fetch it: the stage file is the
   * platform team's registration, not a dynamic one, so that list is trusted as written.
   */
  sectorIdentifierUri: z.optional(z.url({ protocol: /^https$/ })),
  /**
   * Whether a confidential client must use PKCE (RFC 7636) at the authorization endpoint. Default
   * yes. `false` lets a confidential client that sends a `nonce` go without it, as RFC 9700
   * §2.1.1 allows (OpenID clients with a nonce are protected against code injection by it). A
   * public client always needs PKCE.
   */
  requirePkce: z._default(z.boolean(), true),
  /**
   * Where the end-session endpoint may send the user back after a logout (OpenID Connect
   * RP-Initiated Logout 1.0 §3.1 `post_logout_redirect_uris`): compared by exact string match, as
   * redirect URIs are. None: a logout of this client ends on the service's signed-out page.
   */
  postLogoutRedirectUris: z._default(z.array(z.url()), (): string[] => []),
  /**
   * The client's back-channel logout endpoint (OpenID Connect Back-Channel Logout 1.0 §2.2):
   * when a session that logged the user in to this client ends, it is sent a logout token there,
   * by POST, off the user's request. https, or http on a loopback host (a local relying party).
   */
  backchannelLogoutUri: z.optional(
    z.url({ protocol: /^https?$/ }).check(
      z.refine(
        (uri) => new URL(uri).protocol === 'https:' || LOOPBACK_HOSTS.includes(new URL(uri).hostname),
        'https, or http on a loopback host',
      ),
      z.refine((uri) => new URL(uri).hash === '', 'no fragment (Back-Channel Logout §2.2)'),
    ),
  ),
  /** Whether the client needs the `sid` in its logout tokens (Back-Channel Logout §2.2 `backchannel_logout_session_required`). */
  backchannelLogoutSessionRequired: z._default(z.boolean(), false),
  /** Whether this client's API keys may call the introspection endpoint (RFC 7662). */
  mayIntrospect: z._default(z.boolean(), false),
  /**
   * Refresh tokens (RFC 6749 §6), in families with rotation and reuse detection
   * (docs/decisions/009-refresh-token-families.md). Absent: code exchanges return no refresh token.
   * Rotation is always on: every refresh spends the presented token and returns its successor
   * (OAuth 2.1 §4.3.1 and RFC 9700 §4.14.2 require it of public clients; a confidential client,
   * which must also authenticate to refresh, RFC 6749 §6, gets it too: one rule for all).
   */
  refreshTokens: z.optional(
    z.strictObject({
      /**
       * When a login gets a refresh token: `always` (the default: every code exchange of this
       * client), or `offline_access`: an OpenID request (scope `openid`) only when it asked for
       * `offline_access` (OIDC Core §11), as Auth0 and Okta do; a request without `openid` (the
       * API's OTP grant) always. No consent screen asks for it: this setting is the registration's
       * consent (§11 allows "other conditions" than prompt=consent).
       */
      issue: z._default(z.enum(['always', 'offline_access']), 'always'),
      /** A refresh token unused for this long dies (default 30 days). */
      idleSeconds: z._default(int(300, 365 * 86_400), REFRESH_DEFAULTS.idleSeconds),
      /** The whole family (every token from one login) dies this long after the login, however used (default 90 days). */
      absoluteSeconds: z._default(int(300, 365 * 86_400), REFRESH_DEFAULTS.absoluteSeconds),
      /**
       * Reuse interval (Auth0's name; Okta's grace period): for this long after a rotation, the
       * token just spent may be presented again and gets the same successor (a retry that lost
       * its response, two tabs refreshing at once) instead of revoking the family. Default 0: any
       * second presentation is reuse.
       */
      reuseIntervalSeconds: z._default(int(0, 60), REFRESH_DEFAULTS.reuseIntervalSeconds),
      /**
       * The family's own limit: at most `maxRefreshes` rotations in any sliding window of
       * `windowSeconds` (default 10 a minute); one more is answered 429 with Retry-After, and the
       * token it presented stays live. Refreshes present an unguessable token, so they neither
       * count into nor are refused by the user's attempt limit or failure cap (those protect the
       * guessable one-time codes): an app's refreshes never lock its user out.
       */
      limit: z._default(
        z.strictObject({
          maxRefreshes: z._default(int(1, MAX_REFRESH_WINDOW), REFRESH_LIMIT_DEFAULTS.maxRefreshes),
          windowSeconds: z._default(int(1, 3600), REFRESH_LIMIT_DEFAULTS.windowSeconds),
        }),
        () => ({ ...REFRESH_LIMIT_DEFAULTS }),
      ),
    }),
  ),
});

/**
 * CORS for browser clients; absent: no CORS anywhere (server-side clients need none). The one part
 * of the stage file's `deployment` section the functions read (they add the headers to every
 * response; API Gateway answers the preflights).
 */
export const corsSchema = z.optional(
  z.strictObject({
    /** Origins (`https://app.example.com`, no path) allowed to call the API from a browser. */
    allowOrigins: z.array(z.string().check(z.regex(/^https?:\/\/[^/\s]+$/, 'an origin: scheme and host, no path'))).check(z.minLength(1)),
    /** API paths (from lib/platform/routes.ts) that answer preflight requests; absent: every route. */
    paths: z.optional(z.array(z.string().check(z.regex(/^\//))).check(z.minLength(1))),
  }),
);

/** The fields of a stage file other than `deployment`: what the service is (environments, clients). */
export const stageFields = {
  /** Editor hint only: the JSON Schema of stage files (config/stage.schema.json). */
  $schema: z.optional(z.string()),
  /** The stage this file configures (informational; the file name selects it). */
  stage: z.optional(id()),
  /**
   * The `iss` of tokens and the base of the metadata URLs. Absent: the API's own URL (set by the
   * CDK stack or the local runtime through the ISSUER environment variable).
   */
  issuer: z.optional(z.httpUrl()),
  /** Passkeys (WebAuthn) on the hosted login page: the settings the whole stage shares. */
  passkeys: z.optional(
    z.strictObject({
      /**
       * The relying party id (WebAuthn L3 §5.1.2 `rp.id`): a host name, the issuer's or a parent
       * domain of it. Absent: the issuer's host name at run time (the custom domain on a stage
       * that has one). Every passkey is bound to it: changing it strands every passkey of the stage.
       */
      rpId: z.optional(
        z.string().check(
          z.regex(
            /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/,
            'a lower-case host name (no scheme, port or path; WebAuthn refuses an IP address)',
          ),
          z.refine((host) => !/^[0-9.]+$/.test(host), 'a host name, not an IP address (WebAuthn refuses one as rp.id)'),
        ),
      ),
    }),
  ),
  /** Environment used when a request has no `env_id`. */
  defaultEnvironment: id(),
  environments: z.array(environmentSchema).check(z.minLength(1)),
  clients: z.array(clientSchema).check(z.minLength(1)),
};

interface StageReferences {
  readonly issuer?: string | undefined;
  readonly passkeys?: { readonly rpId?: string | undefined } | undefined;
  readonly defaultEnvironment: string;
  readonly environments: ReadonlyArray<Pick<z.infer<typeof environmentSchema>, 'id' | 'sessions'>>;
  readonly clients: ReadonlyArray<z.infer<typeof clientSchema>>;
}

/** What a schema cannot say field by field: ids are unique and every reference names something. */
export function checkStageReferences(
  config: StageReferences,
  ctx: { addIssue(issue: { code: 'custom'; path: PropertyKey[]; message: string }): void },
): void {
  const environmentIds = new Set<string>();
  for (const [index, environment] of config.environments.entries()) {
    if (environmentIds.has(environment.id)) {
      ctx.addIssue({ code: 'custom', path: ['environments', index, 'id'], message: `duplicate environment "${environment.id}"` });
    }
    environmentIds.add(environment.id);
    if (environment.sessions.idleSeconds > environment.sessions.absoluteSeconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['environments', index, 'sessions', 'idleSeconds'],
        message: 'the idle lifetime cannot be longer than the absolute one',
      });
    }
  }
  const rpId = config.passkeys?.rpId;
  if (rpId !== undefined && config.issuer !== undefined && !isRegistrableSuffixOf(rpId, hostOf(config.issuer))) {
    ctx.addIssue({
      code: 'custom',
      path: ['passkeys', 'rpId'],
      message: `the relying party id must be the issuer's host name (${hostOf(config.issuer)}) or a parent domain of it (WebAuthn L3 §5.1.2)`,
    });
  }
  if (!environmentIds.has(config.defaultEnvironment)) {
    ctx.addIssue({ code: 'custom', path: ['defaultEnvironment'], message: `no environment "${config.defaultEnvironment}"` });
  }
  const clientIds = new Set<string>();
  for (const [index, client] of config.clients.entries()) {
    if (clientIds.has(client.id)) {
      ctx.addIssue({ code: 'custom', path: ['clients', index, 'id'], message: `duplicate client "${client.id}"` });
    }
    clientIds.add(client.id);
    for (const environment of client.environments) {
      if (!environmentIds.has(environment)) {
        ctx.addIssue({ code: 'custom', path: ['clients', index, 'environments'], message: `no environment "${environment}"` });
      }
    }
    for (const environment of Object.keys(client.accessToken.audienceByEnvironment ?? {})) {
      if (!client.environments.includes(environment)) {
        ctx.addIssue({
          code: 'custom',
          path: ['clients', index, 'accessToken', 'audienceByEnvironment', environment],
          message: `the client is not allowed in environment "${environment}"`,
        });
      }
    }
    const secretMethod =
      client.tokenEndpointAuthMethod === 'client_secret_basic' || client.tokenEndpointAuthMethod === 'client_secret_post';
    if (secretMethod && client.apiKeySha256.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'apiKeySha256'],
        message: `a client that authenticates by ${client.tokenEndpointAuthMethod} needs the hash of its secret`,
      });
    }
    if (client.tokenEndpointAuthMethod === 'none' && client.apiKeySha256.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'tokenEndpointAuthMethod'],
        message: 'a client with a secret is confidential: it must authenticate (RFC 6749 §3.2.1), so its method cannot be none',
      });
    }
    if (client.tokenEndpointAuthMethod === 'private_key_jwt' && client.jwks === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'jwks'],
        message: 'a client that authenticates by private_key_jwt needs its public keys (jwks)',
      });
    }
    if (client.jwks !== undefined && client.tokenEndpointAuthMethod !== 'private_key_jwt') {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'jwks'],
        message: 'jwks are for private_key_jwt: set tokenEndpointAuthMethod to it',
      });
    }
    if (client.grantTypes !== undefined && !client.grantTypes.includes('authorization_code')) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'grantTypes'],
        message: "every client needs authorization_code: it is how a login (the page's or the API's) gets its tokens",
      });
    }
    if (client.grantTypes !== undefined && client.grantTypes.includes('refresh_token') !== (client.refreshTokens !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'grantTypes'],
        message: 'refresh_token is a grant type exactly when the client has refreshTokens settings',
      });
    }
    if (client.subjectType === 'pairwise' && client.sectorIdentifierUri === undefined && !hasOneWebSector(client.redirectUris)) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'sectorIdentifierUri'],
        message:
          "a pairwise client whose redirect URIs are on several hosts, or not on an http(s) host (a native app's scheme), needs a sectorIdentifierUri (OIDC Core §8.1)",
      });
    }
    if (client.sectorIdentifierUri !== undefined && client.subjectType !== 'pairwise') {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'sectorIdentifierUri'],
        message: 'a sector identifier is for a pairwise client',
      });
    }
    if (!client.requirePkce && authMethodsOf(client).includes('none')) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'requirePkce'],
        message: 'a public client always needs PKCE (RFC 9700 §2.1.1)',
      });
    }
    if (client.refreshTokens !== undefined && client.refreshTokens.idleSeconds > client.refreshTokens.absoluteSeconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'refreshTokens', 'idleSeconds'],
        message: 'the idle lifetime cannot be longer than the absolute one',
      });
    }
    if (client.backchannelLogoutSessionRequired && client.backchannelLogoutUri === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'backchannelLogoutSessionRequired'],
        message: 'backchannelLogoutSessionRequired is for a client with a backchannelLogoutUri',
      });
    }
    if (client.sendRequiresApiKey && client.hostedLogin === true) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'hostedLogin'],
        message: 'a client whose codes only its servers may request (sendRequiresApiKey) cannot use the hosted login page',
      });
    }
    if ((client.sendRequiresApiKey || client.mayIntrospect) && client.apiKeySha256.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['clients', index, 'apiKeySha256'],
        message: 'a client that requires an API key or may introspect needs at least one key hash',
      });
    }
  }
}

/**
 * A stage file as the functions read it. Its `deployment` section belongs to the CDK stack, which
 * validates all of it (infra/stage-config.ts); here only `cors` is read, and the rest is the
 * stack's business. So no function bundle carries the deployment schema.
 */
export const stageConfigSchema = z
  .strictObject({
    ...stageFields,
    deployment: z.prefault(z.looseObject({ cors: corsSchema }), {}),
  })
  .check(z.superRefine(checkStageReferences));

export type StageConfig = z.infer<typeof stageConfigSchema>;
export type EnvironmentConfig = StageConfig['environments'][number];
export type ClientConfig = StageConfig['clients'][number];
export type LimitConfig = EnvironmentConfig['limits']['token'];
export type FailureCapConfig = EnvironmentConfig['limits']['failures'];
/** A guard's sliding window: at most `maxSends` in any `windowSeconds`. */
export type SendWindowConfig = EnvironmentConfig['limits']['sendPerIp'];
export type PrefixWindowConfig = EnvironmentConfig['limits']['sendPerPrefix'];
export type DailyBudgetConfig = EnvironmentConfig['limits']['dailyPhoneBudget'];
export type KnownNumbersConfig = EnvironmentConfig['limits']['knownNumbers'];

/**
 * Whether `rpId` may be the relying party id of pages on `host` (WebAuthn L3 §5.1.2: equal to the
 * origin's effective domain or a registrable domain suffix of it): the host itself or a parent
 * domain of it (a label boundary, so `example.com` serves `login.example.com` but not
 * `badexample.com`). A public suffix (`com`) passes here and fails in the browser.
 */
function isRegistrableSuffixOf(rpId: string, host: string): boolean {
  return host === rpId || host.endsWith(`.${rpId}`);
}

/** The host of a URL (its sector, for pairwise subjects: OIDC Core §8.1). */
export function hostOf(url: string): string {
  return new URL(url).hostname;
}

/**
 * Whether `redirectUris` name one sector by themselves: all http(s), on one host. A private-use
 * scheme (`com.example.app:/cb`, RFC 8252 §7.1) has no host, or one that is any app's path
 * (`myapp://cb`): two unrelated apps would share a sector, and so their users' subjects.
 */
function hasOneWebSector(redirectUris: readonly string[]): boolean {
  const web = redirectUris.every((uri) => /^https?:$/.test(new URL(uri).protocol));
  return web && new Set(redirectUris.map(hostOf)).size === 1;
}

/** The sector identifier of a pairwise client (OIDC Core §8.1): its sector URI's host, else its redirect URIs' one. */
export function sectorOf(client: Pick<ClientConfig, 'sectorIdentifierUri' | 'redirectUris'>): string {
  return hostOf(client.sectorIdentifierUri ?? client.redirectUris[0]!);
}

/** The grant types `client` may use: its `grantTypes`, else what its settings allow. */
export function grantTypesOf(client: ClientConfig): readonly GrantType[] {
  return client.grantTypes ?? (client.refreshTokens === undefined ? ['authorization_code'] : ['authorization_code', 'refresh_token']);
}

/** The token endpoint authentication methods `client` may use (`tokenEndpointAuthMethod`, or what its secret allows). */
export function authMethodsOf(client: ClientConfig): readonly TokenEndpointAuthMethod[] {
  if (client.tokenEndpointAuthMethod !== undefined) return [client.tokenEndpointAuthMethod];
  return client.apiKeySha256.length > 0 ? ['client_secret_basic', 'client_secret_post'] : ['none'];
}

/** Whether `client` may use the hosted login page (`hostedLogin`, by default unless it requires an API key to send). */
export function usesHostedLogin(client: ClientConfig): boolean {
  return client.hostedLogin ?? !client.sendRequiresApiKey;
}

/**
 * Whether `client` accepts a login by `method`: a code by a channel it allows (`channels`), or a
 * passkey unless its `passkeys` is `off`. The one test of whether a session serves a client.
 */
export function acceptsMethod(client: Pick<ClientConfig, 'channels' | 'passkeys'>, method: LoginMethod): boolean {
  return isPasskeyMethod(method) ? client.passkeys !== 'off' : client.channels.includes(method);
}

/** Parses and validates a stage configuration, throwing one readable message listing every problem. */
export function parseStageConfig(raw: unknown, source = 'configuration'): StageConfig {
  const result = stageConfigSchema.safeParse(raw);
  if (!result.success) {
    throw new Error(`Invalid ${source}:\n${z.prettifyError(result.error)}`);
  }
  return result.data;
}

/** A stage configuration with lookups; deeply frozen. */
export interface ServiceConfig {
  readonly stage: StageConfig;
  environment(id: string | undefined): EnvironmentConfig | undefined;
  client(id: string): ClientConfig | undefined;
  /**
   * The passkey relying party id the stage file configures (`passkeys.rpId`); undefined: the
   * issuer's host name, which only the running function knows (lib/passkeys/ceremonies.ts
   * `relyingPartyOf`).
   */
  readonly passkeyRpId: string | undefined;
}

/** Wraps a validated stage configuration with its lookups. */
export function buildServiceConfig(stage: StageConfig): ServiceConfig {
  const frozen = deepFreeze(stage);
  const environments = new Map(frozen.environments.map((environment) => [environment.id, environment]));
  const clients = new Map(frozen.clients.map((client) => [client.id, client]));
  return Object.freeze({
    stage: frozen,
    environment: (id: string | undefined) => environments.get(id ?? frozen.defaultEnvironment),
    client: (id: string) => clients.get(id),
    passkeyRpId: frozen.passkeys?.rpId,
  });
}

/**
 * Reads, validates and freezes the stage file named by IDP_CONFIG_FILE. Its limits are the file's
 * alone: the limit overrides for experiments (TOKEN_MAX_ATTEMPTS and the like) are applied by the
 * local runtime to the file it hands the handlers (local/limit-overrides.ts), never here, so no
 * variable set on a deployed function can loosen or tighten a stage's limits.
 */
export function loadServiceConfig(env: Partial<ServiceEnvironment>): ServiceConfig {
  const file = env.IDP_CONFIG_FILE ?? `${env.LAMBDA_TASK_ROOT ?? '.'}/config.json`;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read configuration file ${file}: ${(error as Error).message}`);
  }
  return buildServiceConfig(parseStageConfig(raw, file));
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
