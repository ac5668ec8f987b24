/**
 * Dependency arrows point one way (house style: handler → endpoint → capability → port →
 * adapter): checked on the sources' import lines, so a shortcut fails here rather than in review.
 * One rule per folder: the folders of lib/ its modules may import from (its own always).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

function sources(directory: string): string[] {
  return readdirSync(join(ROOT, directory)).flatMap((name) => {
    const path = join(directory, name);
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every module `file` imports: project files as paths from the root, packages by name. */
function importsOf(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  return Array.from(source.matchAll(/^(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"];?$|^import\s+['"]([^'"]+)['"];?$/gm), (match) => {
    const specifier = (match[1] ?? match[2]) as string;
    return specifier.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), specifier)) : specifier;
  });
}

/**
 * Which folders each folder's modules may import from, top (the Lambda files) to bottom. A
 * subfolder belongs to its folder (messages/locales/, adapters/dynamodb/) unless it has a rule of
 * its own (platform/http/, oauth/grants/).
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // Middy wiring: the composition roots and the use cases they wire. rotate-signing-keys.ts is a
  // Secrets Manager rotation handler, whose use case is its adapter; backchannel-logout.ts an SQS
  // handler, whose batch is its adapter's (lib/adapters/sqs/) and its deliveries lib/logout/'s.
  // authorize.ts and logout.ts read and set the session cookie (lib/sessions/session-cookie.ts).
  functions: [
    'lib/deps',
    'lib/admin',
    'lib/endpoints',
    'lib/login',
    'lib/logout',
    'lib/sessions',
    'lib/platform/http',
    'lib/platform',
    'lib/adapters',
    'lib/audit',
  ],
  // The composition roots: the adapters, and the use cases whose dependencies they build.
  'lib/deps': [
    'lib/adapters',
    'lib/admin',
    'lib/endpoints',
    'lib/login',
    'lib/logout',
    'lib/sessions',
    'lib/otp',
    'lib/keys',
    'lib/platform',
    'lib/audit',
  ],
  // The only AWS SDK users: each implements a capability's port; no HTTP layer, no Lambda file.
  'lib/adapters': [
    'lib/otp',
    'lib/oauth',
    'lib/logout',
    'lib/sessions',
    'lib/passkeys',
    'lib/guards',
    'lib/limits',
    'lib/messages',
    'lib/keys',
    'lib/platform',
    'lib/audit',
  ],
  'lib/platform/http': ['lib/platform'],
  // Audit events: derived from the log lines (platform/log-events.ts) by their catalogue; the forwarder's bus is an adapter's.
  'lib/audit': ['lib/platform'],
  // The operator controls (the IAM-only admin API): a block in the attempt counters, the sessions
  // ended, a user's passkeys removed, a test recipient's kept message taken (otp/test-outbox.ts).
  'lib/admin': [
    'lib/sessions',
    'lib/passkeys',
    'lib/limits',
    'lib/otp',
    'lib/oauth',
    'lib/keys',
    'lib/identity',
    'lib/phone',
    'lib/platform',
  ],
  // One use case per route: otp/send, the token endpoint's grants, introspection, revocation,
  // UserInfo, discovery.
  'lib/endpoints': ['lib/oauth/grants', 'lib/otp', 'lib/oauth', 'lib/messages', 'lib/phone', 'lib/keys', 'lib/identity', 'lib/platform'],
  // The hosted login page: issues and verifies codes through otp/, as otp/send and the OTP grant do;
  // passkeys through passkeys/, a failed assertion counted into the user's cap by limits/.
  'lib/login': [
    'lib/sessions',
    'lib/otp',
    'lib/passkeys',
    'lib/limits',
    'lib/oauth',
    'lib/messages',
    'lib/phone',
    'lib/keys',
    'lib/identity',
    'lib/platform',
  ],
  // The OTP grant verifies a code through otp/ (oauth/ itself knows nothing of one-time codes but
  // their PKCE helpers, otp/codes.ts).
  'lib/oauth/grants': ['lib/otp', 'lib/oauth', 'lib/phone', 'lib/keys', 'lib/identity', 'lib/platform'],
  // Issuing a code and verifying it: the one place for each; it knows no token and no request.
  // phone/: an SMS leaves from its destination country's origination number (issue.ts).
  // passkeys/: an SMS's origin-bound line names the passkeys' RP ID (passkeys/rp-id.ts).
  'lib/otp': ['lib/guards', 'lib/limits', 'lib/messages', 'lib/phone', 'lib/passkeys', 'lib/keys', 'lib/identity', 'lib/platform'],
  'lib/guards': ['lib/limits', 'lib/phone', 'lib/keys', 'lib/platform'],
  'lib/oauth': ['lib/limits', 'lib/keys', 'lib/identity', 'lib/platform'],
  // Single sign-on sessions: what one is worth to a login, its cookie, and ending them (the
  // families they revoke through oauth/'s port, the logout notices they queue through logout/'s).
  // A passkey sign-in's writes (passkeys/ports.ts) share the transaction that starts its session.
  'lib/sessions': ['lib/oauth', 'lib/logout', 'lib/passkeys', 'lib/keys', 'lib/identity', 'lib/platform'],
  // Back-channel logout: signs logout tokens as oauth/ signs ID tokens, and delivers them.
  'lib/logout': ['lib/oauth', 'lib/keys', 'lib/platform'],
  'lib/messages': ['lib/platform'],
  // Passkeys: the WebAuthn ceremonies, their records' port, the RP ID (rp-id.ts, which otp/ reads too).
  'lib/passkeys': ['lib/platform'],
  'lib/limits': ['lib/keys', 'lib/platform'],
  'lib/keys': ['lib/identity', 'lib/platform'],
  'lib/identity': ['lib/platform'],
  // The configuration validates allowed countries against phone/countries.ts, a leaf.
  'lib/platform': ['lib/phone'],
  'lib/phone': [],
};

/** The folder whose rule covers `path` (a file, or an import resolved to a path), if any. */
function folderOf(path: string): string | undefined {
  return Object.keys(MAY_IMPORT)
    .filter((folder) => path.startsWith(`${folder}/`))
    .sort((a, b) => b.length - a.length)[0];
}

