/**
 * `GET /idp/v1/account/authorize` and the page's form posts: the OAuth 2.1 / RFC 6749 §4.1
 * authorization endpoint, with OpenID Connect Core 1.0 §3.1.2, whose only way to authenticate a
 * user is a one-time code.
 *
 * The request (§4.1.1, OIDC §3.1.2.1): `response_type=code`, `client_id`, `redirect_uri` (an
 * exact match of a registered one), `scope`, `state`, `nonce`, `code_challenge` with
 * `code_challenge_method=S256` (required of public clients; a confidential client registered with
 * `requirePkce: false` may send a `nonce` instead, RFC 9700 §2.1.1), `response_mode` (`query`,
 * the default, or `form_post`: OAuth 2.0 Form Post Response Mode), `login_hint`, `ui_locales`,
 * `prompt`, `env_id`. An unknown client or an unregistered redirect URI gets an error page, never
 * a redirect (§4.1.2.1: the redirect could be an attacker's). Any other problem is a response to
 * the client with `error`, `error_description`, `state` and `iss` (RFC 9207), in the response mode
 * asked for when it is one the service knows.
 *
 * The page:
 * 1. one input for an email address or a phone number (and, for phones, SMS or a voice call); the
 *    code is sent by the same operation as `otp/send` (same normalisation, limits, code rules and
 *    templates), and the page never says whether the address is known;
 * 2. one input for the code, checked by the same rules as the token endpoint (the per-user limit,
 *    the failure cap, 3 tries per code); on success, a new authorization code and a 302 to the
 *    client with `code`, `state` and `iss`.
 * No single sign-on: every authorization request asks for a code.
 *
 * DynamoDB requests (docs/decisions/007-hosted-login.md): showing the page, none; sending a code,
 * otp/send's; checking a code, the OTP grant's, plus the authorization code's write on success
 * (test/http/authorize.test.ts, "DynamoDB requests per step").
 */
import { usesHostedLogin, type ClientConfig, type EnvironmentConfig, type ServiceConfig } from '../platform/config';
import {
  DeliveryFailedError,
  DestinationNotAllowedError,
  IdpError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
} from '../platform/errors';
import { LOG_EVENTS } from '../platform/log-events';
import { LOGIN_PAGES, type Locale } from '../messages/locales';
import type { AuthorizationCodeStore } from '../oauth/ports';
import { RESPONSE_MODES, SUPPORTED_LOCALES, type Channel } from '../platform/vocabulary';
import { subjectFor, userClaimsOf } from '../oauth/access-tokens';
import { newSessionId } from '../oauth/sessions';
import { AUTHORIZATION_CODE_TTL_SECONDS, authorizationCodeHash, mintAuthorizationCode } from '../oauth/authorization-codes';
import { S256_CHALLENGE_PATTERN } from '../otp/codes';
import { beginVerify, verifyCode, type RejectionReason, type Verification, type VerifyCodeDeps } from '../otp/verify';
import { logHandleOf } from '../keys/hmac-keys';
import { inferAuthType, normaliseUser, type UserIdentity } from '../identity/identity';
import { countryCallingCodeOf, normalisePhone } from '../phone/phone-validation';
import { resolveLocale } from '../messages/locale';
import {
  csrfMatches,
  largestFormOf,
  MAX_SEALED_TRANSACTION_LENGTH,
  newCsrfToken,
  openTransaction,
  sealTransaction,
  type LoginTransaction,
} from './login-transaction';
import type { LoginPageModel } from './login-page';
import { grantScope, hasScope, scopesOf } from '../oauth/scopes';
import { beginIssue, checkChannel, issueCode, type IssueCodeDeps, type TimeLeft } from '../otp/issue';

export interface AuthorizeDeps extends IssueCodeDeps, VerifyCodeDeps {
  readonly config: ServiceConfig;
  readonly authorizationCodes: AuthorizationCodeStore;
}

