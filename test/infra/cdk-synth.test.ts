/**
 * The commands a platform team runs, as they run them, offline: `npx cdk synth -c stage=prod` on
 * the filled-in production stage file (`-c configDir`: test/infra/production-stage.ts) and on the
 * committed template, which it refuses, through cdk.json (with a `docker` on the PATH that fails, so Docker bundling would be seen), the
 * missing-stage message, and `npm run build`'s bundles loading in Node as Lambda loads them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildAll } from '../../infra/build';
import { lambdaNames } from '../../infra/bundling';
import { productionConfigDir } from './production-stage';
import { failingDocker } from './synthesize';

const ROOT = resolve(__dirname, '../..');
const CDK = join(ROOT, 'node_modules/.bin/cdk');

function cdk(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(CDK, [...args, '--no-notices', '--no-version-reporting'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', ...env },
    timeout: 300_000,
  });
}

it('`cdk synth -c stage=prod -c configDir=<dir>` synthesizes the filled-in production stack offline, with the local esbuild and never Docker', () => {
  // Arrange
  const docker = failingDocker();
  const out = mkdtempSync(join(tmpdir(), 'cdk-out-'));

  // Act
  const result = cdk(['synth', '-c', 'stage=prod', '-c', `configDir=${productionConfigDir()}`, '--quiet', '-o', out], {
    PATH: `${docker.dir}:${process.env.PATH ?? ''}`,
  });

  // Assert
  expect({ status: result.status, stderr: result.status === 0 ? '' : result.stderr }).toEqual({ status: 0, stderr: '' });
  const template = JSON.parse(readFileSync(join(out, 'Identity-prod.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string }>;
  };
  expect(Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function').length).toBeGreaterThanOrEqual(
    lambdaNames().length,
  );
  expect(docker.called()).toBe(false);
}, 300_000);

it('`cdk synth -c stage=prod` refuses the committed template, naming its placeholders and its published key', () => {
  const result = cdk(['synth', '-c', 'stage=prod', '--quiet', '-o', mkdtempSync(join(tmpdir(), 'cdk-out-'))]);

  expect(result.status).not.toBe(0);
  expect(result.stderr).toContain('Invalid config/prod.json:');
  expect(result.stderr).toContain('✖ issuer: "https://id.example.com" uses id.example.com, an example domain');
  expect(result.stderr).toMatch(
    /✖ clients\[1\] "partner-backend": apiKeySha256\[0\] is the hash of a key written in [^:]*docs\/deploy\.md/,
  );
  expect(result.stderr).toContain('-c configDir=<dir>');
}, 120_000);

it('`cdk synth` without a stage says how to choose one', () => {
  const result = cdk(['synth', '--quiet', '-o', mkdtempSync(join(tmpdir(), 'cdk-out-'))]);

  expect(result.status).not.toBe(0);
  expect(result.stderr).toContain('Choose a stage: npx cdk synth -c stage=<stage> (stages: dev, local, prod)');
}, 60_000);

it('`npm run build` writes one ESM bundle per function that Node loads, each exporting its handler', async () => {
  // Arrange
  const out = mkdtempSync(join(tmpdir(), 'dist-'));

  // Act (dev: `npm run build -- --stage prod` refuses the committed template, as synthesis does)
  const bundles = await buildAll(out, 'dev');

  // Assert
  expect(bundles.map((bundle) => bundle.name)).toEqual(lambdaNames());
  for (const bundle of bundles) {
    expect(existsSync(join(out, bundle.name, 'config.json'))).toBe(true);
    const loaded = spawnSync(
      process.execPath,
      [
        '--enable-source-maps',
        '--no-warnings',
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(bundle.file)}); process.stdout.write(typeof m.handler);`,
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1' } },
    );
    expect({ name: bundle.name, handler: loaded.stdout, stderr: loaded.stderr }).toEqual({
      name: bundle.name,
      handler: 'function',
      stderr: '',
    });
  }
}, 60_000);
