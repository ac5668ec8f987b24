/**
 * The API functions of a synthesized stage, read from its template as `cdk deploy` would deploy
 * them: each Lambda that an API Gateway method integrates, with the asset directory its
 * `Code.S3Key` names in the assets manifest, its `Handler`, its environment as the template gives
 * it, its memory, timeout and logging settings, and the API paths routed to it. Read generically,
 * so a function added to lib/platform/routes.ts (and so to the stack) is picked up without a change here.
 *
 * An integration invokes either the function itself (`Fn::GetAtt [function, Arn]`) or, as every
 * stage does since deploy safety (infra/deploy-safety.ts), its `live` alias (`Ref` to an
 * AWS::Lambda::Alias, whose `Ref` is the alias ARN): the alias is followed through its
 * `FunctionName` and `FunctionVersion` to the version and from there to the function, whose
 * properties are the version's (a version is a snapshot of its function's code and configuration).
 * A Lambda integration whose target is neither fails, rather than leaving the function out.
 */
import { join } from 'node:path';
import { FUNCTIONS, type FunctionSpec } from '../../lib/platform/routes';
import type { CloudAssembly, TemplateJson } from '../infra/synthesize';

export interface DeployedFunction {
  readonly logicalId: string;
  /** Its declaration in lib/platform/routes.ts, found by its description; undefined when none matches. */
  readonly spec: FunctionSpec | undefined;
  readonly description: string;
  /** The directory uploaded as its code (`asset.<hash>/`): Lambda's LAMBDA_TASK_ROOT. */
  readonly assetDir: string;
  readonly handler: string;
  readonly runtime: string;
  /** `Environment.Variables` as in the template: strings, or CloudFormation intrinsics. */
  readonly variables: Readonly<Record<string, unknown>>;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly logging: { readonly LogFormat?: string; readonly ApplicationLogLevel?: string };
  /** The API Gateway resource paths whose methods invoke it. */
  readonly paths: readonly string[];
  /** The alias the API invokes it through (infra/deploy-safety.ts); undefined when the API invokes the function itself. */
  readonly alias: { readonly logicalId: string; readonly name: string; readonly versionLogicalId: string } | undefined;
}

type Resource = TemplateJson['Resources'][string];
const propertiesOf = (resource: Resource | undefined) => resource?.Properties ?? {};

