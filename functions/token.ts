/**
 * Lambda: POST /idp/v1/account/token. Wiring only; the endpoint is lib/endpoints/token-endpoint.ts.
 * JSON (as the API's first clients send it) and form-encoded bodies (RFC 6749 §4.1.3, so a
 * standard OAuth client library exchanges a code unchanged).
 */
import type { IssuerDeps } from '../lib/deps';
import { tokenDeps } from '../lib/deps/token';
import { requestToken, type TokenEndpointDeps } from '../lib/endpoints/token-endpoint';
import { apiHandler } from '../lib/platform/http/handler';
import { issuerOf } from '../lib/platform/http/issuer';
import { header, queryParameter } from '../lib/platform/http/request';
import { jsonResponse, TOKEN_RESPONSE_HEADERS } from '../lib/platform/http/responses';

export function createHandler(deps: () => TokenEndpointDeps & IssuerDeps) {
  return apiHandler({ methods: ['POST'], body: ['json', 'form'], cors: () => deps().config.stage.deployment.cors }, async (event) => {
    const resolved = deps();
    const response = await requestToken(resolved, {
      environmentId: queryParameter(event, 'env_id'),
      fields: event.fields,
      authorization: header(event, 'authorization'),
      issuer: issuerOf(resolved.issuer, event),
    });
    return jsonResponse(200, response, { ...TOKEN_RESPONSE_HEADERS });
  });
}

export const handler = createHandler(tokenDeps);
