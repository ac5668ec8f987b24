/**
 * Every error a client can see. One class per public error code, each with a fixed HTTP status,
 * a public `description` (what goes on the wire as `error_description`) and an optional private
 * `detail` that only the logs see. The serialiser in `lib/platform/http/error-response.ts` is the one place
 * that turns these into responses; anything that is not an `IdpError` becomes `server_error`.
 *
 * Vocabulary: RFC 6749 §5.2 for the token endpoint, RFC 6750 §3.1 for Bearer failures, plus the
 * few codes of the service's own (`too_many_requests`, `delivery_failed`, `temporarily_unavailable`,
 * `destination_not_allowed`).
 *
 * @example
 * throw new InvalidRequestError('user_id must be an email address', { detail: 'parse failed' });
 */
/**
 * Every `error` code the service puts on the wire: RFC 6749 §5.2 and RFC 6750 §3.1, plus the
 * service's own (`server_error` only for a bug, from the serialiser).
 */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'not_found'
  | 'method_not_allowed'
  | 'too_many_requests'
  | 'delivery_failed'
  | 'temporarily_unavailable'
  | 'destination_not_allowed'
  | 'server_error';

export abstract class IdpError extends Error {
  /** The `error` field on the wire. */
  abstract readonly error: ErrorCode;
  /** HTTP status of the response. */
  abstract readonly statusCode: number;
  /** Extra response headers (Retry-After, WWW-Authenticate, Allow). */
  readonly headers: Readonly<Record<string, string>>;
  /** Private detail for the logs; never sent to the client. Must not contain personal data. */
  readonly detail: string | undefined;

  /** Public, human-readable `error_description`, in RFC 6749 §5.2's character set. */
  readonly description: string;

