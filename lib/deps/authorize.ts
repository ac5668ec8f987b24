/**
 * The `authorize` function's container: secrets, the delivery clients (the page sends codes), and
 * in the table the code, its counters and the authorization codes. No token store: the page
 * issues no token.
 */
import { DynamoDbAttemptLimiter } from '../adapters/dynamodb/attempt-limiter';
import { DynamoDbAuthorizationCodeStore } from '../adapters/dynamodb/authorization-code-store';
import { DynamoDbCodeStore } from '../adapters/dynamodb/code-store';
import { DynamoDbKnownNumbers } from '../adapters/dynamodb/known-numbers';
import { DynamoDbSendGuards } from '../adapters/dynamodb/send-guards';
import type { AuthorizeDeps } from '../login/authorize';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import { deliveryAdapters } from './delivery';
import type { IssuerDeps } from './index';
import { container, hmacKeysFrom } from './secrets';
import { tableOf } from './table';

export const authorizeDeps: () => AuthorizeDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = container();
  const { documents, name } = tableOf(required(env, 'TABLE_NAME'));
  return {
    ...base,
    limiter: new DynamoDbAttemptLimiter(documents, name),
    guards: new DynamoDbSendGuards(documents, name),
    codes: new DynamoDbCodeStore(documents, name),
    knownNumbers: new DynamoDbKnownNumbers(documents, name),
    authorizationCodes: new DynamoDbAuthorizationCodeStore(documents, name),
    ...deliveryAdapters({ ses: {}, sns: {}, smsVoice: {} }),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
  };
});
