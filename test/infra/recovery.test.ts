/**
 * Recovery (infra/recovery.ts, docs/operations/disaster-recovery.md): the table's AWS Backup plan
 * and its copies to the second region's vault, the secrets' replicas there, the second region's
 * stack that the stage's stack waits for, the way back after a region's loss (a stack built around
 * a restored table and promoted secrets), and the settings synthesis refuses. Templates only, no
 * bundles (test/infra/offline-synthesis.ts); the production stage is the filled-in copy of
 * config/prod.json (test/infra/production-stage.ts), cdk-nag checked on every stack.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addStage } from '../../infra/app';
import { stackNameOf, type IdentityStack } from '../../infra/identity-stack';
import { backupVaultNameOf, type RecoveryStack, recoveryProblems, recoveryStackNameOf, recoveryVaultNameOf } from '../../infra/recovery';
import { CONFIG_DIR, loadStageFile } from '../../infra/stage';
import { parseDeployableStage, type DeploymentConfig } from '../../infra/stage-config';
import { newApp, ofType, only, templateOf, type Json, type TemplateJson } from './offline-synthesis';
import { PRODUCTION_ACCOUNT, productionConfigDir } from './production-stage';

const SECOND_REGION = 'eu-central-1';
type StageJson = { deployment: Record<string, unknown> & { recovery?: Record<string, unknown> } };

/**
 * config/prod.json as committed, through the stack's schema only: a template, which synthesis
 * refuses for its placeholders (infra/stage.ts), but whose recovery settings are the ones to check.
 */
const committedProduction = () => parseDeployableStage(JSON.parse(readFileSync(join(CONFIG_DIR, 'prod.json'), 'utf8')), 'config/prod.json');

/** The filled-in production stage file, as JSON to change. */
const productionJson = (): StageJson => JSON.parse(readFileSync(join(productionConfigDir(), 'prod.json'), 'utf8')) as StageJson;

