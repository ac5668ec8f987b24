/**
 * The `admin` function's container (the operator controls, lib/admin/operator.ts): the HMAC key
 * (a user's counters and index entries are keyed by it), and in the table the attempt counters
 * that hold a block, the user index, the sessions and refresh token families it ends, and where
 * the logout notices of those sessions go (lib/deps/logout-notifier.ts), and the messages kept
 * for test recipients (lib/otp/test-outbox.ts), and the user's passkeys (remove-passkeys). No
 * delivery client: an operator's action sends no code.
 */
import { DynamoDbAttemptLimiter } from '../adapters/dynamodb/attempt-limiter';
import { DynamoDbPasskeyStore } from '../adapters/dynamodb/passkey-store';
import { DynamoDbTestOutbox } from '../adapters/dynamodb/test-outbox';
import type { OperatorDeps } from '../admin/operator';
import type { TestMessageDeps } from '../admin/test-messages';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import type { IssuerDeps } from './index';
import { sessionEndingAdapters } from './end-sessions';
import { container, hmacKeysFrom } from './secrets';
import { tableOf } from './table';

export const adminDeps: () => OperatorDeps & TestMessageDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const whole = container();
  const { env, cache, ...base } = whole;
  const table = tableOf(required(env, 'TABLE_NAME'));
  return {
    ...base,
    limiter: new DynamoDbAttemptLimiter(table.documents, table.name),
    // A test recipient's kept message, taken by the smoke command (lib/otp/test-outbox.ts).
    testOutbox: new DynamoDbTestOutbox(table.documents, table.name),
    // The passkeys an operator removes (remove-passkeys): a Query on the user index, a DeleteItem each.
    passkeys: new DynamoDbPasskeyStore(table.documents, table.name),
    ...sessionEndingAdapters(whole, table),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
  };
});
