/**
 * What the fault tests share: one healthy service and any number of faulty ones over the same
 * table and secrets, like Lambda containers of one stack of which some have lost a dependency.
 * The healthy one sends the code a user already holds and exchanges codes afterwards; a faulty
 * one makes the send under test. Secrets come from the Secrets Manager stand-in through the
 * production adapter, so a service whose Secrets Manager is broken is just another faulty one.
 */
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { randomBytes } from 'node:crypto';
import { SecretsManagerSecretSource } from '../../lib/adapters/secrets/secrets-manager-source';
import { initialKeySet, publicKeySet } from '../../lib/domain/signing-keys';
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
