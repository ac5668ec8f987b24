/**
 * `npm run build`: bundles every Lambda exactly as the stack does (infra/bundling.ts) into
 * `dist/<function>/index.mjs`, for inspection and size measurement, and prints the sizes.
 *
 *   npm run build                 # bundles only
 *   npm run build -- --stage dev  # and copies config/dev.json (validated) beside each as config.json
 */
import { copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { BUNDLE_FILE, CONFIG_FILE_IN_BUNDLE, esbuildOptionsFor, lambdaNames, PROJECT_ROOT } from './bundling';
import { loadStageFile } from './stage';

export const DIST = resolve(PROJECT_ROOT, 'dist');

/** Bundles every function into `outRoot/<name>/`; returns each bundle's path and size in bytes. */
export async function buildAll(outRoot = DIST, stage?: string): Promise<Array<{ name: string; file: string; bytes: number }>> {
  const configFile = stage === undefined ? undefined : loadStageFile(stage).file;
  const results = [];
  for (const name of lambdaNames()) {
    const outdir = resolve(outRoot, name);
    rmSync(outdir, { recursive: true, force: true });
    mkdirSync(outdir, { recursive: true });
    await build(esbuildOptionsFor(name, outdir));
    if (configFile !== undefined) copyFileSync(configFile, resolve(outdir, CONFIG_FILE_IN_BUNDLE));
    const file = resolve(outdir, BUNDLE_FILE);
    results.push({ name, file, bytes: statSync(file).size });
  }
  return results;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { stage: { type: 'string' } } });
  for (const { name, file, bytes } of await buildAll(DIST, values.stage)) {
    console.log(`${name.padEnd(24)} ${(bytes / 1024).toFixed(1).padStart(8)} KiB  ${relative(PROJECT_ROOT, file)}`);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
