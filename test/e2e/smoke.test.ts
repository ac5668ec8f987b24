/**
 * `npm run smoke -- <base URL>` (infra/smoke.ts) against the local runtime: the suite's own
 * (test/support/harness.ts: the real handlers over the suite's DynamoDB Local and SES local, the
 * same server `npm start` runs), not a second stack. The whole login passes, the report shows no
 * code or token, and a recipient that is not a test recipient fails at reading the code.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatReport, parsePlan, runSmoke } from '../../infra/smoke';
import type { StageConfig } from '../../lib/platform/config';
import { LOCAL_CONFIG_FILE, startTestService, type TestService } from '../support/harness';

const ROOT = resolve(__dirname, '../..');
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const STEPS = ['discovery', 'otp/send', 'read the code', 'token', 'userinfo', 'refresh', 'revoke', 'revoked token refused'];

/** A config directory holding `local.json` changed by `change` (for the smoke command), and the change (for the service). */
function localStageWith(change: (stage: StageConfig) => StageConfig): { dir: string; config: (stage: StageConfig) => StageConfig } {
  const dir = mkdtempSync(join(tmpdir(), 'smoke-config-'));
  writeFileSync(join(dir, 'local.json'), JSON.stringify(change(JSON.parse(readFileSync(LOCAL_CONFIG_FILE, 'utf8')) as StageConfig)));
  return { dir, config: change };
}

function runCli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [TSX, 'infra/smoke.ts', ...args], { cwd: ROOT, env: { ...process.env, NODE_NO_WARNINGS: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolveRun({ code, stdout, stderr }));
  });
}

describe('npm run smoke against the local runtime', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  it('runs the whole login with local.json’s test recipient and passes every step, signing nothing', async () => {
    const plan = parsePlan([service.url], {});
    expect(plan).toEqual({
      baseUrl: service.url,
      environmentId: 'local',
      recipient: 'smoke@identity.local',
      clientId: 'local-web',
      redirectUri: 'http://127.0.0.1:3000/callback',
      clientSecret: undefined,
      signingRegion: undefined,
    });

    const result = await runSmoke(plan);

    expect(result.steps.map(({ name, ok }) => ({ name, ok }))).toEqual(STEPS.map((name) => ({ name, ok: true })));
    expect(result.ok).toBe(true);
    // local-web is not granted openid: UserInfo verified the token and refused it for its scope.
    expect(result.steps.find((one) => one.name === 'userinfo')?.detail).toContain('403 insufficient_scope');
    // Nothing was delivered to the test recipient: the message was kept, and taken.
    expect(await service.outbox('smoke@identity.local')).toEqual([]);
  });

  it('gets the claims from UserInfo for a client granted openid', async () => {
    const stage = localStageWith((config) => ({
      ...config,
      clients: config.clients.map((client) =>
        client.id === 'local-web' ? { ...client, accessToken: { ...client.accessToken, scope: 'openid email' } } : client,
      ),
    }));
    const withOpenId = await startTestService({ config: stage.config });
    try {
      const result = await runSmoke(parsePlan([withOpenId.url, '--config-dir', stage.dir], {}));
      expect(result.ok).toBe(true);
      expect(result.steps.find((one) => one.name === 'userinfo')?.detail).toBe('claims of the token, sub included');
    } finally {
      await withOpenId.stop();
    }
  });

  it('fails at reading the code, and says why, for a recipient that is not a test recipient', async () => {
    const plan = parsePlan([service.url, '--recipient', 'not-a-test-recipient@example.com'], {});
    const result = await runSmoke(plan);
    expect(result.ok).toBe(false);
    expect(result.steps.map(({ name, ok }) => ({ name, ok }))).toEqual([
      { name: 'discovery', ok: true },
      { name: 'otp/send', ok: true },
      { name: 'read the code', ok: false },
    ]);
    expect(result.steps[2]?.detail).toBe(
      'answered 400 invalid_request: user_id is not a test recipient of this environment. (expected 200)',
    );
    expect(formatReport(plan, result).split('\n').at(-1)).toBe('Failed at: read the code');
  });

  it('exits 0 as `npm run smoke -- <url>` and prints one line per step, without the code or any token', async () => {
    const { code, stdout, stderr } = await runCli([service.url]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe(`Smoke test of ${service.url} (environment local, client local-web)`);
    expect(lines.slice(1, -1).map((line) => line.slice(2, 6))).toEqual(STEPS.map(() => 'ok  '));
    expect(lines.at(-1)).toBe('All steps passed.');
    // No six-digit code, no JWT, no refresh token (43+ base64url characters).
    expect(stdout).not.toMatch(/\b\d{6}\b|eyJ[A-Za-z0-9_-]{10,}|[A-Za-z0-9_-]{43,}/);
  }, 60_000);

  it('exits 1 with the reason on stderr when the environment declares no test recipient', async () => {
    const stage = localStageWith((config) => ({
      ...config,
      environments: config.environments.map((environment) => ({ ...environment, testRecipients: [] })),
    }));
    const { code, stderr } = await runCli([service.url, '--config-dir', stage.dir]);
    expect({ code, stderr: stderr.trim() }).toEqual({
      code: 1,
      stderr: 'smoke: Environment local declares no testRecipients: add one to its stage file (or give --recipient).',
    });
  }, 60_000);
});

describe('the smoke command’s plan for a deployed stage', () => {
  it('reads the stage from the API Gateway URL’s path and signs the admin call for the URL’s region', () => {
    const stage = localStageWith((config) => ({ ...config, stage: 'dev' }));
    writeFileSync(join(stage.dir, 'dev.json'), readFileSync(join(stage.dir, 'local.json')));
    const plan = parsePlan(['https://abc123.execute-api.eu-west-1.amazonaws.com/dev/', '--config-dir', stage.dir], {});
    expect(plan).toMatchObject({
      baseUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com/dev',
      environmentId: 'local',
      signingRegion: 'eu-west-1',
    });
  });

  it('asks for the stage behind a custom domain, and for the region to sign for', () => {
    expect(() => parsePlan(['https://id.example.org'], {})).toThrow('Which stage is it? Give --stage');
    expect(() => parsePlan(['https://id.example.org', '--stage', 'local'], {})).toThrow('Which region is the stage in?');
    expect(parsePlan(['https://id.example.org', '--stage', 'local', '--region', 'eu-west-1'], {}).signingRegion).toBe('eu-west-1');
  });

  it('takes a confidential client only with SMOKE_CLIENT_SECRET, from the environment, never the command line', () => {
    const url = 'http://localhost:3000';
    expect(() => parsePlan([url, '--client', 'local-backend'], {})).toThrow(
      'local-backend is a confidential client: set SMOKE_CLIENT_SECRET',
    );
    expect(parsePlan([url, '--client', 'local-backend'], { SMOKE_CLIENT_SECRET: 's3cret' }).clientSecret).toBe('s3cret');
  });
});
