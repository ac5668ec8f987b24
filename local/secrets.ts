/**
 * Local secrets: created once in a git-ignored folder (`.local/secrets`), then reused, so codes
 * and tokens survive a restart of `npm start`. Never used on AWS, where Secrets Manager holds them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HMAC_SECRET_FILE } from '../lib/adapters/secrets/file-secret-source';

/** Creates any missing local secret in `directory` (mode 0600). */
export async function ensureLocalSecrets(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const hmacFile = join(directory, HMAC_SECRET_FILE);
  if (!existsSync(hmacFile)) {
    await writeFile(hmacFile, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
  }
}
