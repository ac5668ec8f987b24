/**
 * The log messages other systems key on: a line with one of these messages carries its metrics
 * in CloudWatch Embedded Metric Format (lib/platform/log-metrics.ts), which the CDK stack's alarms
 * and dashboard read (infra/monitoring.ts). Change one here and both sides follow.
 * The audit events (lib/audit/events.ts) are derived from some of them and their fields.
 */
export const LOG_EVENTS = {
  /** A code was handed to the provider. Fields: environment, client, channel, user (log handle). */
  codeSent: 'code sent',
  /** The provider refused or could not be reached (502). Fields: environment, client, channel, detail. */
  deliveryFailed: 'delivery failed',
  /**
   * An attempt was refused (429) by the attempt limit (`reason: limit`) or the failure cap
   * (`reason: failure_cap`). Fields: operation (send | token), environment, user, reason, blockStarted.
   */
  attemptRefused: 'attempt refused',
  /**
   * A send or a code check of a user an operator blocked (docs/operations/operator-controls.md):
   * counted, then answered as for a user with no code (nothing sent; invalid_grant, or the page's
   * dead-code message). Fields: operation (send | token), environment, user (log handle).
   */
  blockedUserAttempt: 'blocked user attempt',
  /**
   * An operator's call on the admin API (lib/admin/operator.ts), after it took effect: the audit
   * trail. Fields: action (block | unblock | end-sessions | remove-passkeys), environment, user
   * (log handle), caller (the IAM principal's ARN API Gateway authenticated; `anonymous` on the
   * local runtime, which has no IAM), and what was done: blocked, sessions and families, or passkeys.
   */
  operatorAction: 'operator action',
  /**
   * An operator took the message kept for a test recipient (lib/otp/test-outbox.ts, the smoke
   * command): someone with the account's admin access read a code. Fields: environment, user (log
   * handle), caller (as for `operator action`), found (whether a message was there to take).
   */
  testMessageTaken: 'test message taken',
  /** A user's run of consecutive failed exchanges reached the cap: the token endpoint refuses them until the run's window passes. Fields: environment, user, failures. */
  failureCapReached: 'failure cap reached',
  /** A failed send's code could not be discarded, or a failed save cancelled (its 502 or 503 stands). Fields: environment, client, error. */
  discardFailed: 'discard failed',
  /**
   * An SMS or voice send was refused by a fraud guard (docs/decisions/008-sms-fraud-guards.md):
   * `guard` destination (403), ip or prefix (429), budget (503). Fields: environment, channel,
   * guard, country (ISO 3166-1 alpha-2, or 001 for a number of no country), and by guard: reason
   * (destination: country | number_type), source (ip: the network's log handle), prefix and range
   * (prefix: the block's log handle, and its calling code with 3 national digits). Metrics: a count,
   * and a count by guard and country.
   */
  phoneSendRefused: 'phone send refused',
  /**
   * An email send was refused by its source's window (docs/decisions/010-hosted-login-abuse.md):
   * 429. Fields: environment, guard (ip), source (the network's log handle). Metric: a count.
   */
  emailSendRefused: 'email send refused',
  /**
   * An SMS or voice send spent one message of the day's budget: a number that is not known (known
   * numbers have an allowance of their own). Fields: environment, channel, country, usedPercent (how
   * full the shard of the container's last lease was when leased, leased messages counting as
   * spent: an estimate of the budget's, early, never late). Metrics: the highest usedPercent by
   * environment, alarmed at 80; the count by environment (the budget spent by numbers never seen
   * before), alarmed at a quarter of the day's budget in an hour.
   */
  phoneBudgetSpent: 'phone budget spent',
  /**
   * An SMS or voice send to a known number passed on its own allowance, past the prefix guard and
   * the budget (docs/decisions/012-known-numbers.md). Fields: environment, channel, country.
   */
  phoneSendKnown: 'phone send known',
  /**
   * A login by a phone number succeeded but its known-number record could not be written (the
   * login stands; the number gets its exemption at its next login). Fields: environment, error.
   */
  knownNumberNotRecorded: 'known number not recorded',
  /** A presentation that answered 503 could not be abandoned: the same code again is refused as repeated. */
  presentationNotAbandoned: 'presentation not abandoned',
  /** The hosted login page was shown for an authorization request. Fields: client, environment. */
  authorizationStarted: 'authorization started',
  /** The authorization endpoint refused a request (an error page or an error redirect). Fields: reason, client, environment. */
  authorizationRefused: 'authorization refused',
  /** The hosted login page checked a code and issued an authorization code. Fields: client, environment, user. */
  authorizationGranted: 'authorization granted',
  /**
   * A single sign-on session started (a code checked on the hosted page) or served a login without
   * a code. Fields: client, environment, user (log handle), session (a handle of its key, never the
   * cookie), and for a use the session's age in seconds.
   */
  sessionStarted: 'session started',
  sessionUsed: 'session used',
  /**
   * A session ended: `reason` logout (the end-session endpoint) or operator (the admin API).
   * Fields: environment, user, session, reason, clients (how many it served), families (refresh
   * token families revoked with it), notices (back-channel logout tokens queued).
   */
  sessionEnded: 'session ended',
  /** A login in another account could not end the browser's previous session (the login stands; that session lapses by its lifetimes). Fields: environment, session, error. */
  sessionNotEnded: 'session not ended',
  /** The back-channel logout notices of an ended session could not be queued (the logout stands). Fields: environment, notices, error. */
  logoutNoticesLost: 'logout notices lost',
  /**
   * The end-session endpoint (OpenID Connect RP-Initiated Logout 1.0). `logout refused`: the error
   * page (reason: repeated | too_long | unknown_client | client_mismatch | environment | action).
   * `logout asked`: the confirmation page, because the request did not prove the browser's login
   * (reason: no_hint | invalid_hint | other_session | unregistered_redirect). `logged out`: fields
   * environment, client, confirmed (whether the user was asked), ended (whether a session ended:
   * `session ended` has its details), redirected. `logout declined`: "stay signed in" (environment,
   * client, redirected). `logout expired`: a confirmation too old, altered, or of another session.
   */
  logoutRefused: 'logout refused',
  logoutAsked: 'logout asked',
  loggedOut: 'logged out',
  logoutDeclined: 'logout declined',
  logoutExpired: 'logout expired',
  /**
   * A user created a passkey on the hosted page (docs/decisions/016-passkeys.md). Fields: environment, client, user
   * (log handle), passkey (a short hash prefix of the credential id, never the id), method
   * (passkey | synced_passkey: whether the authenticator syncs it).
   */
  passkeyRegistered: 'passkey registered',
  /**
   * Passkeys were removed: by the user on the hosted page (`by: user`, count 1) or by an operator
   * (`by: operator`, the admin API's remove-passkeys: every passkey of the user in the
   * environment). Fields: environment, user (log handle), by, count, client (by user), passkey (by
   * user: a short hash prefix of the credential id).
   */
  passkeyRemoved: 'passkey removed',
  /**
   * A passkey sign-in or registration was refused. Fields: reason (malformed | unknown_credential |
   * signature | counter | user_verification | rp_id | origin | challenge | user_handle | blocked |
   * not_allowed | …), environment, client, user (log handle, when a stored credential named one),
   * passkey (a short hash prefix of the credential id, when one was presented). A sign-count
   * regression (`counter`, a possibly cloned authenticator: WebAuthn L3 §6.1.1) is logged at warn.
   */
  passkeyRefused: 'passkey refused',
  /** UserInfo answered for a token. Fields: client, environment. */
  userInfoServed: 'userinfo served',
  /**
   * Tokens were issued (a code exchanged, a refresh). Fields: environment, client, grant
   * (one_time_code | authorization_code | refresh_token), format, user, family (with refresh tokens),
   * channel and method (both the login's `LoginMethod`: `channel` is what login.completed v1 reads),
   * amr (the tokens' RFC 8176 values).
   */
  tokenIssued: 'token issued',
  /** A token request was refused with invalid_grant. Fields: reason (private), client, user. */
  grantRefused: 'grant refused',
  /**
   * A spent refresh token was presented again: its family is revoked (RFC 9700 §4.14.2). Fields:
   * client, environment, user, family (a handle, never a token), generation.
   */
  refreshTokenReused: 'refresh token reused',
  /** A revocation request (RFC 7009) was answered. Fields: client, kind (refresh_token | access_token), family (refresh tokens), revoked. */
  tokenRevoked: 'token revoked',
  /** A resource server introspected a token. Fields: caller (client id), active. */
  tokenIntrospected: 'token introspected',
  /** Any 5xx the service answered. */
  requestFailed: 'request failed',
  /** A bug: an error that was not one of ours (500). */
  unhandledError: 'unhandled error',
} as const;

