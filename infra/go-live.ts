/**
 * What must not ship: the checks synthesis makes on a production-like stage (one whose data
 * matters: `deployment.removalPolicy` is `retain`, the default) before any resource exists. A
 * throw-away stage (`destroy`: config/dev.json, config/local.json) is exempt, its examples are its
 * point. Each problem names what to change; infra/stage.ts stops synthesis with all of them.
 *
 * 1. A client credential whose clear text is in the repository: each stored hash
 *    (`apiKeySha256`) is compared with the SHA-256 of every token of the repository's text files,
 *    so a documented example key (docs/deploy.md prints one) cannot become a production secret.
 * 2. Placeholders in the stage file's strings: the example domains of RFC 2606 and RFC 6761
 *    (example.com/.net/.org, .example, .test, .invalid, localhost and .localhost), loopback
 *    addresses, the account ids of the AWS documentation (111122223333, 123456789012,
 *    000000000000), runs of zeros and `0123456789abcdef` in ids, and NANP's fictional numbers
 *    (555-0100 to 555-0199).
 * 3. An SMS country without an origination identity: a country that accepts no alphanumeric sender
 *    id delivers only from a number of its own, so SNS drops those messages otherwise.
 *
 * The spend-limit rule (SNS refuses a `MonthlySpendLimit` above the account's quota, failing the
 * deployment) holds for every stage: infra/stage.ts `deploymentProblems`.
 */
import { execFileSync } from 'node:child_process';
import { hash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { destinationOf } from '../lib/phone/destinations';
import type { DeployableStageConfig } from './stage-config';

/** A stage whose data matters: the go-live rules apply. */
export function isProductionLike(config: DeployableStageConfig): boolean {
  return config.deployment.removalPolicy === 'retain';
}

/**
 * Countries that accept no alphanumeric sender id, so an SMS there needs an origination number of
 * that country: "Several major markets (including Canada, China, and the United States) don't
 * support sender ID" (AWS End User Messaging SMS User Guide, "Sender IDs"; the per-country table:
 * "Supported countries and regions for SMS messaging"). Kept to the ones the AWS guide names.
 */
export const COUNTRIES_WITHOUT_SENDER_ID: readonly string[] = ['US', 'CA', 'CN'];

/** AWS documentation's placeholder account ids (IAM User Guide and the CLI references use them in examples). */
const PLACEHOLDER_ACCOUNTS = ['111122223333', '123456789012', '000000000000'];

/** Directories that are never the repository's own text (build output, dependencies, reports). */
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'cdk.out', '.git', 'reports', '.stryker-tmp', 'coverage', 'dist', 'test-output']);
/** Larger files are data, not text a key would be written in. */
const MAX_FILE_BYTES = 2_000_000;

/** Everything the go-live rules find in a production-like stage; empty for a throw-away one. */
export function goLiveProblems(raw: unknown, config: DeployableStageConfig, repositoryRoot: string): string[] {
  if (!isProductionLike(config)) return [];
  return [...exposedCredentials(config, repositoryRoot), ...placeholders(raw), ...missingOriginations(config)];
}

/** Rule 1: stored hashes whose clear text is a token of the repository's text files. */
export function exposedCredentials(config: DeployableStageConfig, repositoryRoot: string): string[] {
  const problems: string[] = [];
  const exposed = repositoryTokenHashes(repositoryRoot);
  config.clients.forEach((client, index) => {
    client.apiKeySha256.forEach((hash, position) => {
      const files = exposed.get(hash);
      if (files === undefined) return;
      problems.push(
        `clients[${index}] "${client.id}": apiKeySha256[${position}] is the hash of a key written in ${files.join(', ')}: anyone who reads the repository holds it. ` +
          'Generate a new one (npm run client-secret) and give it to the client only.',
      );
    });
  });
  return problems;
}

/** The hash of each token, and the repository's files that hold it (sorted). */
export type TokenHashes = ReadonlyMap<string, readonly string[]>;

const tokenHashes = new Map<string, TokenHashes>();

/**
 * The SHA-256 (hex) of every token of the repository's text files, each with the files it is in. Tokens are the runs between white space, quotes, brackets and other punctuation a key
 * is written between in prose, code and shell (`Bearer <key>`, `"key"`, `KEY=value`), each also
 * without trailing sentence punctuation. Computed once per process (about 0.5 s of CPU for this
 * repository: test/infra/go-live-rules.test.ts measures it).
 */
export function repositoryTokenHashes(root: string): TokenHashes {
  let hashes = tokenHashes.get(root);
  if (hashes === undefined) {
    hashes = hashRepositoryTokens(root);
    tokenHashes.set(root, hashes);
  }
  return hashes;
}

/** repositoryTokenHashes, computed afresh. */
export function hashRepositoryTokens(root: string): TokenHashes {
  const hashes = new Map<string, string[]>();
  const hashOf = new Map<string, string>();
  for (const file of repositoryFiles(root).sort()) {
    const path = join(root, file);
    let bytes: Buffer;
    try {
      if (statSync(path).size > MAX_FILE_BYTES) continue;
      bytes = readFileSync(path);
    } catch {
      continue; // deleted since git listed it
    }
    if (bytes.subarray(0, 8_000).includes(0)) continue; // binary
    for (const token of tokensOf(bytes.toString('utf8'))) {
      let digest = hashOf.get(token);
      if (digest === undefined) {
        digest = hash('sha256', token);
        hashOf.set(token, digest);
      }
      const files = hashes.get(digest);
      if (files === undefined) hashes.set(digest, [file]);
      else files.push(file);
    }
  }
  return hashes;
}

