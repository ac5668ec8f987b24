/**
 * Key rotation as a resource server lives it, for both key kinds (ES256 and RS256): a token
 * signed before a rotation still verifies against the JWKS served after it (the old key is
 * `previous`, still published), and a verifier that cached the JWKS before the rotation already
 * holds the new signing key (it was `next`), so it accepts the new tokens without refetching.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JwtRsaVerifier, JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { SIGNING_KEYS_FILE } from '../../lib/adapters/secrets/file-secret-source';
import { parseStoredKeySet, rotateKeySet } from '../../lib/keys/signing-keys';
import { ensureLocalSecrets } from '../../local/secrets';
import { startTestService, uniqueEmail, type TestService } from '../support/harness';

const AUDIENCE = 'http://127.0.0.1:3000/api';

async function issueToken(service: TestService, clientId: string): Promise<string> {
  const response = await service.signIn(uniqueEmail('rotation'), { clientId });
  expect(response.status).toBe(200);
  return response.body.access_token as string;
}

async function jwksOf(service: TestService): Promise<JSONWebKeySet> {
  return (await service.get('/.well-known/jwks.json')).body as unknown as JSONWebKeySet;
}

/**
 * A verifier as a resource server holds it: aws-jwt-verify with the JWKS it cached (it fetches
 * over https only), for the issuer of `service` (each local container has its own URL, so its own
 * issuer; on AWS both containers share one).
 */
function cachedVerifier(alg: 'ES256' | 'RS256', service: TestService, jwks: JSONWebKeySet) {
  const properties = { issuer: service.url, audience: AUDIENCE, jwksUri: `${service.url}/.well-known/jwks.json` };
  // Any fetch would mean the cached JWKS did not hold the key: refuse it, so the test says so.
  const jwksCache = new SimpleJwksCache({ fetcher: { fetch: () => Promise.reject(new Error('the verifier refetched the JWKS')) } });
  const verifier = alg === 'RS256' ? JwtRsaVerifier.create(properties, { jwksCache }) : JwtVerifier.create(properties, { jwksCache });
  verifier.cacheJwks(jwks as unknown as Parameters<typeof verifier.cacheJwks>[0]);
  return verifier;
}

it.each([
  ['ES256', 'local-web'],
  ['RS256', 'local-rs256'],
] as const)(
  'keeps %s tokens signed by the old current key verifiable, and a verifier with the JWKS cached before the rotation accepts the new key',
  async (alg, clientId) => {
    const secretsDir = mkdtempSync(join(tmpdir(), 'identity-rotation-'));
    await ensureLocalSecrets(secretsDir);
    const before = await startTestService({ secretsDir });
    let after: TestService | undefined;
    try {
      const oldToken = await issueToken(before, clientId);
      const jwksBefore = await jwksOf(before);
      const oldKid = decodeProtectedHeader(oldToken).kid;

      // Rotate the stored set, as the rotation function does on AWS; a new container reads it.
      const file = join(secretsDir, SIGNING_KEYS_FILE);
      const rotated = await rotateKeySet(parseStoredKeySet(JSON.parse(readFileSync(file, 'utf8'))), new Date());
      writeFileSync(file, JSON.stringify(rotated));
      after = await startTestService({ secretsDir, tableName: before.services.tableName });
      after.clock.set(before.clock.now());

      expect(rotated.keys.find((key) => key.alg === alg && key.status === 'previous')?.kid).toBe(oldKid);
      const options = { typ: 'at+jwt', algorithms: [alg], currentDate: new Date(after.clock.now()) };
      const jwksAfter = await jwksOf(after);
      await expect(jwtVerify(oldToken, createLocalJWKSet(jwksAfter), options)).resolves.toBeDefined();
      await expect(cachedVerifier(alg, before, jwksAfter).verify(oldToken)).resolves.toMatchObject({ client_id: clientId });

      const newToken = await issueToken(after, clientId);
      const newHeader = decodeProtectedHeader(newToken);
      expect(newHeader.alg).toBe(alg);
      expect(newHeader.kid).not.toBe(oldKid);
      expect(newHeader.kid).toBe(rotated.keys.find((key) => key.alg === alg && key.status === 'current')?.kid);
      // A verifier that cached the JWKS before the rotation already knows the new key.
      await expect(cachedVerifier(alg, after, jwksBefore).verify(newToken)).resolves.toMatchObject({ client_id: clientId });
    } finally {
      await after?.stop();
      await before.stop();
    }
  },
);
