/**
 * Jest's dependency extractor for mutation runs (jest.stryker.config.js). Stryker asks jest for the
 * tests related to a mutated file (`findRelatedTests`), and jest finds them from the import
 * statements it can read. The test harness (test/support/harness.ts) loads the Lambda handlers
 * with a computed `import(`../../functions/${name}`)`, which jest cannot follow, so without this
 * no HTTP test would count as related to lib/otp/issue.ts, and its mutants would run
 * against the unit tests alone. This adds every handler in functions/ to the harness's
 * dependencies; every other file keeps jest's own extraction.
 */
const { readdirSync } = require('node:fs');
const { join, sep } = require('node:path');

const HARNESS = `${sep}test${sep}support${sep}harness.ts`;

module.exports = {
  extract(code, filePath, defaultExtract) {
    const dependencies = defaultExtract(code, filePath);
    if (!filePath.endsWith(HARNESS)) return dependencies;
    const functions = join(filePath, '..', '..', '..', 'functions');
    for (const file of readdirSync(functions)) {
      if (file.endsWith('.ts')) dependencies.add(`../../functions/${file.slice(0, -'.ts'.length)}`);
    }
    return dependencies;
  },
  // Part of jest's cache key: a change here must invalidate the dependency cache.
  getCacheKey() {
    return `harness-functions-1:${readdirSync(join(__dirname, '..', '..', 'functions')).join(',')}`;
  },
};