/**
 * The back-channel logout worker's messages (lib/logout/backchannel.ts): on AWS only the
 * `backchannel-logout` function logs them, each counted under its own metric name
 * (`BackchannelLogout…`, lib/platform/log-metrics.ts) in the stack's namespace, which
 * infra/backchannel.ts gives the worker. Locally the in-process queue logs the same lines.
 */
export const BACKCHANNEL_LOG_EVENTS = {
  /**
   * A logout token reached a client's back-channel logout URI: it answered 200 or 204 (OpenID
   * Connect Back-Channel Logout 1.0 §2.8). Fields: environment, client, status, attempt.
   */
  delivered: 'backchannel logout delivered',
  /**
   * A back-channel logout attempt failed: another status, no answer, or no answer within the
   * timeout. It is tried again until its last attempt (lib/logout/backchannel.ts
   * `BACKCHANNEL_MAX_ATTEMPTS`). Fields: environment, client, attempt, reason (status | network |
   * timeout | error), status (reason status), detail (network, error: an error name or code); or,
   * for a queue message that is not a notice, reason malformed, message (its id), attempt.
   */
  failed: 'backchannel logout failed',
  /** A logout notice was dropped: its client is gone, or has no back-channel logout URI any more. Fields: environment, client, reason. */
  skipped: 'backchannel logout skipped',
  /** A logout notice's last attempt failed: it is dead-lettered (on AWS, the queue's dead-letter queue). Fields: environment, client, attempts. */
  deadLettered: 'backchannel logout dead-lettered',
} as const;
