/** The `otp-send` function's container: secrets, the table, the delivery clients. */
import type { SendCodeDeps } from '../endpoints/otp-send';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import { deliveryAdapters } from './delivery';
import { container, hmacKeysFrom } from './secrets';
import { sendTableAdapters, tableDocuments } from './send-table';

export const otpSendDeps: () => SendCodeDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = container();
  return {
    ...base,
    ...sendTableAdapters(tableDocuments({}), required(env, 'TABLE_NAME')),
    ...deliveryAdapters({ ses: {}, sns: {}, smsVoice: {} }),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
  };
});
