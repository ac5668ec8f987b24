/**
 * Synthesis for tests that need templates, not bundles: an app with cdk.json's feature flags and
 * cdk-nag as a validation plugin, as `cdk synth` builds it, but with bundling skipped
 * (aws:cdk:bundling-stacks empty), so a whole identity stack synthesizes in a second or two.
 * test/infra/synthesize.ts is the one that bundles, for the tests that read the bundles.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { addNagChecks, cdkJsonContext } from '../../infra/app';

export type Json = Record<string, unknown>;
export interface TemplateJson {
  Resources: Record<string, { Type: string; Properties: Json }>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** A new app as `cdk synth` builds it, bundling nothing; `context` adds to cdk.json's (e.g. `configDir`). */
export function newApp(context: Record<string, unknown> = {}): App {
  const app = new App({
    context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [], ...context },
    outdir: mkdtempSync(join(tmpdir(), 'cdk-offline-')),
  });
  addNagChecks(app);
  return app;
}

/**
 * The template of `stack`, once cdk-nag (the AwsSolutions and Serverless packs, as infra/app.ts
 * `addNagChecks` registers them) has nothing to say about it: checked first on its own, so that a
 * finding (which would also stop the synthesis) is reported by rule name.
 */
export function templateOf(stack: Stack): TemplateJson {
  expect(
    [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
      pack
        .validateScope(stack)
        .violations.map(
          (violation) => `${violation.ruleName} ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
        ),
    ),
  ).toEqual([]);
  return Template.fromStack(stack).toJSON() as TemplateJson;
}

/** The resources of a type, as [logical id, resource]. */
export const ofType = (json: TemplateJson, type: string) => Object.entries(json.Resources).filter(([, resource]) => resource.Type === type);

/** The one resource of a type (failing, with the type named, when there is not exactly one). */
export function only(json: TemplateJson, type: string): [string, TemplateJson['Resources'][string]] {
  const found = ofType(json, type);
  expect({ type, count: found.length }).toEqual({ type, count: 1 });
  return found[0]!;
}

/** The logical id of an L2 construct's resource. */
export const logicalId = (stack: Stack, construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
