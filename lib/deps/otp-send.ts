/** The `otp-send` function's container: secrets, the code and its counters in the table, the delivery clients. */
import { DynamoDbAttemptLimiter } from '../adapters/dynamodb/attempt-limiter';
import { DynamoDbCodeStore } from '../adapters/dynamodb/code-store';
import { DynamoDbKnownNumbers } from '../adapters/dynamodb/known-numbers';
import { DynamoDbSendGuards } from '../adapters/dynamodb/send-guards';
import { DynamoDbTestOutbox } from '../adapters/dynamodb/test-outbox';
import type { SendCodeDeps } from '../endpoints/otp-send';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import { deliveryAdapters } from './delivery';
import { container, hmacKeysFrom } from './secrets';
import { tableOf } from './table';

export const otpSendDeps: () => SendCodeDeps = /* @__PURE__ */ lazy(() => {
  const { env, cache, ...base } = container();
  const { documents, name } = tableOf(required(env, 'TABLE_NAME'));
  return {
    ...base,
    limiter: new DynamoDbAttemptLimiter(documents, name),
    guards: new DynamoDbSendGuards(documents, name),
    codes: new DynamoDbCodeStore(documents, name),
    knownNumbers: new DynamoDbKnownNumbers(documents, name),
    testOutbox: new DynamoDbTestOutbox(documents, name),
    ...deliveryAdapters({ ses: {}, sns: {}, smsVoice: {} }),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
  };
});
