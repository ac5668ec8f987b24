/**
 * The order jest starts test files in (jest.config.js `testSequencer`): the slowest first, so the
 * two workers finish together instead of one running a 40-second file alone at the end.
 *
 * Jest's own sequencer orders by each file's duration in its cache, and without a cache (a clean
 * clone: CI) by file size, which puts small slow files (a synthesis, a browser) last. Files with
 * no cached duration take theirs from SECONDS below, measured on a CI-like machine (2 cores) by
 * `npm test` and rounded; a file missing from it comes after them, by size as jest does. With a
 * cache (a second run on the same machine) the measured durations win. A stale figure only costs
 * time, never a result.
 */
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds per file, for the files over about 8 s (2026-11-27: `npm test` on the 2-core machine, coverage on). */
const SECONDS = {
  'test/infra/stack.test.ts': 42,
  'test/infra/protected-http-api.test.ts': 42,
  'test/infra/capacity.test.ts': 36,
  'test/infra/cdk-synth.test.ts': 33,
  'test/browser/passkeys.test.ts': 32,
  'test/browser/sso-logout.test.ts': 30,
  'test/infra/tracing.test.ts': 30,
  'test/faults/dependency-faults.test.ts': 30,
  'test/http/refresh.test.ts': 29,
  'test/browser/hosted-login.test.ts': 28,
  'test/http/authorize.test.ts': 25,
  'test/e2e/deployed-artifacts.test.ts': 25,
  'test/infra/deploy-safety.test.ts': 22,
  'test/infra/bundle-contents.test.ts': 22,
  'test/infra/openapi.test.ts': 21,
  'test/infra/audit.test.ts': 18,
  'test/unit/phone/phone-numbers.test.ts': 18,
  'test/http/guessing.test.ts': 17,
  'test/http/fuzz.test.ts': 16,
  'test/unit/oauth/api-keys.test.ts': 16,
  'test/http/known-numbers.test.ts': 16,
  'test/infra/custom-domain.test.ts': 16,
  'test/http/hosted-login-abuse.test.ts': 15,
  'test/browser/relying-parties.test.ts': 15,
  'test/faults/frozen-storage.test.ts': 15,
  'test/integration/secrets/signing-key-rotation.test.ts': 14,
  'test/infra/recovery.test.ts': 13,
  'test/http/request-text.test.ts': 13,
  'test/infra/admin-cli.test.ts': 13,
  'test/integration/dynamodb/code-store.test.ts': 12,
  'test/http/revoke.test.ts': 12,
  'test/http/declared-permissions.test.ts': 11,
  'test/http/token-verifiers.test.ts': 11,
  'test/infra/stage.test.ts': 11,
  'test/http/phone-guards.test.ts': 10,
  'test/e2e/npm-start.test.ts': 10,
  'test/unit/keys/signing-keys.test.ts': 10,
  'test/integration/dynamodb/session-store.test.ts': 10,
  'test/http/openid-defaults.test.ts': 10,
  'test/unit/oauth/access-tokens.test.ts': 10,
  'test/http/otp-send.test.ts': 9,
  'test/infra/monitoring.test.ts': 9,
  'test/http/rule-edges.test.ts': 9,
  'test/http/client-authentication.test.ts': 9,
  'test/http/sessions.test.ts': 9,
  'test/faults/refresh-races.test.ts': 9,
  'test/unit/oauth/id-token-hints.test.ts': 9,
  'test/unit/otp/code-history.test.ts': 9,
  'test/faults/late-delivery.test.ts': 9,
  'test/http/operator.test.ts': 8,
  'test/unit/platform/log-metrics.test.ts': 8,
  'test/unit/login/html.test.ts': 8,
  'test/infra/nag-packs.test.ts': 8,
};

class SlowestFirst extends Sequencer {
  sort(tests) {
    // Jest's order (failed first, then cached durations, then size) is the tie-break.
    const base = super.sort(tests);
    const rank = new Map(base.map((test, index) => [test, index]));
    const milliseconds = (test) => {
      if (this.hasFailed(test)) return Infinity;
      if (test.duration != null) return test.duration;
      const seconds = SECONDS[relative(test.context.config.rootDir, test.path).split('\\').join('/')];
      return seconds === undefined ? undefined : seconds * 1000;
    };
    const known = base.filter((test) => milliseconds(test) !== undefined);
    const unknown = base.filter((test) => milliseconds(test) === undefined);
    known.sort((a, b) => milliseconds(b) - milliseconds(a) || rank.get(a) - rank.get(b));
    return [...known, ...unknown];
  }
}

module.exports = SlowestFirst;
