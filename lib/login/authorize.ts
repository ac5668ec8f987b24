/**
 * `GET /idp/v1/account/authorize` and the page's form posts: the OAuth 2.1 / RFC 6749 §4.1
 * authorization endpoint, with OpenID Connect Core 1.0 §3.1.2, whose ways to authenticate a user
 * are a one-time code and, once the user has created one after a code, a passkey.
 *
 * The request (§4.1.1, OIDC §3.1.2.1): `response_type=code`, `client_id`, `redirect_uri` (an
 * exact match of a registered one), `scope`, `state`, `nonce`, `code_challenge` with
 * `code_challenge_method=S256` (required of public clients; a confidential client registered with
 * `requirePkce: false` may send a `nonce` instead, RFC 9700 §2.1.1), `response_mode` (`query`,
 * the default, or `form_post`: OAuth 2.0 Form Post Response Mode), `login_hint`, `ui_locales`,
 * `prompt`, `acr_values` (`phr`: a passkey login or none; others ignored), `env_id`. An unknown
 * client or an unregistered redirect URI gets an error page, never a redirect (§4.1.2.1: the
 * redirect could be an attacker's). Any other problem is a response to the client with `error`,
 * `error_description`, `state` and `iss` (RFC 9207), in the response mode asked for when it is
 * one the service knows.
 *
 * The page:
 * 1. one input for an email address or a phone number (and, for phones, SMS or a voice call); the
 *    code is sent by the same operation as `otp/send` (same normalisation, limits, code rules and
 *    templates), and the page never says whether the address is known (except to a client with
 *    `passkeys: required`, which sends no code to a user who has a passkey: 403). Beside it, unless
 *    the client has passkeys `off`, "Sign in with a passkey" (docs/decisions/016-passkeys.md):
 *    the assertion is checked against the page's challenge (lib/login/passkey-login.ts), then the
 *    same session, authorization code and redirect as a code login, by the passkey's method;
 * 2. one input for the code, checked by the same rules as the token endpoint (the per-user limit,
 *    the failure cap, 3 tries per code); on success, a new authorization code and a 302 to the
 *    client with `code`, `state` and `iss`; or, when the page's script found a platform
 *    authenticator (`webauthn=1`) and the browser did not say "Not now", the passkeys page: the
 *    session starts without a code, the user's passkeys are listed (create one within
 *    ENROLMENT_SECONDS, remove one), and "continue" (or "Not now") logs in with the session.
 *
 * Single sign-on (docs/decisions/014-sso-sessions.md): a code checked on the page (or a passkey)
 * starts a session for the environment (lib/sessions/), whose cookie holds only a reference. A
 * later request of the same environment with a live session is answered at once with a code that
 * keeps the session's `auth_time`, `amr` and `sid` (OIDC Core §3.1.2.1–§3.1.2.3), unless the
 * client may not use the method the session came by (`acceptsMethod`; `acr_values=phr` takes only
 * a passkey's), `prompt=login` or a `max_age` the session's `auth_time` is older than asks for a
 * new login, or a `login_hint` or `id_token_hint` names another user (never a silent switch).
 * `prompt=none` answers a code or `login_required`; `prompt=select_account` offers "continue as
 * a•••@example.com" or another account. A login for a user with a live session in the browser
 * re-authenticates that session (same `sid`); for another user it starts a new one and ends the
 * other, as a logout does.
 *
 * DynamoDB requests (docs/decisions/007-hosted-login.md, 016-passkeys.md): showing the page, none
 * (one read with a session cookie, unless `prompt=login`); a login a session serves, two (the
 * session's read, then one transaction: its touch and the authorization code); sending a code,
 * otp/send's (plus one Query of the user's passkeys for a client with `passkeys: required`: with
 * one, no code); checking a code, the OTP grant's,
 * plus on success one transaction (the session and the authorization code), or for the passkeys
 * page the session's Put and the user's passkeys (a Query, and a BatchGetItem of those it finds),
 * and with a session cookie the session's read; on the passkeys page, creating a passkey the list
 * and one Put, removing one a Delete and the list, continuing the session's read and one
 * transaction; a passkey sign-in, two (the credential's GetItem, then one transaction: the
 * credential's count, the spent challenge, the user's block check, the session and the
 * authorization code), three with a session cookie (its read), and a refusal of a credential
 * found, its GetItem and the user's failure count (test/http/authorize.test.ts and
 * test/http/passkeys.test.ts, "DynamoDB requests per step"; test/http/sessions.test.ts).
 */
