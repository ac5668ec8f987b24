/** Lambda: POST /idp/v1/account/introspect (RFC 7662). Wiring only; see lib/domain/introspect-token.ts. */
import type { IssuerDeps } from '../lib/deps';
import { introspectDeps } from '../lib/deps/introspect';
import type { IntrospectDeps } from '../lib/domain/introspect-token';
import { introspectToken } from '../lib/domain/introspect-token';
import { apiHandler } from '../lib/http/handler';
import { issuerOf } from '../lib/http/issuer';
import { header } from '../lib/http/request';
import { jsonResponse, TOKEN_RESPONSE_HEADERS } from '../lib/http/responses';

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
