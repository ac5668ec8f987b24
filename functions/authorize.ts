/**
 * Lambda: GET /idp/v1/account/authorize (the OAuth authorization endpoint) and the hosted login
 * page's form posts to the same URL. Wiring only; the endpoint is lib/login/authorize.ts and the
 * page lib/login/login-page.ts.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { IssuerDeps } from '../lib/deps';
import { authorizeDeps } from '../lib/deps/authorize';
import { continueAuthorization, startAuthorization, type AuthorizeDeps, type AuthorizeOutcome } from '../lib/login/authorize';
import { renderLoginPage } from '../lib/login/login-page';
import { FINISH_SEND_BUDGET_MS } from '../lib/platform/aws';
import { apiHandler, TIMEOUT_MARGIN_MS } from '../lib/platform/http/handler';
import { formPostResponse, htmlResponse, redirectResponse, transactionCookie } from '../lib/login/html';
import { renderFormPost } from '../lib/login/form-post';
import { issuerOf } from '../lib/platform/http/issuer';
import { header } from '../lib/platform/http/request';
import { cookieValue, isHttps, sessionReferenceOf, sessionSetCookie } from '../lib/sessions/session-cookie';
import { passkeyLaterCookieName, passkeyLaterSetCookie } from '../lib/login/passkey-login';
import type { ServiceConfig } from '../lib/platform/config';

export function createHandler(deps: () => AuthorizeDeps & IssuerDeps) {
  return apiHandler({ methods: ['GET', 'POST'], body: ['form'], cors: () => undefined }, async (event, context) => {
    const configured = deps();
    const issuer = issuerOf(configured.issuer, event);
    // The request's issuer in the deps too: a code sent by SMS names its host (lib/otp/issue.ts).
    const resolved = { ...configured, issuer };
    const sessionReference = (environmentId: string) => sessionReferenceOf(event, environmentId);
    const outcome =
      event.httpMethod === 'GET'
        ? await startAuthorization(resolved, {
            query: queryOf(event),
            acceptLanguage: header(event, 'accept-language'),
            issuer,
            sessionReference,
          })
        : await continueAuthorization(resolved, {
            fields: event.fields,
            cookie: transactionCookie(event),
            issuer,
            sessionReference,
            // The page sends codes as otp/send does: the same source IP, the same deadline.
            sourceIp: event.requestContext?.identity?.sourceIp,
            timeLeft: { remainingMs: () => context.getRemainingTimeInMillis(), neededMs: FINISH_SEND_BUDGET_MS + TIMEOUT_MARGIN_MS },
            passkeyLater: (environmentId) => cookieValue(event, passkeyLaterCookieName(environmentId)) === '1',
          });
    return withSessionCookie(event, resolved.config, outcome, respond(event, outcome));
  });
}

/**
 * The response with the session cookie an outcome sets (a login's redirect, or the passkeys page
 * that follows a login by code) and the passkey offer's "Not now" cookie, beside the
 * transaction's: all in `multiValueHeaders`, since API Gateway keeps only those of a header named
 * in both maps.
 */
function withSessionCookie(
  event: APIGatewayProxyEvent,
  config: ServiceConfig,
  outcome: AuthorizeOutcome,
  response: APIGatewayProxyResult,
): APIGatewayProxyResult {
  const change = outcome.session;
  const environment = change === undefined ? undefined : config.environment(change.environmentId);
  const later = outcome.kind === 'page' ? undefined : outcome.passkeyLater;
  const added = [
    ...(change === undefined || environment === undefined ? [] : [sessionSetCookie(event, environment, change)]),
    // On the transaction cookie's path: only the authorization endpoint reads it.
    ...(later === undefined
      ? []
      : [passkeyLaterSetCookie(later.environmentId, later.days, event.requestContext?.path ?? event.path, isHttps(event))]),
  ];
  if (added.length === 0) return response;
  const { 'Set-Cookie': transaction, ...headers } = response.headers ?? {};
  const cookies = [...(transaction === undefined ? [] : [String(transaction)]), ...added];
  return { ...response, headers, multiValueHeaders: { ...response.multiValueHeaders, 'Set-Cookie': cookies } };
}

function respond(event: APIGatewayProxyEvent, outcome: AuthorizeOutcome): APIGatewayProxyResult {
  if (outcome.kind === 'redirect') return redirectResponse(event, outcome.location, outcome.clearTransaction);
  if (outcome.kind === 'form_post') {
    return formPostResponse(
      event,
      outcome.action,
      renderFormPost(outcome.action, outcome.parameters, outcome.locale),
      outcome.clearTransaction,
    );
  }
  const cookie =
    outcome.transaction === undefined
      ? undefined
      : outcome.transaction === null
        ? ({ clear: true } as const)
        : { set: outcome.transaction };
  return htmlResponse(event, outcome.status, renderLoginPage(outcome.page), {
    formTargets: outcome.formTargets,
    cookie,
    retryAfterSeconds: outcome.retryAfterSeconds,
  });
}

/** Every value of every query parameter (API Gateway's multi-value form), so a repeated one is seen. */
function queryOf(event: APIGatewayProxyEvent): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) query[name] = [...(values ?? [])];
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) query[name] ??= value === undefined ? [] : [value];
  return query;
}

export const handler = createHandler(authorizeDeps);
