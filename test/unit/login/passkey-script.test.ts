/**
 * The page script as committed (lib/login/passkey-script.ts) against its generator
 * (infra/page-script.ts, esbuild over lib/login/browser/passkeys.ts and @simplewebauthn/browser):
 * regenerating gives the same file, byte for byte, and it stays small.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { PAGE_SCRIPT_FILE, pageScriptModule } from '../../../infra/page-script';
import { PASSKEY_SCRIPT } from '../../../lib/login/passkey-script';

it('is current: regenerate with npm run page-script when the script, the library or esbuild changes', () => {
  expect(pageScriptModule()).toBe(readFileSync(PAGE_SCRIPT_FILE, 'utf8'));
});

it('stays small: under 10 KB minified and 3.5 KB gzipped (the page is inline, one request)', () => {
  expect(Buffer.byteLength(PASSKEY_SCRIPT, 'utf8')).toBeLessThan(10_000);
  expect(gzipSync(PASSKEY_SCRIPT).length).toBeLessThan(3_500);
  // ASCII only (esbuild's charset: 'ascii'), so the hash does not depend on how the page is encoded.
  expect(PASSKEY_SCRIPT).toMatch(/^[\x20-\x7e]*$/);
});