/** What the endpoint answers: a page (with the transaction cookie to set or clear), or a redirect. */
export type AuthorizeOutcome =
  | {
      readonly kind: 'page';
      readonly status: number;
      readonly page: LoginPageModel;
      /** The sealed transaction to set; `null` to clear the cookie; absent to leave it. */
      readonly transaction?: string | null;
      /** Origins the page's forms may end up at (CSP `form-action`): the client's redirect URI after a code is checked. */
      readonly formTargets: readonly string[];
      /** Retry-After, for a page that answers a limit, a failed delivery or an unavailable dependency. */
      readonly retryAfterSeconds?: number;
    }
  | { readonly kind: 'redirect'; readonly location: string; readonly clearTransaction: boolean }
  | {
      /**
       * `response_mode=form_post`: a page whose form posts `parameters` to the redirect URI
       * (OAuth 2.0 Form Post Response Mode §2), in the page's locale.
       */
      readonly kind: 'form_post';
      readonly action: string;
      readonly parameters: Readonly<Record<string, string>>;
      readonly locale: Locale;
      readonly clearTransaction: boolean;
    };

export interface AuthorizationRequest {
  /** The query parameters, each with every value it was given. */
  readonly query: Readonly<Record<string, readonly string[]>>;
  readonly acceptLanguage: string | undefined;
  readonly issuer: string;
}

/**
 * The parameters RFC 6749 §3.1 and OIDC Core §3.1.2.1 define: none may be given twice. Also the
 * query docs/openapi.json describes (infra/openapi/).
 */
export const AUTHORIZATION_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'login_hint',
  'ui_locales',
  'prompt',
  'env_id',
  'request',
  'request_uri',
  'response_mode',
] as const;

/** The longest value any parameter may have: far above every legitimate one, far below abuse. */
export const MAX_PARAMETER_LENGTH = 2048;

