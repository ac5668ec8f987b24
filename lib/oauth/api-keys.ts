/**
 * API keys (`Authorization: Bearer <key>`, RFC 6750 §2.1). Clients' keys are stored as SHA-256
 * digests (a key is 256 random bits, so a fast hash is enough: there is nothing to brute-force),
 * and a presented key is compared with every stored digest in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ClientConfig } from '../platform/config';
import { InvalidTokenError } from '../platform/errors';

/** The SHA-256 hex digest an API key is stored as in the configuration. */
export function apiKeyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The Bearer credential of an Authorization header, or undefined when there is none (the scheme is case-insensitive, RFC 7235 §2.1). */
export function bearerCredential(authorization: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * The Bearer credential, or 401 invalid_token: without the RFC 6750 error code when no Bearer
 * credential was presented at all (§3.1), with it when the Bearer header is malformed.
 */
export function requireBearer(authorization: string | undefined): string {
  const key = bearerCredential(authorization);
  if (key !== undefined) return key;
  const bearerPresented = /^bearer(\s|$)/i.test(authorization ?? '');
  throw new InvalidTokenError(
    bearerPresented ? 'The Authorization header must be: Bearer <key>.' : 'An API key is required: Authorization: Bearer <key>.',
    { bearerPresented },
  );
}

/** Throws 401 invalid_token unless `authorization` carries one of the client's keys. */
export function requireApiKey(client: ClientConfig, authorization: string | undefined): void {
  const presented = presentedDigest(requireBearer(authorization));
  if (!matchesAny(client.apiKeySha256, presented)) {
    throw new InvalidTokenError('The API key is not valid.', { bearerPresented: true, detail: `client ${client.id}` });
  }
}

/** The digest of a presented key, computed once per request and compared with every stored one. */
export function presentedDigest(key: string): Buffer {
  return Buffer.from(apiKeyDigest(key), 'hex');
}

/** True when the presented digest matches one of `digests`; every one is compared, so timing says nothing. */
export function matchesAny(digests: readonly string[], presented: Buffer): boolean {
  let matched = false;
  for (const digest of digests) {
    matched = timingSafeEqual(presented, Buffer.from(digest, 'hex')) || matched;
  }
  return matched;
}

/** HTTP Basic credentials (RFC 7617) as OAuth clients send them: a client id and its secret. */
export interface BasicCredentials {
  readonly clientId: string;
  readonly secret: string;
}

/**
 * The `client_secret_basic` credentials of an Authorization header (RFC 6749 §2.3.1: the client
 * id and secret, each form-urlencoded, joined by a colon and base64-encoded), or undefined when
 * the header is not Basic. A Basic header that does not decode to `id:secret` is undefined too.
 */
export function basicCredentials(authorization: string | undefined): BasicCredentials | undefined {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(authorization ?? '');
  if (match === null) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  try {
    const unescape = (value: string) => decodeURIComponent(value.replaceAll('+', ' '));
    const credentials = { clientId: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
    return credentials.clientId.isWellFormed() && credentials.secret.isWellFormed() ? credentials : undefined;
  } catch {
    // A malformed percent-escape.
    return undefined;
  }
}
