/**
 * Jest runs the TypeScript sources through swc (type checking is `npm run typecheck`'s job).
 * middy and jose publish only ES modules, so they are transformed too; everything else in
 * node_modules is loaded as is.
 *
 * Three projects, so a pure test never waits for Java:
 * - `unit`: pure tests of lib/ (no DynamoDB, no network, fake clocks): `npm run test:unit`;
 * - `infra`: synthesis, cdk-nag, bundles and stage files (no local services either);
 * - `integration`: DynamoDB Local, the SES stand-in and the local runtime, started once by the
 *   project's globalSetup on free ports (only when one of its tests runs); test/browser/ adds a
 *   headless Chromium (Debian's, driven by playwright-core) on top of them.
 * `npm test` runs all three with coverage, and fails below the floor set here for the
 * capabilities' rules and the error vocabulary; `npm run test:unit` and `npm run test:file -- <paths>` collect no
 * coverage, so the floor (which only the whole suite can reach) never fails them.
 * @type {import('jest').Config}
 */
const swc = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }];
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|jose|openid-client|oauth4webapi|@auth)/)'],
  setupFiles: ['<rootDir>/test/support/env.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/log-capture.ts'],
  // Stryker's sandbox (npm run mutation) is a copy of the repository: not a second set of modules.
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...shared, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/{integration,http,faults,e2e,browser}/**/*.test.ts'],
      // Every response of the API a test receives is checked against docs/openapi.json.
      setupFilesAfterEnv: [...shared.setupFilesAfterEnv, '<rootDir>/test/support/contract-recorder.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  maxWorkers: 2,
  // The slowest files first, so both workers finish together (test/support/sequencer.js).
  testSequencer: '<rootDir>/test/support/sequencer.js',
  // test.concurrent cases at once within a file: the fault suite (test/faults/) runs its 20
  // dependency × fault cases side by side, so it lasts about as long as its slowest case.
  maxConcurrency: 20,
  testTimeout: 30000,
  // Read only with --coverage (npm test): the capabilities' and endpoints' rules and the error
  // vocabulary. The rules are what lib/domain/ held before issue 26; their floor is `global`, which
  // jest takes over every collected file that no other key names: one aggregate, as before.
  coverageProvider: 'v8',
  collectCoverageFrom: [
    '<rootDir>/lib/{keys,identity,phone,messages,limits,guards,otp,oauth,login,passkeys,endpoints,sessions,logout,admin}/**/*.ts',
    '<rootDir>/lib/platform/request-fields.ts',
    '<rootDir>/lib/platform/errors.ts',
    // In those folders since issue 26, but no rules: data, the login page's HTML responses, types.
    '!<rootDir>/lib/phone/countries.ts',
    '!<rootDir>/lib/messages/locales/**',
    '!<rootDir>/lib/login/html.ts',
    // Browser code (the page script's source), run by Chromium in test/browser/, never by jest.
    '!<rootDir>/lib/login/browser/**',
    '!<rootDir>/lib/**/ports.ts',
  ],
  coverageReporters: ['text-summary', 'json-summary'],
  coverageThreshold: {
    global: { lines: 95, branches: 95 },
    './lib/platform/errors.ts': { lines: 95, branches: 95 },
  },
};
