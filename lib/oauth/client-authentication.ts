/**
 * Which client a request comes from, where a client authenticates as RFC 6749 §2.3 says (the
 * revocation endpoint, RFC 7009 §2.1):
 * - a public client (no API keys) names itself with `client_id` (RFC 6749 §2.1, §3.2.1);
 * - a confidential one (a client with API keys, which it was issued as credentials) proves it:
 *   `client_secret_basic` (HTTP Basic with its client id and an API key, RFC 6749 §2.3.1), or the
 *   API key alone as a Bearer credential (RFC 6750 syntax), as introspection accepts.
 * Anything else is 401 `invalid_client` (RFC 6749 §5.2, which RFC 7009 §2.2.1 refers to), with a
 * `Basic` challenge when the client tried Basic. Every stored key is compared in constant time,
 * and an unknown client id is compared too, so timing does not tell which client ids exist.
 */
import type { ClientConfig, ServiceConfig } from '../platform/config';
import { InvalidClientError } from '../platform/errors';
import { basicCredentials, bearerCredential, matchesAny, presentedDigest } from './api-keys';

/** The client of a request, authenticated as it must be; throws 401 invalid_client otherwise. */
export function authenticateClient(config: ServiceConfig, authorization: string | undefined, clientIdField: unknown): ClientConfig {
  const named = typeof clientIdField === 'string' && clientIdField !== '' ? clientIdField : undefined;
  if (authorization !== undefined && authorization !== '') return authenticateConfidential(config, authorization, named);

  const client = named === undefined ? undefined : config.client(named);
  if (client === undefined) throw new InvalidClientError('Unknown client: name it with client_id, or authenticate.');
  if (client.apiKeySha256.length > 0) {
    throw new InvalidClientError('This client must authenticate: HTTP Basic with its client id and API key.', {
      detail: `client ${client.id} presented no credentials`,
    });
  }
  return client;
}

function authenticateConfidential(config: ServiceConfig, authorization: string, named: string | undefined): ClientConfig {
  const basic = basicCredentials(authorization);
  if (basic !== undefined) {
    const client = config.client(basic.clientId);
    const valid = matchesAny(client?.apiKeySha256 ?? [], presentedDigest(basic.secret));
    // RFC 6749 §2.3.1 allows one method per request; a client_id beside Basic must agree with it.
    if (client === undefined || !valid || (named !== undefined && named !== client.id)) {
      throw new InvalidClientError('Client authentication failed.', { detail: 'basic credentials refused', scheme: 'Basic' });
    }
    return client;
  }
  if (/^basic(\s|$)/i.test(authorization)) {
    throw new InvalidClientError('The Authorization header must be: Basic base64(client_id:secret).', { scheme: 'Basic' });
  }
  const key = bearerCredential(authorization);
  if (key === undefined) throw new InvalidClientError('Authenticate with HTTP Basic (client id and API key), or a Bearer API key.');
  const presented = presentedDigest(key);
  let caller: ClientConfig | undefined;
  for (const client of config.stage.clients) {
    if (matchesAny(client.apiKeySha256, presented)) caller ??= client;
  }
  if (caller === undefined || (named !== undefined && named !== caller.id)) {
    throw new InvalidClientError('Client authentication failed.', { detail: 'bearer API key refused' });
  }
  return caller;
}