/** Handles `GET /authorize`: validates the request, then shows step 1 (or redirects an error). */
export async function startAuthorization(deps: AuthorizeDeps, request: AuthorizationRequest): Promise<AuthorizeOutcome> {
  const one = (name: string): string | undefined => {
    const values = request.query[name];
    return values === undefined || values[0] === '' ? undefined : values[0];
  };
  const locale = pickLocale(one('ui_locales'), request.acceptLanguage, deps.config);

  // No redirect until the client and the redirect URI are known to be this client's (§4.1.2.1).
  const environment = deps.config.environment(one('env_id'));
  const client = one('client_id') === undefined ? undefined : deps.config.client(one('client_id') as string);
  const redirectUri = one('redirect_uri');
  const repeated = AUTHORIZATION_PARAMETERS.filter((name) => (request.query[name]?.length ?? 0) > 1);
  if (
    environment === undefined ||
    client === undefined ||
    !client.environments.includes(environment.id) ||
    redirectUri === undefined ||
    !client.redirectUris.includes(redirectUri) ||
    repeated.some((name) => name === 'client_id' || name === 'redirect_uri')
  ) {
    deps.log.info(LOG_EVENTS.authorizationRefused, { reason: 'client or redirect_uri', client: client?.id });
    return { kind: 'page', status: 400, page: { view: 'invalid', locale }, formTargets: [] };
  }
  // A client whose codes only its own servers may request: the page would send them for anyone,
  // without its key and uncounted per source (config.ts `hostedLogin`).
  if (!usesHostedLogin(client)) {
    deps.log.info(LOG_EVENTS.authorizationRefused, { reason: 'hosted login not allowed', client: client.id, environment: environment.id });
    return { kind: 'page', status: 400, page: { view: 'invalid', locale }, formTargets: [] };
  }

  const state = one('state');
  const requestedMode = one('response_mode');
  // An error goes back as the client asked when the service knows that mode and it can be used
  // (a form posts to an http(s) page, not to a native app's scheme); else in the default.
  const responseMode = requestedMode === 'form_post' && /^https?:$/.test(new URL(redirectUri).protocol) ? 'form_post' : undefined;
  const fail = (error: string, description: string): AuthorizeOutcome => {
    deps.log.info(LOG_EVENTS.authorizationRefused, { reason: error, client: client.id, environment: environment.id });
    const parameters = { error, error_description: description, state, iss: request.issuer };
    return responseTo(redirectUri, parameters, { responseMode, locale, clearTransaction: false });
  };

  if (repeated.length > 0) return fail('invalid_request', 'A parameter is repeated (RFC 6749 section 3.1 allows each once).');
  if (Object.values(request.query).some((values) => values.some((value) => value.length > MAX_PARAMETER_LENGTH))) {
    return fail('invalid_request', 'A parameter is too long.');
  }
  if (one('request') !== undefined) return fail('request_not_supported', 'Request objects are not supported.');
  if (one('request_uri') !== undefined) return fail('request_uri_not_supported', 'Request objects are not supported.');
  if (requestedMode !== undefined && !(RESPONSE_MODES as readonly string[]).includes(requestedMode)) {
    return fail('invalid_request', "response_mode must be 'query' or 'form_post'.");
  }
  if (requestedMode === 'form_post' && responseMode === undefined) {
    return fail('invalid_request', 'response_mode form_post needs an http or https redirect URI.');
  }
  const responseType = one('response_type');
  if (responseType === undefined) return fail('invalid_request', 'response_type is required.');
  if (!client.responseTypes.some((registered) => registered === responseType)) {
    return fail('unsupported_response_type', "response_type must be 'code'.");
  }
  const scope = grantScope(one('scope'), client);
  if ('refused' in scope) return fail('invalid_scope', 'The scope must be scope tokens separated by spaces (RFC 6749 section 3.3).');
  const codeChallenge = one('code_challenge');
  const nonce = one('nonce');
  if (codeChallenge === undefined) {
    // RFC 9700 §2.1.1: a confidential OpenID client may rely on the nonce instead, if allowed.
    if (client.requirePkce || nonce === undefined || !hasScope(scope.granted, 'openid')) {
      return fail('invalid_request', 'code_challenge is required (PKCE, RFC 7636).');
    }
  } else {
    if (one('code_challenge_method') !== 'S256') return fail('invalid_request', "code_challenge_method must be 'S256'.");
    if (!S256_CHALLENGE_PATTERN.test(codeChallenge)) return fail('invalid_request', 'code_challenge must be 43 characters of base64url.');
  }
  const prompts = scopesOf(one('prompt'));
  // OIDC Core §3.1.2.1: with no session to reuse, `none` can only be answered login_required.
  if (prompts.includes('none')) return fail(prompts.length > 1 ? 'invalid_request' : 'login_required', 'The user must sign in.');
  if (prompts.some((prompt) => !['login', 'consent', 'select_account'].includes(prompt)))
    return fail('invalid_request', 'prompt has an unknown value.');

  const transaction: LoginTransaction = {
    environmentId: environment.id,
    clientId: client.id,
    redirectUri,
    codeChallenge,
    responseMode,
    state,
    nonce,
    scope: scope.granted,
    locale,
    loginHint: one('login_hint'),
    csrf: newCsrfToken(),
  };
  const keys = await deps.hmacKeys();
  const now = deps.clock.now();
  // A cookie past what browsers keep is dropped silently (the user would see "expired" at step 1):
  // the transaction must fit as large as its flow makes it.
  if ((await sealTransaction(keys, largestFormOf(transaction), now)).length > MAX_SEALED_TRANSACTION_LENGTH) {
    return fail('invalid_request', 'The request is too large: its state, nonce, scope and other values must be shorter.');
  }
  deps.log.info(LOG_EVENTS.authorizationStarted, { client: client.id, environment: environment.id });
  return {
    kind: 'page',
    status: 200,
    page: userPage(environment, client, transaction),
    transaction: await sealTransaction(keys, transaction, now),
    formTargets: [],
  };
}

