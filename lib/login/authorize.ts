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
 *
 * Single sign-on (docs/decisions/014-sso-sessions.md): a code checked on the page starts a session
 * for the environment (lib/sessions/), whose cookie holds only a reference. A later request of the
 * same environment with a live session is answered at once with a code that keeps the session's
 * `auth_time`, `amr` and `sid` (OIDC Core §3.1.2.1–§3.1.2.3), unless the client may not use the
 * channel the session's code came by, `prompt=login` or a `max_age` the session's `auth_time` is
 * older than asks for a new code, or a `login_hint` or `id_token_hint` names another user (never a
 * silent switch). `prompt=none` answers a code or `login_required`; `prompt=select_account` offers
 * "continue as a•••@example.com" or another account. A code checked for a user with a live session
 * in the browser re-authenticates that session (same `sid`); for another user it starts a new one
 * and ends the other, as a logout does.
 *
 * DynamoDB requests (docs/decisions/007-hosted-login.md): showing the page, none (one read with a
 * session cookie, unless `prompt=login`); a login a session serves, two (the session's read, then
 * one transaction: its touch and the authorization code); sending a code, otp/send's; checking a
 * code, the OTP grant's, plus on success one transaction (the session and the authorization code),
 * and with a session cookie the session's read (test/http/authorize.test.ts, "DynamoDB requests per
 * step"; test/http/sessions.test.ts).
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
import type { AuthorizationCodeRecord } from '../oauth/ports';
import type { SessionRecord } from '../sessions/ports';
import { endSession, type EndSessionsDeps } from '../sessions/end-sessions';
import {
  isSessionLive,
  newSessionReference,
  sessionHandleOf,
  sessionKeepUntil,
  sessionKeyOf,
  sessionRenewalOf,
  sessionUseOf,
} from '../sessions/sessions';
import type { SessionCookieChange } from '../sessions/session-cookie';
import { verifyIdTokenHint } from '../oauth/id-token-hints';
import type { VerificationKeys } from '../keys/signing-keys';
import { RESPONSE_MODES, type Channel } from '../platform/vocabulary';
import { maxLengthOf, pickLocale, redirectWith } from './request-parameters';
import { subjectFor, userClaimsOf } from '../oauth/access-tokens';
import { newSessionId } from '../oauth/sessions';
import { AUTHORIZATION_CODE_TTL_SECONDS, authorizationCodeHash, mintAuthorizationCode } from '../oauth/authorization-codes';
import { S256_CHALLENGE_PATTERN } from '../otp/codes';
import { beginVerify, verifyCode, type RejectionReason, type Verification, type VerifyCodeDeps } from '../otp/verify';
import { logHandleOf, type HmacKeys } from '../keys/hmac-keys';
import { inferAuthType, normaliseUser, type UserIdentity } from '../identity/identity';
import { countryCallingCodeOf, normalisePhone } from '../phone/phone-validation';
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

export interface AuthorizeDeps extends IssueCodeDeps, VerifyCodeDeps, EndSessionsDeps {
  readonly config: ServiceConfig;
  /** The service's public keys: an `id_token_hint` must be one of its ID tokens. */
  readonly verificationKeys: () => Promise<VerificationKeys>;
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
  | { readonly kind: 'redirect'; readonly location: string; readonly clearTransaction: boolean; readonly session?: SessionCookieChange }
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
      readonly session?: SessionCookieChange;
    };

