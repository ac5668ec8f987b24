/**
 * Lambda: the admin API, `POST /idp/v1/admin/users/{block,unblock,end-sessions,remove-passkeys}` and
 * `POST /idp/v1/admin/test-messages/take`. Wiring only; the use cases are lib/admin/operator.ts and
 * lib/admin/test-messages.ts. API Gateway lets only SigV4-signed requests of the account's
 * authorised IAM principals through (AWS_IAM, infra/api.ts), and names the principal in
 * `requestContext.identity.userArn`, which the audit log records. No CORS: no browser calls it.
 */
import type { IssuerDeps } from '../lib/deps';
import { adminDeps } from '../lib/deps/admin';
import { OPERATOR_ACTIONS, operate, type OperatorAction, type OperatorDeps } from '../lib/admin/operator';
import { takeTestMessage, type TestMessageDeps } from '../lib/admin/test-messages';
import { NotFoundError } from '../lib/platform/errors';
import { apiHandler } from '../lib/platform/http/handler';
import { issuerOf } from '../lib/platform/http/issuer';
import { jsonResponse } from '../lib/platform/http/responses';

/** The route of the test outbox (lib/platform/routes.ts). */
const TAKE_TEST_MESSAGE = '/idp/v1/admin/test-messages/take';

export function createHandler(deps: () => OperatorDeps & TestMessageDeps & IssuerDeps) {
  return apiHandler({ methods: ['POST'], body: ['json'], cors: () => undefined }, async (event) => {
    const resolved = deps();
    const caller = event.requestContext?.identity?.userArn ?? undefined;
    if (event.resource === TAKE_TEST_MESSAGE) return jsonResponse(200, await takeTestMessage(resolved, { fields: event.fields, caller }));
    const response = await operate(resolved, {
      action: actionOf(event.resource),
      fields: event.fields,
      caller,
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