export interface AuthorizationForm {
  readonly fields: Record<string, unknown>;
  readonly cookie: string | undefined;
  readonly issuer: string;
  /** API Gateway's `requestContext.identity.sourceIp`: the fraud guards count the page's SMS and voice sends by it, as otp/send's. */
  readonly sourceIp: string | undefined;
  /** The function's deadline (lib/otp/issue.ts `TimeLeft`); absent: none. */
  readonly timeLeft?: TimeLeft | undefined;
}

/** Handles a form post of the page: send (or resend) a code, check it, or start over. */
export async function continueAuthorization(deps: AuthorizeDeps, form: AuthorizationForm): Promise<AuthorizeOutcome> {
  const keys = await deps.hmacKeys();
  const transaction = await openTransaction(keys, form.cookie, deps.clock.now());
  const environment = transaction === undefined ? undefined : deps.config.environment(transaction.environmentId);
  const client = transaction === undefined ? undefined : deps.config.client(transaction.clientId);
  if (
    transaction === undefined ||
    environment === undefined ||
    client === undefined ||
    !usesHostedLogin(client) ||
    !csrfMatches(transaction, form.fields.csrf)
  ) {
    deps.log.info(LOG_EVENTS.authorizationRefused, { reason: 'transaction or csrf' });
    const locale = transaction?.locale ?? deps.config.environment(undefined)?.defaultLocale ?? 'en-US';
    return { kind: 'page', status: 400, page: { view: 'expired', locale }, transaction: null, formTargets: [] };
  }
  const context = { deps, environment, client, transaction, issuer: form.issuer, sourceIp: form.sourceIp, timeLeft: form.timeLeft };
  switch (form.fields.action) {
    case 'send':
      return sendFromPage(context, form.fields.user_id, form.fields.channel);
    case 'resend':
      if (transaction.user === undefined) return restart(context);
      return deliver(context, transaction.user, transaction.channel ?? transaction.user.authType, true);
    case 'verify':
      if (transaction.user === undefined) return restart(context);
      return verify(context, transaction.user, form.fields.code);
    default:
      return restart(context);
  }
}

interface PageContext {
  readonly deps: AuthorizeDeps;
  readonly environment: EnvironmentConfig;
  readonly client: ClientConfig;
  readonly transaction: LoginTransaction;
  readonly issuer: string;
  readonly sourceIp: string | undefined;
  readonly timeLeft: TimeLeft | undefined;
}

async function restart(context: PageContext): Promise<AuthorizeOutcome> {
  const { user, channel, ...rest } = context.transaction;
  return page(context, 200, userPage(context.environment, context.client, rest), rest);
}

async function sendFromPage(context: PageContext, rawUserId: unknown, rawChannel: unknown): Promise<AuthorizeOutcome> {
  const strings = LOGIN_PAGES[context.transaction.locale];
  const typed = typeof rawUserId === 'string' ? rawUserId.slice(0, 320) : '';
  let user: UserIdentity;
  try {
    user = normaliseUser(inferAuthType(typed), typed, normalisePhone);
  } catch {
    return page(
      context,
      400,
      userPage(context.environment, context.client, context.transaction, { userId: typed, error: strings.invalidUserId }),
      context.transaction,
    );
  }
  const channel: Channel = user.authType === 'email' ? 'email' : rawChannel === 'voice' ? 'voice' : 'sms';
  try {
    checkChannel(context.client, context.environment, channel);
  } catch {
    return page(
      context,
      400,
      userPage(context.environment, context.client, context.transaction, { userId: typed, error: strings.invalidUserId }),
      context.transaction,
    );
  }
  return deliver(context, user, channel, false);
}

