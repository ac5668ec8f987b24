/**
 * What goes into each function's bundle, read from esbuild's metafile with the options the stack
 * deploys: nothing from infra/ (the deployment schema, the CDK code) ever ships in a function.
 */
import type { Metafile } from 'esbuild';
import { relative } from 'node:path';
import { lambdaNames, PROJECT_ROOT } from '../../infra/bundling';
import { LOCALES, LOGIN_PAGES } from '../../lib/messages/locales';
import { LIMIT_OVERRIDE_VARIABLES } from '../../local/limit-overrides';
import { functionBundles } from './function-bundles';

const metafiles = new Map<string, Metafile>();
const code = new Map<string, string>();
beforeAll(async () => {
  // Built without tracing, as esbuildOptionsFor does by default (shared with tracing.test.ts: see function-bundles.ts).
  for (const [name, bundle] of await functionBundles(false)) {
    metafiles.set(name, bundle.metafile);
    code.set(name, bundle.outputs.map((file) => file.text).join('\n'));
  }
}, 120_000);

const inputsOf = (name: string) => Object.keys(metafiles.get(name)?.inputs ?? {}).map((input) => relative(PROJECT_ROOT, input));

it.each(lambdaNames())('%s carries nothing from infra/ (the deployment schema stays with the stack)', (name) => {
  const inputs = inputsOf(name);
  expect(inputs.some((input) => input.startsWith('lib/'))).toBe(true);
  expect(inputs.filter((input) => input.startsWith('infra/') || input.includes('aws-cdk-lib'))).toEqual([]);
  // Messages only the deployment schema has (regression: it lived in lib/platform/config.ts and shipped in every bundle).
  expect(code.get(name)).not.toContain('an ACM certificate ARN');
  expect(code.get(name)).not.toContain('a 12-digit AWS account id');
});

it.each(lambdaNames())(
  '%s cannot honour a limit override: no code reads TOKEN_MAX_ATTEMPTS or the like (only the local runtime applies them)',
  (name) => {
    expect(inputsOf(name).filter((input) => input.startsWith('local/'))).toEqual([]);
    expect(LIMIT_OVERRIDE_VARIABLES.filter((variable) => code.get(name)?.includes(variable))).toEqual([]);
  },
);

