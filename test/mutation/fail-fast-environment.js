/**
 * The jest test environment under Stryker in the integration scope (jest.stryker.config.js):
 * jest's node environment, except that while a mutant is active the tests of a file after its
 * first failure are skipped. One failed test is all Stryker needs to count the mutant killed, and
 * jest cannot bail within a file (nor across files when Stryker runs it: test/mutation/
 * covering-files-runner.js does that part). A surviving mutant fails nothing, so it runs every
 * covering test; Stryker's dry run has no mutant active and skips nothing.
 */
const { TestEnvironment } = require('jest-environment-node');
const { mutantIsActive } = require('./active-mutant.js');

class FailFastEnvironment extends TestEnvironment {
  failed = false;

  handleTestEvent(event) {
    if (!mutantIsActive()) return;
    if (event.name === 'test_fn_failure' || event.name === 'hook_failure') this.failed = true;
    // jest-circus decides whether to skip a test right after this event.
    if (event.name === 'test_start' && this.failed) event.test.mode = 'skip';
  }
}

module.exports = FailFastEnvironment;
