/**
 * The log messages other systems key on: the CDK stack's metric filters (and so its alarms and
 * dashboard) match these exact strings in the JSON logs. Change one here and both sides follow.
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
  /** UserInfo answered for a token. Fields: client, environment. */
  userInfoServed: 'userinfo served',
  /** Tokens were issued (a code exchanged, a refresh). Fields: environment, client, format, user, family (with refresh tokens). */
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
