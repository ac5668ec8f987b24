/** Lambda: POST /idp/v1/account/introspect (RFC 7662). Wiring only; see lib/endpoints/introspect-token.ts. */
import type { IssuerDeps } from '../lib/deps';
import { introspectDeps } from '../lib/deps/introspect';
import type { IntrospectDeps } from '../lib/endpoints/introspect-token';
import { introspectToken } from '../lib/endpoints/introspect-token';
import { apiHandler } from '../lib/platform/http/handler';
import { issuerOf } from '../lib/platform/http/issuer';
import { header } from '../lib/platform/http/request';
import { jsonResponse, TOKEN_RESPONSE_HEADERS } from '../lib/platform/http/responses';

export function createHandler(deps: () => IntrospectDeps & IssuerDeps) {
  return apiHandler({ methods: ['POST'], body: ['form', 'json'], cors: () => deps().config.stage.deployment.cors }, async (event) => {
    const resolved = deps();
    const response = await introspectToken(resolved, {
      fields: event.fields,
      authorization: header(event, 'authorization'),
      issuer: issuerOf(resolved.issuer, event),
    });
    // RFC 7662 §2.2 responses describe live tokens: never cache them.
    return jsonResponse(200, response, { ...TOKEN_RESPONSE_HEADERS });
  });
}

export const handler = createHandler(introspectDeps);
