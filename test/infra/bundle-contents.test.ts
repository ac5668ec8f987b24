/**
 * What goes into each function's bundle, read from esbuild's metafile with the options the stack
 * deploys: nothing from infra/ (the deployment schema, the CDK code) ever ships in a function.
 */
import { build, type Metafile } from 'esbuild';
import { relative } from 'node:path';
import { esbuildOptionsFor, lambdaNames, PROJECT_ROOT } from '../../infra/bundling';

const metafiles = new Map<string, Metafile>();
const code = new Map<string, string>();
beforeAll(async () => {
  await Promise.all(
    lambdaNames().map(async (name) => {
      const result = await build({ ...esbuildOptionsFor(name, `/tmp/bundle-contents/${name}`), write: false, metafile: true });
      metafiles.set(name, result.metafile);
      code.set(name, result.outputFiles.map((file) => file.text).join('\n'));
    }),
  );
});

const inputsOf = (name: string) => Object.keys(metafiles.get(name)?.inputs ?? {}).map((input) => relative(PROJECT_ROOT, input));

it.each(lambdaNames())('%s carries nothing from infra/ (the deployment schema stays with the stack)', (name) => {
  const inputs = inputsOf(name);
  expect(inputs.some((input) => input.startsWith('lib/'))).toBe(true);
  expect(inputs.filter((input) => input.startsWith('infra/') || input.includes('aws-cdk-lib'))).toEqual([]);
  // Messages only the deployment schema has (regression: it lived in lib/config.ts and shipped in every bundle).
  expect(code.get(name)).not.toContain('an ACM certificate ARN');
  expect(code.get(name)).not.toContain('a 12-digit AWS account id');
});
