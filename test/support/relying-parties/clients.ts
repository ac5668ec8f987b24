/**
 * The relying parties' registrations, written as a platform team writes them in a stage file
 * (config/<stage>.json; docs/connect.md): a confidential client for an app with a server (the
 * SHA-256 of a secret from `npm run client-secret`, and the one method its library uses), a
 * public one for a single-page app (no secret: `none`), refresh tokens where the app refreshes,
 * the post-logout redirect URIs of an app that logs out at the service (RP-Initiated Logout 1.0
 * §3.1), and CORS for the single-page app's origin (its script calls the token and UserInfo
 * endpoints).
 */
import { parseStageConfig, type StageConfig } from '../../../lib/platform/config';
import type { TokenEndpointAuthMethod } from '../../../lib/platform/vocabulary';

export interface Registration {
  readonly id: string;
  readonly redirectUri: string;
  /** The SHA-256 (hex) of the client's secret; absent: a public client. */
  readonly secretSha256?: string;
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** Whether the app refreshes its tokens: then the client is issued refresh tokens. */
  readonly refreshes: boolean;
  /** Where the service may send the browser back after a logout the app asks for (exact match). */
  readonly postLogoutRedirectUris?: readonly string[];
}

/** A stage file's client entry for `registration`. */
export function clientEntry(registration: Registration): Record<string, unknown> {
  return {
    id: registration.id,
    environments: ['local'],
    redirectUris: [registration.redirectUri],
    accessToken: { format: 'jwt', audience: new URL(registration.redirectUri).origin },
    ...(registration.secretSha256 === undefined ? {} : { apiKeySha256: [registration.secretSha256] }),
    tokenEndpointAuthMethod: registration.tokenEndpointAuthMethod,
    ...(registration.refreshes ? { refreshTokens: {} } : {}),
    ...(registration.postLogoutRedirectUris === undefined ? {} : { postLogoutRedirectUris: registration.postLogoutRedirectUris }),
  };
}

/** `config` with these clients added, and `browserOrigins` allowed by CORS. */
export function withRelyingParties(
  config: StageConfig,
  registrations: readonly Registration[],
  browserOrigins: readonly string[],
): StageConfig {
  const allowOrigins = [...(config.deployment.cors?.allowOrigins ?? []), ...browserOrigins];
  return parseStageConfig({
    ...config,
    clients: [...config.clients, ...registrations.map(clientEntry)],
    deployment: { ...config.deployment, cors: { ...config.deployment.cors, allowOrigins } },
  });
}