export interface AuthorizationRequest {
  /** The query parameters, each with every value it was given. */
  readonly query: Readonly<Record<string, readonly string[]>>;
  readonly acceptLanguage: string | undefined;
  readonly issuer: string;
  /** The session reference the browser's cookie holds for an environment, if any (lib/sessions/session-cookie.ts). */
  readonly sessionReference: (environmentId: string) => string | undefined;
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
  'max_age',
  'id_token_hint',
] as const;

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
  if (Object.entries(request.query).some(([name, values]) => values.some((value) => value.length > maxLengthOf(name)))) {
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
  // OIDC Core §3.1.2.1: "If this parameter contains none with any other value, an error is returned."
  if (prompts.includes('none') && prompts.length > 1) return fail('invalid_request', 'prompt none cannot be combined with another value.');
  if (prompts.some((prompt) => !['none', 'login', 'consent', 'select_account'].includes(prompt)))
    return fail('invalid_request', 'prompt has an unknown value.');
  const maxAge = one('max_age');
  if (maxAge !== undefined && !/^\d{1,10}$/.test(maxAge)) return fail('invalid_request', 'max_age must be a whole number of seconds.');

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
  // a transaction the page keeps must fit as large as its flow makes it. Checked only where a page
  // is shown: a login a session serves keeps no transaction (and spares the sealing's CPU).
  const tooLarge = async (): Promise<AuthorizeOutcome | undefined> =>
    (await sealTransaction(keys, largestFormOf(transaction), now)).length > MAX_SEALED_TRANSACTION_LENGTH
      ? fail('invalid_request', 'The request is too large: its state, nonce, scope and other values must be shorter.')
      : undefined;

  const session = await reusableSession(deps, keys, now, {
    environment,
    client,
    issuer: request.issuer,
    reference: request.sessionReference(environment.id),
    prompts,
    maxAge: maxAge === undefined ? undefined : Number(maxAge),
    loginHint: transaction.loginHint,
    idTokenHint: one('id_token_hint'),
  });
  const context = { deps, environment, client, transaction, issuer: request.issuer };
  if (prompts.includes('none')) {
    // OIDC Core §3.1.2.6: no page may be shown; without a session that fits, login_required.
    const outcome = session === undefined ? undefined : await loginWithSession(context, session, false);
    return outcome ?? fail('login_required', 'The user must sign in.');
  }
  if (session !== undefined && !prompts.includes('select_account')) {
    const outcome = await loginWithSession(context, session, false);
    if (outcome !== undefined) return outcome;
  }
  const refusal = await tooLarge();
  if (refusal !== undefined) return refusal;
  if (session !== undefined && prompts.includes('select_account')) {
    const offered: LoginTransaction = { ...transaction, sessionSid: session.sid };
    return {
      kind: 'page',
      status: 200,
      page: accountPage(environment, offered, session),
      transaction: await sealTransaction(keys, offered, now),
      formTargets: [new URL(redirectUri).origin],
    };
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

/** What an authorization request asks of a session, to be served by one. */
interface SessionWanted {
  readonly environment: EnvironmentConfig;
  readonly client: ClientConfig;
  readonly issuer: string;
  readonly reference: string | undefined;
  readonly prompts: readonly string[];
  readonly maxAge: number | undefined;
  readonly loginHint: string | undefined;
  readonly idTokenHint: string | undefined;
}

/**
 * The browser's live session that may serve this request without a code, if any (OIDC Core
 * §3.1.2.1): none when the request asks for a new login (`prompt=login`, `max_age=0`: no read at
 * all), when the session's `auth_time` is `max_age` or more seconds ago, when its code came by a
 * channel the client may not use, or when a `login_hint` or `id_token_hint` names someone else.
 */
async function reusableSession(
  deps: AuthorizeDeps,
  keys: HmacKeys,
  now: number,
  wanted: SessionWanted,
): Promise<SessionRecord | undefined> {
  if (wanted.reference === undefined || wanted.prompts.includes('login') || wanted.maxAge === 0) return undefined;
  const session = await deps.sessions.find(sessionKeyOf(keys, wanted.reference));
  if (session === undefined || !isSessionLive(wanted.environment, session, now)) return undefined;
  if (!wanted.client.channels.includes(session.channel)) return undefined;
  if (wanted.maxAge !== undefined && Math.floor(now / 1000) - session.authTime >= wanted.maxAge) return undefined;
  if (wanted.loginHint !== undefined && !namesUser(wanted.loginHint, session.user)) return undefined;
  if (wanted.idTokenHint !== undefined && !(await hintNamesUser(deps, keys, wanted, session))) return undefined;
  return session;
}

/** Whether a `login_hint` is the session's user: the same address once normalised; anything unreadable is not. */
function namesUser(loginHint: string, user: UserIdentity): boolean {
  try {
    const hinted = normaliseUser(inferAuthType(loginHint), loginHint, normalisePhone);
    return hinted.authType === user.authType && hinted.value === user.value;
  } catch {
    return false;
  }
}

/**
 * Whether an `id_token_hint` is one of this service's ID tokens (expired ones included: OIDC Core
 * §3.1.2.1 uses it to name the user) whose `sub` is the session user's for the client it was issued
 * to. A hint that does not verify names nobody, so the user is asked for a code.
 */
async function hintNamesUser(deps: AuthorizeDeps, keys: HmacKeys, wanted: SessionWanted, session: SessionRecord): Promise<boolean> {
  const hint = await verifyIdTokenHint(await deps.verificationKeys(), wanted.issuer, wanted.idTokenHint as string);
  if (hint === undefined) return false;
  const audience = hint.aud.includes(wanted.client.id) ? wanted.client : deps.config.client(hint.aud[0] ?? '');
  if (audience === undefined || !audience.environments.includes(wanted.environment.id)) return false;
  return hint.sub === subjectFor(keys, wanted.environment.id, audience, session.user);
}

/**
 * Logs the user in to the client with `session`: the authorization code carries the session's
 * user, `auth_time`, channel and `sid`, and is written with the session's touch in one
 * transaction, on condition that the session is still live. Undefined when it no longer is (a
 * logout between the read and the write): the caller asks for a code instead.
 */
async function loginWithSession(
  context: Pick<PageContext, 'deps' | 'environment' | 'client' | 'transaction' | 'issuer'>,
  session: SessionRecord,
  clearTransaction: boolean,
): Promise<AuthorizeOutcome | undefined> {
  const { deps, environment, client, transaction } = context;
  const keys = await deps.hmacKeys();
  const now = deps.clock.now();
  const authorizationCode = mintAuthorizationCode();
  const record = codeRecordOf(keys, authorizationCode, context, {
    user: session.user,
    userKey: session.userKey,
    channel: session.channel,
    authTime: session.authTime,
    sid: session.sid,
    now,
  });
  if (!(await deps.sessions.use(sessionUseOf(environment, session, client.id, now), record))) return undefined;
  deps.log.info(LOG_EVENTS.sessionUsed, {
    client: client.id,
    environment: environment.id,
    user: logHandleOf(session.userKey),
    session: sessionHandleOf(session.sessionKey),
    age: Math.floor(now / 1000) - session.authTime,
  });
  const parameters = { code: authorizationCode, state: transaction.state, iss: context.issuer };
  return responseTo(transaction.redirectUri, parameters, {
    responseMode: transaction.responseMode,
    locale: transaction.locale,
    clearTransaction,
  });
}

/** The authorization code's record for a login of `login.user` to the transaction's client. */
function codeRecordOf(
  keys: HmacKeys,
  authorizationCode: string,
  context: Pick<PageContext, 'environment' | 'client' | 'transaction'>,
  login: {
    readonly user: UserIdentity;
    readonly userKey: string;
    readonly channel: Channel;
    readonly authTime: number;
    readonly sid: string;
    readonly now: number;
  },
): AuthorizationCodeRecord {
  const { environment, client, transaction } = context;
  return {
    codeHash: authorizationCodeHash(keys, authorizationCode),
    environmentId: environment.id,
    clientId: client.id,
    redirectUri: transaction.redirectUri,
    codeChallenge: transaction.codeChallenge,
    nonce: transaction.nonce,
    scope: transaction.scope,
    userKey: login.userKey,
    subject: subjectFor(keys, environment.id, client, login.user),
    channel: login.channel,
    claims: userClaimsOf(login.user, client, transaction.scope),
    authTime: login.authTime,
    sessionId: login.sid,
    notAfter: login.now + AUTHORIZATION_CODE_TTL_SECONDS * 1000,
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
  /** The session reference the browser's cookie holds for an environment, if any. */
  readonly sessionReference: (environmentId: string) => string | undefined;
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
  const context = {
    deps,
    environment,
    client,
    transaction,
    issuer: form.issuer,
    sourceIp: form.sourceIp,
    timeLeft: form.timeLeft,
    sessionReference: form.sessionReference(environment.id),
  };
  switch (form.fields.action) {
    case 'continue':
      return continueAsSession(context);
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
  /** The browser's session reference for the environment, if it has one. */
  readonly sessionReference: string | undefined;
}

/**
 * "Continue as …" on the account page (`prompt=select_account`): the session the page offered,
 * if it is still the browser's and still live; else the page starts over with the address.
 */
async function continueAsSession(context: PageContext): Promise<AuthorizeOutcome> {
  const { deps, environment, client, transaction } = context;
  if (transaction.sessionSid === undefined || context.sessionReference === undefined) return restart(context);
  const keys = await deps.hmacKeys();
  const session = await deps.sessions.find(sessionKeyOf(keys, context.sessionReference));
  const now = deps.clock.now();
  if (
    session === undefined ||
    session.sid !== transaction.sessionSid ||
    !isSessionLive(environment, session, now) ||
    !client.channels.includes(session.channel)
  ) {
    return restart(context);
  }
  return (await loginWithSession(context, session, true)) ?? restart(context);
}

async function restart(context: PageContext): Promise<AuthorizeOutcome> {
  const { user, channel, sessionSid, ...rest } = context.transaction;
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
      const login = { user, userKey: counted.userKey, channel: record.channel, authTime: Math.floor(counted.now / 1000), now: counted.now };
      const session = await startSession(context, counted.keys, login, (sid) =>
        codeRecordOf(counted.keys, authorizationCode, context, { ...login, sid }),
      );
      deps.log.info(LOG_EVENTS.authorizationGranted, {
        client: client.id,
        environment: environment.id,
        user: logHandleOf(counted.userKey),
      });
      const parameters = { code: authorizationCode, state: transaction.state, iss: context.issuer };
      return {
        ...responseTo(transaction.redirectUri, parameters, {
          responseMode: transaction.responseMode,
          locale: transaction.locale,
          clearTransaction: true,
        }),
        session,
      };
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
 * The session of a login by code, written with its authorization code (`codeOf(sid)`) in one
 * transaction. The browser's live session of the same user is re-authenticated (its `sid` and the
 * clients it served stay; its `auth_time`, `amr` and absolute lifetime start again); otherwise a
 * new session starts, and a live session of another user in this browser ends as a logout would
 * (its relying parties are told): one browser, one user per environment. Returns the cookie to set.
 */
async function startSession(
  context: PageContext,
  keys: HmacKeys,
  login: {
    readonly user: UserIdentity;
    readonly userKey: string;
    readonly channel: Channel;
    readonly authTime: number;
    readonly now: number;
  },
  codeOf: (sid: string) => AuthorizationCodeRecord,
): Promise<SessionCookieChange> {
  const { deps, environment, client } = context;
  const previousKey = context.sessionReference === undefined ? undefined : sessionKeyOf(keys, context.sessionReference);
  const previous = previousKey === undefined ? undefined : await deps.sessions.find(previousKey);
  const live = previous !== undefined && isSessionLive(environment, previous, login.now) ? previous : undefined;
  if (live !== undefined && live.userKey === login.userKey) {
    const renewal = sessionRenewalOf(environment, live, {
      clientId: client.id,
      channel: login.channel,
      authTime: login.authTime,
      now: login.now,
    });
    if (await deps.sessions.renew(renewal, codeOf(live.sid))) {
      logSession(deps, LOG_EVENTS.sessionStarted, client, environment, live, { renewed: true });
      return { environmentId: environment.id, set: context.sessionReference as string };
    }
  }
  const reference = newSessionReference();
  const session: SessionRecord = {
    sessionKey: sessionKeyOf(keys, reference),
    sid: newSessionId(),
    environmentId: environment.id,
    userKey: login.userKey,
    user: { authType: login.user.authType, value: login.user.value },
    channel: login.channel,
    authTime: login.authTime,
    createdAt: login.now,
    lastSeenAt: login.now,
    clients: [client.id],
  };
  await deps.sessions.start(session, sessionKeepUntil(environment, session, login.now), codeOf(session.sid));
  logSession(deps, LOG_EVENTS.sessionStarted, client, environment, session, { renewed: false });
  if (live !== undefined && live.userKey !== login.userKey) {
    // The new login stands whatever becomes of the old session's end (its own lifetimes still bound it).
    try {
      await endSession(deps, live.sessionKey, context.issuer);
    } catch (error) {
      deps.log.warn(LOG_EVENTS.sessionNotEnded, { environment: environment.id, session: sessionHandleOf(live.sessionKey), error });
    }
  }
  return { environmentId: environment.id, set: reference };
}

function logSession(
  deps: AuthorizeDeps,
  event: string,
  client: ClientConfig,
  environment: EnvironmentConfig,
  session: SessionRecord,
  extra: Record<string, unknown>,
): void {
  deps.log.info(event, {
    client: client.id,
    environment: environment.id,
    user: logHandleOf(session.userKey),
    session: sessionHandleOf(session.sessionKey),
    ...extra,
  });
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
    // The code form's success (and the account page's) is a redirect to the client: CSP form-action must allow it.
    formTargets: model.view === 'code' || model.view === 'account' ? [new URL(transaction.redirectUri).origin] : [],
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

/** The account page (`prompt=select_account`): continue as the session's user, or use another account. */
function accountPage(environment: EnvironmentConfig, transaction: LoginTransaction, session: SessionRecord): LoginPageModel {
  return {
    view: 'account',
    locale: transaction.locale,
    service: environment.serviceName,
    csrf: transaction.csrf,
    destination: maskDestination(session.user),
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