/** A directory holding `prod.json` changed by `change` (one per test label, rewritten on every run). */
function variantDir(label: string, change: (stage: StageJson) => void): string {
  const stage = productionJson();
  change(stage);
  const dir = join(tmpdir(), `identity-recovery-${process.pid}-${label}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'prod.json'), JSON.stringify(stage));
  return dir;
}

interface Synthesized {
  readonly stack: IdentityStack;
  readonly json: TemplateJson;
  readonly recovery?: RecoveryStack;
  readonly recoveryJson?: TemplateJson;
}

/** The production stage from `configDir`, with its second region's stack when it has one; cdk-nag clean on both. */
function synthesize(configDir: string, stage = 'prod'): Synthesized {
  const app = newApp({ configDir });
  const stack = addStage(app, stage);
  const recovery = app.node.tryFindChild(recoveryStackNameOf(stackNameOf(stage))) as RecoveryStack | undefined;
  return {
    stack,
    json: templateOf(stack),
    ...(recovery === undefined ? {} : { recovery, recoveryJson: templateOf(recovery) }),
  };
}

const props = (resource: { Properties: Json }) => resource.Properties;
const backupPlan = (json: TemplateJson) =>
  props(only(json, 'AWS::Backup::BackupPlan')[1]).BackupPlan as { BackupPlanName: string; BackupPlanRule: Array<Json> };
/**
 * An ARN of the template as a string, `${AWS::AccountId}` style, so that ARNs can be compared. The
 * partition is written `${AWS::Partition}` whether CDK made it a literal (the region is known) or not.
 */
function arnText(value: unknown): string {
  return templateText(value).replace(/^arn:aws:/, 'arn:${AWS::Partition}:');
}
function templateText(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join !== undefined) return join[1].map(templateText).join(join[0]);
  const ref = (value as { Ref?: string }).Ref;
  if (ref !== undefined) return `\${${ref}}`;
  return JSON.stringify(value);
}

describe('a production stage with a second region', () => {
  let prod: Synthesized;

  beforeAll(() => {
    prod = synthesize(productionConfigDir());
  }, 120_000);

  it('is what config/prod.json configures: a second region other than its own', () => {
    const deployment = committedProduction().deployment;
    expect({ region: deployment.region, recovery: deployment.recovery }).toEqual({
      region: 'eu-west-1',
      recovery: { region: SECOND_REGION, hourlyRetentionDays: 2, dailyRetentionDays: 35 },
    });
  });

  it('backs the table up every hour (kept 2 days) and every day (kept 35), each recovery point copied to the second region and kept as long there', () => {
    // Arrange
    const [vaultId, vault] = only(prod.json, 'AWS::Backup::BackupVault');
    const copyTarget = `arn:\${AWS::Partition}:backup:${SECOND_REGION}:\${AWS::AccountId}:backup-vault:${recoveryVaultNameOf('prod')}`;

    // Act
    const plan = backupPlan(prod.json);
    const rules = plan.BackupPlanRule.map((rule) => ({
      name: rule.RuleName,
      schedule: rule.ScheduleExpression,
      vault: rule.TargetBackupVault,
      keptDays: (rule.Lifecycle as Json).DeleteAfterDays,
      copies: (rule.CopyActions as Array<{ DestinationBackupVaultArn: unknown; Lifecycle: Json }>).map((copy) => ({
        to: arnText(copy.DestinationBackupVaultArn),
        keptDays: copy.Lifecycle.DeleteAfterDays,
      })),
      windows: [rule.StartWindowMinutes, rule.CompletionWindowMinutes],
    }));

    // Assert
    expect(props(vault).BackupVaultName).toBe(backupVaultNameOf('prod'));
    const inVault = { 'Fn::GetAtt': [vaultId, 'BackupVaultName'] };
    expect(rules).toEqual([
      {
        name: 'Hourly',
        schedule: 'cron(0 * * * ? *)',
        vault: inVault,
        keptDays: 2,
        copies: [{ to: copyTarget, keptDays: 2 }],
        windows: [60, 120],
      },
      {
        name: 'Daily',
        schedule: 'cron(30 3 * * ? *)',
        vault: inVault,
        keptDays: 35,
        copies: [{ to: copyTarget, keptDays: 35 }],
        windows: [60, 120],
      },
    ]);
  });

  it('selects the table, and nothing else, with a role only AWS Backup can assume', () => {
    // Arrange
    const [tableId] = only(prod.json, 'AWS::DynamoDB::Table');
    const selection = props(only(prod.json, 'AWS::Backup::BackupSelection')[1]).BackupSelection as Json & {
      IamRoleArn: { 'Fn::GetAtt': [string, string] };
    };
    const roleId = selection.IamRoleArn['Fn::GetAtt'][0];
    const role = props(prod.json.Resources[roleId] as { Properties: Json });

    // Assert
    expect(selection.Resources).toEqual([{ 'Fn::GetAtt': [tableId, 'Arn'] }]);
    expect(selection.ListOfTags).toBeUndefined();
    expect((role.AssumeRolePolicyDocument as { Statement: unknown[] }).Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'backup.amazonaws.com' } },
    ]);
    expect((role.ManagedPolicyArns as unknown[]).map(arnText)).toEqual([
      'arn:${AWS::Partition}:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup',
      'arn:${AWS::Partition}:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores',
    ]);
    expect(role.Policies).toBeUndefined();
    expect(prod.json.Outputs?.BackupRoleArn?.Value).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    expect(prod.json.Outputs?.BackupVaultName).toBeDefined();
  });

  it('replicates each of the three secrets to the second region', () => {
    const secrets = ofType(prod.json, 'AWS::SecretsManager::Secret').map(([id, secret]) => ({
      id,
      replicas: props(secret).ReplicaRegions,
    }));
    expect(secrets).toHaveLength(3);
    for (const { id, replicas } of secrets) expect({ id, replicas }).toEqual({ id, replicas: [{ Region: SECOND_REGION }] });
  });

  it('creates the vault the copies name in the second region, in a stack the stage’s stack waits for', () => {
    // Arrange
    const recovery = prod.recovery!;
    const [, vault] = only(prod.recoveryJson!, 'AWS::Backup::BackupVault');
    const copiesTo = new Set(
      backupPlan(prod.json).BackupPlanRule.flatMap((rule) =>
        (rule.CopyActions as Array<{ DestinationBackupVaultArn: unknown }>).map((copy) => arnText(copy.DestinationBackupVaultArn)),
      ),
    );

    // Assert: the second region's stack, its vault named as every copy action names it.
    expect({ name: recovery.stackName, region: recovery.region, account: recovery.account }).toEqual({
      name: 'Identity-prod-recovery',
      region: SECOND_REGION,
      account: prod.stack.account,
    });
    expect([...copiesTo]).toEqual([
      `arn:\${AWS::Partition}:backup:${SECOND_REGION}:\${AWS::AccountId}:backup-vault:${props(vault).BackupVaultName as string}`,
    ]);
    expect(Object.keys(prod.recoveryJson!.Resources)).toHaveLength(1);
    // Deployed first: a copy action to a vault that does not exist yet fails every copy job.
    expect(prod.stack.dependencies).toEqual([recovery]);
  });
});

describe('stages without a second region', () => {
  it('backs up a prod-like stage in its own region only: no copy, no replica, no second stack', () => {
    // Arrange
    const dir = variantDir('no-second-region', (stage) => {
      delete stage.deployment.recovery!.region;
    });

    // Act
    const { json, recovery } = synthesize(dir);

    // Assert
    expect(backupPlan(json).BackupPlanRule.map((rule) => ((rule.CopyActions as unknown[] | undefined) ?? []).length)).toEqual([0, 0]);
    expect(ofType(json, 'AWS::SecretsManager::Secret').map(([, secret]) => props(secret).ReplicaRegions)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(recovery).toBeUndefined();
  });

  it('keeps no backup of a throw-away stage (dev): its data does not matter, and a vault with recovery points would block its cdk destroy', () => {
    const app = newApp();
    const dev = addStage(app, 'dev');
    const json = templateOf(dev);
    expect(Object.values(json.Resources).filter((resource) => resource.Type.startsWith('AWS::Backup::'))).toEqual([]);
    expect(app.node.tryFindChild(recoveryStackNameOf(stackNameOf('dev')))).toBeUndefined();
    expect(dev.backup).toBeUndefined();
  });
});

describe('the way back after a region’s loss: a stack built around the restored table and the promoted secrets', () => {
  const ADOPTED = {
    tableName: 'identity-prod-restored',
    hmacSecretArn: `arn:aws:secretsmanager:${SECOND_REGION}:${PRODUCTION_ACCOUNT}:secret:SecretsHmac-AbCdEf`,
    signingKeysSecretArn: `arn:aws:secretsmanager:${SECOND_REGION}:${PRODUCTION_ACCOUNT}:secret:SecretsSigningKeys-GhIjKl`,
    verificationKeysSecretArn: `arn:aws:secretsmanager:${SECOND_REGION}:${PRODUCTION_ACCOUNT}:secret:SecretsVerificationKeys-MnOpQr`,
  };
  let restored: Synthesized;

  beforeAll(() => {
    // The stage file as docs/operations/disaster-recovery.md has the operator change it: deployed
    // to the second region (with a certificate there), no second region of its own until the first
    // is back, and the restored table and promoted secrets adopted.
    const dir = variantDir('adopt', (stage) => {
      const deployment = stage.deployment;
      deployment.region = SECOND_REGION;
      const domain = deployment.customDomain as { certificateArn: string } | undefined;
      if (domain !== undefined) domain.certificateArn = domain.certificateArn.replace(/:acm:[a-z0-9-]+:/, `:acm:${SECOND_REGION}:`);
      deployment.recovery = { adopt: ADOPTED };
    });
    restored = synthesize(dir);
  }, 120_000);

  it('creates neither a table nor a secret: it would otherwise start with an empty table and a new HMAC key, changing every user’s sub', () => {
    expect(ofType(restored.json, 'AWS::DynamoDB::Table')).toEqual([]);
    expect(ofType(restored.json, 'AWS::SecretsManager::Secret')).toEqual([]);
  });

  it('points every function at the adopted table and secrets', () => {
    const functions = ofType(restored.json, 'AWS::Lambda::Function').map(
      ([, fn]) => (props(fn).Environment as { Variables?: Json } | undefined)?.Variables ?? {},
    );
    const values = (name: string) => [...new Set(functions.map((variables) => variables[name]).filter((value) => value !== undefined))];
    expect(values('TABLE_NAME')).toEqual([ADOPTED.tableName]);
    expect(values('HMAC_SECRET_ARN')).toEqual([ADOPTED.hmacSecretArn]);
    expect(values('SIGNING_KEYS_SECRET_ARN')).toEqual([ADOPTED.signingKeysSecretArn]);
    expect(values('VERIFICATION_KEYS_SECRET_ARN')).toEqual([ADOPTED.verificationKeysSecretArn]);
  });

  it('rotates the adopted signing key set and backs up the adopted table', () => {
    const [, schedule] = only(restored.json, 'AWS::SecretsManager::RotationSchedule');
    expect(props(schedule).SecretId).toBe(ADOPTED.signingKeysSecretArn);
    const selection = props(only(restored.json, 'AWS::Backup::BackupSelection')[1]).BackupSelection as { Resources: unknown[] };
    expect(selection.Resources.map(arnText)).toEqual([
      `arn:\${AWS::Partition}:dynamodb:${SECOND_REGION}:\${AWS::AccountId}:table/${ADOPTED.tableName}`,
    ]);
    expect(restored.recovery).toBeUndefined();
  });
});

describe('settings synthesis refuses', () => {
  const deployment = (recovery: Json, rest: Json = {}): DeploymentConfig =>
    parseDeployableStage({ ...committedProduction(), deployment: { ...committedProduction().deployment, ...rest, recovery } }).deployment;

  it('has none to refuse in the committed stage files', () => {
    for (const stage of ['dev', 'local'])
      expect({ stage, problems: recoveryProblems(loadStageFile(stage).config.deployment) }).toEqual({ stage, problems: [] });
    expect(recoveryProblems(committedProduction().deployment)).toEqual([]);
  });

  it('refuses a second region on a throw-away stage', () => {
    expect(recoveryProblems(deployment({ region: SECOND_REGION }, { removalPolicy: 'destroy' }))).toEqual([
      `deployment.recovery.region: a throw-away stage (removalPolicy "destroy") keeps no backups to copy to ${SECOND_REGION}; remove it, or make the stage "retain"`,
    ]);
  });

  it('refuses a second region that is the stage’s own, or next to a stage not pinned to a region', () => {
    expect(recoveryProblems(deployment({ region: 'eu-west-1' }))).toEqual([
      "deployment.recovery.region: eu-west-1 is the stage's own region; a region's loss would take the copies with it",
    ]);
    const unpinned = { ...deployment({ region: SECOND_REGION }), region: undefined };
    expect(recoveryProblems(unpinned)).toEqual([
      'deployment.recovery.region needs deployment.region: a second region is only a second one next to a region the stage is pinned to',
    ]);
  });

  it('refuses adopting a secret from another region than the stage’s, naming it', () => {
    const adopt = {
      tableName: 'identity-prod-restored',
      hmacSecretArn: `arn:aws:secretsmanager:${SECOND_REGION}:${PRODUCTION_ACCOUNT}:secret:hmac-AbCdEf`,
      signingKeysSecretArn: `arn:aws:secretsmanager:eu-west-1:${PRODUCTION_ACCOUNT}:secret:signing-GhIjKl`,
      verificationKeysSecretArn: `arn:aws:secretsmanager:eu-west-1:${PRODUCTION_ACCOUNT}:secret:verification-MnOpQr`,
    };
    expect(recoveryProblems(deployment({ adopt }, { region: SECOND_REGION }))).toEqual([
      `deployment.recovery.adopt.signingKeysSecretArn: the secret is in eu-west-1 but the stage is deployed to ${SECOND_REGION}; adopt the replica promoted in ${SECOND_REGION}`,
      `deployment.recovery.adopt.verificationKeysSecretArn: the secret is in eu-west-1 but the stage is deployed to ${SECOND_REGION}; adopt the replica promoted in ${SECOND_REGION}`,
    ]);
  });

  it('refuses a secret named by a partial ARN (IAM needs the complete one, with its six-character suffix)', () => {
    const adopt = {
      tableName: 'identity-prod-restored',
      hmacSecretArn: `arn:aws:secretsmanager:eu-west-1:${PRODUCTION_ACCOUNT}:secret:hmac`,
      signingKeysSecretArn: `arn:aws:secretsmanager:eu-west-1:${PRODUCTION_ACCOUNT}:secret:signing-GhIjKl`,
      verificationKeysSecretArn: `arn:aws:secretsmanager:eu-west-1:${PRODUCTION_ACCOUNT}:secret:verification-MnOpQr`,
    };
    expect(() => deployment({ adopt })).toThrow(/complete ARN[\s\S]*deployment\.recovery\.adopt\.hmacSecretArn/);
  });

  it('fails synthesis with the problem named in the stage file’s message', () => {
    const dir = variantDir('same-region', (stage) => {
      stage.deployment.recovery = { region: stage.deployment.region };
    });
    expect(() => addStage(newApp({ configDir: dir }), 'prod')).toThrow(
      /Invalid .*prod\.json[\s\S]*deployment\.recovery\.region: eu-west-1 is the stage's own region/,
    );
  });
});
