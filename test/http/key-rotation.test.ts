/**
 * Key rotation as a resource server lives it: a token signed before a rotation still verifies
 * against the JWKS served after it (the old key is `previous`, still published), and the new
 * signing key was already in the JWKS before it signed (it was `next`).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { SIGNING_KEYS_FILE } from '../../lib/adapters/secrets/file-secret-source';
import { parseStoredKeySet, rotateKeySet } from '../../lib/domain/signing-keys';
import { ensureLocalSecrets } from '../../local/secrets';
import { startTestService, uniqueEmail, type TestService } from '../support/harness';

async function issueToken(service: TestService): Promise<string> {
  const response = await service.signIn(uniqueEmail('rotation'));
  expect(response.status).toBe(200);
  return response.body.access_token as string;
}

async function jwksOf(service: TestService): Promise<JSONWebKeySet> {
  return (await service.get('/.well-known/jwks.json')).body as unknown as JSONWebKeySet;
}

it('keeps tokens signed by the old key verifiable while the key set holds it, and published the new key before it signed', async () => {
  const secretsDir = mkdtempSync(join(tmpdir(), 'identity-rotation-'));
  await ensureLocalSecrets(secretsDir);
  const before = await startTestService({ secretsDir });
  let after: TestService | undefined;
  try {
    const oldToken = await issueToken(before);
    const jwksBefore = await jwksOf(before);

    // Rotate the stored set, as the rotation function does on AWS; a new container reads it.
    const file = join(secretsDir, SIGNING_KEYS_FILE);
    const rotated = await rotateKeySet(parseStoredKeySet(JSON.parse(readFileSync(file, 'utf8'))), new Date());
    writeFileSync(file, JSON.stringify(rotated));
    after = await startTestService({ secretsDir, tableName: before.services.tableName });
    after.clock.set(before.clock.now());

    const jwksAfter = await jwksOf(after);
    const oldKid = decodeProtectedHeader(oldToken).kid;
    expect(rotated.keys.find((key) => key.status === 'previous')?.kid).toBe(oldKid);
    const options = { typ: 'at+jwt', algorithms: ['ES256'], currentDate: new Date(after.clock.now()) };
    await expect(jwtVerify(oldToken, createLocalJWKSet(jwksAfter), options)).resolves.toBeDefined();

    const newToken = await issueToken(after);
    const newKid = decodeProtectedHeader(newToken).kid;
    expect(newKid).not.toBe(oldKid);
    // A verifier that cached the JWKS before the rotation already knows the new key.
    expect(jwksBefore.keys.map((key) => key.kid)).toContain(newKid);
    await expect(jwtVerify(newToken, createLocalJWKSet(jwksBefore), options)).resolves.toBeDefined();
  } finally {
    await after?.stop();
    await before.stop();
  }
});
