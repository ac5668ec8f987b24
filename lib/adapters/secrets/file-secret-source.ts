/**
 * Secrets for the local runtime and tests: files in a git-ignored folder (`.local/secrets` for
 * `npm start`), created once by `local/secrets.ts`. Never used on AWS.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SecretSource } from '../../keys/ports';
import { parseSecretJson } from '../aws-failures';
import { parseStoredKeySet, publicKeySet } from '../../keys/signing-keys';

export const HMAC_SECRET_FILE = 'hmac-secret';
export const SIGNING_KEYS_FILE = 'signing-keys.json';

export class FileSecretSource implements SecretSource {
  constructor(private readonly directory: string) {}

  async hmacSecret(): Promise<Buffer> {
    return Buffer.from((await readFile(join(this.directory, HMAC_SECRET_FILE), 'utf8')).trim(), 'base64url');
  }

  async signingKeySet(): Promise<unknown> {
    return parseSecretJson(await readFile(join(this.directory, SIGNING_KEYS_FILE), 'utf8'), 'The signing key set');
  }

  /** Locally derived from the key set file (on AWS the rotation function publishes it). */
  async verificationKeySet(): Promise<unknown> {
    return publicKeySet(parseStoredKeySet(await this.signingKeySet()));
  }
}
