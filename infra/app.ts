/**
 * The CDK app: one stack per stage, the stage chosen on the command line.
 *
 *   npx cdk synth -c stage=prod
 *   npm run deploy -- -c stage=prod
 *
 * The stage selects config/<stage>.json, validated by the functions' own schema plus the stack's
 * checks (infra/stage.ts); an invalid file stops synthesis with a message naming every problem.
 * Synthesis needs no AWS account and no network: no lookups, and bundling runs the local esbuild.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PROJECT_ROOT } from './bundling';
import { IdentityStack, stackNameOf } from './identity-stack';
import { availableStages, loadStageFile } from './stage';

export interface IdentityApp {
  readonly app: App;
  readonly stack: IdentityStack;
}

/** The context of cdk.json (feature flags), so an app built here (tests) behaves as `cdk synth`'s. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

/** A new app with the stack of one stage, checked by cdk-nag. */
export function createApp(stage: string, props: AppProps = {}): IdentityApp {
  const app = new App(props);
  addNagChecks(app);
  return { app, stack: addStage(app, stage) };
}

/** Adds the stack of `stage` to `app`. */
export function addStage(app: App, stage: string): IdentityStack {
  const loaded = loadStageFile(stage);
  const { account, region } = loaded.config.deployment;
  const stack = new IdentityStack(app, stackNameOf(stage), {
    stage: loaded,
    description: `Identity service: passwordless one-time codes and access tokens (stage ${stage})`,
    tags: { service: 'identity', stage },
    ...(account === undefined && region === undefined ? {} : { env: { account, region } }),
  });
  return stack;
}

/**
 * cdk-nag's AwsSolutions pack as a validation plugin: any unacknowledged finding, error or warning,
 * stops synthesis. Acknowledgements (each with its reason, next to the resource) are also written
 * into the template's metadata, so the reasons travel with it.
 */
export function addNagChecks(app: App): AwsSolutionsChecks {
  const checks = new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true });
  Validations.of(app).addPlugins(checks);
  return checks;
}

function main(): void {
  const app = new App();
  const stage = app.node.tryGetContext('stage') as unknown;
  if (typeof stage !== 'string' || stage === '') {
    throw new Error(`Choose a stage: npx cdk synth -c stage=<stage> (stages: ${availableStages().join(', ')})`);
  }
  addNagChecks(app);
  addStage(app, stage);
  app.synth();
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