  constructor(description: string, options: { detail?: string; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(description, options.cause === undefined ? undefined : { cause: options.cause });
    this.description = describable(description);
    this.name = new.target.name;
    this.detail = options.detail;
    this.headers = Object.freeze({ ...options.headers });
  }

  /** The JSON body of the response. */
  toJSON(): { error: ErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

/**
 * RFC 6749 §5.2 (and RFC 6750 §3): `error_description` is printable ASCII without `"` and `\`.
 * Double quotes become single ones; anything else outside the set is dropped.
 */
export function describable(text: string): string {
  return text.replace(/"/g, "'").replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
}

/** 400: the request is missing a parameter, has a malformed one, or is otherwise malformed. */
export class InvalidRequestError extends IdpError {
  readonly error = 'invalid_request';
  readonly statusCode = 400;
}

/** 413: the body is larger than the service accepts (RFC 6749 would call it invalid_request). */
export class RequestTooLargeError extends IdpError {
  readonly error = 'invalid_request';
  readonly statusCode = 413;
}

/** 415: the Content-Type is not one the endpoint parses. */
export class UnsupportedMediaTypeError extends IdpError {
  readonly error = 'invalid_request';
  readonly statusCode = 415;
}

/** 404: no such endpoint. */
export class NotFoundError extends IdpError {
  readonly error = 'not_found';
  readonly statusCode = 404;
}

/** 405: the endpoint exists but not for this method; `Allow` lists the ones it takes. */
export class MethodNotAllowedError extends IdpError {
  readonly error = 'method_not_allowed';
  readonly statusCode = 405;
  constructor(allowed: readonly string[]) {
    super(`This endpoint accepts ${allowed.join(', ')} only.`, { headers: { Allow: allowed.join(', ') } });
  }
}

/**
 * 401: unknown client, or a client not allowed in this environment. RFC 7235 §3.1 requires a
 * WWW-Authenticate header on every 401.
 */
export class InvalidClientError extends IdpError {
  readonly error = 'invalid_client';
  readonly statusCode = 401;
  /**
   * RFC 6749 §5.2: a client that tried HTTP Basic gets a `Basic` challenge; otherwise the service's
   * usual `Bearer` one.
   */
  constructor(description = 'Client authentication failed.', options: { detail?: string; scheme?: 'Basic' | 'Bearer' } = {}) {
    const { scheme = 'Bearer', ...rest } = options;
    super(description, { ...rest, headers: { 'WWW-Authenticate': `${scheme} realm="identity"` } });
  }
}

/** The fixed `error_description` of an invalid_grant, by what was presented. */
const INVALID_GRANT_DESCRIPTIONS = {
  code: 'The code is invalid, expired, or was already used.',
  refresh_token: 'The refresh token is invalid, expired, revoked, or was already used.',
} as const;

/**
 * 400: the code (or refresh token) is invalid, expired, used, replaced, revoked, or bound to
 * something else. Never says which.
 */
export class InvalidGrantError extends IdpError {
  readonly error = 'invalid_grant';
  readonly statusCode = 400;
  constructor(options: { detail?: string; presented?: keyof typeof INVALID_GRANT_DESCRIPTIONS } = {}) {
    const { presented = 'code', ...rest } = options;
    super(INVALID_GRANT_DESCRIPTIONS[presented], rest);
  }
}

/** 400: a refresh asked for a scope the original grant did not include (RFC 6749 §5.2, §6). */
export class InvalidScopeError extends IdpError {
  readonly error = 'invalid_scope';
  readonly statusCode = 400;
  constructor() {
    super('The requested scope exceeds the scope originally granted.');
  }
}

/** 400: the client may not use this grant or this delivery channel. */
export class UnauthorizedClientError extends IdpError {
  readonly error = 'unauthorized_client';
  readonly statusCode = 400;
}

/** 400: grant_type is neither `authorization_code` nor `refresh_token`. */
export class UnsupportedGrantTypeError extends IdpError {
  readonly error = 'unsupported_grant_type';
  readonly statusCode = 400;
  constructor() {
    super("grant_type must be 'authorization_code' or 'refresh_token'.");
  }
}

/**
 * 401 with `WWW-Authenticate: Bearer …` (RFC 6750 §3). A request without a Bearer credential
 * (none at all, or another scheme) gets the challenge without an error code (§3.1: "SHOULD NOT
 * include an error code"). The description is quotable there: see `describable`.
 */
export class InvalidTokenError extends IdpError {
  readonly error = 'invalid_token';
  readonly statusCode = 401;
  constructor(description: string, options: { bearerPresented: boolean; detail?: string }) {
    const challenge = options.bearerPresented
      ? `Bearer realm="identity", error="invalid_token", error_description="${describable(description)}"`
      : 'Bearer realm="identity"';
    super(description, { detail: options.detail, headers: { 'WWW-Authenticate': challenge } });
  }
}

/**
 * 403 with `WWW-Authenticate: Bearer … error="insufficient_scope"` (RFC 6750 §3.1): the token is
 * valid but was not granted what the request needs (UserInfo needs `openid`).
 */
export class InsufficientScopeError extends IdpError {
  readonly error = 'insufficient_scope';
  readonly statusCode = 403;
  constructor(scope: string) {
    const description = `The access token was not granted the '${scope}' scope.`;
    super(description, {
      headers: {
        'WWW-Authenticate': `Bearer realm="identity", error="insufficient_scope", error_description="${describable(description)}", scope="${scope}"`,
      },
    });
  }
}

/**
 * 403: an SMS or voice destination the environment does not allow: a country outside its
 * `sms.allowedCountries`, a kind of number that is never a person's phone (premium rate, …), or
 * one the environment refuses (`sms.refusedNumberTypes`: personal numbers and VoIP by default).
 * The description does not say which: the detail (logs only) does.
 */
export class DestinationNotAllowedError extends IdpError {
  readonly error = 'destination_not_allowed';
  readonly statusCode = 403;
  constructor(options: { detail?: string } = {}) {
    super('Codes cannot be sent to this phone number in this environment.', options);
  }
}

/** What a 429 counted, and how its description says so. */
const TOO_MANY = {
  attempts: 'Too many attempts.',
  phone_sends: 'Too many codes by SMS or voice call were requested.',
  email_sends: 'Too many codes by email were requested.',
  refreshes: 'This refresh token was refreshed too often.',
} as const;
export type TooManyRequestsLimit = keyof typeof TOO_MANY;

/**
 * 429: the attempt limit was reached (`Retry-After` says when the block lifts, RFC 9110 §10.2.3),
 * or a fraud guard's window of SMS and voice sends (per source IP, per block of numbers) is full
 * (`Retry-After` says when it has room again).
 */
export class TooManyRequestsError extends IdpError {
  readonly error = 'too_many_requests';
  readonly statusCode = 429;
  /** What was counted: the user's attempts, the SMS and voice sends a fraud guard counts, or a refresh token family's rotations. */
  readonly limit: TooManyRequestsLimit;
  constructor(
    readonly retryAfterSeconds: number,
    options: { limit?: TooManyRequestsLimit; detail?: string } = {},
  ) {
    const limit = options.limit ?? 'attempts';
    const what = TOO_MANY[limit];
    super(`${what} Try again in ${retryAfterSeconds} seconds.`, {
      detail: options.detail,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
    this.limit = limit;
  }
}

/**
 * `Retry-After` of a failed delivery, in seconds (test/unit/platform/errors.test.ts holds the number). A
 * retry is a new send with a new code, and counts against the recipient's send limit (5 in any
 * 60 seconds by default, then a 300-second block: docs/decisions/001-attempt-limit.md). A client
 * that retries at this pace sends at most 4 a minute, so it never starts the block, and leaves
 * the user one send of their own; a provider's blip (a throttled request, a dropped connection)
 * lasts seconds, so the retry usually finds it over; and a person waiting for a code is not kept
 * waiting much longer than they would wait anyway.
 */
export const DELIVERY_RETRY_AFTER_SECONDS = 15;

/**
 * 502: the message could not be handed to the email, SMS or voice provider. `Retry-After` (RFC
 * 9110 §10.2.3) as a 503's: when a new send is worth trying ({@link DELIVERY_RETRY_AFTER_SECONDS}).
 */
export class DeliveryFailedError extends IdpError {
  readonly error = 'delivery_failed';
  readonly statusCode = 502;
  readonly retryAfterSeconds = DELIVERY_RETRY_AFTER_SECONDS;
  constructor(options: { detail?: string; cause?: unknown } = {}) {
    super('The code could not be delivered. Try again later.', {
      ...options,
      headers: { 'Retry-After': String(DELIVERY_RETRY_AFTER_SECONDS) },
    });
  }
}

/**
 * 503: a dependency (DynamoDB, Secrets Manager) is down or throttling (`Retry-After: 1`), or, with
 * `phoneBudgetSpent`, the day's SMS and voice budget of the environment is spent (`Retry-After`
 * until the next UTC day; email still works, and the description says so).
 */
export class TemporarilyUnavailableError extends IdpError {
  readonly error = 'temporarily_unavailable';
  readonly statusCode = 503;
  /** What is unavailable: the service, or only codes by SMS and voice call. */
  readonly unavailable: 'service' | 'phone_sends';
  readonly retryAfterSeconds: number;
  constructor(options: { detail?: string; cause?: unknown; phoneBudgetSpent?: { readonly retryAfterSeconds: number } } = {}) {
    const { phoneBudgetSpent, ...rest } = options;
    const retryAfterSeconds = phoneBudgetSpent?.retryAfterSeconds ?? 1;
    super(
      phoneBudgetSpent === undefined
        ? 'The service is temporarily unavailable. Try again shortly.'
        : 'Codes by SMS and voice call are unavailable until the next UTC day. Codes by email still work.',
      { ...rest, headers: { 'Retry-After': String(retryAfterSeconds) } },
    );
    this.unavailable = phoneBudgetSpent === undefined ? 'service' : 'phone_sends';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The `error` code of a status, for errors that arrive with a status but no code of ours. */
const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'invalid_request',
  401: 'invalid_token',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'invalid_request',
  415: 'invalid_request',
  422: 'invalid_request',
  429: 'too_many_requests',
  502: 'delivery_failed',
  503: 'temporarily_unavailable',
};

/**
 * An error that is not one of ours but carries the HTTP error contract middy's middlewares use
 * (`statusCode`, and `expose: true` when its message is meant for the client, as for every 4xx
 * of `@middy/util`'s createError). It keeps its status; its message reaches the client only when
 * exposed, and only in RFC 6749 §5.2's character set. A 5xx among them that is not a 502 or 503 is
 * still a bug to the logs, and `server_error` on the wire.
 */
export class ForeignHttpError extends IdpError {
  readonly error: ErrorCode;
  readonly statusCode: number;
  constructor(statusCode: number, message: string, exposed: boolean, cause: unknown) {
    const code = CODE_OF_STATUS[statusCode] ?? (statusCode < 500 ? 'invalid_request' : 'server_error');
    super(exposed && message !== '' ? message : `The request failed (HTTP ${statusCode}).`, {
      cause,
      detail: `${(cause as Error).name}: ${statusCode}`,
      // Every delivery_failed and temporarily_unavailable carries Retry-After, as ours do.
      ...(code === 'temporarily_unavailable' ? { headers: { 'Retry-After': '1' } } : {}),
      ...(code === 'delivery_failed' ? { headers: { 'Retry-After': String(DELIVERY_RETRY_AFTER_SECONDS) } } : {}),
    });
    this.statusCode = statusCode;
    this.error = code;
  }

  /** The error as one of ours, when it carries a status in 400–599; undefined otherwise. */
  static from(error: unknown): ForeignHttpError | undefined {
    if (!(error instanceof Error)) return undefined;
    const { statusCode, expose } = error as Error & { statusCode?: unknown; expose?: unknown };
    if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 400 || statusCode > 599) return undefined;
    return new ForeignHttpError(statusCode, error.message, expose === true && statusCode < 500, error);
  }
}
