/**
 * A production stage that synthesizes. config/prod.json as committed is a template: example.com
 * domains, AWS documentation account ids, all-zero and `0123…` resource ids, fictional phone numbers
 * and the hash of a key whose clear text docs/deploy.md prints; synthesis refuses it, naming each
 * (infra/go-live.ts). Tests that need a real production stack synthesize a copy with every
 * placeholder replaced by a neutral value that is no example, the way a platform team fills in its
 * own copy and runs `cdk synth -c stage=prod -c configDir=<dir>`.
 *
 * The copy lives in a directory named after its content, so every test file, worker and run with
 * the same template shares one directory, and test/infra/synthesize.ts's assembly cache (keyed by
 * the stage file's path and content) is shared too.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFIG_DIR } from '../../infra/stage';
import { synthesize, synthesizedAssembly, type CloudAssembly, type SynthesizedStage } from './synthesize';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The seed of the derived values: ids, and the clients' keys (computed, so no file holds their clear text). */
const SEED = 'identity/production/stage/copy';

/** The domain that replaces every example domain: a name outside RFC 2606/6761's reserved ones. */
export const PRODUCTION_DOMAIN = 'identity-fixture.eu';
/** The account that replaces the AWS documentation account ids. */
export const PRODUCTION_ACCOUNT = '210987654321';

/**
 * The placeholders of the template and what replaces each. A stored key hash becomes the hash of a
 * key derived from SEED: the clear text is computed, never written down, so the repository holds no
 * text that hashes to it (the rule the copy must pass). Every replacement is deterministic, so the
 * copy's content, and with it its directory, changes only when the template does.
 */
function fillIn(template: string): string {
  const hex = (label: string, length: number) => sha256(`${SEED}:${label}`).slice(0, length);
  const uuid = (label: string) => {
    const h = hex(label, 32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
  let counter = 0;
  return (
    template
      // RFC 2606 second-level example domains, with any subdomain.
      .replace(/\bexample\.(com|net|org)\b/g, PRODUCTION_DOMAIN)
      // All-zero UUIDs (certificate ARNs and the like), before the all-zero account id inside them.
      .replace(/\b00000000-0000-0000-0000-000000000000\b/g, () => uuid(`uuid-${counter++}`))
      // AWS documentation account ids.
      .replace(/\b(111122223333|123456789012|000000000000)\b/g, PRODUCTION_ACCOUNT)
      // `phone-0123456789abcdef…`-style resource ids.
      .replace(/\b0123456789abcdef0123456789abcdef\b/g, () => hex(`id-${counter++}`, 32))
      // NANP fictional numbers (555-0100 to 555-0199): another exchange of the same area code.
      .replace(/\+1(\d{3})5550(1\d\d)\b/g, (_match, area: string, line: string) => `+1${area}4570${line}`)
      // Stored key hashes: the copy's own key (one per client, derived).
      .replace(/"[0-9a-f]{64}"/g, () => `"${sha256(hex(`key-${counter++}`, 64))}"`)
  );
}

let directory: string | undefined;

/**
 * A directory holding `prod.json`: config/prod.json with every placeholder filled in. Written once
 * per content (an atomic rename, so concurrent workers never read half a file).
 */
export function productionConfigDir(): string {
  if (directory !== undefined) return directory;
  const filled = fillIn(readFileSync(join(CONFIG_DIR, 'prod.json'), 'utf8'));
  const dir = join(tmpdir(), `identity-production-config-${sha256(filled).slice(0, 16)}`);
  const file = join(dir, 'prod.json');
  if (!existsSync(file) || readFileSync(file, 'utf8') !== filled) {
    mkdirSync(dir, { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, filled);
    renameSync(partial, file);
  }
  directory = dir;
  return dir;
}

let synthesized: SynthesizedStage | undefined;

/** The filled-in production stage, synthesized with cdk-nag (once per test file). */
export function synthesizeProduction(): SynthesizedStage {
  synthesized ??= synthesize('prod', productionConfigDir());
  return synthesized;
}

/** The filled-in production stage's cloud assembly, bundles included (shared across test files: see synthesizedAssembly). */
export function productionAssembly(): CloudAssembly {
  return synthesizedAssembly('prod', productionConfigDir());
}
