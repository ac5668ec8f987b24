/**
 * Where a function that ends sessions hands its back-channel logout notices (lib/logout/ports.ts):
 * - on AWS, the queue named by LOGOUT_QUEUE_URL (set by the stack with the grant to send to it,
 *   infra/backchannel.ts `grantNotify`), which the `backchannel-logout` function consumes;
 * - in the local runtime (LOCAL_SECRETS_DIR: no AWS at all), one in-process queue for the whole
 *   process, whichever handler ends a session, so that `localLogoutQueue()` shows every dead
 *   letter (the local runtime's `/__dev/` routes).
 * A deployed function without LOGOUT_QUEUE_URL (not granted: a stack bug) fails each logout's
 * `notify` (its caller logs the notices lost) rather than deliver from a Lambda that may be frozen
 * the moment it has answered; its other requests are not affected.
 */
import { SqsLogoutNotifier } from '../adapters/sqs/logout-queue';
import { LocalLogoutQueue, type BackchannelDeps } from '../logout/backchannel';
import type { LogoutNotifier } from '../logout/ports';
import { signingKeysFrom, type Container } from './secrets';

let local: LocalLogoutQueue | undefined;

/** The local runtime's one queue, built on first use from `deps` (undefined until a handler has built it). */
export function localLogoutQueue(deps?: BackchannelDeps): LocalLogoutQueue | undefined {
  if (local === undefined && deps !== undefined) local = new LocalLogoutQueue(deps);
  return local;
}

/** The notifier of a Lambda container (lib/deps/<function>.ts) built from `base`. */
export function logoutNotifierOf(base: Container): LogoutNotifier {
  if (base.env.LOCAL_SECRETS_DIR !== undefined && base.env.LOGOUT_QUEUE_URL === undefined) {
    const { config, clock, log, secrets, cache } = base;
    return localLogoutQueue({ config, clock, log, signingKeys: signingKeysFrom(secrets, cache) }) as LocalLogoutQueue;
  }
  const queueUrl = base.env.LOGOUT_QUEUE_URL;
  if (queueUrl !== undefined) return SqsLogoutNotifier.create(queueUrl);
  // Built with the container, used only by a logout: the function's other requests still work.
  return { notify: () => Promise.reject(new Error('Missing environment variable LOGOUT_QUEUE_URL')) };
}
