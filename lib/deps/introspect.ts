/** The `introspect` function's container: the public keys, and in the table opaque tokens and revocations. */
import { DynamoDbRevocationStore } from '../adapters/dynamodb/revocation-store';
import { DynamoDbTokenStore } from '../adapters/dynamodb/token-store';
import type { IntrospectDeps } from '../endpoints/introspect-token';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import type { IssuerDeps } from './index';
import { container, verificationKeysFrom } from './secrets';
import { tableOf } from './table';

export const introspectDeps: () => IntrospectDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = container();
  const { documents, name } = tableOf(required(env, 'TABLE_NAME'));
  return {
    ...base,
    tokens: new DynamoDbTokenStore(documents, name),
    revocations: new DynamoDbRevocationStore(documents, name),
    verificationKeys: verificationKeysFrom(base.secrets, cache),
  };
});
