/** Which environment and client a request is about: the same rules for every operation. */
import type { ClientConfig, EnvironmentConfig, ServiceConfig } from '../platform/config';
import { InvalidClientError, InvalidRequestError } from '../platform/errors';

/** `?env_id=`: absent means the default environment; unknown is a 400. */
export function environmentOf(config: ServiceConfig, environmentId: string | undefined): EnvironmentConfig {
  const environment = config.environment(environmentId);
  if (environment === undefined) throw new InvalidRequestError('env_id does not name a known environment.');
  return environment;
}

/** The client, which must exist and be allowed in `environment` (401 invalid_client otherwise). */
export function clientIn(config: ServiceConfig, environment: EnvironmentConfig, clientId: string): ClientConfig {
  return allowedIn(config.client(clientId), environment);
}

/** `client` (named by an id, or authenticated), if allowed in `environment`; 401 invalid_client otherwise. */
export function allowedIn(client: ClientConfig | undefined, environment: EnvironmentConfig): ClientConfig {
  if (client === undefined || !client.environments.includes(environment.id)) {
    throw new InvalidClientError('Unknown client, or a client not allowed in this environment.');
  }
  return client;
}