/** Packages that only some functions may carry: each function's graph holds only its own pieces (lib/deps/). */
const PACKAGES_OF = {
  table: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/util-dynamodb'],
  delivery: ['@aws-sdk/client-ses', '@aws-sdk/client-sns', '@aws-sdk/client-pinpoint-sms-voice-v2'],
} as const;
const packagesIn = (name: string) =>
  new Set(inputsOf(name).flatMap((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? []));

it.each([
  ['well-known', [...PACKAGES_OF.table, ...PACKAGES_OF.delivery]],
  ['token', PACKAGES_OF.delivery],
  ['introspect', PACKAGES_OF.delivery],
  ['revoke', PACKAGES_OF.delivery],
  ['admin', PACKAGES_OF.delivery],
  ['rotate-signing-keys', [...PACKAGES_OF.table, ...PACKAGES_OF.delivery]],
  // The queue hands the worker its messages: it never sends one, so it has no SQS client.
  ['backchannel-logout', [...PACKAGES_OF.table, ...PACKAGES_OF.delivery, '@aws-sdk/client-sqs']],
  // The subscription hands the forwarder its lines: no table, no secret, no delivery, only its bus.
  ['audit-forwarder', [...PACKAGES_OF.table, ...PACKAGES_OF.delivery, '@aws-sdk/client-sqs', '@aws-sdk/client-secrets-manager']],
])('%s carries no client it never calls (regression: the document client pulled DynamoDB into well-known)', (name, forbidden) => {
  const packages = packagesIn(name);
  expect(forbidden.filter((pkg) => packages.has(pkg))).toEqual([]);
});

it.each(['token', 'introspect', 'revoke', 'admin', 'well-known', 'rotate-signing-keys', 'backchannel-logout', 'audit-forwarder'])(
  '%s carries no language’s texts: it sends no message (regression: the locale list came with every text)',
  (name) => {
    expect(inputsOf(name).filter((input) => input.startsWith('lib/messages/locales/'))).toEqual([]);
  },
);

it('otp-send carries the messages’ texts but none of the hosted login page’s (regression: every locale’s page texts, 25 KB, rode along)', () => {
  const sendCode = code.get('otp-send') ?? '';
  expect(sendCode).toContain(LOCALES['de-DE'].emailIgnore);
  expect(sendCode).not.toContain(LOGIN_PAGES['de-DE'].invalidRequestBody);
  expect(code.get('authorize')).toContain(LOGIN_PAGES['de-DE'].invalidRequestBody);
});

/** The adapter modules whose code is in `name`'s output (the metafile's inputs also list modules imported and then tree-shaken away). */
function adaptersIn(name: string): string[] {
  const output = Object.entries(metafiles.get(name)?.outputs ?? {}).find(([file]) => file.endsWith('.mjs'))?.[1];
  return Object.entries(output?.inputs ?? {})
    .filter(([input, { bytesInOutput }]) => bytesInOutput > 0 && relative(PROJECT_ROOT, input).startsWith('lib/adapters/'))
    .map(([input]) => relative(PROJECT_ROOT, input).slice('lib/adapters/'.length))
    .sort();
}

/** What every function that reads secrets carries, and every function on the table. */
const SECRETS = ['aws-failures.ts', 'lambda-credentials.ts', 'secrets/file-secret-source.ts', 'secrets/secrets-manager-source.ts'];
const TABLE = ['dynamodb/client.ts', 'dynamodb/item-keys.ts', 'dynamodb/table.ts'];
const DELIVERY = ['ses/email-sender.ts', 'sns/sms-sender.ts', 'voice/voice-caller.ts'];
/**
 * Ending sessions (lib/sessions/end-sessions.ts): the sessions (whose store writes an
 * authorization code with a session's login), the refresh families they revoke (whose store writes
 * an opaque token with a rotation), the back-channel logout queue.
 */
const ENDS_SESSIONS = [
  'dynamodb/session-store.ts',
  'dynamodb/passkey-sign-in.ts',
  'dynamodb/authorization-code-store.ts',
  'dynamodb/refresh-token-store.ts',
  'dynamodb/token-store.ts',
  'sqs/logout-queue.ts',
  'sqs/logout-messages.ts',
];
/** A one-time code and its counters: issued (otp-send, the page) or verified (token, the page). */
const CODE_CHECK = ['dynamodb/attempt-limiter.ts', 'dynamodb/code-store.ts', 'dynamodb/known-numbers.ts', 'dynamodb/sliding-window.ts'];

it.each([
  // A test recipient's message is kept instead of delivered (lib/otp/test-outbox.ts) by the functions that send codes.
  ['otp-send', [...SECRETS, ...TABLE, ...CODE_CHECK, 'dynamodb/send-guards.ts', 'dynamodb/test-outbox.ts', ...DELIVERY]],
  // The page's passkeys (lib/login/passkey-login.ts): their records, and their sign-ins' writes in the session's transaction.
  [
    'authorize',
    [
      ...SECRETS,
      ...TABLE,
      ...CODE_CHECK,
      'dynamodb/send-guards.ts',
      'dynamodb/test-outbox.ts',
      'dynamodb/passkey-store.ts',
      ...ENDS_SESSIONS,
      ...DELIVERY,
    ],
  ],
  [
    'token',
    [
      ...SECRETS,
      ...TABLE,
      ...CODE_CHECK,
      'dynamodb/authorization-code-store.ts',
      'dynamodb/token-store.ts',
      'dynamodb/refresh-token-store.ts',
      'dynamodb/client-assertion-store.ts',
    ],
  ],
  [
    'revoke',
    [
      ...SECRETS,
      ...TABLE,
      'dynamodb/token-store.ts',
      'dynamodb/refresh-token-store.ts',
      'dynamodb/sliding-window.ts',
      'dynamodb/revocation-store.ts',
      'dynamodb/client-assertion-store.ts',
    ],
  ],
  ['introspect', [...SECRETS, ...TABLE, 'dynamodb/token-store.ts', 'dynamodb/revocation-store.ts']],
  ['userinfo', [...SECRETS, ...TABLE, 'dynamodb/token-store.ts', 'dynamodb/revocation-store.ts']],
  [
    'admin',
    [
      ...SECRETS,
      ...TABLE,
      'dynamodb/attempt-limiter.ts',
      'dynamodb/sliding-window.ts',
      'dynamodb/test-outbox.ts',
      'dynamodb/passkey-store.ts',
      ...ENDS_SESSIONS,
    ],
  ],
  ['logout', [...SECRETS, ...TABLE, 'dynamodb/sliding-window.ts', ...ENDS_SESSIONS]],
  ['well-known', SECRETS],
  ['rotate-signing-keys', ['aws-failures.ts', 'lambda-credentials.ts', 'secrets/signing-key-rotation.ts']],
  ['backchannel-logout', [...SECRETS, 'sqs/logout-messages.ts']],
  ['audit-forwarder', ['eventbridge/event-bus.ts', 'lambda-credentials.ts']],
])(
  '%s carries exactly the adapters it constructs (issue 26: the token bundle carried the send guards, authorize the token stores)',
  (name, adapters) => {
    expect(adaptersIn(name)).toEqual([...adapters].sort());
  },
);

/** What describes the API (docs/openapi.json) and what calls it: the generator, the validators, the typed client. */
const DESCRIPTION_PACKAGES = ['openapi-typescript', 'openapi-fetch', '@readme/openapi-parser', 'ajv', 'ajv-formats'];

it.each(lambdaNames())(
  '%s carries nothing of the API description: exporting the request schemas pulled in neither the generator nor zod’s JSON Schema output',
  (name) => {
    const inputs = inputsOf(name);
    expect(inputs.filter((input) => input.startsWith('infra/') || input.startsWith('client/') || input.startsWith('docs/'))).toEqual([]);
    const packages = packagesIn(name);
    expect(DESCRIPTION_PACKAGES.filter((pkg) => packages.has(pkg))).toEqual([]);
    // zod's JSON Schema generator (z.toJSONSchema, used by infra/ only): its modules are in the graph
    // (zod/mini re-exports them) but none of their code may survive tree-shaking.
    expect(code.get(name)).not.toContain('draft-2020-12');
    expect(code.get(name)).not.toContain('unrepresentable');
  },
);

/** The SDK's default credential chain beyond the environment (lib/adapters/lambda-credentials.ts): never runs on Lambda. */
const CREDENTIAL_CHAIN = [
  '@aws-sdk/credential-provider-node',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-http',
  '@aws-sdk/credential-provider-login',
  '@aws-sdk/token-providers',
  '@aws-sdk/nested-clients',
  '@smithy/credential-provider-imds',
];

it.each(lambdaNames())('%s takes its AWS credentials from the environment only, without the rest of the default chain', (name) => {
  const packages = packagesIn(name);
  expect(CREDENTIAL_CHAIN.filter((pkg) => packages.has(pkg))).toEqual([]);
  expect(inputsOf(name)).toContain('lib/adapters/lambda-credentials.ts');
});

it('token carries the phone parsing rules only, not every numbering plan’s validation rules (one E.164 form, a seventh of the data)', () => {
  const phoneData = inputsOf('token').filter((input) => input.includes('phone-metadata') || /libphonenumber-js\/metadata/.test(input));
  expect(phoneData).toEqual(['lib/phone/phone-metadata/parsing.json']);
});

it.each(['otp-send', 'authorize'])('%s validates phone numbers with the full rules (it sends to them)', (name) => {
  expect(inputsOf(name)).toContain('lib/phone/phone-metadata/validation.json');
});

/**
 * Bundle budgets in bytes (KB = 1000 bytes), the index.mjs each function loads (docs/performance.md).
 * Token's grew from 450 KB to 460 KB with private_key_jwt (issue 27): jose's JWS verification and
 * local key sets, and the assertion rules, about 9 KB that a client authentication method needs;
 * to 462 KB with passkeys (issue 30): `acr` and the passkey `amr` values in the tokens, the
 * passkey settings of the configuration's schema and their log events, 0.7 KB.
 */
const BUNDLE_BUDGETS: Record<string, number> = { token: 462_000, 'otp-send': 600_000 };

it.each(Object.entries(BUNDLE_BUDGETS))('%s fits its bundle budget of %d bytes', (name, budget) => {
  const bundle = Object.entries(metafiles.get(name)?.outputs ?? {}).find(([file]) => file.endsWith('.mjs'));
  expect({ name, withinBudget: (bundle?.[1].bytes ?? Infinity) <= budget, bytes: bundle?.[1].bytes }).toEqual({
    name,
    withinBudget: true,
    bytes: expect.any(Number),
  });
});
