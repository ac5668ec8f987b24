/** Lambda: POST /idp/v1/account/revoke (RFC 7009). Wiring only; see lib/endpoints/revoke-token.ts. */
import type { IssuerDeps } from '../lib/deps';
import { revokeDeps } from '../lib/deps/revoke';
import { revokeToken, type RevokeDeps } from '../lib/endpoints/revoke-token';
import { apiHandler } from '../lib/platform/http/handler';
import { issuerOf } from '../lib/platform/http/issuer';
import { header } from '../lib/platform/http/request';
import { jsonResponse } from '../lib/platform/http/responses';

export function createHandler(deps: () => RevokeDeps & IssuerDeps) {
  // RFC 7009 §2.1: form-encoded, as OAuth libraries send it; JSON as the API's other endpoints take.
  return apiHandler({ methods: ['POST'], body: ['form', 'json'], cors: () => deps().config.stage.deployment.cors }, async (event) => {
    const resolved = deps();
    const response = await revokeToken(resolved, {
      fields: event.fields,
      authorization: header(event, 'authorization'),
      issuer: issuerOf(resolved.issuer, event),
    });
    return jsonResponse(200, response);
  });
}

export const handler = createHandler(revokeDeps);