/** Sends a code through the same operation as otp/send, then shows step 2. */
async function deliver(context: PageContext, user: UserIdentity, channel: Channel, resend: boolean): Promise<AuthorizeOutcome> {
  const { deps, environment, client } = context;
  const sends = (context.transaction.sends ?? 0) + 1;
  // The transaction's own cap (docs/decisions/010-hosted-login-abuse.md): one transaction is not a
  // way to mail many addresses; what many transactions send, the per-source guards bound.
  if (sends > environment.limits.sendsPerTransaction) {
    deps.log.info(LOG_EVENTS.authorizationRefused, { reason: 'sends per transaction', client: client.id, environment: environment.id });
    // The transaction is over (the user starts again from the app): the expired page, as for one past its time.
    return { kind: 'page', status: 400, page: { view: 'expired', locale: context.transaction.locale }, transaction: null, formTargets: [] };
  }
  // Every send request counts, whatever becomes of it.
  const transaction: LoginTransaction = { ...context.transaction, sends };
  const strings = LOGIN_PAGES[transaction.locale];
  const next: LoginTransaction = { ...transaction, user: { authType: user.authType, value: user.value }, channel };
  try {
    const attempt = await beginIssue(deps, environment, user);
    await issueCode(deps, attempt, {
      environment,
      client,
      user,
      channel,
      redirectUri: transaction.redirectUri,
      // The page checks the one-time code itself; the client's PKCE challenge binds the
      // authorization code it is given afterwards.
      codeChallenge: undefined,
      locale: transaction.locale,
      message: undefined,
      sourceIp: context.sourceIp,
      // The page sends without any key, for whoever posts its form: always counted per source.
      serverSide: false,
      timeLeft: context.timeLeft,
    });
  } catch (error) {
    const failure = pageFailure(error, strings, transaction.locale);
    const model = resend
      ? codePage(environment, transaction, next, { error: failure.message })
      : userPage(environment, client, transaction, { userId: user.value, error: failure.message });
    return page(context, failure.status, model, resend ? next : transaction, failure.retryAfterSeconds);
  }
  return page(context, 200, codePage(environment, transaction, next, resend ? { notice: strings.newCodeSent } : {}), next);
}

/** Checks the code by the token endpoint's rules; on success, the authorization code and the redirect. */
async function verify(context: PageContext, user: UserIdentity, rawCode: unknown): Promise<AuthorizeOutcome> {
  const { deps, environment, client, transaction } = context;
  const strings = LOGIN_PAGES[transaction.locale];
  const code = typeof rawCode === 'string' ? rawCode.trim() : '';
  let verification: Verification<AuthorizeOutcome>;
  try {
    const counted = await beginVerify(deps, environment, user);
    const presented = { environment, client, user, redirectUri: transaction.redirectUri, code, codeChallenge: undefined };
    verification = await verifyCode(deps, counted, presented, async (record) => {
      const authorizationCode = mintAuthorizationCode();
      await deps.authorizationCodes.save({
        codeHash: authorizationCodeHash(counted.keys, authorizationCode),
        environmentId: environment.id,
        clientId: client.id,
        redirectUri: transaction.redirectUri,
        codeChallenge: transaction.codeChallenge,
        nonce: transaction.nonce,
        scope: transaction.scope,
        userKey: counted.userKey,
        subject: subjectFor(counted.keys, environment.id, client, user),
        channel: record.channel,
        claims: userClaimsOf(user, client, transaction.scope),
        authTime: Math.floor(counted.now / 1000),
        sessionId: newSessionId(),
        notAfter: counted.now + AUTHORIZATION_CODE_TTL_SECONDS * 1000,
      });
      deps.log.info(LOG_EVENTS.authorizationGranted, {
        client: client.id,
        environment: environment.id,
        user: logHandleOf(counted.userKey),
      });
      const parameters = { code: authorizationCode, state: transaction.state, iss: context.issuer };
      return responseTo(transaction.redirectUri, parameters, {
        responseMode: transaction.responseMode,
        locale: transaction.locale,
        clearTransaction: true,
      });
    });
  } catch (error) {
    const failure = pageFailure(error, strings, transaction.locale);
    return page(
      context,
      failure.status,
      codePage(environment, transaction, transaction, { error: failure.message }),
      transaction,
      failure.retryAfterSeconds,
    );
  }
  if (verification.verified) return verification.value;
  return page(
    context,
    400,
    codePage(environment, transaction, transaction, { error: refusalMessage(strings, verification.reason) }),
    transaction,
  );
}

