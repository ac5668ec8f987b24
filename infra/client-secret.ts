/**
 * `npm run client-secret`: a new client secret, and the SHA-256 to paste into the client's
 * `apiKeySha256` in the stage file (docs/api.md, "Client authentication"). The secret is 256
 * random bits in base64url (43 characters of `[A-Za-z0-9_-]`: nothing any client library escapes
 * differently in HTTP Basic); the service keeps only the digest. Add the new digest beside the old
 * one, deploy, move the clients over, then remove the old one.
 */
import { randomBytes } from 'node:crypto';
import { apiKeyDigest } from '../lib/oauth/api-keys';

/** A fresh secret and the digest the configuration stores. */
export function newClientSecret(): { secret: string; sha256: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, sha256: apiKeyDigest(secret) };
}

if (require.main === module) {
  const { secret, sha256 } = newClientSecret();
  process.stdout.write(
    `secret (give it to the client, store it nowhere else):\n  ${secret}\napiKeySha256 entry (the stage file):\n  ${sha256}\n`,
  );
}
