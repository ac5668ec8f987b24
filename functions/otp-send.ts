/** Lambda: POST /idp/v1/otp/send. Wiring only; the endpoint is lib/endpoints/otp-send.ts. */
import { FINISH_SEND_BUDGET_MS } from '../lib/platform/aws';
import { otpSendDeps } from '../lib/deps/otp-send';
import { sendCode, type SendCodeDeps } from '../lib/endpoints/otp-send';
import { apiHandler, TIMEOUT_MARGIN_MS } from '../lib/platform/http/handler';
import { issuerOf } from '../lib/platform/http/issuer';
import { header, queryParameter } from '../lib/platform/http/request';
import { jsonResponse } from '../lib/platform/http/responses';

export function createHandler(deps: () => SendCodeDeps) {
  return apiHandler({ methods: ['POST'], body: ['json'], cors: () => deps().config.stage.deployment.cors }, async (event, context) => {
    const configured = deps();
    // The request's issuer in the deps: an SMS names its host in its origin-bound line (lib/otp/issue.ts).
    const resolved = { ...configured, issuer: issuerOf(configured.issuer, event) };
    const response = await sendCode(resolved, {
      environmentId: queryParameter(event, 'env_id'),
      fields: event.fields,
      authorization: header(event, 'authorization'),
      // The TCP peer as API Gateway saw it; X-Forwarded-For and the like are the client's to write.
      sourceIp: event.requestContext?.identity?.sourceIp,
      // Storing, delivering and restoring must fit before the handler's early 503 (lib/platform/aws.ts).
      timeLeft: { remainingMs: () => context.getRemainingTimeInMillis(), neededMs: FINISH_SEND_BUDGET_MS + TIMEOUT_MARGIN_MS },
    });
    return jsonResponse(200, response);
  });
}

export const handler = createHandler(otpSendDeps);
