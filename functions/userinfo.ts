/** Lambda: GET and POST /idp/v1/account/userinfo (OpenID Connect Core §5.3). Wiring only; see lib/endpoints/userinfo.ts. */
import type { IssuerDeps } from '../lib/deps';
import { userInfoDeps } from '../lib/deps/userinfo';
import { userInfo, type UserInfoDeps } from '../lib/endpoints/userinfo';
import { apiHandler } from '../lib/platform/http/handler';
import { issuerOf } from '../lib/platform/http/issuer';
import { header } from '../lib/platform/http/request';
import { jsonResponse } from '../lib/platform/http/responses';

export function createHandler(deps: () => UserInfoDeps & IssuerDeps) {
  return apiHandler(
    { methods: ['GET', 'POST'], body: ['form'], bodyOptional: true, cors: () => deps().config.stage.deployment.cors },
    async (event) => {
      const resolved = deps();
      const response = await userInfo(resolved, {
        authorization: header(event, 'authorization'),
        fields: event.fields,
        issuer: issuerOf(resolved.issuer, event),
      });
      return jsonResponse(200, response);
    },
  );
}

export const handler = createHandler(userInfoDeps);
