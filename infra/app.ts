/**
 * The CDK app: one stack per stage, the stage chosen on the command line.
 *
 *   npx cdk synth -c stage=prod
 *   npx cdk synth -c stage=prod -c configDir=../identity-config   # the stage file kept elsewhere
 *   npm run deploy -- -c stage=prod
 *
 * The stage selects config/<stage>.json, validated by the functions' own schema plus the stack's
 * checks (infra/stage.ts); an invalid file stops synthesis with a message naming every problem.
 * Synthesis needs no AWS account and no network: no lookups, and bundling runs the local esbuild.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { App, RemovalPolicy, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { PROJECT_ROOT } from './bundling';
import { IdentityStack, stackNameOf } from './identity-stack';
import { RecoveryStack, recoveryStackNameOf } from './recovery';
import { availableStages, CONFIG_DIR, loadStageFile } from './stage';

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

/**
 * Adds the stack of `stage` to `app`, its file read from the context's `configDir` (relative to the
 * project root; default `config/`): `cdk synth -c stage=prod -c configDir=../identity-config`.
 */
export function addStage(app: App, stage: string): IdentityStack {
  const loaded = loadStageFile(stage, configDirOf(app));
  const { account, region } = loaded.config.deployment;
  const stack = new IdentityStack(app, stackNameOf(stage), {
    stage: loaded,
    description: `Identity service: passwordless one-time codes and access tokens (stage ${stage})`,
    tags: { service: 'identity', stage },
    ...(account === undefined && region === undefined ? {} : { env: { account, region } }),
  });
  // The second region's vault (infra/recovery.ts): the stage's backup plan copies to it by ARN, so it is deployed first.
  const secondRegion = loaded.config.deployment.recovery.region;
  if (secondRegion !== undefined) {
    const recovery = new RecoveryStack(app, recoveryStackNameOf(stack.stackName), {
      stage,
      // Only prod-like stages have one (infra/recovery.ts `recoveryProblems`); an empty vault of a
      // failed first deployment goes with the rollback.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      description: `Identity service: the second region's vault for the table's backup copies (stage ${stage})`,
      tags: { service: 'identity', stage },
      env: { account, region: secondRegion },
    });
    stack.addStackDependency(recovery, 'the backup plan copies to its vault');
  }
  return stack;
}

/** The `configDir` context as an absolute path, or `config/` when absent. */
export function configDirOf(app: App): string {
  const configDir = app.node.tryGetContext('configDir') as unknown;
  if (configDir === undefined) return CONFIG_DIR;
  if (typeof configDir !== 'string' || configDir === '') throw new Error('-c configDir=<dir> names the directory of the stage files');
  return resolve(PROJECT_ROOT, configDir);
}

/**
 * cdk-nag's AwsSolutions and Serverless packs as validation plugins: any unacknowledged finding of
 * either, error or warning, stops synthesis. Acknowledgements (each with its reason, next to the
 * resource) are also written into the template's metadata, so the reasons travel with it: the
 * AwsSolutions pack's aspect writes every acknowledged rule, the Serverless pack's included, so the
 * Serverless pack does not add a second one.
 */
export function addNagChecks(app: App): [AwsSolutionsChecks, ServerlessChecks] {
  const checks = [
    new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }),
    new ServerlessChecks(app, { verbose: true }),
  ] as [AwsSolutionsChecks, ServerlessChecks];
  Validations.of(app).addPlugins(...checks);
  return checks;
}

function main(): void {
  const app = new App();
  const stage = app.node.tryGetContext('stage') as unknown;
  if (typeof stage !== 'string' || stage === '') {
    throw new Error(`Choose a stage: npx cdk synth -c stage=<stage> (stages: ${availableStages(configDirOf(app)).join(', ')})`);
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