/**
 * What the page tells a user whose code was refused: only what they can act on. Not a code at
 * all: retype it; a wrong code with tries left: try again; anything else (expired, spent, used,
 * or a wrong code on its last try) is a dead code: send a new one.
 */
function refusalMessage(strings: (typeof LOGIN_PAGES)[Locale], reason: RejectionReason): string {
  if (reason === 'malformed') return strings.invalidCode;
  if (reason === 'wrong_code') return strings.wrongCode;
  return strings.codeDead;
}

/** A failure of a send or a check as the page says it; a bug stays a bug (rethrown: a 500). */
function pageFailure(
  error: unknown,
  strings: (typeof LOGIN_PAGES)[Locale],
  locale: Locale,
): { status: number; message: string; retryAfterSeconds?: number } {
  if (error instanceof TooManyRequestsError) {
    const retryIn = new Intl.RelativeTimeFormat(locale, { numeric: 'always' }).format(...relativeTime(error.retryAfterSeconds));
    const message = error.limit === 'phone_sends' ? strings.tooManySends(retryIn) : strings.blocked(retryIn);
    return { status: 429, message, retryAfterSeconds: error.retryAfterSeconds };
  }
  if (error instanceof DeliveryFailedError)
    return { status: 502, message: strings.deliveryFailed, retryAfterSeconds: error.retryAfterSeconds };
  if (error instanceof TemporarilyUnavailableError) {
    const message = error.unavailable === 'phone_sends' ? strings.phoneUnavailable : strings.unavailable;
    return { status: 503, message, retryAfterSeconds: error.retryAfterSeconds };
  }
  // The fraud guards' refusals (docs/decisions/008-sms-fraud-guards.md) say what still works, never why.
  if (error instanceof DestinationNotAllowedError) return { status: 403, message: strings.destinationNotAllowed };
  if (error instanceof IdpError && error.statusCode < 500) return { status: error.statusCode, message: strings.invalidUserId };
  throw error;
}

/**
 * Seconds as the largest whole unit that reads naturally: "in 45 seconds", "in 5 minutes", "in 2
 * hours". Rounded up, so the page never promises an earlier time than Retry-After; at least 1.
 */
export function relativeTime(seconds: number): [number, Intl.RelativeTimeFormatUnit] {
  if (seconds < 90) return [Math.max(1, seconds), 'second'];
  if (seconds < 90 * 60) return [Math.ceil(seconds / 60), 'minute'];
  return [Math.ceil(seconds / 3600), 'hour'];
}

async function page(
  context: PageContext,
  status: number,
  model: LoginPageModel,
  transaction: LoginTransaction,
  retryAfterSeconds?: number,
): Promise<AuthorizeOutcome> {
  const keys = await context.deps.hmacKeys();
  return {
    kind: 'page',
    status,
    page: model,
    transaction: await sealTransaction(keys, transaction, context.deps.clock.now()),
    // The code form's success is a redirect to the client: CSP form-action must allow it.
    formTargets: model.view === 'code' ? [new URL(transaction.redirectUri).origin] : [],
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  };
}

