/** The `revoke` function's container: the HMAC key (refresh token families), the public keys (JWTs) and the table. */
import type { RevokeDeps } from '../endpoints/revoke-token';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import type { IssuerDeps } from './index';
import { container, hmacKeysFrom, verificationKeysFrom } from './secrets';
import { tableAdapters } from './table';

export const revokeDeps: () => RevokeDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = container();
  return {
    ...base,
    ...tableAdapters(required(env, 'TABLE_NAME'), {}),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
    verificationKeys: verificationKeysFrom(base.secrets, cache),
  };
});
