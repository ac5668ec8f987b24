/**
 * Local secrets (the HMAC key and the signing key set): created once in a git-ignored folder
 * (`.local/secrets`), then reused, so codes and tokens survive a restart of `npm start`. Never
 * used on AWS, where Secrets Manager holds them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HMAC_SECRET_FILE, SIGNING_KEYS_FILE } from '../lib/adapters/secrets/file-secret-source';
import { completeKeySet, initialKeySet, parseStoredKeySet } from '../lib/keys/signing-keys';

/** Creates any missing local secret in `directory` (mode 0600). Safe to call from several processes at once. */
export async function ensureLocalSecrets(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  await createOnce(join(directory, HMAC_SECRET_FILE), () => Promise.resolve(`${randomBytes(32).toString('base64url')}\n`));
  const keysFile = join(directory, SIGNING_KEYS_FILE);
  await createOnce(keysFile, async () => `${JSON.stringify(await initialKeySet(new Date()), null, 2)}\n`);
  await completeKeysFile(keysFile);
}

/**
 * A key set file written before an algorithm existed (RS256) gets that algorithm's keys, once:
 * the new file replaces the old one atomically (rename), and a concurrent upgrade by another
 * process only writes an equally complete set.
 */
async function completeKeysFile(file: string): Promise<void> {
  const stored = parseStoredKeySet(JSON.parse(await readFile(file, 'utf8')));
  const complete = await completeKeySet(stored, new Date());
  if (complete === stored) return;
  const temporary = `${file}.${randomUUID()}.tmp`;
  await writeFile(temporary, `${JSON.stringify(complete, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/**
 * Writes `file` unless it exists. The content goes to a temporary file first and is then linked
 * into place, which fails if another process got there first: a reader never sees half a file,
 * and two processes never end up with different secrets.
 */
async function createOnce(file: string, content: () => Promise<string>): Promise<void> {
  if (existsSync(file)) return;
  const temporary = `${file}.${randomUUID()}.tmp`;
  await writeFile(temporary, await content(), { mode: 0o600 });
  try {
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
}
