/**
 * Lambda: the admin API, `POST /idp/v1/admin/users/{block,unblock,end-sessions}`. Wiring only; the
 * use case is lib/admin/operator.ts. API Gateway lets only SigV4-signed requests of the account's
 * authorised IAM principals through (AWS_IAM, infra/api.ts), and names the principal in
 * `requestContext.identity.userArn`, which the audit log records. No CORS: no browser calls it.
 */
import type { IssuerDeps } from '../lib/deps';
import { adminDeps } from '../lib/deps/admin';
import { OPERATOR_ACTIONS, operate, type OperatorAction, type OperatorDeps } from '../lib/admin/operator';
import { NotFoundError } from '../lib/platform/errors';
import { apiHandler } from '../lib/platform/http/handler';
import { issuerOf } from '../lib/platform/http/issuer';
import { jsonResponse } from '../lib/platform/http/responses';

export function createHandler(deps: () => OperatorDeps & IssuerDeps) {
  return apiHandler({ methods: ['POST'], body: ['json'], cors: () => undefined }, async (event) => {
    const resolved = deps();
    const response = await operate(resolved, {
      action: actionOf(event.resource),
      fields: event.fields,
      caller: event.requestContext?.identity?.userArn ?? undefined,
      issuer: issuerOf(resolved.issuer, event),
    });
    return jsonResponse(200, response);
  });
}

/** The action is the route's last segment (lib/platform/routes.ts names one route per action). */
function actionOf(resource: string): OperatorAction {
  const action = OPERATOR_ACTIONS.find((candidate) => resource.endsWith(`/users/${candidate}`));
  if (action === undefined) throw new NotFoundError('No such operator action.');
  return action;
}

export const handler = createHandler(adminDeps);
