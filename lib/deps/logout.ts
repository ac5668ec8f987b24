/**
 * The `logout` function's container (the end-session endpoint, lib/login/end-session.ts): the
 * HMAC key (the session cookie's key, the sealed confirmation) and the public keys (ID token
 * hints), and in the table the sessions, the user index that finds a session's refresh token
 * families, and those families (revoked with it); the logout queue for the back-channel notices.
 * No delivery client, no private key.
 */
import type { EndSessionDeps } from '../login/end-session';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import type { IssuerDeps } from './index';
import { sessionEndingAdapters } from './end-sessions';
import { container, hmacKeysFrom, verificationKeysFrom } from './secrets';
import { tableOf } from './table';

export const logoutDeps: () => EndSessionDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const base = container();
  const { env, cache, ...rest } = base;
  return {
    ...rest,
    ...sessionEndingAdapters(base, tableOf(required(env, 'TABLE_NAME'))),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
    verificationKeys: verificationKeysFrom(base.secrets, cache),
  };
});
