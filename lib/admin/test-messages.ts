/**
 * The admin route `POST /idp/v1/admin/test-messages/take`: an operator (the smoke command,
 * infra/smoke.ts) takes the message kept for one of an environment's test recipients
 * (lib/otp/test-outbox.ts). Only the deployment's IAM principals reach it on AWS (AWS_IAM, as the
 * operator controls); the local runtime serves it on loopback without IAM.
 */
import '../platform/zod';
import * as z from 'zod/mini';
import type { ServiceConfig } from '../platform/config';
import { logHandleOf, userKeyOf, type HmacKeys } from '../keys/hmac-keys';
import { normaliseUser } from '../identity/identity';
import { InvalidRequestError, NotFoundError } from '../platform/errors';
import { LOG_EVENTS } from '../platform/log-events';
import type { Clock, Log } from '../platform/ports';
import { parseFields, textField } from '../platform/request-fields';
import { environmentOf } from '../oauth/tenancy';
import { canonicalisePhone } from '../phone/phone-canonical';
import { isTestRecipient, openTestMessage, type TestMessageKey, type TestOutbox } from '../otp/test-outbox';

export interface TestMessageDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly log: Log;
  readonly testOutbox: TestOutbox;
  readonly hmacKeys: () => Promise<HmacKeys>;
}

/** The body of `POST /idp/v1/admin/test-messages/take`: which test recipient of which environment. */
export const testMessageFields = z.object({
  env_id: textField('env_id', 64),
  user_id: textField('user_id', 320),
});

/** What the operator gets: the message as it would have been delivered. */
export interface TestMessageResponse {
  readonly channel: 'email';
  readonly subject: string;
  readonly text: string;
  readonly sent_at: string;
}

/**
 * Takes the message kept for a test recipient (the admin route; only IAM principals reach it on
 * AWS). 400 when the user is not a test recipient of the environment (nothing is kept for anyone
 * else), 404 when no message is kept (none sent, taken already, or expired). Logged
 * (`test message taken`) with the caller and the user's log handle.
 * @example await takeTestMessage(deps, { fields: { env_id: 'prod', user_id: 'smoke@id.example.com' }, caller })
 */
export async function takeTestMessage(
  deps: TestMessageDeps,
  request: { readonly fields: Record<string, unknown>; readonly caller: string | undefined },
): Promise<TestMessageResponse> {
  const fields = parseFields(testMessageFields, request.fields);
  const environment = environmentOf(deps.config, fields.env_id);
  const user = normaliseUser('email', fields.user_id, canonicalisePhone);
  if (!isTestRecipient(environment, user)) throw new InvalidRequestError('user_id is not a test recipient of this environment.');
  const keys = await deps.hmacKeys();
  const key: TestMessageKey = { environmentId: environment.id, userKey: userKeyOf(keys, user) };
  const kept = await deps.testOutbox.take(key);
  const message = kept === undefined ? undefined : openTestMessage(keys, key, kept, deps.clock.now());
  deps.log.info(LOG_EVENTS.testMessageTaken, {
    environment: environment.id,
    user: logHandleOf(key.userKey),
    caller: request.caller ?? 'anonymous',
    found: message !== undefined,
  });
  if (message === undefined)
    throw new NotFoundError('No message is kept for this test recipient (none sent in the last 10 minutes, or taken already).');
  return { channel: message.channel, subject: message.subject, text: message.text, sent_at: new Date(message.sentAt).toISOString() };
}