const FOLDERS = Object.keys(MAY_IMPORT);

it('every module of lib/ and functions/ has its folder’s rule', () => {
  expect([...sources('lib'), ...sources('functions')].filter((file) => folderOf(file) === undefined)).toEqual([]);
});

it.each(FOLDERS)('%s imports from the folders its rule names, and from no other', (folder) => {
  const allowed = new Set([folder, ...(MAY_IMPORT[folder] as readonly string[])]);
  const files = sources(folder).filter((file) => folderOf(file) === folder);

  const outside = files.flatMap((file) =>
    importsOf(file)
      .filter((target) => /^(lib|functions)\//.test(target) && !allowed.has(folderOf(target) ?? target))
      .map((target) => `${file} → ${target}`),
  );

  expect(outside).toEqual([]);
});

it('the rules are one-way: no folder may import, directly or through others, from a folder that may import from it', () => {
  const reaches = (from: string, seen = new Set<string>()): Set<string> => {
    for (const next of MAY_IMPORT[from] ?? []) {
      if (!seen.has(next)) reaches(next, seen.add(next));
    }
    return seen;
  };
  expect(FOLDERS.filter((folder) => reaches(folder).has(folder))).toEqual([]);
});

it.each(['lib/platform/vocabulary.ts', 'lib/platform/email-address.ts', 'lib/platform/lazy.ts'])(
  '%s is a leaf: it imports nothing',
  (file) => {
    expect(importsOf(file)).toEqual([]);
  },
);

it('the configuration imports nothing from the capabilities (but the country list), the adapters or the HTTP layer', () => {
  expect(
    importsOf('lib/platform/config.ts').filter(
      (target) => target.startsWith('lib/') && target !== 'lib/phone/countries' && !/^lib\/platform\/(?!http\/)/.test(target),
    ),
  ).toEqual([]);
});

/**
 * The AWS SDK is the adapters': deps/ names the clients it wires, and the classifier of their
 * failures is lib/adapters/aws-failures.ts. platform/aws.ts holds every client's limits (which the
 * Lambda files read too), and names the SDK's credential type, nothing more.
 */
const AWS_SDK_USERS = /^lib\/adapters\/|^lib\/deps\//;
const SDK = /^@aws-sdk\/|^@smithy\//;

it.each(sources('lib').filter((file) => !AWS_SDK_USERS.test(file)))(
  '%s imports no AWS SDK but its types (the rules talk to ports)',
  (file) => {
    expect(importsOf(file).filter((target) => SDK.test(target) && target !== '@aws-sdk/types')).toEqual([]);
  },
);

it('only platform/aws.ts names an SDK type outside the adapters and the composition roots', () => {
  const named = sources('lib').filter((file) => !AWS_SDK_USERS.test(file) && importsOf(file).some((target) => SDK.test(target)));
  expect(named).toEqual(['lib/platform/aws.ts']);
});

it('a client’s credentials are checked in one place: only the client authentication reads them (issue 26: introspection had its own copy)', () => {
  const readers = [...sources('lib'), ...sources('functions')].filter((file) =>
    /\b(basicCredentials|matchesAny)\b/.test(readFileSync(join(ROOT, file), 'utf8')),
  );
  expect(readers.sort()).toEqual(['lib/oauth/api-keys.ts', 'lib/oauth/client-authentication.ts']);
});

/**
 * A one-time code is issued in one module and verified in one module (issue 26): otp/send, the OTP
 * grant and the hosted login page call them, and none of them touches the code store, generates a
 * code or delivers a message itself.
 */
it.each([
  [
    'generates, stores and delivers a code',
    /=\s*generateCode\(|\bcodes\.(save|discard|cancel)\(|\.(sendEmail|sendSms|sendVoiceMessage)\(/,
    'lib/otp/issue.ts',
  ],
  ['spends a try of a code', /\bcodes\.(guess|abandon)\(/, 'lib/otp/verify.ts'],
])('only one module of the capabilities %s', (_, pattern, owner) => {
  const users = [...sources('lib'), ...sources('functions')].filter(
    (file) => !file.startsWith('lib/adapters/') && pattern.test(readFileSync(join(ROOT, file), 'utf8')),
  );
  expect(users).toEqual([owner]);
});

it('the login page picks its message from the verification’s typed reason, never from an error’s log-only detail', () => {
  const page = sources('lib/login').filter((file) => /\bInvalidGrantError\b|\.detail\b/.test(readFileSync(join(ROOT, file), 'utf8')));
  expect(page).toEqual([]);
});
