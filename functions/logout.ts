/**
 * Lambda: GET and POST /idp/v1/account/logout, the end-session endpoint (OpenID Connect
 * RP-Initiated Logout 1.0), and its confirmation page's form posts to the same URL. Wiring only;
 * the endpoint is lib/login/end-session.ts and its pages lib/login/logout-page.ts.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { IssuerDeps } from '../lib/deps';
import { logoutDeps } from '../lib/deps/logout';
import {
  answerConfirmation,
  isConfirmationAnswer,
  requestLogout,
  type EndSessionDeps,
  type EndSessionOutcome,
  type EndSessionRequest,
} from '../lib/login/end-session';
import { htmlResponse, redirectResponse } from '../lib/login/html';
import { renderLogoutPage } from '../lib/login/logout-page';
import type { ServiceConfig } from '../lib/platform/config';
import { apiHandler } from '../lib/platform/http/handler';
import { issuerOf } from '../lib/platform/http/issuer';
import { header, queryValues, type ParsedEvent } from '../lib/platform/http/request';
import { sessionReferenceOf, sessionSetCookie } from '../lib/sessions/session-cookie';

export function createHandler(deps: () => EndSessionDeps & IssuerDeps) {
  // A repeated form field is the endpoint's to answer, with its error page (not the JSON 400 of the other routes).
  return apiHandler({ methods: ['GET', 'POST'], body: ['form'], repeatedFields: 'report', cors: () => undefined }, async (event) => {
    const resolved = deps();
    const request: EndSessionRequest = {
      ...parametersOf(event),
      acceptLanguage: header(event, 'accept-language'),
      issuer: issuerOf(resolved.issuer, event),
      sessionReference: (environmentId) => sessionReferenceOf(event, environmentId),
    };
    // Only the confirmation page's own form posts the sealed confirmation.
    const outcome =
      event.httpMethod === 'POST' && isConfirmationAnswer(request.parameters)
        ? await answerConfirmation(resolved, request)
        : await requestLogout(resolved, request);
    return respond(event, resolved.config, outcome);
  });
}

/** §2: the query of a GET, the form of a POST; each parameter's first value, and those given more than once. */
function parametersOf(event: ParsedEvent): Pick<EndSessionRequest, 'parameters' | 'repeated'> {
  if (event.httpMethod !== 'POST') {
    const { values, repeated } = queryValues(event);
    return { parameters: values, repeated };
  }
  const parameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.fields)) if (typeof value === 'string') parameters[name] = value;
  return { parameters, repeated: event.repeatedFields ?? [] };
}

function respond(event: APIGatewayProxyEvent, config: ServiceConfig, outcome: EndSessionOutcome): APIGatewayProxyResult {
  const response =
    outcome.kind === 'redirect'
      ? redirectResponse(event, outcome.location, false)
      : htmlResponse(event, outcome.status, renderLogoutPage(outcome.page), { formTargets: outcome.formTargets, cookie: undefined });
  const environment = outcome.clearSessionOf === undefined ? undefined : config.environment(outcome.clearSessionOf);
  if (environment === undefined) return response;
  return {
    ...response,
    headers: { ...response.headers, 'Set-Cookie': sessionSetCookie(event, environment, { environmentId: environment.id, clear: true }) },
  };
}

export const handler = createHandler(logoutDeps);
