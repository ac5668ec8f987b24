/**
 * The service's secrets. No value is ever in the template: Secrets Manager generates the HMAC key
 * at deployment, and the rotation function replaces the signing key secret's generated
 * placeholder with the first key set right after deployment, then rotates it on schedule,
 * publishing each set's public half to the verification secret (the only key material the
 * well-known and introspection functions may read: they never hold a private key).
 * Both use Secrets Manager's AWS-managed key: only this account's principals with an IAM grant
 * can read them, and a customer-managed key would add cost and a key policy without narrowing who
 * can read (each function's role already names the one or two secrets it reads).
 *
 * With a second region (`deployment.recovery.region`) each secret has a replica there (Secrets
 * Manager "Replicate secrets across Regions"): the HMAC key above all, whose loss would change every
 * user's `sub` and orphan every item of the table; and the key sets, whose rotation in this region
 * propagates to the replicas. After a region's loss the replicas are promoted and the stack rebuilt
 * around them (`existing`, docs/operations/disaster-recovery.md).
 */
import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Function as LambdaFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { RotationSchedule, Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { SecretName } from '../lib/platform/routes';

export interface ServiceSecretsProps {
  readonly stage: string;
  readonly removalPolicy: RemovalPolicy;
  /** A region to keep a replica of every secret in (`deployment.recovery.region`). */
  readonly replicaRegion?: string;
  /**
   * Secrets to use instead of creating them (`deployment.recovery.adopt`): the replicas promoted
   * in this region after the stage's first region was lost. Their values are the service's keys,
   * so every user keeps their `sub` and every issued token keeps verifying.
   */
  readonly existing?: { readonly hmacSecretArn: string; readonly signingKeysSecretArn: string; readonly verificationKeysSecretArn: string };
}

export class ServiceSecrets extends Construct {
  /** The code/user-key HMAC key: 64 random alphanumerics, used as UTF-8 key material (≥ 32 bytes, lib/keys/hmac-keys.ts). */
  readonly hmac: ISecret;
  /** The JWT signing key set (lib/keys/signing-keys.ts), maintained by the rotation function. */
  readonly signingKeys: ISecret;
  /** Its public half (a JWKS), written by the rotation function; not rotated itself. */
  readonly verificationKeys: ISecret;

  constructor(scope: Construct, id: string, props: ServiceSecretsProps) {
    super(scope, id);
    if (props.existing !== undefined) {
      this.hmac = Secret.fromSecretCompleteArn(this, 'Hmac', props.existing.hmacSecretArn);
      this.signingKeys = Secret.fromSecretCompleteArn(this, 'SigningKeys', props.existing.signingKeysSecretArn);
      this.verificationKeys = Secret.fromSecretCompleteArn(this, 'VerificationKeys', props.existing.verificationKeysSecretArn);
      return;
    }
    const replicaRegions = props.replicaRegion === undefined ? undefined : [{ region: props.replicaRegion }];
    this.hmac = new Secret(this, 'Hmac', {
      description: `identity ${props.stage}: HMAC key for one-time codes and user keys`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false, requireEachIncludedType: true },
      replicaRegions,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.hmac).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "No automatic rotation, by design: keys derived from it (HKDF) key every user's DynamoDB items, code digests and token `sub`, so a rotation changes every user's `sub` and voids every live code and attempt counter. It is rotated by hand only as an incident response (docs/operations/key-rotation.md).",
    });
    this.signingKeys = new Secret(this, 'SigningKeys', {
      description: `identity ${props.stage}: JWT signing key set (ES256), maintained by the rotation function`,
      // A placeholder that is not a key set: the first rotation (immediately after deployment) replaces it.
      generateSecretString: { passwordLength: 32, excludePunctuation: true },
      replicaRegions,
      removalPolicy: props.removalPolicy,
    });
    this.verificationKeys = new Secret(this, 'VerificationKeys', {
      description: `identity ${props.stage}: public JWKS of the signing key set, published by the rotation function`,
      // A placeholder until the first rotation publishes the first public set.
      generateSecretString: { passwordLength: 32, excludePunctuation: true },
      replicaRegions,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.verificationKeys).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "Not rotated itself: it holds only public keys, and the signing key set's rotation function rewrites it at every rotation of that set (docs/operations/key-rotation.md).",
    });
  }

  /** The secrets' ARNs by the names lib/platform/routes.ts uses. */
  arns(): Record<SecretName, string> {
    return { hmac: this.hmac.secretArn, signingKeys: this.signingKeys.secretArn, verificationKeys: this.verificationKeys.secretArn };
  }

  /**
   * Rotates the signing key set with `rotationFunction` every `days` days, and once right after
   * deployment (which creates the first key set).
   *
   * The schedule is given an imported reference to the function, not the function itself: CDK
   * would otherwise add its own grants to the function's role (including
   * `secretsmanager:GetRandomPassword` on `*`, which the rotation never calls). The function's
   * role gets exactly its four actions on this secret (infra/permissions.ts), and the invoke
   * permission below is scoped to this secret.
   */
  rotateSigningKeys(rotationFunction: LambdaFunction, days: number): RotationSchedule {
    rotationFunction.addPermission('InvokedBySecretsManager', {
      principal: new ServicePrincipal('secretsmanager.amazonaws.com'),
      action: 'lambda:InvokeFunction',
      sourceArn: this.signingKeys.secretArn,
    });
    const reference: IFunction = LambdaFunction.fromFunctionAttributes(this, 'RotationFunctionRef', {
      functionArn: rotationFunction.functionArn,
      sameEnvironment: true,
      skipPermissions: true,
    });
    const schedule = new RotationSchedule(this, 'SigningKeysRotation', {
      secret: this.signingKeys,
      rotationLambda: reference,
      automaticallyAfter: Duration.days(days),
      rotateImmediatelyOnUpdate: true,
    });
    // Secrets Manager invokes the function as soon as the schedule exists: the function, its
    // invoke permission (a child of it) and its role (which it depends on) come first.
    schedule.node.addDependency(rotationFunction);
    return schedule;
  }
}
