/**
 * The API functions of a synthesized stage, read from its template as `cdk deploy` would deploy
 * them: each Lambda that an API Gateway method integrates, with the asset directory its
 * `Code.S3Key` names in the assets manifest, its `Handler`, its environment as the template gives
 * it, its memory, timeout and logging settings, and the API paths routed to it. Read generically,
 * so a function added to lib/platform/routes.ts (and so to the stack) is picked up without a change here.
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
}

type Resource = TemplateJson['Resources'][string];
const propertiesOf = (resource: Resource | undefined) => resource?.Properties ?? {};

/** Every function an API Gateway method integrates, in template order. */
export function apiFunctionsOf(assembly: CloudAssembly): DeployedFunction[] {
  const { template } = assembly;
  const paths = resourcePaths(template);
  const pathsByFunction = new Map<string, string[]>();
  for (const [, method] of Object.entries(template.Resources).filter(([, resource]) => resource.Type === 'AWS::ApiGateway::Method')) {
    const properties = propertiesOf(method);
    const integration = JSON.stringify(properties.Integration ?? {});
    const target = /"Fn::GetAtt":\["([^"]+)","Arn"\]/.exec(integration)?.[1];
    const path = paths.get((properties.ResourceId as { Ref?: string } | undefined)?.Ref ?? '');
    if (target === undefined || path === undefined) continue;
    pathsByFunction.set(target, [...(pathsByFunction.get(target) ?? []), path]);
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
    };
  });
}

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
