/**
 * What the fault tests share: one healthy service and any number of faulty ones over the same
 * table and secrets, like Lambda containers of one stack of which some have lost a dependency.
 * The healthy one sends the code a user already holds and exchanges codes afterwards; a faulty
 * one makes the send under test. Secrets come from the Secrets Manager stand-in through the
 * production adapter, so a service whose Secrets Manager is broken is just another faulty one.
 */
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { randomBytes } from 'node:crypto';
import { callBudgetMs, type ClientLimits } from '../../lib/platform/aws';
import { SecretsManagerSecretSource } from '../../lib/adapters/secrets/secrets-manager-source';
import { initialKeySet, publicKeySet } from '../../lib/keys/signing-keys';
import { TIMEOUT_MARGIN_MS } from '../../lib/platform/http/handler';
import { API_TIMEOUT_SECONDS } from '../../lib/platform/routes';
import { LOCAL_AWS } from '../../local/dynamodb';
import {
  REDIRECT_URI,
  startTestService,
  uniqueEmail,
  uniquePhone,
  type TestResponse,
  type TestService,
  type TestServiceOptions,
} from '../support/harness';
import { startSecretsManagerLocal, type SecretsManagerLocal } from '../support/secrets-manager-local';

export const SEND = '/idp/v1/otp/send';
export const TOKEN = '/idp/v1/account/token';

export type Channel = 'email' | 'sms' | 'voice';

export interface Stack {
  /** A container whose every dependency works. */
  readonly healthy: TestService;
  readonly secretsManager: SecretsManagerLocal;
  /** A secret source reading this stack's secrets from `endpoint` (the stand-in's, or a broken one). */
  secretsAt(endpoint: string): SecretsManagerSecretSource;
  /** Another container of this stack: same table and secrets unless `options` say otherwise, same time. */
  container(options: TestServiceOptions): Promise<TestService>;
  stop(): Promise<void>;
}

export async function startStack(): Promise<Stack> {
  const secretsManager = await startSecretsManagerLocal();
  const client = secretsManager.client();
  const keySet = await initialKeySet(new Date());
  const create = async (name: string, value: string) =>
    (await client.send(new CreateSecretCommand({ Name: name, SecretString: value }))).ARN ?? '';
  const arns = {
    hmacSecret: await create('identity/hmac', randomBytes(48).toString('base64url')),
    signingKeys: await create('identity/signing-keys', JSON.stringify(keySet)),
    verificationKeys: await create('identity/verification-keys', JSON.stringify(publicKeySet(keySet))),
  };
  const secretsAt = (endpoint: string) => SecretsManagerSecretSource.create(arns, { endpoint, ...LOCAL_AWS });
  const healthy = await startTestService({ secrets: secretsAt(secretsManager.url) });
  const containers: TestService[] = [];
  return {
    healthy,
    secretsManager,
    secretsAt,
    async container(options) {
      const service = await startTestService({ tableName: healthy.services.tableName, secrets: secretsAt(secretsManager.url), ...options });
      service.clock.set(healthy.clock.now());
      containers.push(service);
      return service;
    },
    async stop() {
      await Promise.all(containers.map((service) => service.stop()));
      await healthy.stop();
      await secretsManager.stop();
    },
  };
}

/** A fresh recipient for a channel. */
export function recipientFor(channel: Channel): string {
  return channel === 'email' ? uniqueEmail('fault') : uniquePhone();
}

/** The otp/send body that delivers by `channel`. */
export function sendBody(channel: Channel, userId: string): Record<string, string> {
  const base = { client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: userId };
  if (channel === 'email') return { ...base, auth_type: 'email' };
  return channel === 'sms' ? { ...base, auth_type: 'sms' } : { ...base, auth_type: 'sms', method: 'voice_with_otp' };
}

/** Sends a code through `service` and returns it, as the user would read it. */
export async function sendCode(service: TestService, channel: Channel, userId: string): Promise<string> {
  const response = await service.post(SEND, sendBody(channel, userId));
  if (response.status !== 200) throw new Error(`the send answered ${response.status} ${response.text}`);
  return service.latestCode(userId);
}

/** POST /idp/v1/account/token with `code`. */
export function exchange(service: TestService, userId: string, code: string): Promise<TestResponse> {
  return service.post(TOKEN, {
    grant_type: 'authorization_code',
    client_id: 'local-web',
    redirect_uri: REDIRECT_URI,
    user_id: userId,
    code,
  });
}

/**
 * When a request waits on a client whose timeout is not enforced, the only thing that ends the
 * wait is the handler's early 503 (lib/platform/http/handler.ts), this long after the request began: the
 * function's timeout less the handler's margin, 19.5 s. A hung request takes at least this long,
 * however fast or slow the machine.
 */
export const FUNCTION_DEADLINE_MS = API_TIMEOUT_SECONDS * 1000 - TIMEOUT_MARGIN_MS;

/**
 * The longest the rest of a request (everything but its calls to the broken dependency: the
 * healthy dependencies, the local HTTP hops, a fresh container's first request, waiting for a
 * core) was seen to take on a loaded 2-core machine: an SMS send whose SNS refused the connection
 * at once, with two CPU-bound processes beside the suite (in the two CI failures, SES "never
 * answers" sends took 3.05 s and 3.3 s beyond SES's 3 s request timeout). `timeBoundMs` must leave
 * it twice this.
 */
export const LOADED_REST_MS = 3800;

/**
 * The longest a request that meets a broken dependency may take: halfway between what its
 * `calls` to that dependency may take (each its client's `callBudgetMs`, lib/platform/aws.ts) and
 * `FUNCTION_DEADLINE_MS`, what it takes when a timeout is not enforced. The two outcomes the fault
 * tests tell apart get the same room: the rest of the request may take up to half the gap (7.75 s
 * for a call to SES, SNS, SMS-voice or Secrets Manager, 8 s for DynamoDB: twice `LOADED_REST_MS`
 * and more) before a passing case fails, and a hung request misses the bound by as much. Derived
 * from the settings, so a change of budget moves the bound with it; a budget that left the rest
 * less than twice `LOADED_REST_MS` fails the fault files' own check first.
 * @example timeBoundMs(1, DELIVERY_CLIENT_SETTINGS) // (4000 + 19500) / 2 = 11750
 */
export function timeBoundMs(calls: number, settings: ClientLimits): number {
  return (calls * callBudgetMs(settings) + FUNCTION_DEADLINE_MS) / 2;
}

/** Runs `act` and says how long it took, in ms. */
export async function timed<T>(act: () => Promise<T>): Promise<{ result: T; elapsedMs: number }> {
  const started = performance.now();
  const result = await act();
  return { result, elapsedMs: performance.now() - started };
}

/** Memoises an async setup for concurrent tests to share: test.concurrent does not wait for hooks (jestjs/jest#4281, #7997). */
export function shared<T>(setup: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= setup());
}
