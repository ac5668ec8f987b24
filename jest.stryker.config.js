/**
 * The jest configuration Stryker runs (stryker.config.mjs): the unit project as in
 * jest.config.js, and the integration tests that check the adapters and the two operations'
 * security rules on the wire. No globalSetup: test/mutation/run.ts starts DynamoDB Local and SES
 * local once for the whole mutation run (a globalSetup would start Java again for every mutant).
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

const [unit, , integration] = base.projects;

const integrationTests = {
  ...integration,
  // The harness imports the handlers by a computed path: tell jest, so findRelatedTests sees them.
  dependencyExtractor: '<rootDir>/test/mutation/dependency-extractor.js',
  // A mutant's run loads only the files holding a test that covers it (the runner says why).
  runner: '<rootDir>/test/mutation/covering-files-runner.js',
  globalSetup: undefined,
  globalTeardown: undefined,
  testMatch: [
    '<rootDir>/test/integration/dynamodb/**/*.test.ts',
    '<rootDir>/test/integration/logout/**/*.test.ts',
    '<rootDir>/test/http/{token,guessing,rule-edges,corrupt-items,authorize,refresh,revoke,introspect,token-claims,request-text,cors,otp-send,environments,phone-guards,hosted-login-abuse,known-numbers,security-rules,client-authentication,scopes,openid-defaults,private-key-jwt,sessions,end-session,operator,passkeys,passkey-claims,origin-bound-sms}.test.ts',
    '<rootDir>/test/faults/{storage-faults,refresh-races}.test.ts',
  ],
};

module.exports = {
  // MUTATION_SCOPE=unit (stryker.config.mjs): the unit project alone, no Java.
  // In the integration scope both projects' files go through one covering-files runner, so a unit
  // test that kills a mutant spares the HTTP files.
  projects:
    process.env.MUTATION_SCOPE === 'unit'
      ? [unit]
      : [{ ...unit, runner: '<rootDir>/test/mutation/covering-files-runner.js' }, integrationTests],
  // Within a file, the tests after the first failure are skipped while a mutant is active. Set at
  // the top level: Stryker replaces the test environment of every project with its own, which
  // wraps the one named here (an absolute path: Stryker requires it as it is).
  testEnvironment: require.resolve('./test/mutation/fail-fast-environment.js'),
  maxConcurrency: base.maxConcurrency,
  testTimeout: base.testTimeout,
};