/** Every function an API Gateway method integrates, in template order. */
export function apiFunctionsOf(assembly: CloudAssembly): DeployedFunction[] {
  const { template } = assembly;
  const paths = resourcePaths(template);
  const pathsByFunction = new Map<string, string[]>();
  const aliasByFunction = new Map<string, DeployedFunction['alias']>();
  for (const [methodId, method] of Object.entries(template.Resources).filter(
    ([, resource]) => resource.Type === 'AWS::ApiGateway::Method',
  )) {
    const properties = propertiesOf(method);
    const integration = properties.Integration as { Type?: string; Uri?: unknown } | undefined;
    // The CORS preflights are MOCK integrations: no function behind them.
    if (integration?.Type !== 'AWS_PROXY' && integration?.Type !== 'AWS') continue;
    const path = paths.get((properties.ResourceId as { Ref?: string } | undefined)?.Ref ?? '');
    if (path === undefined) throw new Error(`${methodId}: its ResourceId is no API Gateway resource of the template`);
    const { logicalId, alias } = invokedFunction(template, methodId, JSON.stringify(integration.Uri ?? null));
    // One function, one way in: its alias from every path (or the function itself from every path).
    const known = aliasByFunction.get(logicalId);
    if (aliasByFunction.has(logicalId) && known?.logicalId !== alias?.logicalId) {
      throw new Error(
        `${methodId}: ${logicalId} is invoked through ${alias?.logicalId ?? 'no alias'} here, ${known?.logicalId ?? 'no alias'} elsewhere`,
      );
    }
    aliasByFunction.set(logicalId, alias);
    pathsByFunction.set(logicalId, [...(pathsByFunction.get(logicalId) ?? []), path]);
  }
  const directoryByKey = new Map(
    Object.values(assembly.assets.files).flatMap((file) =>
      Object.values(file.destinations).map((destination) => [destination.objectKey, join(assembly.outdir, file.source.path)] as const),
    ),
  );
  const specs = Object.values(FUNCTIONS) as FunctionSpec[];
  return [...pathsByFunction.entries()].map(([logicalId, routed]) => {
    const properties = propertiesOf(template.Resources[logicalId]);
    const key = (properties.Code as { S3Key: string }).S3Key;
    const assetDir = directoryByKey.get(key);
    if (assetDir === undefined) throw new Error(`${logicalId}: no asset in the manifest is uploaded as ${key}`);
    const description = String(properties.Description);
    return {
      logicalId,
      spec: specs.find((spec) => spec.description === description),
      description,
      assetDir,
      handler: String(properties.Handler),
      runtime: String(properties.Runtime),
      variables: (properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
      memoryMb: Number(properties.MemorySize),
      timeoutSeconds: Number(properties.Timeout),
      logging: (properties.LoggingConfig as DeployedFunction['logging'] | undefined) ?? {},
      paths: routed.sort(),
      alias: aliasByFunction.get(logicalId),
    };
  });
}

/**
 * The function a Lambda integration's `Uri` invokes: `…/functions/<target>/invocations`, the
 * target a function's `Fn::GetAtt [id, Arn]` or an alias's `Ref` (its ARN).
 */
function invokedFunction(template: TemplateJson, methodId: string, uri: string): Pick<DeployedFunction, 'logicalId' | 'alias'> {
  const direct = /"Fn::GetAtt":\["([^"]+)","Arn"\]/.exec(uri)?.[1];
  if (direct !== undefined && template.Resources[direct]?.Type === 'AWS::Lambda::Function') return { logicalId: direct, alias: undefined };
  const aliasId = [...uri.matchAll(/\{"Ref":"([^"]+)"\}/g)]
    .map((match) => match[1] as string)
    .find((id) => template.Resources[id]?.Type === 'AWS::Lambda::Alias');
  if (aliasId === undefined)
    throw new Error(`${methodId}: its integration invokes neither a function nor an alias of the template: ${uri}`);
  const alias = propertiesOf(template.Resources[aliasId]);
  const functionId = refOf(alias.FunctionName);
  const versionId = (alias.FunctionVersion as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
  const version = template.Resources[versionId ?? ''];
  if (functionId === undefined || template.Resources[functionId]?.Type !== 'AWS::Lambda::Function') {
    throw new Error(`${aliasId}: its FunctionName is no function of the template: ${JSON.stringify(alias.FunctionName)}`);
  }
  if (versionId === undefined || version?.Type !== 'AWS::Lambda::Version') {
    throw new Error(`${aliasId}: its FunctionVersion is no version of the template: ${JSON.stringify(alias.FunctionVersion)}`);
  }
  // The version must be one of the alias's own function: Lambda refuses an alias to another function's version.
  if (refOf(propertiesOf(version).FunctionName) !== functionId) {
    throw new Error(`${aliasId}: its version ${versionId} is not one of its function ${functionId}`);
  }
  return { logicalId: functionId, alias: { logicalId: aliasId, name: String(alias.Name), versionLogicalId: versionId } };
}

const refOf = (value: unknown): string | undefined => (value as { Ref?: string } | undefined)?.Ref;

/** API Gateway resource paths by logical id, rebuilt from PathPart and ParentId. */
function resourcePaths(template: TemplateJson): Map<string, string> {
  const resources = new Map(Object.entries(template.Resources).filter(([, resource]) => resource.Type === 'AWS::ApiGateway::Resource'));
  const pathOf = (id: string): string => {
    const properties = propertiesOf(resources.get(id));
    const parent = (properties.ParentId as { Ref?: string } | undefined)?.Ref;
    return `${parent === undefined ? '' : pathOf(parent)}/${String(properties.PathPart)}`;
  };
  return new Map([...resources.keys()].map((id) => [id, pathOf(id)]));
}

/** What the local stack puts where the template has a CloudFormation reference. */
export interface LocalSubstitutes {
  /** The local table's name, for a `Ref` to the template's table. */
  readonly tableName: string;
  /** The issuer URL, for the API URL the template builds with `Fn::Join`. */
  readonly issuer: string;
  /** The ARN of the local secret standing in for the template's secret `logicalId`, read through `variable`. */
  readonly secretArn: (logicalId: string, variable: string) => string;
  /** A queue URL, for a `Ref` to the template's back-channel logout queue. */
  readonly queueUrl: string;
}

/**
 * The template's variables with every reference replaced by its local equivalent. A reference to
 * anything else fails: a new kind of variable needs a local equivalent here before it can be run.
 */
export function resolveVariables(
  template: TemplateJson,
  variables: Readonly<Record<string, unknown>>,
  local: LocalSubstitutes,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => {
      if (typeof value === 'string') return [name, value];
      const ref = (value as { Ref?: string }).Ref;
      const type = ref === undefined ? undefined : template.Resources[ref]?.Type;
      if (type === 'AWS::DynamoDB::Table') return [name, local.tableName];
      if (type === 'AWS::SecretsManager::Secret') return [name, local.secretArn(ref as string, name)];
      if (type === 'AWS::SQS::Queue') return [name, local.queueUrl];
      if (name === 'ISSUER' && JSON.stringify(value).includes('"Fn::Join"')) return [name, local.issuer];
      throw new Error(`No local equivalent for ${name} = ${JSON.stringify(value)}`);
    }),
  );
}
