/**
 * Whether Stryker has a mutant active in this process: it sets this variable (its
 * INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT_ENV_VARIABLE) around each mutant's run, and leaves it unset
 * in the dry run. Shared by test/mutation/covering-files-runner.js and fail-fast-environment.js.
 */
const ACTIVE_MUTANT = '__STRYKER_ACTIVE_MUTANT__';

module.exports = { mutantIsActive: () => process.env[ACTIVE_MUTANT] !== undefined };
