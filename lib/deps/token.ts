/**
 * The `token` function's container: secrets (the private signing keys among them), and in the
 * table what its grants read and write: codes and their counters, authorization codes, opaque
 * tokens, refresh token families, spent client assertions (private_key_jwt). No send guards: the
 * token endpoint sends nothing.
 */
import { DynamoDbAttemptLimiter } from '../adapters/dynamodb/attempt-limiter';
import { DynamoDbAuthorizationCodeStore } from '../adapters/dynamodb/authorization-code-store';
import { DynamoDbClientAssertionStore } from '../adapters/dynamodb/client-assertion-store';
import { DynamoDbCodeStore } from '../adapters/dynamodb/code-store';
import { DynamoDbKnownNumbers } from '../adapters/dynamodb/known-numbers';
import { DynamoDbRefreshTokenStore } from '../adapters/dynamodb/refresh-token-store';
import { DynamoDbTokenStore } from '../adapters/dynamodb/token-store';
import type { TokenEndpointDeps } from '../endpoints/token-endpoint';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import type { IssuerDeps } from './index';
import { container, hmacKeysFrom, signingKeysFrom } from './secrets';
import { tableOf } from './table';

export const tokenDeps: () => TokenEndpointDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = container();
  const { documents, name } = tableOf(required(env, 'TABLE_NAME'));
  return {
    ...base,
    limiter: new DynamoDbAttemptLimiter(documents, name),
    codes: new DynamoDbCodeStore(documents, name),
    knownNumbers: new DynamoDbKnownNumbers(documents, name),
    authorizationCodes: new DynamoDbAuthorizationCodeStore(documents, name),
    tokens: new DynamoDbTokenStore(documents, name),
    refreshTokens: new DynamoDbRefreshTokenStore(documents, name),
    clientAssertions: new DynamoDbClientAssertionStore(documents, name),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
    signingKeys: signingKeysFrom(base.secrets, cache),
  };
});
