/** The `userinfo` function's container: the public keys and the table (opaque tokens). */
import type { UserInfoDeps } from '../endpoints/userinfo';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import type { IssuerDeps } from './index';
import { container, verificationKeysFrom } from './secrets';
import { tableAdapters } from './table';

export const userInfoDeps: () => UserInfoDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = container();
  return { ...base, ...tableAdapters(required(env, 'TABLE_NAME'), {}), verificationKeys: verificationKeysFrom(base.secrets, cache) };
});
