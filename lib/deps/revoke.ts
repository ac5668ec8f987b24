/**
 * The `revoke` function's container: the HMAC key (refresh token families), the public keys
 * (JWTs), and in the table opaque tokens, refresh token families, revocations and spent client
 * assertions (private_key_jwt).
 */
import { DynamoDbClientAssertionStore } from '../adapters/dynamodb/client-assertion-store';
import { DynamoDbRefreshTokenStore } from '../adapters/dynamodb/refresh-token-store';
import { DynamoDbRevocationStore } from '../adapters/dynamodb/revocation-store';
import { DynamoDbTokenStore } from '../adapters/dynamodb/token-store';
import type { RevokeDeps } from '../endpoints/revoke-token';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import type { IssuerDeps } from './index';
import { container, hmacKeysFrom, verificationKeysFrom } from './secrets';
import { tableOf } from './table';

export const revokeDeps: () => RevokeDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = container();
  const { documents, name } = tableOf(required(env, 'TABLE_NAME'));
  return {
    ...base,
    tokens: new DynamoDbTokenStore(documents, name),
    refreshTokens: new DynamoDbRefreshTokenStore(documents, name),
    revocations: new DynamoDbRevocationStore(documents, name),
    clientAssertions: new DynamoDbClientAssertionStore(documents, name),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
    verificationKeys: verificationKeysFrom(base.secrets, cache),
  };
});
