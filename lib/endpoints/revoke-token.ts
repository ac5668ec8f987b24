/**
 * `POST /idp/v1/account/revoke`: token revocation (RFC 7009).
 *
 * Steps, top to bottom:
 *   1. `token` (400 invalid_request when missing) and `token_type_hint`, which is ignored: the
 *      three kinds of token have shapes of their own, so the server finds the token whatever the
 *      hint says (§2.1: "An authorization server MAY ignore this parameter, particularly if it is
 *      able to detect the token type automatically"), and no hint is unsupported (§2.2.1's
 *      `unsupported_token_type` never arises: every kind can be revoked). First, so that a
 *      malformed request writes nothing (a `private_key_jwt` client's `jti` is spent in step 2);
 *   2. the client, authenticated as RFC 7009 §2.1 requires (lib/oauth/client-authentication.ts):
 *      401 invalid_client otherwise (§2.2.1, RFC 6749 §5.2);
 *   3. the token, if it is the caller's (a token of another client is left alone, §2.1: "the
 *      authorization server ... verifies whether the token was issued to the client making the
 *      revocation request"):
 *      - a refresh token: its whole family is revoked (every token of it, and the access tokens
 *        issued with them, for introspection: §2.1);
 *      - an opaque access token: its record is deleted, so introspection says inactive at once;
 *      - a JWT access token: its `jti` is recorded as revoked until it expires, so introspection
 *        says inactive. A resource server that verifies JWTs locally with the JWKS cannot know,
 *        and accepts it until `exp`: keep access tokens short-lived (docs/api.md, "Revocation");
 *   4. 200 with an empty JSON object, whatever the token was: unknown, expired, already revoked,
 *      another client's (§2.2: "invalid tokens do not cause an error response").
 *
 * At most one DynamoDB write, none for what is not one of ours, plus a `private_key_jwt` client's
 * `jti` (lib/oauth/client-authentication.ts): each case is counted on the wire in
 * test/http/revoke.test.ts and test/http/private-key-jwt.test.ts.
 */
import '../platform/zod';
import * as z from 'zod/mini';
import type { ServiceConfig } from '../platform/config';
import { LOG_EVENTS } from '../platform/log-events';
import type { Clock, Log } from '../platform/ports';
import type { ClientAssertionStore, RefreshTokenStore, RevocationStore, TokenStore } from '../oauth/ports';
import { opaqueTokenHash } from '../oauth/access-tokens';
import { authenticateClient } from '../oauth/client-authentication';
import type { HmacKeys } from '../keys/hmac-keys';
import { isJwtShaped, verifyJwtAccessToken } from './introspect-token';
import { familyHandleOf, familyKeyOf, parseRefreshToken } from '../oauth/refresh-tokens';
import { optionalTextField, parseFields, textField } from '../platform/request-fields';
import type { VerificationKeys } from '../keys/signing-keys';

export interface RevokeDeps {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly tokens: TokenStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly revocations: RevocationStore;
  /** Where `private_key_jwt` assertions are spent (lib/oauth/client-authentication.ts). */
  readonly clientAssertions: ClientAssertionStore;
  readonly hmacKeys: () => Promise<HmacKeys>;
  readonly verificationKeys: () => Promise<VerificationKeys>;
  readonly log: Log;
}

export interface RevokeRequest {
  readonly fields: Record<string, unknown>;
  readonly authorization: string | undefined;
  readonly issuer: string;
}

/** RFC 7009 §2.1's parameters (also the API description's: infra/openapi/schemas.ts); `client_id` is the client authentication's. */
export const revokeFields = z.object({
  token: textField('token', 4096),
  token_type_hint: optionalTextField('token_type_hint', 64),
});

/** Revokes the token if it is the caller's; answers the same either way (RFC 7009 §2.2). */
export async function revokeToken(deps: RevokeDeps, request: RevokeRequest): Promise<Record<string, never>> {
  // The request first: a malformed one writes nothing, not even a client assertion's jti.
  const { token } = parseFields(revokeFields, request.fields);
  const client = await authenticateClient(deps, request, 'revocation');
  const now = deps.clock.now();

  const refreshToken = parseRefreshToken(token);
  if (refreshToken !== undefined) {
    const familyKey = familyKeyOf(await deps.hmacKeys(), refreshToken.familyId);
    // The family id is in every token of the family and nowhere else: whoever presents it held one of them.
    const revoked = await deps.refreshTokens.revoke(familyKey, 'revoked', now, client.id);
    deps.log.info(LOG_EVENTS.tokenRevoked, { client: client.id, kind: 'refresh_token', family: familyHandleOf(familyKey), revoked });
    return {};
  }
  if (isJwtShaped(token)) {
    const found = await verifyJwtAccessToken(deps, token, request.issuer);
    const mine = found !== undefined && found.response.client_id === client.id;
    if (mine) {
      await deps.revocations.revokeAccessToken({
        jti: found.response.jti,
        clientId: client.id,
        expiresAt: found.response.exp,
        familyKey: found.familyKey,
      });
    }
    deps.log.info(LOG_EVENTS.tokenRevoked, { client: client.id, kind: 'access_token', format: 'jwt', revoked: mine });
    return {};
  }
  const revoked = await deps.tokens.revoke(opaqueTokenHash(token), client.id);
  deps.log.info(LOG_EVENTS.tokenRevoked, { client: client.id, kind: 'access_token', format: 'opaque', revoked });
  return {};
}
