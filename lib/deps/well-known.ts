/** The `well-known` function's container: the configuration and the public keys, nothing else. */
import { lazy } from '../platform/lazy';
import type { WellKnownDeps } from './index';
import { container, verificationKeysFrom } from './secrets';

export const wellKnownDeps: () => WellKnownDeps = /* @__PURE__ */ lazy(() => {
  const { cache, config, issuer, secrets } = container();
  return { config, issuer, verificationKeys: verificationKeysFrom(secrets, cache) };
});
