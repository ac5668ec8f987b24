/**
 * Which client a request comes from: the one client authentication of the service, for every
 * endpoint where a client authenticates (RFC 6749 §2.3): the token endpoint and revocation
 * (RFC 7009 §2.1) through `authenticateClient`, introspection (RFC 7662 §2.1) through
 * `authenticateCredentials`, which admits confidential clients only.
 * - a public client (no API keys) names itself with `client_id` (RFC 6749 §2.1, §3.2.1);
 * - a confidential one (a client with API keys, which it was issued as credentials) proves it:
 *   `client_secret_basic` (HTTP Basic with its client id and an API key, RFC 6749 §2.3.1), or the
 *   API key alone as a Bearer credential (RFC 6750 syntax), as introspection accepts.
 * Anything else is 401 `invalid_client` (RFC 6749 §5.2, which RFC 7009 §2.2.1 refers to), with a
 * `Basic` challenge when the client tried Basic. Every stored key is compared in constant time,
 * and an unknown client id is compared too, so timing does not tell which client ids exist.
 */
import type { ClientConfig, ServiceConfig } from '../platform/config';
import { InvalidClientError, InvalidTokenError } from '../platform/errors';
import { basicCredentials, bearerCredential, matchesAny, presentedDigest, requireBearer } from './api-keys';

/** The client of a request, authenticated as it must be; throws 401 invalid_client otherwise. */
export function authenticateClient(config: ServiceConfig, authorization: string | undefined, clientIdField: unknown): ClientConfig {
  const named = typeof clientIdField === 'string' && clientIdField !== '' ? clientIdField : undefined;
  if (authorization !== undefined && authorization !== '') return authenticateCredentials(config, authorization, { named });

  const client = named === undefined ? undefined : config.client(named);
  if (client === undefined) throw new InvalidClientError('Unknown client: name it with client_id, or authenticate.');
  if (client.apiKeySha256.length > 0) {
    throw new InvalidClientError('This client must authenticate: HTTP Basic with its client id and API key.', {
      detail: `client ${client.id} presented no credentials`,
    });
  }
  return client;
}

/** Where credentials are checked, and how a refusal is answered there. */
export interface CredentialRules {
  /** The `client_id` the request also named, which must be the authenticated client's. */
  readonly named?: string | undefined;
  /** The clients this endpoint admits (introspection: those allowed to introspect); all by default. */
  readonly admits?: (client: ClientConfig) => boolean;
  /**
   * When set, a Bearer credential is answered as RFC 6750 does, with this description for a key
   * refused (401 invalid_token, also when no credential was presented): introspection's. Elsewhere
   * a refused Bearer key is `invalid_client`.
   */
  readonly bearerRefusal?: string;
  /** Put in front of the log detail of a refusal, to name the endpoint. */
  readonly detailPrefix?: string;
}

/**
 * A confidential client, by its credentials: `client_secret_basic` (HTTP Basic with its client id
 * and one of its API keys) or a Bearer API key, which names the client by itself. Every stored key
 * of the client(s) in question is compared in constant time, an unknown client id's too.
 */
export function authenticateCredentials(
  config: ServiceConfig,
  authorization: string | undefined,
  rules: CredentialRules = {},
): ClientConfig {
  const admits = rules.admits ?? (() => true);
  const prefix = rules.detailPrefix ?? '';
  const basic = basicCredentials(authorization);
  if (basic !== undefined) {
    const client = config.client(basic.clientId);
    const valid = matchesAny(client?.apiKeySha256 ?? [], presentedDigest(basic.secret));
    // RFC 6749 §2.3.1 allows one method per request; a client_id beside Basic must agree with it.
    if (client === undefined || !admits(client) || !valid || (rules.named !== undefined && rules.named !== client.id)) {
      throw new InvalidClientError('Client authentication failed.', { detail: `${prefix}basic credentials refused`, scheme: 'Basic' });
    }
    return client;
  }
  if (/^basic(\s|$)/i.test(authorization ?? '')) {
    throw new InvalidClientError('The Authorization header must be: Basic base64(client_id:secret).', { scheme: 'Basic' });
  }
  const key = rules.bearerRefusal === undefined ? bearerCredential(authorization) : requireBearer(authorization);
  if (key === undefined) throw new InvalidClientError('Authenticate with HTTP Basic (client id and API key), or a Bearer API key.');
  const presented = presentedDigest(key);
  let caller: ClientConfig | undefined;
  for (const client of config.stage.clients) {
    if (admits(client) && matchesAny(client.apiKeySha256, presented)) caller ??= client;
  }
  if (caller === undefined || (rules.named !== undefined && rules.named !== caller.id)) {
    if (rules.bearerRefusal !== undefined) throw new InvalidTokenError(rules.bearerRefusal, { bearerPresented: true });
    throw new InvalidClientError('Client authentication failed.', { detail: `${prefix}bearer API key refused` });
  }
  return caller;
}
