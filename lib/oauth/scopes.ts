/**
 * Scopes (RFC 6749 §3.3): a space-separated list of case-sensitive tokens. The service knows the
 * OpenID Connect ones (OIDC Core §3.1.2.1 `openid`, §5.4 `profile`, `email` and `phone`, §11
 * `offline_access`) and each client's own (its configured `accessToken.scope`). Any other value is
 * ignored and left out of the granted scope, which the token response then states (OIDC Core
 * §3.1.2.1: "Scope values used that are not understood by an implementation SHOULD be ignored";
 * RFC 6749 §3.3, §5.1). Only a value that is not a scope token at all is `invalid_scope`.
 */
import type { ClientConfig } from '../platform/config';

/** The scopes every client may ask for. */
export const STANDARD_SCOPES = ['openid', 'profile', 'email', 'phone', 'offline_access'] as const;

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The tokens of a scope string, in order, each once; an absent or blank scope has none. */
export function scopesOf(scope: string | undefined): string[] {
  return [...new Set((scope ?? '').split(' ').filter((token) => token !== ''))];
}

/** Whether a granted scope string includes `token`. */
export function hasScope(scope: string | undefined, token: string): boolean {
  return scopesOf(scope).includes(token);
}

/** Every scope `client` may be granted: the standard ones and its own. */
export function allowedScopes(client: ClientConfig): string[] {
  return [...new Set([...STANDARD_SCOPES, ...scopesOf(client.accessToken.scope)])];
}

/**
 * The scope to grant for a requested one: the requested tokens this client may have (the others
 * ignored; `offline_access` only for a client issued refresh tokens), the client's default (its
 * configured scope) when none is requested (RFC 6749 §3.3), or the first token that is not a scope
 * token at all (RFC 6749 §3.3's syntax; the caller answers `invalid_scope`).
 */
export function grantScope(requested: string | undefined, client: ClientConfig): { granted: string | undefined } | { refused: string } {
  const tokens = scopesOf(requested);
  if (tokens.length === 0) return { granted: client.accessToken.scope };
  const malformed = tokens.find((token) => !SCOPE_TOKEN.test(token));
  if (malformed !== undefined) return { refused: malformed };
  const allowed = allowedScopes(client).filter((token) => token !== 'offline_access' || client.refreshTokens !== undefined);
  const granted = tokens.filter((token) => allowed.includes(token));
  return { granted: granted.length === 0 ? undefined : granted.join(' ') };
}

/**
 * The scope of a refresh (RFC 6749 §6): the requested tokens when every one was originally
 * granted, the original scope when none is requested ("if omitted is treated as equal to the
 * scope originally granted"), or the first token that was not granted (the caller answers
 * `invalid_scope`: a refresh may narrow the scope, never widen it).
 */
export function narrowScope(
  requested: string | undefined,
  granted: string | undefined,
): { granted: string | undefined } | { refused: string } {
  const tokens = scopesOf(requested);
  if (tokens.length === 0) return { granted };
  const original = scopesOf(granted);
  const refused = tokens.find((token) => !original.includes(token));
  return refused === undefined ? { granted: tokens.join(' ') } : { refused };
}
