/**
 * The `authorize` function's container: secrets (the public keys check an `id_token_hint`), the
 * delivery clients (the page sends codes), and in the table the code, its counters, the
 * authorization codes, the sessions and the passkeys; and what ending a session needs (a login in another
 * account ends the previous one): the user index, the refresh families, the logout queue.
 */
import { DynamoDbAttemptLimiter } from '../adapters/dynamodb/attempt-limiter';
import { DynamoDbAuthorizationCodeStore } from '../adapters/dynamodb/authorization-code-store';
import { DynamoDbCodeStore } from '../adapters/dynamodb/code-store';
import { DynamoDbKnownNumbers } from '../adapters/dynamodb/known-numbers';
import { DynamoDbPasskeyStore } from '../adapters/dynamodb/passkey-store';
import { DynamoDbSendGuards } from '../adapters/dynamodb/send-guards';
import { DynamoDbTestOutbox } from '../adapters/dynamodb/test-outbox';
import { sessionEndingAdapters } from './end-sessions';
import type { AuthorizeDeps } from '../login/authorize';
import { required } from '../platform/env';
import { lazy } from '../platform/lazy';
import { deliveryAdapters } from './delivery';
import type { IssuerDeps } from './index';
import { container, hmacKeysFrom, verificationKeysFrom } from './secrets';
import { tableOf } from './table';

export const authorizeDeps: () => AuthorizeDeps & IssuerDeps = /* @__PURE__ */ lazy(() => {
  const whole = container();
  const { env, cache, ...base } = whole;
  const table = tableOf(required(env, 'TABLE_NAME'));
  const { documents, name } = table;
  return {
    ...base,
    limiter: new DynamoDbAttemptLimiter(documents, name),
    guards: new DynamoDbSendGuards(documents, name),
    codes: new DynamoDbCodeStore(documents, name),
    knownNumbers: new DynamoDbKnownNumbers(documents, name),
    testOutbox: new DynamoDbTestOutbox(documents, name),
    authorizationCodes: new DynamoDbAuthorizationCodeStore(documents, name),
    passkeys: new DynamoDbPasskeyStore(documents, name),
    // The sessions; a login in another account ends the browser's previous one as a logout does.
    ...sessionEndingAdapters(whole, table),
    ...deliveryAdapters({ ses: {}, sns: {}, smsVoice: {} }),
    hmacKeys: hmacKeysFrom(base.secrets, cache),
    verificationKeys: verificationKeysFrom(base.secrets, cache),
  };
});