import { acceptsMethod, usesHostedLogin, type ClientConfig, type EnvironmentConfig, type ServiceConfig } from '../platform/config';
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
import { isPasskeyMethod, RESPONSE_MODES, type Channel, type LoginMethod } from '../platform/vocabulary';
import { maxLengthOf, pickLocale, redirectWith } from './request-parameters';
import { PHISHING_RESISTANT_ACR, subjectFor, userClaimsOf } from '../oauth/access-tokens';
import { newSessionId } from '../oauth/sessions';
import { AUTHORIZATION_CODE_TTL_SECONDS, authorizationCodeHash, mintAuthorizationCode } from '../oauth/authorization-codes';
import { S256_CHALLENGE_PATTERN } from '../otp/codes';
import { beginVerify, verifyCode, type RejectionReason, type Verification, type VerifyCodeDeps } from '../otp/verify';
import { logHandleOf, userKeyOf, type HmacKeys } from '../keys/hmac-keys';
import { inferAuthType, normaliseUser, type UserIdentity } from '../identity/identity';
import { countryCallingCodeOf, normalisePhone } from '../phone/phone-validation';
import {
  csrfMatches,
  largestFormOf,
  MAX_SEALED_TRANSACTION_LENGTH,
  newCsrfToken,
  openSealedTransaction,
  sealTransaction,
  type LoginTransaction,
} from './login-transaction';
import type { LoginPageModel } from './login-page';
import { grantScope, hasScope, scopesOf } from '../oauth/scopes';
import { beginIssue, checkChannel, issueCode, type IssueCodeDeps, type TimeLeft } from '../otp/issue';
import { newChallenge } from '../passkeys/ceremonies';
import { PasskeySignInRefusedError, type PasskeyRecord, type PasskeySignIn } from '../passkeys/ports';
import {
  checkAssertion,
  creationOptions,
  ENROLMENT_SECONDS,
  listItemsOf,
  methodOf,
  offersPasskeys,
  refuseFound,
  registerPasskey,
  relyingPartyFor,
  removePasskey,
  signInOptions,
  userHandleOf,
  type CeremonyScope,
  type PasskeyLoginDeps,
  type SignedInUser,
} from './passkey-login';

export interface AuthorizeDeps extends IssueCodeDeps, VerifyCodeDeps, EndSessionsDeps, PasskeyLoginDeps {
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
      /** The session cookie to set: the passkeys page follows a login by code whose session has started. */
      readonly session?: SessionCookieChange;
    }
  | {
      readonly kind: 'redirect';
      readonly location: string;
      readonly clearTransaction: boolean;
      readonly session?: SessionCookieChange;
      readonly passkeyLater?: PasskeyLater;
    }
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
      readonly passkeyLater?: PasskeyLater;
    };

/** "Not now" on the passkeys page: the cookie that keeps the offer away from this browser (lib/login/passkey-login.ts). */
export interface PasskeyLater {
  readonly environmentId: string;
  /** The environment's `passkeys.askAgainDays`: the cookie's lifetime. */
  readonly days: number;
}

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
  'acr_values',
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
  // OIDC Core §3.1.2.1: acr_values are voluntary. The one the service knows, `phr`, it takes as a
  // requirement (a passkey login, or none: no code form, no code session, `prompt=none` answers
  // login_required); others it ignores. A client with passkeys off cannot have it: its request goes
  // on as without it, and its tokens carry no `acr` (the client sees what it got).
  const requirePasskey = scopesOf(one('acr_values')).includes(PHISHING_RESISTANT_ACR) && offersPasskeys(client);

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
    ...(requirePasskey ? { requirePasskey: true } : {}),
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
    requirePasskey,
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
  return page(context, 200, userPage(context, transaction));
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
  /** `acr_values=phr`: only a session a passkey started serves. */
  readonly requirePasskey: boolean;
}

