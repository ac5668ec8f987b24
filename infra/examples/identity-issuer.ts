/**
 * Where a consuming stack gets the identity service's issuer, for ProtectedHttpApi's `issuer`
 * (infra/examples/protected-http-api.ts). Three cases, in the order we recommend them:
 *
 * 1. **A literal from the consumer's own configuration**: `'https://id.example.com'`. With a custom
 *    domain (or `issuer` in the stage file) the issuer is known before anything is deployed and
 *    never changes, like the audience it goes with: the consumer needs no access to the identity
 *    stack, and it works across accounts, regions, partitions and tools. Nothing here is needed.
 * 2. **Another app, the stage URL as issuer** (a stage without a custom domain, such as dev): the
 *    issuer exists only once the identity stack is deployed. `issuerFromStackOutput` reads the
 *    stack's `Issuer` output at deployment with `Fn::GetStackOutput`, which needs no export and
 *    works across regions and, with a role, accounts (CloudFormation template reference,
 *    "Fn::GetStackOutput").
 * 3. **The same app** as the identity stack: `issuerOf(identity, consumer)`.
 *
 * Why not `Fn::ImportValue`: it needs an export, works within one account and region only, and
 * CloudFormation refuses to change an export another stack imports. The issuer changes exactly
 * once in a stage's life, when a custom domain is turned on, and an export would block that
 * deployment until every consumer had been rewired. `Fn::GetStackOutput` is a weak reference:
 * the identity stack stays free to change, and a consumer picks up a new issuer when it is next
 * deployed (until then its authorizer refuses the new tokens, which is the safe direction).
 */
import { Fn, Token, type Stack } from 'aws-cdk-lib';
import { ISSUER_OUTPUT, type IdentityStack } from '../identity-stack';

export interface StackOutputOptions {
  /** The identity stack's region, when it differs from the consumer's. */
  readonly region?: string;
  /**
   * For a stack in another account: a role in that account with `cloudformation:DescribeStacks`
   * on it, which the consumer stack's deployment role may assume.
   */
  readonly roleArn?: string;
}

/**
 * Another app: the `Issuer` output of the identity stack named `stackName` (`Identity-<stage>`),
 * read by CloudFormation when the consumer stack is deployed.
 *
 * @example
 * ```ts
 * new ProtectedHttpApi(this, 'Orders', { issuer: issuerFromStackOutput('Identity-dev'), audiences: ['https://api.dev.example.com'] });
 * ```
 */
export function issuerFromStackOutput(stackName: string, options: StackOutputOptions = {}): string {
  return Fn.getStackOutput(stackName, ISSUER_OUTPUT, options.region, options.roleArn);
}

/**
 * The same app: the identity stack's issuer as a literal when it is one (a configured issuer or a
 * custom domain), otherwise its `Issuer` output, read at deployment, with the consumer deployed
 * after the identity stack. Passing `identity.issuer` itself would also work, but CDK would then
 * rebuild the stage URL in the consumer from the API's id, with the consumer's own region and URL
 * suffix: wrong as soon as the two stacks are in different regions.
 */
export function issuerOf(identity: IdentityStack, consumer: Stack): string {
  if (!Token.isUnresolved(identity.issuer)) return identity.issuer;
  consumer.addDependency(identity, "reads the identity service's Issuer output");
  const region = Token.isUnresolved(identity.region) || identity.region === consumer.region ? undefined : identity.region;
  return issuerFromStackOutput(identity.stackName, { ...(region === undefined ? {} : { region }) });
}
