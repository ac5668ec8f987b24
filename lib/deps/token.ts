/** The `token` function's container: secrets (the private signing keys among them) and the table. */
import type { TokenEndpointDeps } from '../domain/token-endpoint';
import { required } from '../env';
import { lazy } from '../lazy';
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
