/** Lambda: POST /idp/v1/otp/send. Wiring only; the operation is lib/domain/send-code.ts. */
import { otpSendDeps } from '../lib/deps/otp-send';
import type { SendCodeDeps } from '../lib/domain/send-code';
import { sendCode } from '../lib/domain/send-code';
import { apiHandler } from '../lib/http/handler';
import { header, queryParameter } from '../lib/http/request';
import { jsonResponse } from '../lib/http/responses';

export function createHandler(deps: () => SendCodeDeps) {
  return apiHandler({ methods: ['POST'], body: ['json'], cors: () => deps().config.stage.deployment.cors }, async (event) => {
    const response = await sendCode(deps(), {
      environmentId: queryParameter(event, 'env_id'),
      fields: event.fields,
      authorization: header(event, 'authorization'),
      // The TCP peer as API Gateway saw it; X-Forwarded-For and the like are the client's to write.
      sourceIp: event.requestContext?.identity?.sourceIp,
    });
    return jsonResponse(200, response);
  });
}

export const handler = createHandler(otpSendDeps);
