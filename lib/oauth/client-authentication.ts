/**
 * Which client a request comes from: the one client authentication of the service, for every
 * endpoint where a client authenticates (RFC 6749 §2.3): the token endpoint (every grant) and
 * revocation (RFC 7009 §2.1) through `authenticateClient`, introspection (RFC 7662 §2.1) through
 * `authenticateCredentials`, which admits confidential clients only.
 * - a public client (`tokenEndpointAuthMethod` `none`: no secret) names itself with `client_id`
 *   (RFC 6749 §2.1, §3.2.1) and presents no secret;
 * - a confidential one (a client with a secret, stored as SHA-256 digests in `apiKeySha256`: the
 *   secret is also its API key) proves it: `client_secret_basic` (HTTP Basic, RFC 6749 §2.3.1),
 *   `client_secret_post` (the secret in the body), or the key alone as a Bearer credential (RFC
 *   6750 syntax), as introspection accepts; a registered method narrows this to that one;
 * - a client registered `private_key_jwt` proves it with a JWT signed by its private key (RFC 7523
 *   §2.2; the rules: lib/oauth/client-assertions.ts), whose `jti` is spent by one conditional
 *   write, the only DynamoDB request client authentication ever makes (none for the others).
 * Anything else is 401 `invalid_client` (RFC 6749 §5.2, which RFC 7009 §2.2.1 refers to), with a
 * `Basic` challenge when the client tried Basic. A presented secret is hashed (SHA-256) whether or
 * not its client exists, and compared with each stored digest in constant time. Client ids are
 * not secret (every authorization request carries one).
 */
import { authMethodsOf, type ClientConfig, type ServiceConfig } from '../platform/config';
import type { TokenEndpointAuthMethod } from '../platform/vocabulary';
import { InvalidClientError, InvalidRequestError, InvalidTokenError } from '../platform/errors';
import type { Clock } from '../platform/ports';
import type { ClientAssertionStore } from './ports';
import { basicCredentials, bearerCredential, matchesAny, presentedDigest, requireBearer } from './api-keys';
import {
  ASSERTION_CLOCK_SKEW_SECONDS,
  ASSERTION_REFUSALS,
  assertionJtiHash,
  audiencesAt,
  claimedClientOf,
  JWT_BEARER_ASSERTION_TYPE,
  verifyClientAssertion,
  type AssertionRefusal,
  type AuthenticatingEndpoint,
} from './client-assertions';

export type { AuthenticatingEndpoint };

/** What a request presents to say which client it comes from. */
export interface PresentedClient {
  /** The Authorization header: `client_secret_basic`, or a Bearer API key (an extension). */
  readonly authorization: string | undefined;
  /** The request's parameters: `client_id`, and `client_secret` (`client_secret_post`) or `client_assertion`. */
  readonly fields: Record<string, unknown>;
  /** The service's issuer URL: a client assertion's `aud` names it, or an endpoint under it. */
  readonly issuer: string;
}

/** What authenticating a client needs: the clients, the time, and where assertions are spent. */
export interface ClientAuthenticationDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly clientAssertions: ClientAssertionStore;
}

/** A parameter as RFC 6749 §3.1 reads it: an empty one is omitted. */
function given(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The client of a request at the token and revocation endpoints (`endpoint`), authenticated as it
 * must be (RFC 6749 §2.3, §3.2.1); throws 401 invalid_client otherwise, and 400 invalid_request
 * for a request that uses two methods at once (§2.3: "MUST NOT use more than one"; §5.2).
 * - a public client (`none`) names itself with `client_id`, and presents no secret;
 * - a confidential client authenticates with a method it may use (`authMethodsOf`):
 *   `client_secret_basic`, `client_secret_post` (its secret in the body beside `client_id`), or,
 *   as the API's servers always could, a Bearer API key (an extension outside the registered
 *   methods, for a client that registered none);
 * - a `private_key_jwt` client with `client_assertion_type` and `client_assertion` (RFC 7523
 *   §2.2); `client_id` beside them is optional, and must be the assertion's client when present.
 * @example const client = await authenticateClient(deps, { authorization, fields, issuer }, 'token');
 */
export async function authenticateClient(
  deps: ClientAuthenticationDeps,
  presented: PresentedClient,
  endpoint: AuthenticatingEndpoint,
): Promise<ClientConfig> {
  const secret = given(presented.fields.client_secret);
  const assertion = given(presented.fields.client_assertion) ?? given(presented.fields.client_assertion_type);
  const header = given(presented.authorization);
  if ([header, secret, assertion].filter((method) => method !== undefined).length > 1) {
    throw new InvalidRequestError('Authenticate the client by one method per request (RFC 6749 section 2.3).');
  }
  if (assertion !== undefined) return authenticateAssertion(deps, presented, endpoint);
  return authenticateSecret(deps.config, presented);
}

