/**
 * The token response every grant ends with (RFC 6749 §5.1; OpenID Connect Core §3.1.3.3): the
 * access token as the client's settings say, and an ID token when the granted scope includes
 * `openid`.
 */
import type { Log, TokenStore } from '../ports';
import { LOG_EVENTS } from '../log-events';
import { mintOpaqueToken, signAccessToken, type Grant } from './access-tokens';
import { signIdToken } from './id-tokens';
import { hasScope } from './scopes';
import type { SigningKeys } from './signing-keys';

/** RFC 6749 §5.1, with OIDC Core §3.1.3.3's `id_token`. */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope?: string;
  readonly id_token?: string;
}

export interface IssueTokensDeps {
  readonly tokens: TokenStore;
  readonly signingKeys: () => Promise<SigningKeys>;
  readonly log: Log;
}

/**
 * Issues the tokens of `grant`. DynamoDB requests: none for a JWT, one for an opaque token (its
 * record). `logFields` name the decision in the logs (ids only).
 */
export async function issueTokens(deps: IssueTokensDeps, grant: Grant, logFields: Record<string, unknown>): Promise<TokenResponse> {
  const { accessToken, expiresIn } = await issueAccessToken(deps, grant);
  const idToken = hasScope(grant.scope, 'openid') ? await signIdToken(await deps.signingKeys(), grant, accessToken) : undefined;
  deps.log.info(LOG_EVENTS.tokenIssued, {
    ...logFields,
    format: grant.client.accessToken.format,
    channel: grant.channel,
    idToken: idToken !== undefined,
  });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: expiresIn,
    ...(grant.scope === undefined ? {} : { scope: grant.scope }),
    ...(idToken === undefined ? {} : { id_token: idToken }),
  };
}

async function issueAccessToken(deps: IssueTokensDeps, grant: Grant): Promise<{ accessToken: string; expiresIn: number }> {
  if (grant.client.accessToken.format === 'jwt') return signAccessToken(await deps.signingKeys(), grant);
  const { token, record } = mintOpaqueToken(grant);
  await deps.tokens.save(record);
  return { accessToken: token, expiresIn: grant.client.accessToken.ttlSeconds };
}