/**
 * The browser's live session that may serve this request without a code, if any (OIDC Core
 * §3.1.2.1): none when the request asks for a new login (`prompt=login`, `max_age=0`: no read at
 * all), when the session's `auth_time` is `max_age` or more seconds ago, when it came by a
 * method the client may not use (a channel it does not allow, a passkey with passkeys off) or that
 * is not a passkey where `acr_values=phr` asks for one, or when a `login_hint` or `id_token_hint`
 * names someone else.
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
  if (!servesMethod(wanted.client, session.channel, wanted.requirePasskey)) return undefined;
  if (wanted.maxAge !== undefined && Math.floor(now / 1000) - session.authTime >= wanted.maxAge) return undefined;
  if (wanted.loginHint !== undefined && !namesUser(wanted.loginHint, session.user)) return undefined;
  if (wanted.idTokenHint !== undefined && !(await hintNamesUser(deps, keys, wanted, session))) return undefined;
  return session;
}

/** Whether a login by `method` may serve `client`, and the request when it asked for a passkey (`acr_values=phr`). */
function servesMethod(client: ClientConfig, method: LoginMethod, requirePasskey: boolean | undefined): boolean {
  return acceptsMethod(client, method) && (requirePasskey !== true || isPasskeyMethod(method));
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
 *
 * `renewal`: the login by code the passkeys page followed, which re-authenticates this session of
 * its user now (its `auth_time` and method), in the same transaction as the code (lib/login/passkey-login.ts).
 */
async function loginWithSession(
  context: Pick<PageContext, 'deps' | 'environment' | 'client' | 'transaction' | 'issuer'>,
  session: SessionRecord,
  clearTransaction: boolean,
  renewal?: { readonly channel: Channel; readonly authTime: number },
): Promise<AuthorizeOutcome | undefined> {
  const { deps, environment, client, transaction } = context;
  const keys = await deps.hmacKeys();
  const now = deps.clock.now();
  const authorizationCode = mintAuthorizationCode();
  const record = codeRecordOf(keys, authorizationCode, context, {
    user: session.user,
    userKey: session.userKey,
    channel: renewal?.channel ?? session.channel,
    authTime: renewal?.authTime ?? session.authTime,
    sid: session.sid,
    now,
  });
  const written =
    renewal === undefined
      ? await deps.sessions.use(sessionUseOf(environment, session, client.id, now), record)
      : await deps.sessions.renew(sessionRenewalOf(environment, session, { clientId: client.id, ...renewal, now }), record);
  if (!written) return undefined;
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
    readonly channel: LoginMethod;
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
  /** Whether the browser said "Not now" to an environment's passkey offer (its cookie: lib/login/passkey-login.ts); absent: never. */
  readonly passkeyLater?: ((environmentId: string) => boolean) | undefined;
}

/**
 * Handles a form post of the page: send (or resend) a code, check it, sign in with a passkey,
 * create or remove one on the passkeys page, continue (as the account page's or the passkeys
 * page's session, or "Not now"), or start over.
 */
export async function continueAuthorization(deps: AuthorizeDeps, form: AuthorizationForm): Promise<AuthorizeOutcome> {
  const keys = await deps.hmacKeys();
  const sealed = await openSealedTransaction(keys, form.cookie, deps.clock.now());
  const transaction = sealed?.transaction;
  const environment = transaction === undefined ? undefined : deps.config.environment(transaction.environmentId);
  const client = transaction === undefined ? undefined : deps.config.client(transaction.clientId);
  if (
    sealed === undefined ||
    transaction === undefined ||
    environment === undefined ||
    client === undefined ||
    !usesHostedLogin(client) ||
    !csrfMatches(transaction, form.fields.csrf)
  ) {
    deps.log.info(LOG_EVENTS.authorizationRefused, { reason: 'transaction or csrf' });
    const locale = transaction?.locale ?? deps.config.environment(undefined)?.defaultLocale ?? 'en-US';
    return expiredPage(locale);
  }
  const context: PageContext = {
    deps,
    environment,
    client,
    transaction,
    issuer: form.issuer,
    sourceIp: form.sourceIp,
    timeLeft: form.timeLeft,
    sessionReference: form.sessionReference(environment.id),
    transactionExpiresAt: sealed.expiresAt,
    passkeyLater: form.passkeyLater?.(environment.id) ?? false,
  };
  // After a login by code (the passkeys page) the code's steps are over: a post of one starts over.
  const codeStep = form.fields.action === 'send' || form.fields.action === 'resend' || form.fields.action === 'verify';
  if (codeStep && transaction.signedIn !== undefined) return restart(context);
  switch (form.fields.action) {
    case 'continue':
      return continueAsSession(context);
    case 'later':
      return continueLater(context);
    case 'send':
      return sendFromPage(context, form.fields.user_id, form.fields.channel);
    case 'resend':
      if (transaction.user === undefined) return restart(context);
      return deliver(context, transaction.user, transaction.channel ?? transaction.user.authType, true);
    case 'verify':
      if (transaction.user === undefined) return restart(context);
      return verify(context, transaction.user, form.fields.code, form.fields.webauthn === '1');
    case 'passkey':
      return signInWithPasskey(context, form.fields.credential);
    case 'passkey_register':
      return registerFromPage(context, form.fields.credential, form.fields.failure);
    case 'passkey_remove':
      return removeFromPage(context, form.fields.passkey);
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
  /** Epoch s: when the posted transaction cookie expires (and with it the challenge it carries). */
  readonly transactionExpiresAt: number;
  /** The browser said "Not now" to the environment's passkey offer. */
  readonly passkeyLater: boolean;
}

/** What building a page needs: the endpoint's dependencies, the transaction's environment and client, the issuer. */
type ViewContext = Pick<PageContext, 'deps' | 'environment' | 'client' | 'issuer'>;

/** A page to show, and the transaction to seal with it (with the challenge of its passkey parts). */
interface Shown {
  readonly model: LoginPageModel;
  readonly transaction: LoginTransaction;
}

/**
 * "Continue" on the account page (`prompt=select_account`) or the passkeys page: the session the
 * page offered, if it is still the browser's and still live; else the page starts over with the
 * address. The passkeys page's login by code re-authenticates the browser's earlier session of
 * its user here, in the transaction that writes the authorization code.
 */
async function continueAsSession(context: PageContext): Promise<AuthorizeOutcome> {
  const { deps, environment, client, transaction } = context;
  const { signedIn, user } = transaction;
  if ((signedIn === undefined ? transaction.sessionSid : user) === undefined || context.sessionReference === undefined) {
    return restart(context);
  }
  const keys = await deps.hmacKeys();
  const session = await deps.sessions.find(sessionKeyOf(keys, context.sessionReference));
  const now = deps.clock.now();
  // The account page offered one session (its sid); the passkeys page, the session of the user its code proved.
  const offered = (candidate: SessionRecord): boolean =>
    signedIn === undefined || user === undefined ? candidate.sid === transaction.sessionSid : candidate.userKey === userKeyOf(keys, user);
  const renewal =
    signedIn?.renew === true && transaction.channel !== undefined
      ? { channel: transaction.channel, authTime: signedIn.authTime }
      : undefined;
  if (
    session === undefined ||
    !offered(session) ||
    !isSessionLive(environment, session, now) ||
    !servesMethod(client, renewal?.channel ?? session.channel, transaction.requirePasskey)
  ) {
    return restart(context);
  }
  return (await loginWithSession(context, session, true, renewal)) ?? restart(context);
}

/** "Not now" on the passkeys page: continue, and keep the offer away from this browser for a while. */
async function continueLater(context: PageContext): Promise<AuthorizeOutcome> {
  const outcome = await continueAsSession(context);
  if (outcome.kind === 'page' || context.transaction.signedIn === undefined) return outcome;
  return { ...outcome, passkeyLater: { environmentId: context.environment.id, days: context.environment.passkeys.askAgainDays } };
}

async function restart(context: PageContext): Promise<AuthorizeOutcome> {
  return page(context, 200, userPage(context, atUserStep(context.transaction)));
}

/** The transaction back at the user page: no address, channel, account page's session or login by code. */
function atUserStep(transaction: LoginTransaction): LoginTransaction {
  const { user, channel, sessionSid, signedIn, ...rest } = transaction;
  return rest;
}

async function sendFromPage(context: PageContext, rawUserId: unknown, rawChannel: unknown): Promise<AuthorizeOutcome> {
  const strings = LOGIN_PAGES[context.transaction.locale];
  // acr_values=phr: the page offers no code form, and sends no code to a post of one.
  if (context.transaction.requirePasskey === true) return passkeyRequired(context, context.transaction);
  const typed = typeof rawUserId === 'string' ? rawUserId.slice(0, 320) : '';
  let user: UserIdentity;
  try {
    user = normaliseUser(inferAuthType(typed), typed, normalisePhone);
  } catch {
    return page(context, 400, userPage(context, context.transaction, { userId: typed, error: strings.invalidUserId }));
  }
  const channel: Channel = user.authType === 'email' ? 'email' : rawChannel === 'voice' ? 'voice' : 'sms';
  try {
    checkChannel(context.client, context.environment, channel);
  } catch {
    return page(context, 400, userPage(context, context.transaction, { userId: typed, error: strings.invalidUserId }));
  }
  return deliver(context, user, channel, false);
}

/**
 * The user page again, saying that only a passkey signs in here: 403, no code sent. For a request
 * with `acr_values=phr`, and for a client with `passkeys: required` and a user who has a passkey.
 */
async function passkeyRequired(context: PageContext, transaction: LoginTransaction, userId?: string): Promise<AuthorizeOutcome> {
  const { user, channel, ...rest } = transaction;
  const error = LOGIN_PAGES[transaction.locale].passkeyRequired;
  return page(context, 403, userPage(context, rest, { userId, error }));
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
    return expiredPage(context.transaction.locale);
  }
  // Every send request counts, whatever becomes of it.
  const transaction: LoginTransaction = { ...context.transaction, sends };
  if (transaction.requirePasskey === true) return passkeyRequired(context, transaction);
  const strings = LOGIN_PAGES[transaction.locale];
  const next: LoginTransaction = { ...transaction, user: { authType: user.authType, value: user.value }, channel };
  try {
    const attempt = await beginIssue(deps, environment, user);
    // A client that requires passkeys after enrolment sends no code to a user who has one: one
    // Query of the user's passkeys, for such clients only.
    if (client.passkeys === 'required' && (await deps.passkeys.hasAny(environment.id, attempt.userKey))) {
      deps.log.info(LOG_EVENTS.authorizationRefused, {
        reason: 'passkey required',
        client: client.id,
        environment: environment.id,
        user: logHandleOf(attempt.userKey),
      });
      return await passkeyRequired(context, transaction, resend ? undefined : user.value);
    }
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
    const shown = resend
      ? { model: codePage(context, transaction, next, { error: failure.message }), transaction: next }
      : userPage(context, transaction, { userId: user.value, error: failure.message });
    return page(context, failure.status, shown, failure.retryAfterSeconds);
  }
  const model = codePage(context, transaction, next, resend ? { notice: strings.newCodeSent } : {});
  return page(context, 200, { model, transaction: next });
}

/**
 * Checks the code by the token endpoint's rules; on success, the authorization code and the
 * redirect, or, when the page's script found a platform authenticator (`webauthn`), the passkeys
 * page (unless the client has passkeys off or the browser said "Not now").
 */
async function verify(context: PageContext, user: UserIdentity, rawCode: unknown, webauthn: boolean): Promise<AuthorizeOutcome> {
  const { deps, environment, client, transaction } = context;
  if (transaction.requirePasskey === true) return passkeyRequired(context, transaction);
  const strings = LOGIN_PAGES[transaction.locale];
  const code = typeof rawCode === 'string' ? rawCode.trim() : '';
  const offerPasskeys = webauthn && offersPasskeys(client) && !context.passkeyLater;
  let verification: Verification<AuthorizeOutcome>;
  try {
    const counted = await beginVerify(deps, environment, user);
    const presented = { environment, client, user, redirectUri: transaction.redirectUri, code, codeChallenge: undefined };
    verification = await verifyCode(deps, counted, presented, async (record) => {
      const login = { user, userKey: counted.userKey, channel: record.channel, authTime: Math.floor(counted.now / 1000), now: counted.now };
      if (offerPasskeys) return passkeysAfterCode(context, counted.keys, login);
      const authorizationCode = mintAuthorizationCode();
      const session = await startSession(context, counted.keys, login, (sid) =>
        codeRecordOf(counted.keys, authorizationCode, context, { ...login, sid }),
      );
      return granted(context, counted.userKey, authorizationCode, session);
    });
  } catch (error) {
    const failure = pageFailure(error, strings, transaction.locale);
    const model = codePage(context, transaction, transaction, { error: failure.message });
    return page(context, failure.status, { model, transaction }, failure.retryAfterSeconds);
  }
  if (verification.verified) return verification.value;
  const model = codePage(context, transaction, transaction, { error: refusalMessage(strings, verification.reason) });
  return page(context, 400, { model, transaction });
}

/** A login by code, or by a passkey (its method then says which kind). */
interface Login {
  readonly user: UserIdentity;
  readonly userKey: string;
  readonly channel: LoginMethod;
  readonly authTime: number;
  readonly now: number;
}

/**
 * After a login by code in a browser that can hold a passkey: the session starts (no
 * authorization code yet: "continue" logs in with the session), and the page lists the user's
 * passkeys and offers to create one. A live session of the same user in the browser is
 * re-authenticated by "continue" instead (with the authorization code, in one transaction).
 */
async function passkeysAfterCode(
  context: PageContext,
  keys: HmacKeys,
  login: Login & { readonly channel: Channel },
): Promise<AuthorizeOutcome> {
  const { deps, environment } = context;
  const live = await liveSessionOf(context, keys, login.now);
  const started =
    live !== undefined && live.userKey === login.userKey
      ? { cookie: undefined, renew: true as const }
      : { ...(await startNewSession(context, keys, login, live, undefined)), renew: undefined };
  const passkeys = await deps.passkeys.listOf(environment.id, login.userKey);
  // The code's steps are over: their send count and any account page's session go; the code's channel stays (a renewal's method).
  const { sends, sessionSid, ...transaction } = context.transaction;
  const signedIn = { authTime: login.authTime, ...(started.renew === undefined ? {} : { renew: started.renew }) };
  const next: LoginTransaction = { ...transaction, channel: login.channel, signedIn };
  // The code was right and the user is logged in (the audit's code check); the client gets its
  // authorization code from the session when the user goes on ("continue": `session used`).
  deps.log.info(LOG_EVENTS.authorizationGranted, {
    client: context.client.id,
    environment: environment.id,
    user: logHandleOf(login.userKey),
    passkeysPage: true,
  });
  const owner = { userKey: login.userKey, user: login.user };
  return page(context, 200, passkeysPage(context, next, owner, passkeys), undefined, started.cookie);
}

/** The ceremonies' relying party and where they run, for the logs and the failure count. */
function ceremonyScope(context: ViewContext): CeremonyScope {
  const { deps, environment, client, issuer } = context;
  return { environment, client, rp: relyingPartyFor(deps.config, issuer, environment) };
}

/**
 * Sign-in with a passkey (WebAuthn L3 §7.2; lib/login/passkey-login.ts checks the assertion):
 * the same authorization code, session and redirect as a login by code, by the passkey's method.
 * The credential's new count, the challenge's single use and the user's block check are written
 * in the transaction that starts (or re-authenticates) the session, so either all of it happens
 * or none of it. Every refusal is the user page again with one message and a fresh challenge.
 */
async function signInWithPasskey(context: PageContext, rawCredential: unknown): Promise<AuthorizeOutcome> {
  const { deps, environment, client, transaction } = context;
  const challenge = transaction.passkeyChallenge;
  // Only the user page's challenge signs in: the passkeys page's is for a registration.
  if (challenge === undefined || transaction.signedIn !== undefined || !offersPasskeys(client)) return restart(context);
  const scope = ceremonyScope(context);
  const check = await checkAssertion(deps, scope, challenge, rawCredential);
  if (!check.ok) return passkeyFailed(context);
  const { passkey } = check;
  const keys = await deps.hmacKeys();
  const now = deps.clock.now();
  const method = methodOf(passkey);
  const login: Login = { user: passkey.user, userKey: passkey.userKey, channel: method, authTime: Math.floor(now / 1000), now };
  const signIn: PasskeySignIn = {
    environmentId: environment.id,
    credentialId: passkey.credentialId,
    userKey: passkey.userKey,
    previousSignCount: passkey.signCount,
    signCount: check.signCount,
    backupState: check.backupState,
    now,
    challenge,
    // The challenge was good only as long as the cookie that carried it; its record needs no longer.
    challengeExpiresAt: context.transactionExpiresAt,
  };
  const authorizationCode = mintAuthorizationCode();
  let session: SessionCookieChange;
  try {
    session = await startSession(context, keys, login, (sid) => codeRecordOf(keys, authorizationCode, context, { ...login, sid }), signIn);
  } catch (error) {
    if (!(error instanceof PasskeySignInRefusedError)) throw error;
    await refuseFound(deps, scope, STORAGE_REFUSALS[error.reason], passkey);
    return passkeyFailed(context);
  }
  return granted(context, passkey.userKey, authorizationCode, session, { method });
}

/**
 * A login's authorization code, handed to the client: logged, and the redirect (RFC 6749 §4.1.2
 * with RFC 9207's `iss`) that clears the transaction and sets the session's cookie.
 */
function granted(
  context: PageContext,
  userKey: string,
  authorizationCode: string,
  session: SessionCookieChange,
  fields: { readonly method?: LoginMethod } = {},
): AuthorizeOutcome {
  const { deps, environment, client, transaction } = context;
  deps.log.info(LOG_EVENTS.authorizationGranted, { client: client.id, environment: environment.id, user: logHandleOf(userKey), ...fields });
  const parameters = { code: authorizationCode, state: transaction.state, iss: context.issuer };
  const options = { responseMode: transaction.responseMode, locale: transaction.locale, clearTransaction: true };
  return { ...responseTo(transaction.redirectUri, parameters, options), session };
}

/** The storage's refusals of a passkey sign-in, as the log says them. */
const STORAGE_REFUSALS: Readonly<Record<PasskeySignInRefusedError['reason'], string>> = {
  // The same assertion (and cookie) again: its challenge is spent.
  challenge: 'replayed',
  // The credential was removed, or its count moved, since it was read.
  credential: 'credential_changed',
  blocked: 'blocked',
};

/** A refused passkey sign-in: the user page again, with a fresh challenge, never saying which check failed. */
async function passkeyFailed(context: PageContext): Promise<AuthorizeOutcome> {
  const { transaction } = context;
  return page(context, 400, userPage(context, atUserStep(transaction), { error: LOGIN_PAGES[transaction.locale].passkeyFailed }));
}

/**
 * Creates a passkey on the passkeys page: only after a login by code (`signedIn`), within
 * ENROLMENT_SECONDS of its check (else the expired page), for the user it proved.
 */
async function registerFromPage(context: PageContext, rawCredential: unknown, failure: unknown): Promise<AuthorizeOutcome> {
  const { deps, environment, client, transaction } = context;
  const { signedIn, user, passkeyChallenge } = transaction;
  if (signedIn === undefined || user === undefined || passkeyChallenge === undefined || !offersPasskeys(client)) {
    return expiredPage(transaction.locale);
  }
  if (Math.floor(deps.clock.now() / 1000) - signedIn.authTime > ENROLMENT_SECONDS) {
    deps.log.info(LOG_EVENTS.authorizationRefused, {
      reason: 'passkey enrolment too late',
      client: client.id,
      environment: environment.id,
    });
    return expiredPage(transaction.locale);
  }
  const owner = await signedInUserOf(context, user);
  // The user's passkeys first: the handle the options carried is theirs, or derived from this page's challenge.
  const listed = await deps.passkeys.listOf(environment.id, owner.userKey);
  const userHandle = userHandleOf(listed, passkeyChallenge);
  const registration = await registerPasskey(
    deps,
    ceremonyScope(context),
    { ...owner, userHandle },
    passkeyChallenge,
    rawCredential,
    failure,
  );
  const strings = LOGIN_PAGES[transaction.locale];
  if (!registration.ok) {
    return page(context, 400, passkeysPage(context, transaction, owner, listed, { error: strings.passkeyCreateFailed }));
  }
  const passkeys = [...listed, registration.passkey];
  return page(context, 200, passkeysPage(context, transaction, owner, passkeys, { notice: strings.passkeyCreated, created: true }));
}

/** Removes one of the signed-in user's passkeys on the passkeys page (only their own). */
async function removeFromPage(context: PageContext, rawId: unknown): Promise<AuthorizeOutcome> {
  const { deps, environment, client, transaction } = context;
  if (transaction.signedIn === undefined || transaction.user === undefined || !offersPasskeys(client))
    return expiredPage(transaction.locale);
  const { user } = transaction;
  const owner = await signedInUserOf(context, user);
  const removed = await removePasskey(deps, ceremonyScope(context), owner.userKey, rawId);
  // As after a registration: the index may still list what was just removed.
  const passkeys = (await deps.passkeys.listOf(environment.id, owner.userKey)).filter(
    (passkey) => !removed || passkey.credentialId !== rawId,
  );
  const notice = removed ? LOGIN_PAGES[transaction.locale].passkeyRemoved : undefined;
  return page(context, removed ? 200 : 400, passkeysPage(context, transaction, owner, passkeys, { notice }));
}

/** The user the passkeys page's login by code proved. */
async function signedInUserOf(context: PageContext, user: UserIdentity): Promise<Omit<SignedInUser, 'userHandle'>> {
  const keys = await context.deps.hmacKeys();
  return { userKey: userKeyOf(keys, user), user };
}

/**
 * The session of a login (by code or by a passkey), written with its authorization code
 * (`codeOf(sid)`) and, for a passkey, the passkey's own writes, in one transaction. The browser's
 * live session of the same user is re-authenticated (its `sid` and the clients it served stay; its
 * `auth_time`, `amr` and absolute lifetime start again); otherwise a new session starts, and a live
 * session of another user in this browser ends as a logout would (its relying parties are told):
 * one browser, one user per environment. Returns the cookie to set.
 */
async function startSession(
  context: PageContext,
  keys: HmacKeys,
  login: Login,
  codeOf: (sid: string) => AuthorizationCodeRecord,
  passkey?: PasskeySignIn,
): Promise<SessionCookieChange> {
  const { deps, environment, client } = context;
  const live = await liveSessionOf(context, keys, login.now);
  if (live !== undefined && live.userKey === login.userKey) {
    const renewal = sessionRenewalOf(environment, live, {
      clientId: client.id,
      channel: login.channel,
      authTime: login.authTime,
      now: login.now,
    });
    if (await deps.sessions.renew(renewal, codeOf(live.sid), passkey)) {
      logSession(deps, LOG_EVENTS.sessionStarted, client, environment, live, { renewed: true, method: login.channel });
      return { environmentId: environment.id, set: context.sessionReference as string };
    }
  }
  return (await startNewSession(context, keys, login, live, codeOf, passkey)).cookie;
}

/** The browser's live session of the environment, if it has one. */
async function liveSessionOf(context: PageContext, keys: HmacKeys, now: number): Promise<SessionRecord | undefined> {
  const previousKey = context.sessionReference === undefined ? undefined : sessionKeyOf(keys, context.sessionReference);
  const previous = previousKey === undefined ? undefined : await context.deps.sessions.find(previousKey);
  return previous !== undefined && isSessionLive(context.environment, previous, now) ? previous : undefined;
}

/**
 * A new session for `login` (with its authorization code, when it logs in to the client now; the
 * passkeys page's has none yet), ending `live` if it is another user's.
 */
async function startNewSession(
  context: PageContext,
  keys: HmacKeys,
  login: Login,
  live: SessionRecord | undefined,
  codeOf: ((sid: string) => AuthorizationCodeRecord) | undefined,
  passkey?: PasskeySignIn,
): Promise<{ readonly sid: string; readonly cookie: SessionCookieChange }> {
  const { deps, environment, client } = context;
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
    // The client is added when the session logs the user in to it ("continue" on the passkeys page).
    clients: codeOf === undefined ? [] : [client.id],
  };
  await deps.sessions.start(session, sessionKeepUntil(environment, session, login.now), codeOf?.(session.sid), passkey);
  logSession(deps, LOG_EVENTS.sessionStarted, client, environment, session, { renewed: false, method: login.channel });
  if (live !== undefined && live.userKey !== login.userKey) {
    // The new login stands whatever becomes of the old session's end (its own lifetimes still bound it).
    try {
      await endSession(deps, live.sessionKey, context.issuer);
    } catch (error) {
      deps.log.warn(LOG_EVENTS.sessionNotEnded, { environment: environment.id, session: sessionHandleOf(live.sessionKey), error });
    }
  }
  return { sid: session.sid, cookie: { environmentId: environment.id, set: reference } };
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

/** The expired page: the transaction is over (the cookie cleared); the user starts again from the app. */
function expiredPage(locale: Locale): AuthorizeOutcome {
  return { kind: 'page', status: 400, page: { view: 'expired', locale }, transaction: null, formTargets: [] };
}

/**
 * A page with its transaction sealed. A page with passkey parts keeps the challenge they were
 * built with; any other drops it, so that a challenge lives in exactly one sealed cookie and
 * expires with it (its spent record's TTL is that cookie's expiry).
 */
async function page(
  context: Pick<PageContext, 'deps'>,
  status: number,
  shown: Shown,
  retryAfterSeconds?: number,
  session?: SessionCookieChange,
): Promise<AuthorizeOutcome> {
  const { model } = shown;
  const { passkeyChallenge, ...withoutChallenge } = shown.transaction;
  const transaction = hasPasskeyParts(model) ? shown.transaction : withoutChallenge;
  const keys = await context.deps.hmacKeys();
  return {
    kind: 'page',
    status,
    page: model,
    transaction: await sealTransaction(keys, transaction, context.deps.clock.now()),
    // A form whose success is a redirect to the client (the code form, the account and passkeys
    // pages' continue, a passkey sign-in): CSP form-action must allow the redirect URI's origin.
    formTargets: leadsToClient(model) ? [new URL(transaction.redirectUri).origin] : [],
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(session === undefined ? {} : { session }),
  };
}

function hasPasskeyParts(model: LoginPageModel): boolean {
  return (model.view === 'user' && model.passkey !== undefined) || (model.view === 'passkeys' && model.registration !== undefined);
}

function leadsToClient(model: LoginPageModel): boolean {
  return (
    model.view === 'code' || model.view === 'account' || model.view === 'passkeys' || (model.view === 'user' && model.passkey !== undefined)
  );
}

/** Step 1, with a passkey sign-in (and a fresh challenge) unless the client has passkeys off. */
function userPage(context: ViewContext, transaction: LoginTransaction, extra: { userId?: string | undefined; error?: string } = {}): Shown {
  const { deps, environment, client } = context;
  const challenge = offersPasskeys(client) ? newChallenge() : undefined;
  const passkey =
    challenge === undefined
      ? undefined
      : {
          options: signInOptions(relyingPartyFor(deps.config, context.issuer, environment), challenge),
          codeAllowed: transaction.requirePasskey !== true,
        };
  return {
    model: {
      view: 'user',
      locale: transaction.locale,
      service: environment.serviceName,
      csrf: transaction.csrf,
      userId: extra.userId ?? transaction.loginHint,
      offerVoice: client.channels.includes('voice') && environment.voice !== undefined,
      ...(passkey === undefined ? {} : { passkey }),
      error: extra.error,
    },
    transaction: { ...transaction, passkeyChallenge: challenge },
  };
}

/**
 * The passkeys page after a login by code: the user's passkeys (each with a remove button), "Create
 * a passkey" with a fresh challenge while the login is recent enough to enrol, and continue (with
 * "Not now" until one was created here).
 */
function passkeysPage(
  context: ViewContext,
  transaction: LoginTransaction,
  owner: Omit<SignedInUser, 'userHandle'>,
  passkeys: readonly PasskeyRecord[],
  extra: { notice?: string | undefined; error?: string; created?: boolean } = {},
): Shown {
  const { deps, environment } = context;
  const authTime = transaction.signedIn?.authTime ?? 0;
  const challenge = Math.floor(deps.clock.now() / 1000) - authTime <= ENROLMENT_SECONDS ? newChallenge() : undefined;
  const rp = relyingPartyFor(deps.config, context.issuer, environment);
  return {
    model: {
      view: 'passkeys',
      locale: transaction.locale,
      service: environment.serviceName,
      csrf: transaction.csrf,
      destination: maskDestination(owner.user),
      passkeys: listItemsOf(passkeys),
      registration:
        challenge === undefined
          ? undefined
          : creationOptions(rp, { ...owner, userHandle: userHandleOf(passkeys, challenge) }, challenge, passkeys),
      offerLater: extra.created !== true,
      notice: extra.notice,
      error: extra.error,
    },
    transaction: { ...transaction, passkeyChallenge: challenge },
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

/** Step 2; its form carries the field the page script marks when the browser could create a passkey after it. */
function codePage(
  context: Pick<PageContext, 'environment' | 'client' | 'passkeyLater'>,
  before: LoginTransaction,
  after: LoginTransaction,
  extra: { error?: string; notice?: string },
): LoginPageModel {
  const user = after.user ?? before.user;
  return {
    view: 'code',
    locale: after.locale,
    service: context.environment.serviceName,
    csrf: after.csrf,
    destination: user === undefined ? '' : maskDestination(user),
    channel: after.channel ?? 'email',
    offerPasskeys: offersPasskeys(context.client) && !context.passkeyLater,
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
