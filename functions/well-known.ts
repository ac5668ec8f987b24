/**
 * Lambda: GET /.well-known/jwks.json (RFC 7517), GET /.well-known/oauth-authorization-server
 * (RFC 8414) and GET /.well-known/openid-configuration (OpenID Connect Discovery 1.0). Public and cacheable; the JWKS cache time is part of the key rotation arithmetic
 * (docs/operations/key-rotation.md).
 */
import type { WellKnownDeps } from '../lib/deps';
import { wellKnownDeps } from '../lib/deps/well-known';
import {
  authorizationServerMetadata,
  JWKS_MAX_AGE_SECONDS,
  METADATA_MAX_AGE_SECONDS,
  openIdProviderMetadata,
  PATHS,
} from '../lib/endpoints/metadata';
import { NotFoundError } from '../lib/platform/errors';
import { apiHandler } from '../lib/platform/http/handler';
import { issuerOf } from '../lib/platform/http/issuer';
import { jsonResponse } from '../lib/platform/http/responses';

export function createHandler(deps: () => WellKnownDeps) {
  return apiHandler({ methods: ['GET'], cors: () => deps().config.stage.deployment.cors }, async (event) => {
    const resolved = deps();
    switch (event.resource) {
      case PATHS.jwks:
        return jsonResponse(200, (await resolved.verificationKeys()).jwks, { 'Cache-Control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` });
      case PATHS.metadata:
        return jsonResponse(200, authorizationServerMetadata(issuerOf(resolved.issuer, event), resolved.config), {
          'Cache-Control': `public, max-age=${METADATA_MAX_AGE_SECONDS}`,
        });
      case PATHS.openidConfiguration:
        return jsonResponse(200, openIdProviderMetadata(issuerOf(resolved.issuer, event), resolved.config), {
          'Cache-Control': `public, max-age=${METADATA_MAX_AGE_SECONDS}`,
        });
      default:
        throw new NotFoundError('No such document.');
    }
  });
}

export const handler = createHandler(wellKnownDeps);
