/** The `token` function's container: secrets (the private signing keys among them) and the table. */
import type { TokenEndpointDeps } from '../endpoints/token-endpoint';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import type { IssuerDeps } from './index';
import { container, hmacKeysFrom, signingKeysFrom } from './secrets';
import { tableAdapters } from './table';

export const tokenDeps: () => TokenEndpointDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = container();
  return {
    ...base,
    ...tableAdapters(required(env, 'TABLE_NAME'), {}),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
    signingKeys: signingKeysFrom(base.secrets, cache),
  };
});