/** The tokens of a text that a key could be (see repositoryTokenHashes). */
export function tokensOf(text: string): Set<string> {
  const tokens = new Set<string>();
  // Eight characters at least: shorter is no key anyone issues.
  for (const [word] of text.matchAll(/[^\s"'`<>()[\]{},;|\\]{8,}/g)) {
    tokens.add(word);
    if (/[.:!?]$/.test(word)) tokens.add(word.replace(/[.:!?]+$/, ''));
    if (/[=:]/.test(word)) for (const part of word.split(/[=:]/)) if (part.length >= 8) tokens.add(part);
  }
  return tokens;
}

/**
 * The repository's files: git's tracked and untracked-but-not-ignored files when it is a git
 * checkout (a key in a new file is caught before it is committed), else a walk that skips build
 * output and dependencies (a clean clone's tarball, a CI workspace without .git).
 */
function repositoryFiles(root: string): string[] {
  if (existsSync(join(root, '.git'))) {
    try {
      const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      return [...new Set(listed.split('\0').filter((file) => file !== ''))];
    } catch {
      // No git on the PATH: walk instead.
    }
  }
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(join(dir, entry.name));
      } else if (entry.isFile()) files.push(relative(root, join(dir, entry.name)));
    }
  };
  walk(root);
  return files;
}

/** Rule 2: every placeholder in the stage file's strings, with its JSON path. */
export function placeholders(raw: unknown): string[] {
  const problems: string[] = [];
  for (const [path, value] of stringsOf(raw, '')) {
    if (path === '$schema') continue;
    for (const finding of placeholdersIn(value)) problems.push(`${path}: "${value}" ${finding}`);
  }
  return problems;
}

/** What makes one string a placeholder, as readable reasons (empty when none). */
export function placeholdersIn(value: string): string[] {
  const findings: string[] = [];
  const lower = value.toLowerCase();
  for (const name of lower.match(/[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?/g) ?? []) {
    const reserved = reservedName(name);
    if (reserved !== undefined) findings.push(`uses ${name}, ${reserved}`);
  }
  // An account id stands alone (between colons in an ARN), not inside a longer id such as a UUID's last group.
  const accounts = PLACEHOLDER_ACCOUNTS.filter((account) => new RegExp(`(^|[^0-9a-z-])${account}([^0-9a-z-]|$)`, 'i').test(value));
  for (const account of accounts) findings.push(`uses the AWS documentation account id ${account}, not a real account`);
  // Eight zeros in a row: 1 in 4 billion for a random hex id, the rule for a placeholder.
  if (/0{8,}/.test(value.replace(/-/g, '')) && !accounts.includes('000000000000')) {
    findings.push('holds an all-zero id, a placeholder');
  }
  if (lower.includes('0123456789abcdef')) findings.push('holds the id 0123456789abcdef…, a placeholder');
  if (/\+1[2-9]\d{2}5550(1\d\d)(?!\d)/.test(value)) {
    findings.push('is a fictional NANP number (555-0100 to 555-0199 are reserved for fiction), not an origination number');
  }
  return findings;
}

/**
 * Why a DNS name is reserved (RFC 2606 §2-3, RFC 6761 §6), or undefined. Only names with a dot
 * count, and `localhost`, so the words of a service name ("Example") are not domains. Loopback IPv4
 * addresses reach the machine that makes the request: no production client is there.
 */
function reservedName(name: string): string | undefined {
  const labels = name.split('.');
  const top = labels.at(-1)!;
  if (name === 'localhost' || (labels.length > 1 && top === 'localhost')) return 'a name RFC 6761 reserves for the local host';
  if (labels.length < 2) return undefined;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)) return 'a loopback address';
  const second = labels.slice(-2).join('.');
  if (['example.com', 'example.net', 'example.org'].includes(second)) return `an example domain (RFC 2606 reserves ${second})`;
  if (['example', 'test', 'invalid'].includes(top)) return `a name under .${top}, which RFC 2606 reserves`;
  return undefined;
}

/** Every string of a JSON value, as [path, string], the path as a reader writes it (`clients[1].redirectUris[0]`). */
function* stringsOf(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* stringsOf(item, `${path}[${index}]`);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) yield* stringsOf(item, path === '' ? key : `${path}.${key}`);
  }
}

/**
 * Rule 3: allowed SMS countries that accept no sender id and have no origination number: neither
 * an `sms.originationNumbers` entry nor an `sms.originationNumber` of that country; and entries
 * whose number is of another country than their key (a US number cannot send to Canada).
 */
export function missingOriginations(config: DeployableStageConfig): string[] {
  const problems: string[] = [];
  config.environments.forEach((environment, index) => {
    const byCountry: Readonly<Record<string, string | undefined>> = environment.sms.originationNumbers ?? {};
    const fallback = environment.sms.originationNumber;
    const fallbackCountry = fallback === undefined ? undefined : countryOf(fallback);
    for (const [country, number] of Object.entries(byCountry)) {
      // NANP numbers share +1: libphonenumber places each by its area code.
      if (number !== undefined && countryOf(number) !== country) {
        problems.push(
          `environments[${index}] "${environment.id}": sms.originationNumbers.${country} (${number}) is not a number of ${country}`,
        );
      }
    }
    for (const country of environment.sms.allowedCountries) {
      if (!COUNTRIES_WITHOUT_SENDER_ID.includes(country) || byCountry[country] !== undefined || fallbackCountry === country) continue;
      problems.push(
        `environments[${index}] "${environment.id}": SMS to ${country} needs an origination number of ${country} (it accepts no sender id): ` +
          `add sms.originationNumbers.${country}, or remove ${country} from sms.allowedCountries`,
      );
    }
  });
  return problems;
}

/** The country of an E.164 number, or undefined when libphonenumber cannot place it. */
function countryOf(e164: string): string | undefined {
  try {
    return destinationOf(e164).country;
  } catch {
    return undefined;
  }
}
