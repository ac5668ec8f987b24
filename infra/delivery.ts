/**
 * The delivery side of a stage: the SES identities that cover the environments' senders (created
 * here or referenced), the ARNs the functions may send through (infra/permissions.ts), and the
 * optional account-wide SMS settings.
 */
import { CfnOutput, Stack, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { DataIdentifier, DataProtectionPolicy, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { DeployableStageConfig } from './stage-config';
import type { PermissionTargets } from './permissions';
import { emailIdentitiesOf } from './stage';

/** The longest SNS's SMS delivery status lines (which hold phone numbers) are kept: a month to investigate an alarm. */
export const SMS_DELIVERY_LOG_RETENTION = RetentionDays.ONE_MONTH;
/**
 * Percent of delivered SMS that SNS logs (failures are always logged): none. A delivered message
 * needs no investigation, and every line SNS writes names its destination number.
 */
export const SMS_SUCCESS_SAMPLING_PERCENT = 0;
/**
 * The phone number identifiers CloudWatch Logs can mask (its managed data identifiers: seven
 * countries). A data protection policy on both delivery status groups masks them in every read
 * by a principal without `logs:Unmask`; numbers of other countries stay as SNS wrote them, for
 * at most SMS_DELIVERY_LOG_RETENTION (docs/operations/alarms.md#smsdeliveryfailures).
 */
export const MASKED_PHONE_NUMBERS = [
  DataIdentifier.PHONENUMBER_BR,
  DataIdentifier.PHONENUMBER_DE,
  DataIdentifier.PHONENUMBER_ES,
  DataIdentifier.PHONENUMBER_FR,
  DataIdentifier.PHONENUMBER_GB,
  DataIdentifier.PHONENUMBER_IT,
  DataIdentifier.PHONENUMBER_US,
];

export interface DeliveryProps {
  readonly config: DeployableStageConfig;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
}

export class Delivery extends Construct {
  readonly email: PermissionTargets['email'];
  readonly voice: PermissionTargets['voice'];
  /** Whether an origination identity is given in a form IAM cannot name, an E.164 number (see voiceOriginationArn). */
  readonly unnamedVoiceNumbers: boolean;

  constructor(scope: Construct, id: string, props: DeliveryProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const environments = props.config.environments;

    const identityArns: string[] = [];
    for (const [index, { identity, create }] of emailIdentitiesOf(props.config).entries()) {
      if (create) {
        const created = new EmailIdentity(this, `Identity${index}`, {
          identity: identity.includes('@') ? Identity.email(identity) : Identity.domain(identity),
        });
        created.applyRemovalPolicy(props.removalPolicy);
        identityArns.push(created.emailIdentityArn);
        if (!identity.includes('@')) {
          // Easy DKIM: these three CNAMEs verify the domain (publish them in its DNS zone).
          [1, 2, 3].forEach((n) => {
            const name = created[`dkimDnsTokenName${n as 1 | 2 | 3}`];
            const value = created[`dkimDnsTokenValue${n as 1 | 2 | 3}`];
            new CfnOutput(this, `Dkim${index}Record${n}`, {
              description: `DKIM CNAME ${n} for ${identity}`,
              value: `${name} CNAME ${value}`,
            });
          });
        }
      } else {
        identityArns.push(stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity }));
      }
    }
    const emailConfigurationSets = unique(environments.map((environment) => environment.email.configurationSet));
    this.email = {
      identityArns,
      configurationSetArns: emailConfigurationSets.map((name) =>
        stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: name }),
      ),
      fromAddresses: unique(environments.map((environment) => environment.email.sender.toLowerCase())),
    };

    const origination = unique(environments.map((environment) => environment.voice?.originationIdentity));
    const voiceConfigurationSets = unique(environments.map((environment) => environment.voice?.configurationSet));
    this.voice = {
      originationArns: unique(origination.map((identity) => voiceOriginationArn(stack, identity))),
      configurationSetArns: voiceConfigurationSets.map((name) =>
        name.startsWith('arn:') ? name : stack.formatArn({ service: 'sms-voice', resource: 'configuration-set', resourceName: name }),
      ),
    };
    this.unnamedVoiceNumbers = origination.some((identity) => !NAMED_ORIGINATION.test(identity));

    const sms = props.config.deployment.smsAccountSettings;
    if (sms !== undefined) this.applySmsAccountSettings(sms.monthlySpendLimitUsd, props.logRetention, props.removalPolicy);
  }

  /**
   * SNS delivery status logging for SMS (SetSMSAttributes `DeliveryStatusIAMRole`): SNS writes
   * whether each SMS reached the phone, and the carrier's answer when not, to
   * `sns/<region>/<account>/DirectPublishToPhoneNumber[/Failure]`. Those lines are SNS's, not
   * ours, and they hold the destination phone number: the stack creates both log groups itself so
   * they keep at most SMS_DELIVERY_LOG_RETENTION (short: enough to investigate an alarm, see
   * docs/operations/alarms.md#smsdeliveryfailures), mask the numbers CloudWatch can recognise
   * (MASKED_PHONE_NUMBERS), and get no successes (SMS_SUCCESS_SAMPLING_PERCENT; failures are
   * always logged). The role SNS assumes may write to those two groups only.
   */
  private smsDeliveryStatusLogging(logRetention: RetentionDays, removalPolicy: RemovalPolicy): { roleArn: string } {
    const stack = Stack.of(this);
    const base = `sns/${stack.region}/${stack.account}/DirectPublishToPhoneNumber`;
    const groups = [base, `${base}/Failure`].map(
      (logGroupName, index) =>
        new LogGroup(this, `SmsDeliveryStatusLogs${index}`, {
          logGroupName,
          retention: Math.min(logRetention, SMS_DELIVERY_LOG_RETENTION) as RetentionDays,
          removalPolicy,
          dataProtectionPolicy: new DataProtectionPolicy({
            name: 'mask-phone-numbers',
            description: 'SNS writes each SMS destination number: masked for every reader without logs:Unmask',
            identifiers: MASKED_PHONE_NUMBERS,
          }),
        }),
    );
    const role = new Role(this, 'SmsDeliveryStatusRole', {
      assumedBy: new ServicePrincipal('sns.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': stack.account } } }),
      description: 'SNS writes SMS delivery status logs (SetSMSAttributes DeliveryStatusIAMRole)',
      inlinePolicies: {
        DeliveryStatusLogs: new PolicyDocument({
          statements: [
            new PolicyStatement({
              actions: ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams'],
              // A log group's ARN ends in :*, its log streams.
              resources: groups.map((group) => group.logGroupArn),
            }),
          ],
        }),
      },
    });
    return { roleArn: role.roleArn };
  }

  /**
   * SNS SetSMSAttributes, account-wide: transactional by default (the function also asks for it on
   * every message) and, when configured, a monthly spend cap, the brake on SMS pumping fraud.
   * Deleting the stack leaves the settings as they are (there is nothing to restore them to).
   */
  private applySmsAccountSettings(
    monthlySpendLimitUsd: number | undefined,
    logRetention: RetentionDays,
    removalPolicy: RemovalPolicy,
  ): void {
    const attributes: Record<string, string> = { DefaultSMSType: 'Transactional' };
    if (monthlySpendLimitUsd !== undefined) attributes.MonthlySpendLimit = String(monthlySpendLimitUsd);
    const deliveryStatus = this.smsDeliveryStatusLogging(logRetention, removalPolicy);
    attributes.DeliveryStatusIAMRole = deliveryStatus.roleArn;
    attributes.DeliveryStatusSuccessSamplingRate = String(SMS_SUCCESS_SAMPLING_PERCENT);
    const settings = new AwsCustomResource(this, 'SmsAccountSettings', {
      onUpdate: {
        service: 'SNS',
        action: 'SetSMSAttributes',
        parameters: { attributes },
        physicalResourceId: PhysicalResourceId.of('sms-account-settings'),
      },
      policy: AwsCustomResourcePolicy.fromStatements([
        new PolicyStatement({ actions: ['sns:SetSMSAttributes'], resources: ['*'] }),
        // SNS takes the delivery status role only from a caller that may pass it.
        new PolicyStatement({ actions: ['iam:PassRole'], resources: [deliveryStatus.roleArn] }),
      ]),
      installLatestAwsSdk: false,
      logGroup: new LogGroup(this, 'SmsAccountSettingsLogs', { retention: logRetention, removalPolicy }),
    });
    Validations.of(settings).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'sns:SetSMSAttributes is an account-level action with no resource type: IAM accepts only "*". The custom resource calls nothing else.',
    });
    // The function behind every AwsCustomResource of the stack: a singleton at the stack's root.
    const provider = Stack.of(this).node.tryFindChild(`AWS${AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`);
    if (provider !== undefined) {
      Validations.of(provider).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "CDK's AwsCustomResource provider (runs SetSMSAttributes at deployment only): its role has AWS's basic execution policy for its own logs, which CDK does not let us replace; it holds no data access.",
      });
      // cdk-nag's Serverless pack: CDK builds this function, not us, and it serves no request.
      const deploymentOnly = "CDK's AwsCustomResource provider runs once per deployment (SetSMSAttributes), never for a request:";
      Validations.of(provider).acknowledge(
        {
          id: 'Serverless-LambdaTracing',
          reason: `${deploymentOnly} there is no request to trace, and CDK gives its role no X-Ray permissions.`,
        },
        { id: 'Serverless-LambdaDefaultMemorySize', reason: `${deploymentOnly} one SDK call, for which CDK's default memory is plenty.` },
        {
          id: 'Serverless-LambdaDLQ',
          reason: `${deploymentOnly} CloudFormation waits for its answer and fails the deployment (rolling back) when it fails; a dead-letter queue would hold an event nobody may replay.`,
        },
      );
    }
  }
}

/** Origination identities IAM can name: an ARN, a pool id, a phone number id. */
const NAMED_ORIGINATION = /^(arn:|pool-|phone-)/;

/**
 * The IAM resource of a voice origination identity. An ARN is taken as is; a phone number id
 * (`phone-…`) or pool id (`pool-…`) becomes its ARN in the stage's account and region. An E.164
 * number cannot be named: IAM knows phone numbers by id, which only the account's console or API
 * can tell, so it becomes every phone number of the account and region (configure the id or ARN to
 * narrow it; docs/deploy.md).
 */
export function voiceOriginationArn(stack: Stack, identity: string): string {
  if (identity.startsWith('arn:')) return identity;
  if (identity.startsWith('pool-')) return stack.formatArn({ service: 'sms-voice', resource: 'pool', resourceName: identity });
  if (identity.startsWith('phone-')) return stack.formatArn({ service: 'sms-voice', resource: 'phone-number', resourceName: identity });
  return stack.formatArn({ service: 'sms-voice', resource: 'phone-number', resourceName: '*' });
}

function unique(values: ReadonlyArray<string | undefined>): string[] {
  return [...new Set(values.filter((value): value is string => value !== undefined))];
}
