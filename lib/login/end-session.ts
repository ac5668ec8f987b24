/**
 * `GET` and `POST /idp/v1/account/logout`: the end-session endpoint of OpenID Connect
 * RP-Initiated Logout 1.0 (`end_session_endpoint` in discovery), where a relying party sends the
 * user to sign out of the service's single sign-on session.
 *
 * The request (§2): `id_token_hint`, `logout_hint` (accepted and ignored: the session to end is
 * the browser's, and a hint cannot name another), `client_id`, `post_logout_redirect_uri`,
 * `state`, `ui_locales`, and `env_id` as at the authorization endpoint; in the query of a GET or
 * the form of a POST (§2: "OPs MUST support the use of the HTTP GET and POST methods"). None may
 * be given twice.
 *
 * Steps:
 * 1. the hint, verified (lib/oauth/id-token-hints.ts: ours, for this issuer, an ID token, expired
 *    or not); one that does not verify is a suspect request, not an error (the user is asked);
 * 2. the client: `client_id`, else the hint's `aud`; with both, they must agree (§2: "the OP
 *    MUST verify that the Client Identifier matches the one used when issuing the ID Token");
 * 3. the environment: `env_id`, else the client's one environment when it may use only one
 *    other than the default, else the default (ID tokens carry no environment claim);
 * 4. the redirect: `post_logout_redirect_uri` only when it exactly matches one of that client's
 *    `postLogoutRedirectUris` (§3.1) and no hint failed to verify (§4: a failed validation means
 *    no post-logout redirection); otherwise it is never used;
 * 5. the session the browser's cookie names for that environment (one strongly consistent read);
 * 6. a hint that verified, whose `sid` is that session's (or with no session to end: §4, a logout
 *    is idempotent), and no unregistered redirect URI: the relying party proved it is the
 *    session's own, so the session ends at once. Anything else asks the user first (§2: "the OP
 *    MUST ask the End-User this question if an id_token_hint was not provided or if the supplied
 *    ID Token does not belong to the current OP session with the RP"): a page whose form posts a
 *    sealed copy of the validated request back here (lib/login/logout-confirmation.ts), bound to
 *    the session it would end. Nothing is redirected to before the user answers.
 *
 * Ending (lib/sessions/end-sessions.ts `endSession`): the session item is deleted, the refresh
 * token families that end with it are revoked, its clients' back-channel logout tokens queued;
 * the cookie is cleared. Then a 302 to the validated redirect URI with `state` (§3), or the
 * signed-out page in the user's language (`ui_locales`, then Accept-Language). "Stay signed in"
 * ends nothing and goes back the same way.
 *
 * A request that cannot be answered at all (a parameter repeated or too long, an unknown client
 * or environment, a hint and `client_id` that disagree) gets the error page, 400: never a
 * redirect (§4), never a 5xx.
 *
 * DynamoDB requests: a request that asks, one (the session read); a confirmation or a proven
 * request, the session read (a proven one only), its delete, the user index query, and one update
 * per refresh token family revoked.
 */
import type { ClientConfig, EnvironmentConfig, ServiceConfig } from '../platform/config';
import { LOG_EVENTS } from '../platform/log-events';
import type { LogFields } from '../platform/ports';
import { verifyIdTokenHint, type IdTokenHint } from '../oauth/id-token-hints';
import type { VerificationKeys } from '../keys/signing-keys';
import { endSession, type EndSessionsDeps } from '../sessions/end-sessions';
import { sessionKeyOf } from '../sessions/sessions';
import { maxLengthOf, pickLocale, redirectWith } from './request-parameters';
import { openConfirmation, sealConfirmation, type LogoutConfirmation } from './logout-confirmation';
import { ACTION_FIELD, CONFIRMATION_FIELD, LOGOUT_ACTIONS, type LogoutPageModel } from './logout-page';

export interface EndSessionDeps extends EndSessionsDeps {
  readonly verificationKeys: () => Promise<VerificationKeys>;
}

/** The parameters of §2, and `env_id`: none may be given twice. Also the request docs/openapi.json describes (infra/openapi/). */
export const END_SESSION_PARAMETERS = [
  'id_token_hint',
  'logout_hint',
  'client_id',
  'post_logout_redirect_uri',
  'state',
  'ui_locales',
  'env_id',
] as const;

/** What the endpoint answers: a page or a redirect, and the environment whose session cookie to clear. */
export type EndSessionOutcome =
  | {
      readonly kind: 'page';
      readonly status: number;
      readonly page: LogoutPageModel;
      /** Origins the page's form may end up at (CSP `form-action`): the validated redirect URI's, after the confirmation. */
      readonly formTargets: readonly string[];
      readonly clearSessionOf?: string;
    }
  | { readonly kind: 'redirect'; readonly location: string; readonly clearSessionOf?: string };

