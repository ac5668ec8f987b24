/**
 * The `userinfo` function's container: what introspection's holds (the public keys, and in the
 * table opaque tokens and revocations), for UserInfo verifies an access token as introspection does.
 */
import type { UserInfoDeps } from '../endpoints/userinfo';
import type { IssuerDeps } from './index';
import { introspectDeps } from './introspect';

export const userInfoDeps: () => UserInfoDeps & IssuerDeps = introspectDeps;
