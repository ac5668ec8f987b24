/**
 * Recovery: what brings the service back after its table is damaged or its region is lost
 * (docs/operations/disaster-recovery.md; why one region and not global tables: docs/decisions/015-multi-region.md).
 *
 * - Point-in-time recovery (35 days, the table's own setting) answers a damaged table in minutes.
 * - `TableBackup`, in the stage's stack: an AWS Backup vault and plan for the table, a recovery
 *   point every hour and one a day, each copied to the second region's vault when the stage names
 *   one (`deployment.recovery.region`). Hourly bounds what a region's loss costs (RPO) to about an
 *   hour plus the copy's time; the daily points keep a month of history out of the region.
 * - `RecoveryStack`, in the second region (`Identity-<stage>-recovery`): the vault the copies go
 *   to. A copy action names its destination by ARN, so the vault must exist before the stage's
 *   stack: app.ts makes the stage's stack depend on it. Its name is derived from the stage, so the
 *   ARN is built offline (region, account, name) and no cross-region reference is needed.
 * - The secrets' replicas in the second region are infra/secrets.ts's (`replicaRegions`).
 *
 * Only prod-like stages (removalPolicy `retain`) are backed up: a throw-away stage's data does not
 * matter, and a vault holding recovery points cannot be deleted, which would break its `cdk destroy`.
 *
 * AWS Backup copies DynamoDB backups across regions only with its advanced DynamoDB features on
 * (AWS Backup Developer Guide, "Advanced DynamoDB backup"): on by default for accounts that created
 * no vault before November 2021; an older account turns them on once per region
 * (docs/operations/disaster-recovery.md, "Before go-live").
 */
import { ArnFormat, CfnOutput, Duration, type RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault, type IBackupVault } from 'aws-cdk-lib/aws-backup';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { DeploymentConfig } from './stage-config';

export type RecoveryConfig = DeploymentConfig['recovery'];

/** The vault of the stage's recovery points, in the stage's region. */
export const backupVaultNameOf = (stage: string): string => `identity-${stage}`;
/** The vault in the second region that receives the copies (RecoveryStack). */
export const recoveryVaultNameOf = (stage: string): string => `identity-${stage}-recovery`;
/** The second region's stack, beside the stage's stack `stackName`. */
export const recoveryStackNameOf = (stackName: string): string => `${stackName}-recovery`;

/**
 * AWS Backup runs a job within its start window after the scheduled time and must finish it within
 * its completion window. One hour is the shortest start window AWS Backup accepts; a backup of this
 * table (kilobytes per active user) takes minutes, so two hours to complete leaves room and still
 * ends before the hour after next.
 */
const START_WINDOW = Duration.hours(1);
const COMPLETION_WINDOW = Duration.hours(2);

/** What the stage's recovery settings cannot say by themselves: they involve the rest of the deployment section. */
export function recoveryProblems(deployment: DeploymentConfig): string[] {
  const problems: string[] = [];
  const { region: secondRegion, adopt } = deployment.recovery;
  if (secondRegion !== undefined) {
    if (deployment.removalPolicy === 'destroy') {
      problems.push(
        `deployment.recovery.region: a throw-away stage (removalPolicy "destroy") keeps no backups to copy to ${secondRegion}; remove it, or make the stage "retain"`,
      );
    }
    if (deployment.region === undefined) {
      problems.push(
        `deployment.recovery.region needs deployment.region: a second region is only a second one next to a region the stage is pinned to`,
      );
    } else if (deployment.region === secondRegion) {
      problems.push(`deployment.recovery.region: ${secondRegion} is the stage's own region; a region's loss would take the copies with it`);
    }
  }
  if (adopt !== undefined) {
    const arns = {
      hmacSecretArn: adopt.hmacSecretArn,
      signingKeysSecretArn: adopt.signingKeysSecretArn,
      verificationKeysSecretArn: adopt.verificationKeysSecretArn,
    };
    if (deployment.region === undefined) {
      problems.push('deployment.recovery.adopt needs deployment.region: the restored table and the promoted secrets are in one region');
    } else {
      for (const [name, arn] of Object.entries(arns)) {
        const region = arn.split(':')[3];
        if (region !== deployment.region) {
          problems.push(
            `deployment.recovery.adopt.${name}: the secret is in ${region} but the stage is deployed to ${deployment.region}; adopt the replica promoted in ${deployment.region}`,
          );
        }
      }
    }
  }
  return problems;
}

export interface RecoveryStackProps extends StackProps {
  readonly stage: string;
  readonly removalPolicy: RemovalPolicy;
}

