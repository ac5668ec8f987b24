/**
 * The `backchannel-logout` function's container: the configuration (each notice's client and its
 * back-channel logout URI), and the private signing keys, read and kept as the token function
 * keeps them (lib/deps/secrets.ts: once per container and max age), since a logout token is
 * signed like the client's ID tokens. No table, no delivery client, no SQS client: the queue
 * hands the function its messages, and takes back the failed ones from its answer.
 */
import type { BackchannelDeps } from '../logout/backchannel';
import { lazy } from '../platform/lazy';
import { container, signingKeysFrom } from './secrets';

export const backchannelDeps: () => BackchannelDeps = /* @__PURE__ */ lazy(() => {
  const { config, clock, log, secrets, cache } = container();
  return { config, clock, log, signingKeys: signingKeysFrom(secrets, cache) };
});