/** A logout request, or an answer of the confirmation page. */
export interface EndSessionRequest {
  /** The parameters given (the query of a GET, the form of a POST), each with its first value. */
  readonly parameters: Readonly<Record<string, string>>;
  /** The names given more than once. */
  readonly repeated: readonly string[];
  readonly acceptLanguage: string | undefined;
  readonly issuer: string;
  /** The session reference the request's cookie holds for an environment, if it holds one. */
  readonly sessionReference: (environmentId: string) => string | undefined;
}

/**
 * Whether a request is the confirmation page's answer rather than a relying party's request: the
 * page's form is the only one that carries the sealed confirmation.
 */
export function isConfirmationAnswer(parameters: Readonly<Record<string, string>>): boolean {
  return Object.hasOwn(parameters, CONFIRMATION_FIELD);
}

/** Handles a relying party's logout request (§2): ends the session at once when the request proves itself, else asks. */
export async function requestLogout(deps: EndSessionDeps, request: EndSessionRequest): Promise<EndSessionOutcome> {
  const one = (name: string): string | undefined => {
    const value = request.parameters[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const locale = pickLocale(one('ui_locales'), request.acceptLanguage, deps.config);
  const refuse = (reason: string, fields: LogFields = {}): EndSessionOutcome => {
    deps.log.info(LOG_EVENTS.logoutRefused, { reason, ...fields });
    return { kind: 'page', status: 400, page: { view: 'invalid', locale }, formTargets: [] };
  };
  if (END_SESSION_PARAMETERS.some((name) => request.repeated.includes(name))) return refuse('repeated');
  if (
    END_SESSION_PARAMETERS.some((name) => {
      const value = request.parameters[name];
      return value !== undefined && value.length > maxLengthOf(name);
    })
  ) {
    return refuse('too_long');
  }

  // 1. The hint.
  const presentedHint = one('id_token_hint');
  const hint =
    presentedHint === undefined ? undefined : await verifyIdTokenHint(await deps.verificationKeys(), request.issuer, presentedHint);

  // 2. The client.
  const clientId = one('client_id');
  if (clientId !== undefined && hint !== undefined && !hint.aud.includes(clientId)) return refuse('client_mismatch', { client: clientId });
  const namedClient = clientId ?? (hint?.aud.length === 1 ? hint.aud[0] : undefined);
  const client = namedClient === undefined ? undefined : deps.config.client(namedClient);
  // A client_id we do not know is a mistake; a hint's client removed since is only no redirect.
  if (clientId !== undefined && client === undefined) return refuse('unknown_client');

  // 3. The environment.
  const environment = environmentOf(deps.config, one('env_id'), client);
  if (environment === undefined || (client !== undefined && !client.environments.includes(environment.id))) {
    return refuse('environment', { client: client?.id });
  }

  // 4. The redirect: only to a registered URI of the client, and never after a hint that failed.
  const requestedRedirect = one('post_logout_redirect_uri');
  const redirectUri =
    requestedRedirect !== undefined &&
    client?.postLogoutRedirectUris.includes(requestedRedirect) === true &&
    (presentedHint === undefined || hint !== undefined)
      ? requestedRedirect
      : undefined;

  // 5. The browser's session in that environment.
  const reference = request.sessionReference(environment.id);
  const sessionKey = reference === undefined ? undefined : sessionKeyOf(await deps.hmacKeys(), reference);
  const found = sessionKey === undefined ? undefined : await deps.sessions.find(sessionKey);
  const session = found?.environmentId === environment.id ? found : undefined;

  // 6. Proven: end it now. Else ask.
  const confirmation: LogoutConfirmation = {
    environmentId: environment.id,
    sessionKey,
    clientId: client?.id,
    redirectUri,
    state: one('state'),
    locale,
  };
  const suspicion = suspicionOf(hint, presentedHint, session?.sid, requestedRedirect, redirectUri);
  if (suspicion === undefined) return finish(deps, environment, confirmation, { confirmed: false, issuer: request.issuer });
  deps.log.info(LOG_EVENTS.logoutAsked, { reason: suspicion, environment: environment.id, client: client?.id });
  return {
    kind: 'page',
    status: 200,
    page: {
      view: 'confirm',
      locale,
      service: environment.serviceName,
      confirmation: await sealConfirmation(await deps.hmacKeys(), confirmation, deps.clock.now()),
    },
    // The form's answer may be a 302 to the relying party: CSP form-action must allow its origin.
    formTargets: redirectUri === undefined ? [] : [new URL(redirectUri).origin],
  };
}

/** Handles the confirmation page's answer: "Sign out" ends the session it was asked for; "Stay signed in" ends nothing. */
export async function answerConfirmation(deps: EndSessionDeps, request: EndSessionRequest): Promise<EndSessionOutcome> {
  const confirmation = await openConfirmation(await deps.hmacKeys(), request.parameters[CONFIRMATION_FIELD], deps.clock.now());
  const environment = confirmation === undefined ? undefined : deps.config.environment(confirmation.environmentId);
  const locale = confirmation?.locale ?? pickLocale(undefined, request.acceptLanguage, deps.config);
  if (confirmation === undefined || environment === undefined || request.repeated.length > 0) {
    deps.log.info(LOG_EVENTS.logoutExpired, { reason: confirmation === undefined ? 'confirmation' : 'repeated' });
    return { kind: 'page', status: 400, page: { view: 'expired', locale }, formTargets: [] };
  }
  const action = request.parameters[ACTION_FIELD];
  if (action === LOGOUT_ACTIONS.decline) {
    deps.log.info(LOG_EVENTS.logoutDeclined, {
      environment: environment.id,
      client: confirmation.clientId,
      redirected: confirmation.redirectUri !== undefined,
    });
    return backToClient(confirmation, { view: 'still_signed_in', locale, service: environment.serviceName });
  }
  if (action !== LOGOUT_ACTIONS.confirm) {
    deps.log.info(LOG_EVENTS.logoutRefused, { reason: 'action', environment: environment.id });
    return { kind: 'page', status: 400, page: { view: 'invalid', locale }, formTargets: [] };
  }
  // The session the user was asked about must be the one this browser's cookie names now:
  // another site's confirmation is bound to its own cookie, or to none.
  const reference = request.sessionReference(environment.id);
  const sessionKey = reference === undefined ? undefined : sessionKeyOf(await deps.hmacKeys(), reference);
  if (sessionKey !== confirmation.sessionKey) {
    deps.log.info(LOG_EVENTS.logoutExpired, { reason: 'other_session', environment: environment.id, client: confirmation.clientId });
    return { kind: 'page', status: 400, page: { view: 'expired', locale }, formTargets: [] };
  }
  return finish(deps, environment, confirmation, { confirmed: true, issuer: request.issuer });
}

/**
 * Why a request must be confirmed by the user, or undefined when it proved itself: a hint that
 * verified and names the browser's session (or there is none to end), and no redirect URI that
 * could not be validated.
 */
function suspicionOf(
  hint: IdTokenHint | undefined,
  presentedHint: string | undefined,
  sid: string | undefined,
  requestedRedirect: string | undefined,
  redirectUri: string | undefined,
): string | undefined {
  if (presentedHint === undefined) return 'no_hint';
  if (hint === undefined) return 'invalid_hint';
  if (sid !== undefined && hint.sid !== sid) return 'other_session';
  if (requestedRedirect !== undefined && redirectUri === undefined) return 'unregistered_redirect';
  return undefined;
}

/** Ends the session the confirmation names (if any), clears its cookie, and goes back to the client or shows the signed-out page. */
async function finish(
  deps: EndSessionDeps,
  environment: EnvironmentConfig,
  confirmation: LogoutConfirmation,
  context: { readonly confirmed: boolean; readonly issuer: string },
): Promise<EndSessionOutcome> {
  const ended = confirmation.sessionKey === undefined ? undefined : await endSession(deps, confirmation.sessionKey, context.issuer);
  deps.log.info(LOG_EVENTS.loggedOut, {
    environment: environment.id,
    client: confirmation.clientId,
    confirmed: context.confirmed,
    ended: ended !== undefined,
    redirected: confirmation.redirectUri !== undefined,
  });
  const outcome = backToClient(confirmation, { view: 'signed_out', locale: confirmation.locale, service: environment.serviceName });
  // The cookie goes whether or not its session was still there: it names nothing any more.
  return { ...outcome, clearSessionOf: environment.id };
}

/** §3: a 302 to the validated post-logout redirect URI with `state`; without one, `page`. */
function backToClient(confirmation: LogoutConfirmation, page: LogoutPageModel): EndSessionOutcome {
  if (confirmation.redirectUri === undefined) return { kind: 'page', status: 200, page, formTargets: [] };
  return { kind: 'redirect', location: redirectWith(confirmation.redirectUri, { state: confirmation.state }) };
}

/**
 * The environment of a logout: `env_id`; else, for a client that may not use the default
 * environment and may use exactly one, that one (its logins can only have been there); else the
 * default. Undefined for an unknown `env_id`.
 */
function environmentOf(config: ServiceConfig, envId: string | undefined, client: ClientConfig | undefined): EnvironmentConfig | undefined {
  if (envId !== undefined) return config.environment(envId);
  const fallback = config.environment(undefined);
  const [only, ...others] = client?.environments ?? [];
  if (
    fallback !== undefined &&
    client !== undefined &&
    !client.environments.includes(fallback.id) &&
    only !== undefined &&
    others.length === 0
  ) {
    return config.environment(only);
  }
  return fallback;
}