/** The second region's half: the vault that receives the stage's recovery points. */
export class RecoveryStack extends Stack {
  readonly vault: BackupVault;

  constructor(scope: Construct, id: string, props: RecoveryStackProps) {
    super(scope, id, props);
    // AWS Backup's own key (aws/backup) in this region: copies are re-encrypted with the destination
    // vault's key, and a customer-managed key would add a key policy and a cost without narrowing who
    // can restore (that takes backup and IAM permissions in this account either way).
    this.vault = new BackupVault(this, 'Vault', { backupVaultName: recoveryVaultNameOf(props.stage), removalPolicy: props.removalPolicy });
    new CfnOutput(this, 'VaultArn', { description: 'Where the stage’s table backups are copied', value: this.vault.backupVaultArn });
  }
}

export interface TableBackupProps {
  readonly stage: string;
  readonly table: ITable;
  readonly recovery: RecoveryConfig;
  readonly removalPolicy: RemovalPolicy;
}

/** The stage's half: vault, plan, the table's selection, and the copies to the second region. */
export class TableBackup extends Construct {
  readonly vault: BackupVault;
  readonly plan: BackupPlan;
  /** The role AWS Backup backs up and restores the table with (docs/operations/disaster-recovery.md passes it to restores). */
  readonly role: Role;
  /** The second region's vault, when the stage has one. */
  readonly recoveryVault?: IBackupVault;

  constructor(scope: Construct, id: string, props: TableBackupProps) {
    super(scope, id);
    const { stage, recovery } = props;
    this.vault = new BackupVault(this, 'Vault', { backupVaultName: backupVaultNameOf(stage), removalPolicy: props.removalPolicy });
    if (recovery.region !== undefined) {
      this.recoveryVault = BackupVault.fromBackupVaultArn(
        this,
        'RecoveryVault',
        Stack.of(this).formatArn({
          service: 'backup',
          region: recovery.region,
          resource: 'backup-vault',
          resourceName: recoveryVaultNameOf(stage),
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      );
    }
    const copyTo = (days: number) =>
      this.recoveryVault === undefined ? [] : [{ destinationBackupVault: this.recoveryVault, deleteAfter: Duration.days(days) }];

    this.plan = new BackupPlan(this, 'Plan', {
      backupPlanName: `identity-${stage}`,
      backupPlanRules: [
        new BackupPlanRule({
          ruleName: 'Hourly',
          backupVault: this.vault,
          // On the hour; the daily rule runs at half past, so the two never start together.
          scheduleExpression: Schedule.cron({ minute: '0' }),
          startWindow: START_WINDOW,
          completionWindow: COMPLETION_WINDOW,
          deleteAfter: Duration.days(recovery.hourlyRetentionDays),
          copyActions: copyTo(recovery.hourlyRetentionDays),
        }),
        new BackupPlanRule({
          ruleName: 'Daily',
          backupVault: this.vault,
          scheduleExpression: Schedule.cron({ hour: '3', minute: '30' }),
          startWindow: START_WINDOW,
          completionWindow: COMPLETION_WINDOW,
          deleteAfter: Duration.days(recovery.dailyRetentionDays),
          copyActions: copyTo(recovery.dailyRetentionDays),
        }),
      ],
    });

    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('backup.amazonaws.com'),
      description: `identity ${stage}: AWS Backup backs up, copies and restores the table`,
      managedPolicies: [
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSBackupServiceRolePolicyForBackup'),
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSBackupServiceRolePolicyForRestores'),
      ],
    });
    for (const policy of ['AWSBackupServiceRolePolicyForBackup', 'AWSBackupServiceRolePolicyForRestores']) {
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}]`,
        reason:
          'AWS Backup\'s documented service-role policy, which its advanced DynamoDB backup requires of a custom role ("Advanced DynamoDB backup", custom policies and roles); AWS maintains it as the service changes. The role can be assumed by AWS Backup only and is used for this plan\'s one selection, the table.',
      });
    }
    this.plan.addSelection('Table', {
      backupSelectionName: 'table',
      resources: [BackupResource.fromDynamoDbTable(props.table)],
      role: this.role,
      // The role above already holds both policies.
      disableDefaultBackupPolicy: true,
    });
    // Stable names: docs/operations/disaster-recovery.md's commands read them from the stack's outputs.
    new CfnOutput(this, 'RoleArn', {
      description: 'The role restores of the table pass to AWS Backup',
      value: this.role.roleArn,
    }).overrideLogicalId('BackupRoleArn');
    new CfnOutput(this, 'VaultName', {
      description: 'The vault of the table’s recovery points',
      value: this.vault.backupVaultName,
    }).overrideLogicalId('BackupVaultName');
  }
}