function userPage(
  environment: EnvironmentConfig,
  client: ClientConfig,
  transaction: LoginTransaction,
  extra: { userId?: string; error?: string } = {},
): LoginPageModel {
  return {
    view: 'user',
    locale: transaction.locale,
    service: environment.serviceName,
    csrf: transaction.csrf,
    userId: extra.userId ?? transaction.loginHint,
    offerVoice: client.channels.includes('voice') && environment.voice !== undefined,
    error: extra.error,
  };
}

function codePage(
  environment: EnvironmentConfig,
  before: LoginTransaction,
  after: LoginTransaction,
  extra: { error?: string; notice?: string },
): LoginPageModel {
  const user = after.user ?? before.user;
  return {
    view: 'code',
    locale: after.locale,
    service: environment.serviceName,
    csrf: after.csrf,
    destination: user === undefined ? '' : maskDestination(user),
    channel: after.channel ?? 'email',
    error: extra.error,
    notice: extra.notice,
  };
}

/**
 * Where the code went, masked: enough for the user to recognise their own address, not enough to
 * learn one from a screenshot. `alice@example.com` → `a•••@example.com`; `+14155552671` →
 * `+1 ••• 2671`.
 */
export function maskDestination(user: UserIdentity): string {
  if (user.authType === 'email') {
    const at = user.value.lastIndexOf('@');
    return `${user.value.slice(0, 1)}•••${user.value.slice(at)}`;
  }
  const country = countryCallingCodeOf(user.value);
  return `${country === undefined ? '' : `+${country} `}••• ${user.value.slice(-4)}`;
}

/**
 * The locale of the page: the first supported of `ui_locales` (OIDC Core §3.1.2.1, in order of
 * preference), then of Accept-Language (RFC 9110 §12.5.4, by quality; `q=0` means "not this"),
 * then the default environment's. A tag counts when its language is one the service speaks
 * (`pt` → pt-BR, `de-AT` → de-DE).
 */
export function pickLocale(uiLocales: string | undefined, acceptLanguage: string | undefined, config: ServiceConfig): Locale {
  const fallback = config.environment(undefined)?.defaultLocale ?? 'en-US';
  const candidates = [...(uiLocales ?? '').split(' ').slice(0, 10), ...byQuality(acceptLanguage)].filter(
    (tag) => tag !== '' && tag !== '*',
  );
  for (const candidate of candidates) {
    const resolved = resolveLocale(candidate, fallback);
    const language = candidate.toLowerCase().split(/[-_]/)[0];
    if (SUPPORTED_LOCALES.some((locale) => locale === resolved && locale.toLowerCase().startsWith(`${language}-`))) return resolved;
  }
  return fallback;
}

/** Accept-Language's tags, the most preferred first (a stable sort keeps the header's order among equals). */
function byQuality(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .slice(0, 20)
    .map((part) => {
      const [tag = '', ...parameters] = part.split(';').map((piece) => piece.trim());
      const q = parameters.find((parameter) => /^q=/i.test(parameter));
      const quality = q === undefined ? 1 : Number(q.slice(2));
      return { tag, quality: Number.isFinite(quality) ? quality : 0 };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality)
    .map((entry) => entry.tag);
}

/**
 * The authorization response (or error response) to the client: a 302 with `parameters` in the
 * redirect URI's query (RFC 6749 §4.1.2), or with `form_post` a page that posts them there.
 */
function responseTo(
  redirectUri: string,
  parameters: Record<string, string | undefined>,
  options: { responseMode: 'form_post' | undefined; locale: Locale; clearTransaction: boolean },
): AuthorizeOutcome {
  if (options.responseMode === undefined) {
    return { kind: 'redirect', location: redirectWith(redirectUri, parameters), clearTransaction: options.clearTransaction };
  }
  const given: Record<string, string> = {};
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) given[name] = value;
  return { kind: 'form_post', action: redirectUri, parameters: given, locale: options.locale, clearTransaction: options.clearTransaction };
}

/** The redirect URI with `parameters` added to its query (RFC 6749 §4.1.2: keeping any query it has). */
export function redirectWith(redirectUri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
