/**
 * Mutation testing (StrykerJS): would a test notice if a rule in the code were changed? Run with
 * `npm run mutation -- <files>` or `-- --since <ref>` (test/mutation/run.ts), which sends each file
 * to the scope below that mutates it; without files, the two scopes whole, one after the other.
 * Method, figures and the survivors judged equivalent: docs/mutation.md and
 * docs/mutation/equivalent-mutants.md.
 *
 * Two scopes, because the rules live in two kinds of code:
 * - `unit`: the pure modules (the capabilities' rules, lib/platform/errors.ts, lib/platform/http),
 *   checked by the unit project alone: no Java, a mutant costs a few unit tests;
 * - `integration`: the DynamoDB adapters (whose rules are conditional writes) and the operations
 *   that are only tested end to end (otp/send, the token endpoint), checked by the unit project
 *   plus the HTTP and DynamoDB Local tests (jest.stryker.config.js).
 * MUTATION_SCOPE picks one (test/mutation/run.ts sets it); each has its own incremental baseline,
 * kept in reports/mutation/ (git-ignored).
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */

/** Modules whose rules only the HTTP and DynamoDB Local tests check. */
const INTEGRATION = [
  // The HTTP layer and the login page: what they do shows only in a response, which the HTTP
  // tests check (the unit tests check a few helpers).
  'lib/platform/http/**/*.ts',
  'lib/login/html.ts',
  'lib/login/login-page.ts',
  'lib/adapters/dynamodb/**/*.ts',
  'lib/otp/issue.ts',
  'lib/otp/verify.ts',
  'lib/endpoints/otp-send.ts',
  'lib/oauth/grants/one-time-code-grant.ts',
  'lib/endpoints/token-endpoint.ts',
  'lib/oauth/token-response.ts',
  'lib/limits/attempts.ts',
  // The hosted login, refresh tokens, revocation, introspection and UserInfo: their rules are
  // checked through the endpoints (test/http/{authorize,refresh,revoke,introspect,token-claims}).
  'lib/login/authorize.ts',
  'lib/oauth/grants/authorization-code-grant.ts',
  'lib/oauth/grants/refresh-token-grant.ts',
  'lib/endpoints/revoke-token.ts',
  'lib/endpoints/introspect-token.ts',
  'lib/endpoints/userinfo.ts',
  'lib/oauth/client-authentication.ts',
  // Sessions, their end, the end-session endpoint, the operator controls and back-channel
  // delivery (issue 28): checked through the endpoints and the relying party's server
  // (test/http/{sessions,end-session,operator}, test/integration/logout/).
  'lib/sessions/sessions.ts',
  'lib/sessions/session-cookie.ts',
  'lib/sessions/end-sessions.ts',
  'lib/login/end-session.ts',
  'lib/admin/**/*.ts',
  'lib/logout/backchannel.ts',
  // The audit forwarder's batching and retries (issue 29): against an EventBridge stand-in (test/integration/audit/).
  'lib/audit/forward.ts',
];

/**
 * The capabilities' and endpoints' rules (what lib/domain/ held before issue 26), less what
 * their folders gained in issue 26 that holds no rules.
 */
const RULES = [
  'lib/keys/**/*.ts',
  'lib/identity/**/*.ts',
  'lib/phone/**/*.ts',
  'lib/messages/**/*.ts',
  'lib/limits/**/*.ts',
  'lib/guards/**/*.ts',
  'lib/otp/**/*.ts',
  'lib/oauth/**/*.ts',
  'lib/login/**/*.ts',
  'lib/endpoints/**/*.ts',
  'lib/logout/**/*.ts',
  // The audit events' catalogue and mapping (issue 29): test/unit/audit/.
  'lib/audit/**/*.ts',
  'lib/platform/request-fields.ts',
  '!lib/phone/countries.ts',
  '!lib/messages/locales/**/*.ts',
  // Each capability's ports: types only, like the one ports file before issue 26, which no scope held.
  '!lib/keys/ports.ts',
  '!lib/messages/ports.ts',
  '!lib/limits/ports.ts',
  '!lib/guards/ports.ts',
  '!lib/otp/ports.ts',
  '!lib/oauth/ports.ts',
  '!lib/logout/ports.ts',
];

const scope = process.env.MUTATION_SCOPE === 'unit' ? 'unit' : 'integration';

/** The files each scope mutates (test/mutation/run.ts reads them too, to send each file it is given to its scope). */
export const MUTATE = {
  unit: [...RULES, 'lib/platform/errors.ts', 'lib/platform/http/**/*.ts', ...INTEGRATION.map((pattern) => `!${pattern}`)],
  integration: INTEGRATION,
};

export default {
  testRunner: 'jest',
  jest: { projectType: 'custom', configFile: 'jest.stryker.config.js', enableFindRelatedTests: true },
  mutate: MUTATE[scope],
  // Only the sources and the tests go into the sandbox.
  // (docs/openapi.json stays: every HTTP test checks its responses against it; so do the audit
  // events' schemas in docs/events/, which the suite-wide log check validates every event with.)
  ignorePatterns: [
    'cdk.out',
    'coverage',
    'dist',
    'reports',
    '.local',
    'docs/**',
    '!docs/openapi.json',
    '!docs/events',
    '!docs/events/**',
    'test/e2e',
    'test/infra',
  ],
  // Each test's coverage is measured in the dry run, so a mutant runs only the tests that reach it.
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants, patterns, schemas) run every related test file, and
  // are measured anyway: skipping them would leave the rules they hold untested (cost: docs/mutation.md).
  ignoreStatic: false,
  // Two cores, shared: one test runner per core at most.
  concurrency: 2,
  // The HTTP tests start a service in beforeAll; a busy machine needs slack before "timeout".
  timeoutMS: 30000,
  timeoutFactor: 2,
  dryRunTimeoutMinutes: 30,
  // Each scope's baseline is local state (git-ignored, like the reports beside it): it holds
  // absolute paths and a copy of every mutated file, and only describes the machine's last run.
  incremental: true,
  incrementalFile: `reports/mutation/stryker-incremental-${scope}.json`,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${scope}.html` },
  jsonReporter: { fileName: `reports/mutation/${scope}.json` },
  clearTextReporter: { allowColor: false, logTests: false },
  // The HTML report's colours only. A measurement, not a gate: no break threshold; run.ts prints
  // the covered mutants killed per file from the JSON report (test/mutation/score.ts).
  thresholds: { high: 95, low: 90, break: null },
  tempDirName: '.stryker-tmp',
};
