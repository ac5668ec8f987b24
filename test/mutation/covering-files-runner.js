/**
 * The jest test runner of the integration tests under Stryker (jest.stryker.config.js): jest's
 * own, except that a mutant's run loads only the test files that hold a test covering the mutant,
 * quickest first, and stops at the first file in which a test fails.
 *
 * Why: for each mutant Stryker runs jest with `--findRelatedTests <the mutated file>` and a
 * `testNamePattern` of the tests that cover it, with jest's `bail` off (Stryker cannot use it).
 * Every HTTP test file is related to every module (the harness imports all the handlers), so each
 * mutant loaded all of them (about 13 s of module loading on two cores for files none of whose
 * tests would run), and a killed mutant still ran every covering test after the one that failed.
 * One failed test is all Stryker needs to count a mutant killed.
 *
 * How: Stryker's dry run (no mutant active) records each test file's test names (their full
 * names, as the pattern names them) and its duration in the sandbox; a mutant's run keeps only
 * the files with a name its pattern matches (a static mutant has no pattern: all of them), and
 * runs them one at a time, quickest first. A file the record does not know is kept, so a gap
 * in the record costs time, never a test. A surviving mutant still runs every covering test.
 */
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const TestRunner = require('jest-runner').default;
const { mutantIsActive } = require('./active-mutant.js');

const RECORD = '.stryker-test-names.json';

/** @typedef {{ names: string[]; ms: number }} FileRecord */

/** @returns {Record<string, FileRecord>} */
function readRecord(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

class CoveringFilesRunner extends TestRunner {
  constructor(globalConfig, context) {
    super(globalConfig, context);
    this.testNamePattern = globalConfig.testNamePattern;
  }

  async runTests(tests, watcher, options) {
    if (tests.length === 0) return super.runTests(tests, watcher, options);
    const record = join(tests[0].context.config.rootDir, RECORD);
    // Stryker's dry run: no mutant active.
    if (!mutantIsActive()) return this.recordingRun(record, tests, watcher, options);
    const known = readRecord(record);
    // As jest-circus matches it: case-insensitive, against the test's full name. A static mutant
    // has no pattern: every related file.
    const pattern = this.testNamePattern ? new RegExp(this.testNamePattern, 'i') : undefined;
    const covering = tests
      .filter((test) => pattern === undefined || (known[test.path]?.names.some((name) => pattern.test(name)) ?? true))
      .sort((a, b) => (known[a.path]?.ms ?? Infinity) - (known[b.path]?.ms ?? Infinity));
    if (!options.serial) return super.runTests(covering, watcher, options);
    let failed = false;
    const unsubscribe = [
      this.on('test-file-success', ([, result]) => {
        failed ||= result.numFailingTests > 0 || result.testExecError !== undefined;
      }),
      this.on('test-file-failure', () => {
        failed = true;
      }),
    ];
    try {
      for (const test of covering) {
        if (failed || watcher.isInterrupted()) break;
        await super.runTests([test], watcher, options);
      }
    } finally {
      for (const stop of unsubscribe) stop();
    }
  }

  async recordingRun(record, tests, watcher, options) {
    /** @type {Record<string, FileRecord>} */
    const files = {};
    const unsubscribe = this.on('test-file-success', ([test, result]) => {
      files[test.path] = {
        names: result.testResults.map((assertion) => assertion.fullName),
        ms: result.perfStats.end - result.perfStats.start,
      };
    });
    try {
      await super.runTests(tests, watcher, options);
    } finally {
      unsubscribe();
    }
    // Replaced in one step: another test runner may be reading it.
    const merged = { ...readRecord(record), ...files };
    const partial = `${record}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(merged));
    renameSync(partial, record);
  }
}

module.exports = CoveringFilesRunner;
