/**
 * X-Ray tracing as the stack deploys it (the stage's `deployment.tracing`): API Gateway's stage
 * and every function traced, each function's role allowed to write its segments and nothing more,
 * every AWS SDK client of the service wrapped by `traced` (lib/platform/tracing.ts); and, with
 * tracing off, none of it, down to the bundles, which then hold no X-Ray code at all.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import { ServerlessChecks } from 'cdk-nag';
import type { Metafile } from 'esbuild';
import { addStage } from '../../infra/app';
import { lambdaNames, nodejsBundling, PROJECT_ROOT, tracingDefine } from '../../infra/bundling';
import { TRACING_OFF_REASON, XRAY_WRITE_ACTIONS } from '../../infra/functions';
import { TRACING_ENVIRONMENT } from '../../lib/platform/tracing';
import { functionBundles } from './function-bundles';
import { newApp, ofType, only, templateOf, type Json, type TemplateJson } from './offline-synthesis';
import { productionConfigDir } from './production-stage';

/** The packages that trace: none may be in a bundle that does not. */
const TRACING_PACKAGES = ['@aws-lambda-powertools/tracer', 'aws-xray-sdk-core', 'cls-hooked'];
const TRACING_MODULE = 'lib/platform/tracing-xray.ts';

/** Each function's bundle inputs that hold code in its output, traced and not. */
const inputs = new Map<string, string[]>();
beforeAll(async () => {
  // Built with esbuildOptionsFor, traced and not (shared with bundle-contents.test.ts and deployed-artifacts.test.ts: see function-bundles.ts).
  for (const tracing of [false, true])
    for (const [name, bundle] of await functionBundles(tracing)) inputs.set(`${name} ${tracing}`, inputsWithCode(bundle.metafile));
}, 180_000);

function inputsWithCode(metafile: Metafile): string[] {
  const output = Object.entries(metafile.outputs).find(([file]) => file.endsWith('.mjs'))?.[1];
  return Object.entries(output?.inputs ?? {})
    .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
    .map(([input]) => relative(PROJECT_ROOT, input));
}

const tracingCodeIn = (name: string, tracing: boolean) =>
  (inputs.get(`${name} ${tracing}`) ?? []).filter(
    (input) => input === TRACING_MODULE || TRACING_PACKAGES.some((pkg) => input.includes(`node_modules/${pkg}/`)),
  );

describe('bundles', () => {
  it.each(lambdaNames())('%s carries no X-Ray code when the stage does not trace (the guarded require is dropped)', (name) => {
    expect(tracingCodeIn(name, false)).toEqual([]);
  });

  it.each(lambdaNames())('%s carries the Powertools Tracer and the X-Ray SDK when the stage traces', (name) => {
    const found = tracingCodeIn(name, true);
    expect(found).toContain(TRACING_MODULE);
    for (const pkg of ['@aws-lambda-powertools/tracer', 'aws-xray-sdk-core']) {
      expect({ pkg, present: found.some((input) => input.includes(`node_modules/${pkg}/`)) }).toEqual({ pkg, present: true });
    }
  });

  it('the stack bundles as the stage says: NodejsFunction gets the same constant as `npm run build` and the benchmark', () => {
    expect(nodejsBundling('/tmp/config.json', true).define).toEqual(tracingDefine(true));
    expect(nodejsBundling('/tmp/config.json', false).define).toEqual(tracingDefine(false));
    expect(tracingDefine(true)).toEqual({ 'process.env.IDENTITY_TRACING': '"active"' });
    expect(tracingDefine(false)).toEqual({ 'process.env.IDENTITY_TRACING': '"off"' });
  });
});

/** Every `.ts` file under `dir`. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(PROJECT_ROOT, join(entry.parentPath, entry.name)));
}

it('every AWS SDK client the functions build is traced (regression guard: a new client must be wrapped in `traced`)', () => {
  const constructions: string[] = [];
  const untraced: string[] = [];
  for (const file of [...sourcesUnder('lib'), ...sourcesUnder('functions')]) {
    const lines = readFileSync(join(PROJECT_ROOT, file), 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (/^\s*(\*|\/\/|\/\*)/.test(line)) return; // comments and examples
      // An SDK client's class name ends in Client; RenewableClient is ours, around one (lib/adapters/aws-failures.ts).
      for (const match of line.matchAll(/new ((?!Renewable)[A-Z][A-Za-z0-9]*Client)\(/g)) {
        const where = `${file}:${index + 1} ${match[1]}`;
        constructions.push(where);
        if (!line.slice(0, match.index).endsWith('traced(')) untraced.push(where);
      }
    });
  }
  // The search finds the clients it is meant to (a broken pattern would pass vacuously).
  for (const client of ['DynamoDBClient', 'SESClient', 'SNSClient', 'SQSClient', 'SecretsManagerClient', 'PinpointSMSVoiceV2Client']) {
    expect({ client, found: constructions.some((where) => where.endsWith(` ${client}`)) }).toEqual({ client, found: true });
  }
  expect(untraced).toEqual([]);
});

/** The production stage (filled in), from a copy of its file with `tracing` set as given (absent: the default). */
function productionStage(tracing?: boolean): { json: TemplateJson; stack: Stack } {
  const source = join(productionConfigDir(), 'prod.json');
  let configDir = productionConfigDir();
  if (tracing !== undefined) {
    const stage = JSON.parse(readFileSync(source, 'utf8')) as { deployment?: Json };
    stage.deployment = { ...stage.deployment, tracing };
    configDir = join(tmpdir(), `identity-tracing-${tracing}-${process.pid}`);
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'prod.json'), JSON.stringify(stage));
  }
  const stack = addStage(newApp({ configDir }), 'prod');
  return { json: templateOf(stack), stack };
}

