/**
 * Deploy safety: every API function is published as a version behind an alias named `live`, the
 * API invokes the alias (never `$LATEST`), and CodeDeploy moves the alias from the old version to
 * the new one as the stage says (`deployment.deploy`: canary, linear or all at once), rolling it
 * back by itself when the deployment fails or is stopped, or when one of the function's alarms
 * goes off while it runs. A bad bundle then reaches a tenth of the traffic for a few minutes and
 * goes away, instead of all of it until someone redeploys.
 *
 * How it fits together (AWS CodeDeploy User Guide, "Deployments on an AWS Lambda compute platform";
 * CloudFormation `UpdatePolicy: CodeDeployLambdaAliasUpdate`): a change of a function's code or
 * configuration makes a new version (`currentVersion` hashes both), CloudFormation's update of the
 * alias is handed to the function's deployment group, and the stack update waits until CodeDeploy
 * has shifted all of the traffic, or rolled it back (then the stack update fails and rolls back
 * too). The first deployment of a stage creates the aliases directly: there is no old version.
 *
 * One CodeDeploy application per stage, one deployment group per API function (each rolls back
 * alone), one service role shared by the groups. CodeDeploy takes at most 10 alarms per
 * deployment group (AWS CodeDeploy User Guide, "Quotas": "Maximum number of alarms in a
 * deployment group: 10"); synthesis refuses more. Old versions are kept (CDK's default for
 * `currentVersion`): the previous one stays there to point the alias back at by hand
 * (docs/deploy.md, "Deploy safety").
 */
import { Duration, Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TimeBasedCanaryTrafficRouting,
  TimeBasedLinearTrafficRouting,
  type ILambdaDeploymentConfig,
} from 'aws-cdk-lib/aws-codedeploy';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, type Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { FunctionName } from '../lib/platform/routes';
import type { DeploymentConfig } from './stage-config';

/** The alias the API invokes and CodeDeploy shifts. */
export const LIVE_ALIAS = 'live';

/** CodeDeploy's limit on the alarms of one deployment group (User Guide, "Quotas"). */
export const MAX_DEPLOYMENT_ALARMS = 10;

/** The managed policy CodeDeploy's role needs for Lambda deployments (User Guide, "Create a service role for CodeDeploy"). */
export const CODEDEPLOY_LAMBDA_POLICY = 'service-role/AWSCodeDeployRoleForLambdaLimited';

export interface DeploySafetyProps {
  readonly stage: string;
  readonly deploy: DeploymentConfig['deploy'];
  /** The API functions, each to be published behind its `live` alias. */
  readonly functions: Readonly<Record<FunctionName, LambdaFunction>>;
}

export class DeploySafety extends Construct {
  /** Each API function's `live` alias: what the API's integrations invoke. */
  readonly aliases: Record<FunctionName, Alias>;
  readonly application: LambdaApplication;
  readonly deploymentConfig: ILambdaDeploymentConfig;
  /** CodeDeploy's service role, one for every group. */
  readonly role: Role;
  readonly groups = {} as Record<FunctionName, LambdaDeploymentGroup>;

  constructor(scope: Construct, id: string, props: DeploySafetyProps) {
    super(scope, id);
    this.aliases = {} as Record<FunctionName, Alias>;
    for (const [name, fn] of Object.entries(props.functions) as Array<[FunctionName, LambdaFunction]>) {
      // currentVersion is computed at synthesis from the function's whole configuration, so the
      // environment variables the stack adds after this line are part of the version too.
      this.aliases[name] = new Alias(this, `${name}-${LIVE_ALIAS}`, { aliasName: LIVE_ALIAS, version: fn.currentVersion });
    }
    this.application = new LambdaApplication(this, 'Application', { applicationName: `identity-${props.stage}` });
    this.deploymentConfig = deploymentConfigOf(this, props.deploy);
    this.role = new Role(this, 'CodeDeployRole', {
      description: `CodeDeploy: shifts the live aliases of the identity service (${props.stage})`,
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
    });
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${CODEDEPLOY_LAMBDA_POLICY}]`,
      reason:
        "CodeDeploy's service role for Lambda deployments: AWS's managed policy is the documented one (CodeDeploy User Guide), limited to reading alarms and updating aliases, and kept current by AWS as CodeDeploy changes. CDK attaches it to every Lambda deployment group's role.",
    });
  }

  /**
   * One deployment group per function, rolled back on a failed or stopped deployment and on any
   * of `alarmsOf(name)` (at most MAX_DEPLOYMENT_ALARMS). Called once the alarms exist.
   */
  rollBackOn(alarmsOf: (name: FunctionName) => readonly IAlarm[]): void {
    for (const [name, alias] of Object.entries(this.aliases) as Array<[FunctionName, Alias]>) {
      const alarms = alarmsOf(name);
      if (alarms.length === 0) throw new Error(`No alarm would roll back a deployment of ${name}`);
      if (alarms.length > MAX_DEPLOYMENT_ALARMS) {
        throw new Error(
          `${name} has ${alarms.length} deployment alarms; CodeDeploy takes at most ${MAX_DEPLOYMENT_ALARMS} per deployment group`,
        );
      }
      this.groups[name] = new LambdaDeploymentGroup(this, `${name}-Deployment`, {
        application: this.application,
        deploymentGroupName: `${name}`,
        alias,
        deploymentConfig: this.deploymentConfig,
        role: this.role,
        alarms: [...alarms],
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
    }
  }
}

/**
 * The stage's strategy as a CodeDeploy deployment configuration: one of CodeDeploy's predefined
 * ones when it matches (`LambdaCanary10Percent5Minutes`, …: no resource to create), else a custom
 * one (an AWS::CodeDeploy::DeploymentConfig).
 */
export function deploymentConfigOf(scope: Construct, deploy: DeploymentConfig['deploy']): ILambdaDeploymentConfig {
  if (deploy.strategy === 'all-at-once') return LambdaDeploymentConfig.ALL_AT_ONCE;
  const predefined = PREDEFINED[`${deploy.strategy}-${deploy.percent}-${deploy.intervalMinutes}`];
  if (predefined !== undefined) return predefined;
  const routing = { interval: Duration.minutes(deploy.intervalMinutes), percentage: deploy.percent };
  return new LambdaDeploymentConfig(scope, 'DeploymentConfig', {
    trafficRouting: deploy.strategy === 'canary' ? new TimeBasedCanaryTrafficRouting(routing) : new TimeBasedLinearTrafficRouting(routing),
  });
}

/** CodeDeploy's predefined Lambda configurations, by strategy, percent and minutes. */
const PREDEFINED: Readonly<Record<string, ILambdaDeploymentConfig>> = {
  'canary-10-5': LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
  'canary-10-10': LambdaDeploymentConfig.CANARY_10PERCENT_10MINUTES,
  'canary-10-15': LambdaDeploymentConfig.CANARY_10PERCENT_15MINUTES,
  'canary-10-30': LambdaDeploymentConfig.CANARY_10PERCENT_30MINUTES,
  'linear-10-1': LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE,
  'linear-10-2': LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_2MINUTES,
  'linear-10-3': LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_3MINUTES,
  'linear-10-10': LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_10MINUTES,
};
