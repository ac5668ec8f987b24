/**
 * Synthesizes a stage in-process, once per test file, as `cdk synth` would (cdk.json's feature
 * flags, cdk-nag as a validation plugin, the local esbuild), with a `docker` on the PATH that
 * fails and leaves a mark, so any attempt to bundle with Docker is seen.
 */
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { cdkJsonContext, createApp, type IdentityApp } from '../../infra/app';

export interface SynthesizedStage extends IdentityApp {
  readonly template: Template;
  /** The template as plain JSON. */
  readonly json: TemplateJson;
  /** The cloud assembly directory (bundles are `asset.<hash>/` in it). */
  readonly outdir: string;
}

export interface TemplateJson {
  Resources: Record<
    string,
    { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string; UpdateReplacePolicy?: string; DependsOn?: string[] }
  >;
  Outputs?: Record<string, { Value: unknown }>;
}

/** A directory with a `docker` that records it was called and fails. */
export function failingDocker(): { dir: string; called: () => boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'no-docker-'));
  const mark = join(dir, 'docker-was-called');
  writeFileSync(join(dir, 'docker'), `#!/bin/sh\necho "$@" >> '${mark}'\nexit 1\n`);
  chmodSync(join(dir, 'docker'), 0o755);
  return { dir, called: () => existsSync(mark) };
}

/**
 * Synthesizes `stage`. cdk-nag runs first on its own, so that a finding (which would also stop the
 * synthesis itself) is reported by name rather than as a failed synthesis.
 */
export function synthesize(stage: string): SynthesizedStage {
  const outdir = mkdtempSync(join(tmpdir(), `cdk-${stage}-`));
  const identity = createApp(stage, { context: cdkJsonContext(), outdir });
  const report = new AwsSolutionsChecks().validateScope(identity.app);
  if (!report.success) {
    const findings = report.violations.map(
      (violation) => `${violation.ruleName} at ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
    );
    throw new Error(`cdk-nag findings in stage ${stage}:\n${findings.join('\n')}`);
  }
  const template = Template.fromStack(identity.stack);
  return { ...identity, template, json: template.toJSON() as TemplateJson, outdir };
}
