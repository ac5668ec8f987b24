/**
 * The cdk-nag packs `cdk synth` runs (infra/app.ts `addNagChecks`): AwsSolutions and Serverless,
 * each a validation plugin that stops the synthesis at a finding nobody acknowledged, and lets an
 * acknowledged one through. Each pack is shown a resource only it has a rule about, in an app built
 * as `cdk synth` builds it (test/infra/offline-synthesis.ts); the validation report CDK writes
 * beside the assembly says which pack refused what. That the stages themselves leave both packs
 * nothing to say: test/infra/stack.test.ts, and every `templateOf` of the offline synthesis.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stack, Validations } from 'aws-cdk-lib';
import { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { CfnSubscription } from 'aws-cdk-lib/aws-sns';
import type { IConstruct } from 'constructs';
import { newApp } from './offline-synthesis';

interface ValidationReport {
  pluginReports: Array<{
    pluginName: string;
    violations: Array<{ ruleName: string; violatingConstructs: Array<{ constructPath: string }> }>;
  }>;
}

/** Synthesizes an app holding what `add` puts in a stack: its findings by pack, or null when the synthesis passed. */
function findingsOf(add: (stack: Stack) => void): Record<string, string[]> | null {
  const app = newApp();
  add(new Stack(app, 'Checked', { env: { account: '210987654321', region: 'eu-west-1' } }));
  // The report is also printed; the test reads the file.
  const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    app.synth();
    return null;
  } catch (error) {
    expect((error as Error).message).toContain('validation-report.json');
    const report = JSON.parse(readFileSync(join(app.outdir, 'validation-report.json'), 'utf8')) as ValidationReport;
    return Object.fromEntries(
      report.pluginReports.map((plugin) => [
        plugin.pluginName,
        plugin.violations.flatMap((violation) =>
          violation.violatingConstructs.map((construct) => `${violation.ruleName} ${construct.constructPath}`),
        ),
      ]),
    );
  } finally {
    quiet.mockRestore();
  }
}

/** An email subscription without a dead-letter queue: only the Serverless pack has a rule on subscriptions. */
const subscription = (stack: Stack): IConstruct =>
  new CfnSubscription(stack, 'Subscription', {
    protocol: 'email',
    endpoint: 'ops@identity-fixture.eu',
    topicArn: 'arn:aws:sns:eu-west-1:210987654321:alarms',
  });

it('refuses what only the Serverless pack finds: an SNS subscription without a redrive policy', () => {
  expect(findingsOf(subscription)).toEqual({ Serverless: ['Serverless-SNSRedrivePolicy Checked/Subscription'] });
});

it('refuses what only the AwsSolutions pack finds: an S3 bucket (the Serverless pack has no S3 rule)', () => {
  const findings = findingsOf((stack) => new CfnBucket(stack, 'Bucket'));
  expect(Object.keys(findings ?? {})).toEqual(['AwsSolutions']);
  expect(findings?.AwsSolutions).toContain('AwsSolutions-S10 Checked/Bucket');
});

it('lets a finding through once acknowledged with its reason, next to the resource', () => {
  expect(
    findingsOf((stack) =>
      Validations.of(subscription(stack)).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason: 'A test of the acknowledgement itself: this subscription is never deployed anywhere.',
      }),
    ),
  ).toBeNull();
});