/** A refusal of a client assertion: no `Basic` challenge (Basic was not tried); the log detail names ids only. */
function refuseAssertion(reason: AssertionRefusal, clientId?: string): never {
  throw new InvalidClientError(ASSERTION_REFUSALS[reason], {
    detail: `client_assertion refused: ${reason}${clientId === undefined ? '' : ` (client ${clientId})`}`,
  });
}

/**
 * `private_key_jwt` (RFC 7523 §2.2, §3; OIDC Core §9): the client the assertion's `iss` and `sub`
 * name, if it registered that method, and the assertion verified with its keys; then its `jti`
 * spent, after every check and before any grant work, so an unauthenticated request writes nothing.
 */
async function authenticateAssertion(
  deps: ClientAuthenticationDeps,
  presented: PresentedClient,
  endpoint: AuthenticatingEndpoint,
): Promise<ClientConfig> {
  const { fields } = presented;
  if (fields.client_assertion_type !== JWT_BEARER_ASSERTION_TYPE) refuseAssertion('type');
  const assertion = given(fields.client_assertion);
  if (assertion === undefined) refuseAssertion('missing');

  const claimed = claimedClientOf(assertion);
  if ('refused' in claimed) refuseAssertion(claimed.refused);
  // The unverified `iss` may be any text: it is named in the logs only once it is a client's id.
  const client = deps.config.client(claimed.clientId);
  if (client === undefined) refuseAssertion('unknown_client');
  const named = given(fields.client_id);
  if (named !== undefined && named !== client.id) refuseAssertion('client_id', client.id);
  if (!mayUse(client, 'private_key_jwt')) refuseAssertion('not_registered', client.id);

  const now = Math.floor(deps.clock.now() / 1000);
  const checked = await verifyClientAssertion(assertion, client, {
    clientId: client.id,
    audiences: audiencesAt(presented.issuer, endpoint),
    now,
  });
  if ('refused' in checked) refuseAssertion(checked.refused, client.id);
  const first = await deps.clientAssertions.spend({
    clientId: client.id,
    jtiHash: assertionJtiHash(checked.jti),
    keepUntil: Math.ceil(checked.exp) + ASSERTION_CLOCK_SKEW_SECONDS,
    now,
  });
  if (!first) refuseAssertion('replayed', client.id);
  return client;
}

/** The secret methods, and a public client's `client_id`: checked in memory, no request made. */
function authenticateSecret(config: ServiceConfig, presented: PresentedClient): ClientConfig {
  const named = given(presented.fields.client_id);
  const secret = given(presented.fields.client_secret);
  const header = given(presented.authorization);
  if (header !== undefined) {
    const client = authenticateCredentials(config, header, { named });
    const method = basicCredentials(header) === undefined ? 'bearer' : 'client_secret_basic';
    if (!mayUse(client, method)) {
      throw new InvalidClientError('Client authentication failed.', {
        detail: `${method} not registered for client ${client.id}`,
        ...(method === 'client_secret_basic' ? { scheme: 'Basic' } : {}),
      });
    }
    return client;
  }

  const client = named === undefined ? undefined : config.client(named);
  if (secret !== undefined) {
    // The presented secret is hashed whether or not the client exists; each stored digest is
    // compared in constant time.
    const valid = matchesAny(client?.apiKeySha256 ?? [], presentedDigest(secret));
    if (client === undefined || !valid || !mayUse(client, 'client_secret_post')) {
      throw new InvalidClientError('Client authentication failed.', { detail: 'client_secret_post credentials refused' });
    }
    return client;
  }
  if (client === undefined) throw new InvalidClientError('Unknown client: name it with client_id, or authenticate.');
  if (!mayUse(client, 'none')) {
    const how = mayUse(client, 'private_key_jwt')
      ? 'a client assertion (private_key_jwt, RFC 7523 section 2.2).'
      : 'HTTP Basic with its client id and secret.';
    throw new InvalidClientError(`This client must authenticate: ${how}`, { detail: `client ${client.id} presented no credentials` });
  }
  return client;
}

/** Whether `client` may authenticate by `method` (the Bearer API key: only when it registered no method). */
function mayUse(client: ClientConfig, method: TokenEndpointAuthMethod | 'bearer'): boolean {
  if (method === 'bearer') return client.tokenEndpointAuthMethod === undefined && client.apiKeySha256.length > 0;
  return authMethodsOf(client).includes(method);
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
 * of the client(s) in question is compared in constant time.
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
