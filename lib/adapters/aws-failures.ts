/**
 * What an SDK failure means to a caller, decided in one place for every AWS adapter:
 * - no answer at all (connection refused, timeout), throttling, or a server-side fault, as the
 *   SDK's own classifier sees them: the dependency is down or overloaded, a 503 the client may
 *   retry (`TemporarilyUnavailableError`);
 * - anything else (validation, access denied, a missing table or secret): a bug or a broken
 *   deployment, which stays an error and becomes a 500. Retrying it would never help.
 *
 * With it, the client that a failure may have poisoned (`RenewableClient`), and the parse of a
 * secret's JSON that never quotes the secret.
 */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/service-error-classification';
import { TemporarilyUnavailableError } from '../platform/errors';

interface SdkFailure {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

/**
 * True when the service answered (the failure carries the HTTP status of its answer). False for
 * everything that happened on our side of the wire: a serializer or signer that threw, a refused
 * connection, a timeout (`TimeoutError`, which has `$metadata` but no status).
 */
export function serviceAnswered(error: unknown): boolean {
  return (error as SdkFailure).$metadata?.httpStatusCode !== undefined;
}

/**
 * True when the failure says the dependency is unavailable rather than that we did something
 * wrong, as the SDK's own retry strategy classifies it (`@smithy/service-error-classification`):
 * throttling, a transient failure (a timeout, a refused or reset connection, a 500/502/503/504),
 * or another server-side fault. Anything else, an error of our own code above all (a corrupt
 * item, a bug), is not the dependency's: it stays an error and becomes a 500.
 */
export function isUnavailable(error: unknown): boolean {
  // Duck-typed, not `instanceof Error`: Node's own network errors come from another realm in
  // some hosts (jest's VM contexts), and the classifier reads only plain fields.
  if (typeof error !== 'object' || error === null) return false;
  const failure = error as Parameters<typeof isTransientError>[0];
  return isThrottlingError(failure) || isTransientError(failure) || isServerError(failure) || neverAnswered(error);
}

/**
 * The SDK's middleware saw the call (`$metadata`) but no answer came back (no HTTP status): the
 * connection failed in a way the classifier cannot name. It happens when the SDK wraps a network
 * error it does not recognise as an Error ("AWS SDK error wrapper for …", which drops its `code`).
 * An error of our own code has no `$metadata` at all.
 */
function neverAnswered(error: object): boolean {
  const metadata = (error as SdkFailure).$metadata;
  return metadata !== undefined && metadata.httpStatusCode === undefined;
}

/**
 * An SDK client that is replaced by a fresh one after any failure the service did not answer.
 *
 * Why: the AWS Query serializer (SES v1 `SendEmail`, SNS `Publish`) keeps its half-written body
 * when it throws, and the same client's next request goes out with the failed request's fields
 * in front of its own: another user's recipient, an empty message (docs/security.md, "A failed
 * request poisons the SDK client"). We cannot see inside a client to tell a poisoned one from a
 * healthy one, so every failure before an answer counts: a fresh client costs one new connection,
 * and these failures are rare. A failure the service answered (a status) says nothing against the
 * client, which is kept.
 *
 * The replaced client is destroyed once the requests still running on it have finished, so a
 * concurrent request (the local runtime serves several at once) is not cut off. `create` must
 * build a client with its own request handler (pass handler options, never a shared handler
 * instance), or destroying the old client would close the new one's connections too.
 *
 * @example
 * const ses = new RenewableClient(() => new SESClient(DELIVERY_CLIENT_SETTINGS));
 * await ses.use((client) => client.send(new SendEmailCommand(input)));
 */
export class RenewableClient<Client extends { destroy(): void }> {
  private current: Lease<Client>;

  constructor(private readonly create: () => Client) {
    this.current = { client: create(), running: 0, replaced: false };
  }

  async use<T>(call: (client: Client) => Promise<T>): Promise<T> {
    const lease = this.current;
    lease.running += 1;
    try {
      return await call(lease.client);
    } catch (error) {
      if (!serviceAnswered(error) && !lease.replaced) {
        lease.replaced = true;
        this.current = { client: this.create(), running: 0, replaced: false };
      }
      throw error;
    } finally {
      lease.running -= 1;
      if (lease.replaced && lease.running === 0) lease.client.destroy();
    }
  }
}

interface Lease<Client> {
  readonly client: Client;
  /** Requests started on this client and not yet finished. */
  running: number;
  /** A newer client has taken over; this one is destroyed when `running` reaches 0. */
  replaced: boolean;
}

/** `TemporarilyUnavailableError` for an unavailable dependency; the original error otherwise. */
export function dependencyFailure(error: unknown, what: string): Error {
  if (isUnavailable(error)) {
    return new TemporarilyUnavailableError({ detail: `${what}: ${(error as SdkFailure).name ?? 'unknown error'}`, cause: error });
  }
  return error instanceof Error ? error : new Error(`${what} failed`);
}

/** JSON.parse for secret values: a syntax error must not quote the value (it may be key material). */
export function parseSecretJson(value: string, what: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
}
