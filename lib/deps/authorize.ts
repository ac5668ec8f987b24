/** The `authorize` function's container: secrets, the table, the delivery clients (the page sends codes). */
import type { AuthorizeDeps } from '../login/authorize';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import { deliveryAdapters } from './delivery';
import type { IssuerDeps } from './index';
import { container, hmacKeysFrom } from './secrets';
import { tableAdapters } from './table';

export const authorizeDeps: () => AuthorizeDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = container();
  return {
    ...base,
    ...tableAdapters(required(env, 'TABLE_NAME'), {}),
    ...deliveryAdapters({ ses: {}, sns: {}, smsVoice: {} }),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
  };
});
