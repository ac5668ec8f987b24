/**
 * Jest runs the TypeScript sources through swc (type checking is `npm run typecheck`'s job).
 * middy and jose publish only ES modules, so they are transformed too; everything else in
 * node_modules is loaded as is.
 *
 * globalSetup starts DynamoDB Local and SES local once for the suite, on free ports.
 * @type {import('jest').Config}
 */
const swc = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }];
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|jose)/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/env.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/log-capture.ts'],
  maxWorkers: 2,
  // test.concurrent cases at once within a file: the fault suite (test/faults/) runs its 20
  // dependency × fault cases side by side, so it lasts about as long as its slowest case.
  maxConcurrency: 20,
  testTimeout: 30000,
};