/** What cdk-nag's Serverless pack says about tracing (its other rules are checked with the pack's synthesis, infra/app.ts). */
function tracingFindings(stack: Stack): string[] {
  return new ServerlessChecks()
    .validateScope(stack)
    .violations.filter((violation) => ['Serverless-LambdaTracing', 'Serverless-APIGWXrayEnabled'].includes(violation.ruleName))
    .flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} ${resource.constructPath}`));
}

/** The service's functions (infra/functions.ts ServiceFunction, which sets Powertools' service name), not CDK's own helpers. */
const serviceFunctions = (json: TemplateJson) =>
  ofType(json, 'AWS::Lambda::Function').filter(
    ([, fn]) => (fn.Properties.Environment as { Variables?: Json } | undefined)?.Variables?.POWERTOOLS_SERVICE_NAME === 'identity',
  );

/** The statements of the one inline policy of the role `roleRef` ({ "Fn::GetAtt": [id, "Arn"] }) points at. */
function roleOf(json: TemplateJson, roleRef: unknown): { id: string; statements: Json[]; policies: number } {
  const id = ((roleRef as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'] ?? [])[0];
  const role = json.Resources[id]?.Properties as { Policies?: Array<{ PolicyDocument: { Statement: Json[] } }> };
  const attached = ofType(json, 'AWS::IAM::Policy').filter(([, policy]) =>
    ((policy.Properties.Roles as Array<{ Ref: string }> | undefined) ?? []).some((ref) => ref.Ref === id),
  );
  return {
    id,
    statements: role.Policies?.flatMap((policy) => policy.PolicyDocument.Statement) ?? [],
    policies: (role.Policies?.length ?? 0) + attached.length,
  };
}

describe('a stage that traces (the default)', () => {
  let json: TemplateJson;
  let stack: Stack;
  beforeAll(() => {
    ({ json, stack } = productionStage());
  }, 120_000);

  it('leaves cdk-nag’s Serverless pack nothing to say about tracing (it warned on every function before)', () => {
    expect(tracingFindings(stack)).toEqual([]);
  });

  it('turns on X-Ray for the API stage (AWS Control Tower CT.APIGATEWAY.PR.2)', () => {
    expect(only(json, 'AWS::ApiGateway::Stage')[1].Properties.TracingEnabled).toBe(true);
  });

  it('traces every function actively, with the X-Ray SDK told to stay quiet outside an invocation', () => {
    const functions = serviceFunctions(json);
    // One per bundle: every function of the service is among them.
    expect(functions.length).toBe(lambdaNames().length);
    for (const [id, fn] of functions) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect({ id, tracing: fn.Properties.TracingConfig, contextMissing: variables.AWS_XRAY_CONTEXT_MISSING }).toEqual({
        id,
        tracing: { Mode: 'Active' },
        contextMissing: TRACING_ENVIRONMENT.AWS_XRAY_CONTEXT_MISSING,
      });
    }
  });

  it('lets each function write its segments in its one inline policy, and nothing else is added to its role', () => {
    for (const [id, fn] of serviceFunctions(json)) {
      const role = roleOf(json, fn.Properties.Role);
      expect({ id, policies: role.policies, traces: role.statements.filter((statement) => statement.Sid === 'WriteTraces') }).toEqual({
        id,
        policies: 1,
        traces: [{ Sid: 'WriteTraces', Effect: 'Allow', Action: [...XRAY_WRITE_ACTIONS].sort(), Resource: '*' }],
      });
    }
  });
});

describe('a stage that does not trace (deployment.tracing: false)', () => {
  let json: TemplateJson;
  let stack: Stack;
  beforeAll(() => {
    ({ json, stack } = productionStage(false));
  }, 120_000);

  it('is what the Serverless pack would report, acknowledged as the stage file’s decision: the API stage and every function untraced', () => {
    // The pack runs at every synthesis (infra/app.ts addNagChecks): the stage synthesizes because
    // each finding is acknowledged, with the stage setting and its measured price as the reason.
    expect(tracingFindings(stack)).toEqual([]);
    const acknowledged = (rule: string) =>
      stack.node
        .findAll()
        .filter((construct) =>
          construct.node.metadata.some(
            (entry) =>
              entry.type === 'aws:cdk:acknowledged-rules' &&
              (entry.data as Record<string, string>)[`Annotation::${rule}`] === TRACING_OFF_REASON,
          ),
        );
    expect(acknowledged('Serverless-APIGWXrayEnabled').map((construct) => construct.node.path)).toEqual([
      'Identity-prod/Api/Api/DeploymentStage.prod',
    ]);
    expect(acknowledged('Serverless-LambdaTracing')).toHaveLength(lambdaNames().length);
  });

  it('leaves X-Ray off on the API stage and every function, and grants no X-Ray action', () => {
    expect(only(json, 'AWS::ApiGateway::Stage')[1].Properties.TracingEnabled).toBe(false);
    for (const [id, fn] of serviceFunctions(json)) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const role = roleOf(json, fn.Properties.Role);
      expect({
        id,
        tracing: fn.Properties.TracingConfig,
        contextMissing: variables.AWS_XRAY_CONTEXT_MISSING,
        xray: role.statements.filter((statement) => JSON.stringify(statement.Action).includes('xray:')),
      }).toEqual({ id, tracing: undefined, contextMissing: undefined, xray: [] });
    }
  });
});
