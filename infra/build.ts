/**
 * `npm run build`: bundles every Lambda exactly as the stack does (infra/bundling.ts) into
 * `dist/<function>/index.mjs`, for inspection and size measurement, and prints the sizes.
 *
 *   npm run build                 # bundles only, without tracing
 *   npm run build -- --stage dev  # and copies config/dev.json (validated) beside each as config.json,
 *                                 # traced as the stage's `deployment.tracing` says
 *   npm run build -- --tracing    # traced (lib/platform/tracing.ts), whatever the stage says
 *   npm run build -- --stage prod --config-dir ../identity-config   # a stage file kept elsewhere (as cdk's -c configDir)
 */
import { copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { BUNDLE_FILE, CONFIG_FILE_IN_BUNDLE, esbuildOptionsFor, lambdaNames, PROJECT_ROOT } from './bundling';
import { CONFIG_DIR, loadStageFile } from './stage';

export const DIST = resolve(PROJECT_ROOT, 'dist');

/**
 * Bundles every function into `outRoot/<name>/`; returns each bundle's path and size in bytes.
 * Traced when `tracing` says so, else as `stage` says, else not.
 */
export async function buildAll(
  outRoot = DIST,
  stage?: string,
  tracing?: boolean,
  configDir = CONFIG_DIR,
): Promise<Array<{ name: string; file: string; bytes: number }>> {
  const loaded = stage === undefined ? undefined : loadStageFile(stage, configDir);
  const configFile = loaded?.file;
  const traced = tracing ?? loaded?.config.deployment.tracing ?? false;
  const results = [];
  for (const name of lambdaNames()) {
    const outdir = resolve(outRoot, name);
    rmSync(outdir, { recursive: true, force: true });
    mkdirSync(outdir, { recursive: true });
    await build(esbuildOptionsFor(name, outdir, traced));
    if (configFile !== undefined) copyFileSync(configFile, resolve(outdir, CONFIG_FILE_IN_BUNDLE));
    const file = resolve(outdir, BUNDLE_FILE);
    results.push({ name, file, bytes: statSync(file).size });
  }
  return results;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { stage: { type: 'string' }, tracing: { type: 'boolean' }, 'config-dir': { type: 'string' } } });
  const configDir = values['config-dir'] === undefined ? CONFIG_DIR : resolve(PROJECT_ROOT, values['config-dir']);
  for (const { name, file, bytes } of await buildAll(DIST, values.stage, values.tracing, configDir)) {
    console.log(`${name.padEnd(24)} ${(bytes / 1024).toFixed(1).padStart(8)} KiB  ${relative(PROJECT_ROOT, file)}`);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
