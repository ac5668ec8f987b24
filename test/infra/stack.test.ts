/**
 * The synthesized templates of both deployable stages (config/dev.json: throw-away; and
 * config/prod.json: production), each synthesized once for this file and checked against the
 * shared definitions they are built from (TABLE_DEFINITION, FUNCTIONS, ROUTES) and
 * against cdk-nag's AwsSolutions and Serverless packs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CfnElement, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { TABLE_DEFINITION } from '../../lib/adapters/dynamodb/table';
import { BACKCHANNEL_LOG_EVENTS } from '../../lib/platform/log-events';
import { FUNCTIONS, PUBLIC_ROUTES, ROUTES, type FunctionName, type FunctionSpec, type SecretName } from '../../lib/platform/routes';
import { AUDIT_FORWARDER_FUNCTION, BACKCHANNEL_FUNCTION, CREATE_REQUIRE_BANNER } from '../../infra/bundling';
import { backchannelMetricNameOf, BACKCHANNEL_FUNCTION_TIMEOUT, CONSUME_ACTIONS, NOTIFY_ACTIONS } from '../../infra/backchannel';
import { BACKCHANNEL_MAX_ATTEMPTS } from '../../lib/logout/backchannel';
import { preflightsOf, startApiServer } from '../../local/api-server';
import { LIMIT_OVERRIDE_VARIABLES } from '../../local/limit-overrides';
import {
  DELIVERY_ACTIONS,
  LOG_ACTIONS,
  PUBLISH_ACTIONS,
  ROTATION_ACTIONS,
  SECRET_READ_ACTION,
  tableActionOf,
} from '../../infra/permissions';
import { loadStageFile } from '../../infra/stage';
import { pathPattern } from '../../infra/waf';
import { SMS_DELIVERY_LOG_RETENTION } from '../../infra/delivery';
import { XRAY_WRITE_ACTIONS } from '../../infra/functions';
import { productionConfigDir } from './production-stage';
import { failingDocker, synthesize, type SynthesizedStage, type TemplateJson } from './synthesize';

const STAGES = ['dev', 'prod'] as const;
type StageName = (typeof STAGES)[number];
/** prod is the filled-in copy of config/prod.json: the committed template is refused (go-live-rules.test.ts). */
const configDirOf = (stage: StageName) => (stage === 'prod' ? productionConfigDir() : undefined);
const synthesized = {} as Record<StageName, SynthesizedStage>;
const docker = failingDocker();
let synthesisSeconds = 0;

beforeAll(() => {
  process.env.PATH = `${docker.dir}:${process.env.PATH ?? ''}`;
  const started = Date.now();
  for (const stage of STAGES) synthesized[stage] = synthesize(stage, configDirOf(stage));
  synthesisSeconds = (Date.now() - started) / 1000;
}, 400_000);

const SPECS = Object.values(FUNCTIONS) as FunctionSpec[];
const CUSTOM_RESOURCE_PROVIDER = /^AWS679f53fac002430cb0da5b7982bd2287/;

type Statement = {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource?: unknown;
  NotResource?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
};
const asArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const logicalId = (stack: Stack, construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
const ofType = (json: TemplateJson, type: string) => Object.entries(json.Resources).filter(([, resource]) => resource.Type === type);
const property = <T>(resource: { Properties?: Record<string, unknown> }, name: string) => resource.Properties?.[name] as T;

/** Every policy statement in the template: roles' inline policies, managed and inline policy resources, resource policies. */
function allStatements(json: TemplateJson): Array<{ owner: string; statement: Statement }> {
  const found: Array<{ owner: string; statement: Statement }> = [];
  for (const [id, resource] of Object.entries(json.Resources)) {
    const documents: unknown[] = [];
    if (resource.Type === 'AWS::IAM::Role')
      documents.push(...asArray(property<Array<{ PolicyDocument: unknown }>>(resource, 'Policies')).map((policy) => policy.PolicyDocument));
    for (const name of ['PolicyDocument', 'ResourcePolicy'])
      if (resource.Properties?.[name] !== undefined) documents.push(resource.Properties[name]);
    for (const document of documents) {
      for (const statement of asArray((document as { Statement?: Statement[] }).Statement)) found.push({ owner: id, statement });
    }
  }
  return found;
}

/** The statements a function role holds (its inline policy; it must have nothing else). */
function roleStatements(json: TemplateJson, roleId: string): Statement[] {
  const role = json.Resources[roleId]!;
  return asArray(property<Array<{ PolicyDocument: { Statement: Statement[] } }>>(role, 'Policies')).flatMap(
    (policy) => policy.PolicyDocument.Statement,
  );
}

/** API Gateway resource paths by logical id, rebuilt from PathPart and ParentId. */
function resourcePaths(json: TemplateJson): Map<string, string> {
  const resources = new Map(ofType(json, 'AWS::ApiGateway::Resource'));
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const resource = resources.get(id)!;
    const parent = property<{ Ref?: string }>(resource, 'ParentId');
    const prefix = parent.Ref !== undefined ? pathOf(parent.Ref) : '';
    return `${prefix}/${property<string>(resource, 'PathPart')}`;
  };
  for (const id of resources.keys()) paths.set(id, pathOf(id));
  return paths;
}

/** The API path of an `AWS::ApiGateway::Resource`, from its PathPart up through its parents. */
function resourcePath(json: TemplateJson, reference: unknown): string {
  if (typeof reference !== 'object' || reference === null || !('Ref' in reference)) return '';
  const resource = json.Resources[(reference as { Ref: string }).Ref];
  if (resource === undefined) throw new Error(`no resource ${JSON.stringify(reference)}`);
  return `${resourcePath(json, property(resource, 'ParentId'))}/${property<string>(resource, 'PathPart')}`;
}

/** The CORS headers of an answer, lower-cased (what a browser reads of a preflight). */
function corsHeadersOf(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'));
}

/**
 * What API Gateway answers to a preflight from `origin`, read from the OPTIONS method's mock
 * integration: its status and static header values, and the one template shape CDK's
 * addCorsPreflight writes (for every allowed origin after the first, an override of
 * Access-Control-Allow-Origin with the request's Origin). Any other template fails here.
 */
function gatewayPreflight(method: { Properties?: Record<string, unknown> }, origin: string | undefined) {
  const integration = property<{
    IntegrationResponses: Array<{
      StatusCode: string;
      ResponseParameters: Record<string, string>;
      ResponseTemplates?: Record<string, string>;
    }>;
  }>(method, 'Integration');
  expect(integration.IntegrationResponses).toHaveLength(1);
  const [response] = integration.IntegrationResponses;
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(response?.ResponseParameters ?? {})) {
    expect(value).toMatch(/^'[^']*'$/);
    headers[key.replace('method.response.header.', '').toLowerCase()] = value.slice(1, -1);
  }
  const template = response?.ResponseTemplates?.['application/json'];
  if (template !== undefined) {
    const lines = template.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      '#set($origin = $input.params().header.get("Origin"))',
      '#if($origin == "")',
      '  #set($origin = $input.params().header.get("origin"))',
      '#end',
    ]);
    expect(lines.slice(5)).toEqual(['  #set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)', '#end']);
    const others = [...(lines[4] ?? '').matchAll(/\$origin == "([^"]*)"/g)].map((match) => match[1]);
    expect(lines[4]).toBe(`#if(${others.map((other) => `$origin == "${other}"`).join(' || ')})`);
    if (origin !== undefined && others.includes(origin)) headers['access-control-allow-origin'] = origin;
  }
  return { status: Number(response?.StatusCode), headers };
}

describe.each(STAGES)('stage %s', (stageName) => {
  const stage = () => synthesized[stageName];
  const config = () => loadStageFile(stageName, configDirOf(stageName)).config;
  /** The statement a traced function's role ends with (infra/functions.ts): X-Ray's two write actions, which IAM grants on `*` only. */
  const traceWriting = (): Array<{ actions: string[]; resource: unknown }> =>
    config().deployment.tracing ? [{ actions: [...XRAY_WRITE_ACTIONS].sort(), resource: '*' }] : [];
  const fnId = (name: string) =>
    logicalId(
      stage().stack,
      name === 'rotate-signing-keys'
        ? stage().stack.rotation.function
        : name === BACKCHANNEL_FUNCTION
          ? stage().stack.backchannel.worker.function
          : name === AUDIT_FORWARDER_FUNCTION
            ? stage().stack.audit.forwarder.function
            : stage().stack.functions[name as FunctionName].function,
    );
  const roleId = (name: FunctionName) => logicalId(stage().stack, stage().stack.functions[name].role);
  const logGroupId = (name: FunctionName) => logicalId(stage().stack, stage().stack.functions[name].logGroup);
  const tableId = () => logicalId(stage().stack, stage().stack.table);
  const secretId = (name: SecretName) => logicalId(stage().stack, stage().stack.secrets[name]);
  const retained = () => config().deployment.removalPolicy === 'retain';

  describe('the table', () => {
    it('has exactly the shared key and TTL attribute, on-demand, with point-in-time recovery and encryption at rest', () => {
      stage().template.resourceCountIs('AWS::DynamoDB::Table', 1);
      stage().template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [{ AttributeName: TABLE_DEFINITION.partitionKey.name, KeyType: 'HASH' }],
        AttributeDefinitions: [
          TABLE_DEFINITION.partitionKey,
          TABLE_DEFINITION.userIndex.partitionKey,
          TABLE_DEFINITION.userIndex.sortKey,
        ].map((key) => ({ AttributeName: key.name, AttributeType: key.type })),
        TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.timeToLiveAttribute, Enabled: true },
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      });
      const table = stage().json.Resources[tableId()]!;
      // The one index: the user index of sessions and refresh families (table.ts), sparse and keys only.
      const index = TABLE_DEFINITION.userIndex;
      expect(table.Properties?.GlobalSecondaryIndexes).toEqual([
        {
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
            { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ]);
      expect(table.Properties?.LocalSecondaryIndexes).toBeUndefined();
    });

    it('is retained with deletion protection in production, destroyed with a throw-away stack', () => {
      const table = stage().json.Resources[tableId()]!;
      expect({
        deletion: table.DeletionPolicy,
        replace: table.UpdateReplacePolicy,
        protection: table.Properties?.DeletionProtectionEnabled,
      }).toEqual(
        retained()
          ? { deletion: 'RetainExceptOnCreate', replace: 'Retain', protection: true }
          : { deletion: 'Delete', replace: 'Delete', protection: false },
      );
    });
  });

  describe('the functions', () => {
    it('are one per FunctionSpec plus the rotation, the logout worker and the audit forwarder, all nodejs22.x on arm64 (and CDK’s own provider, if any, is the only other)', () => {
      const functions = ofType(stage().json, 'AWS::Lambda::Function');
      const ours = functions.filter(([id]) => !CUSTOM_RESOURCE_PROVIDER.test(id));
      expect(ours.map(([id]) => id).sort()).toEqual(
        [
          ...SPECS.map((spec) => fnId(spec.name)),
          fnId('rotate-signing-keys'),
          fnId(BACKCHANNEL_FUNCTION),
          fnId(AUDIT_FORWARDER_FUNCTION),
        ].sort(),
      );
      for (const [id, fn] of ours) {
        expect({
          id,
          runtime: property(fn, 'Runtime'),
          architectures: property(fn, 'Architectures'),
          handler: property(fn, 'Handler'),
        }).toEqual({
          id,
          runtime: 'nodejs22.x',
          architectures: ['arm64'],
          handler: 'index.handler',
        });
      }
    });

    it('have the memory and a timeout below API Gateway’s 29 s, JSON logs into their own log group, and source maps on', () => {
      for (const spec of SPECS) {
        const fn = stage().json.Resources[fnId(spec.name)]!;
        expect(property(fn, 'MemorySize')).toBe(config().deployment.functionMemoryMb);
        expect(property<number>(fn, 'Timeout')).toBeLessThan(29);
        expect(property(fn, 'LoggingConfig')).toEqual({
          LogFormat: 'JSON',
          ApplicationLogLevel: config().deployment.logLevel,
          SystemLogLevel: 'INFO',
          LogGroup: { Ref: logGroupId(spec.name as FunctionName) },
        });
        expect(property<{ Variables: Record<string, unknown> }>(fn, 'Environment').Variables).toMatchObject({
          NODE_OPTIONS: '--enable-source-maps',
          POWERTOOLS_SERVICE_NAME: 'identity',
          POWERTOOLS_LOG_LEVEL: config().deployment.logLevel,
        });
      }
    });

    it('never carry a limit override: a deployed stage takes its limits from its stage file alone', () => {
      for (const [id, fn] of ofType(stage().json, 'AWS::Lambda::Function')) {
        const variables = Object.keys(property<{ Variables?: Record<string, unknown> } | undefined>(fn, 'Environment')?.Variables ?? {});
        expect({ id, overrides: variables.filter((variable) => LIMIT_OVERRIDE_VARIABLES.includes(variable)) }).toEqual({
          id,
          overrides: [],
        });
      }
    });

    it('get TABLE_NAME and each secret’s ARN only if their spec uses them, and the issuer', () => {
      const issuer = stage().stack.resolve(stage().stack.issuer) as unknown;
      for (const spec of SPECS) {
        const variables = property<{ Variables: Record<string, unknown> }>(
          stage().json.Resources[fnId(spec.name)]!,
          'Environment',
        ).Variables;
        expect({
          name: spec.name,
          table: variables.TABLE_NAME,
          hmac: variables.HMAC_SECRET_ARN,
          signingKeys: variables.SIGNING_KEYS_SECRET_ARN,
          verificationKeys: variables.VERIFICATION_KEYS_SECRET_ARN,
          issuer: variables.ISSUER,
        }).toEqual({
          name: spec.name,
          table: spec.table.length > 0 ? { Ref: tableId() } : undefined,
          hmac: spec.secrets.includes('hmac') ? { Ref: secretId('hmac') } : undefined,
          signingKeys: spec.secrets.includes('signingKeys') ? { Ref: secretId('signingKeys') } : undefined,
          verificationKeys: spec.secrets.includes('verificationKeys') ? { Ref: secretId('verificationKeys') } : undefined,
          issuer,
        });
      }
    });

    it('are bundled by the local esbuild as ESM with the SDK inside, a source map, and the stage file beside them as config.json', () => {
      const stageFile = readFileSync(loadStageFile(stageName, configDirOf(stageName)).file, 'utf8');
      for (const id of [
        ...SPECS.map((spec) => fnId(spec.name)),
        fnId('rotate-signing-keys'),
        fnId(BACKCHANNEL_FUNCTION),
        fnId(AUDIT_FORWARDER_FUNCTION),
      ]) {
        const key = property<{ S3Key: string }>(stage().json.Resources[id]!, 'Code').S3Key;
        const dir = join(stage().outdir, `asset.${key.replace(/\.zip$/, '')}`);
        const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
        expect({
          id,
          banner: bundle.startsWith(CREATE_REQUIRE_BANNER),
          importsSdk: /\bfrom\s*["']@aws-sdk\//.test(bundle),
          sourceMap: bundle.includes('//# sourceMappingURL=index.mjs.map'),
        }).toEqual({
          id,
          banner: true,
          importsSdk: false,
          sourceMap: true,
        });
        expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(stageFile);
        expect(readFileSync(join(dir, 'index.mjs.map'), 'utf8').length).toBeGreaterThan(0);
      }
      expect(docker.called()).toBe(false);
    });
  });

  describe('least privilege', () => {
    it('gives each API function exactly the actions its FunctionSpec declares, plus writing its own log group, from its inline policy only', () => {
      for (const spec of SPECS) {
        const role = stage().json.Resources[roleId(spec.name as FunctionName)]!;
        expect(property(role, 'ManagedPolicyArns')).toBeUndefined();
        const attached = ofType(stage().json, 'AWS::IAM::Policy').filter(([, policy]) =>
          JSON.stringify(property(policy, 'Roles')).includes(roleId(spec.name as FunctionName)),
        );
        expect(attached).toEqual([]);

        const statements = roleStatements(stage().json, roleId(spec.name as FunctionName));
        const granted = new Set(statements.flatMap((statement) => asArray(statement.Action)));
        const voiceOffered = config().environments.some((environment) => environment.voice !== undefined);
        const declared = new Set([
          ...LOG_ACTIONS,
          ...spec.table.map(tableActionOf),
          ...(spec.secrets.length > 0 ? [SECRET_READ_ACTION] : []),
          ...spec.delivery.filter((channel) => channel !== 'voice' || voiceOffered).map((channel) => DELIVERY_ACTIONS[channel]),
          // The back-channel logout queue, for the functions that end sessions (infra/backchannel.ts `grantNotify`).
          ...(spec.queues?.includes('logout') === true ? ['sqs:SendMessage'] : []),
          // Writing its traces, when the stage traces (infra/functions.ts; tracing.test.ts has the statement).
          ...(config().deployment.tracing ? XRAY_WRITE_ACTIONS : []),
        ]);
        expect({ name: spec.name, actions: [...granted].sort() }).toEqual({ name: spec.name, actions: [...declared].sort() });
        for (const statement of statements) expect(statement.Effect).toBe('Allow');
      }
    });

    it('scopes each grant to its resource: the table’s ARN, the function’s secrets, its own log group, the senders, phone numbers only', () => {
      for (const spec of SPECS) {
        const statements = roleStatements(stage().json, roleId(spec.name as FunctionName));
        const bySid = new Map(statements.map((statement) => [statement.Sid, statement]));
        expect(bySid.get('WriteOwnLogs')?.Resource).toEqual({ 'Fn::GetAtt': [logGroupId(spec.name as FunctionName), 'Arn'] });
        if (spec.table.some((action) => action !== 'Query'))
          expect(bySid.get('Table')?.Resource).toEqual({ 'Fn::GetAtt': [tableId(), 'Arn'] });
        // Query on the user index alone, by its name (no index/*, and never the table).
        expect(bySid.get('QueryUserIndex')?.Resource).toEqual(
          spec.table.includes('Query')
            ? { 'Fn::Join': ['', [{ 'Fn::GetAtt': [tableId(), 'Arn'] }, `/index/${TABLE_DEFINITION.userIndex.name}`]] }
            : undefined,
        );
        expect(asArray(bySid.get('Table')?.Action)).not.toContain('dynamodb:Query');
        if (spec.secrets.length > 0) {
          expect(asArray(bySid.get('ReadSecrets')?.Resource)).toEqual(spec.secrets.map((name) => ({ Ref: secretId(name) })));
        } else {
          expect(bySid.has('ReadSecrets')).toBe(false);
        }
        if (spec.delivery.includes('email')) {
          expect(bySid.get('SendEmail')?.Condition).toEqual({
            StringEquals: { 'ses:FromAddress': config().environments.map((environment) => environment.email.sender.toLowerCase()) },
          });
        }
        if (spec.delivery.includes('sms')) {
          const sms = bySid.get('PublishSmsToPhoneNumbersOnly')!;
          expect(sms.Resource).toBeUndefined();
          expect(JSON.stringify(sms.NotResource)).toMatch(/:sns:\*:\*:\*"/);
        }
      }
    });

    it('gives the rotation function the four rotation actions on the signing key secret, a write of the public set, and nothing on the HMAC key', () => {
      const statements = roleStatements(stage().json, logicalId(stage().stack, stage().stack.rotation.role));
      expect(statements.map((statement) => ({ actions: asArray(statement.Action).sort(), resource: statement.Resource }))).toEqual([
        {
          actions: [...LOG_ACTIONS].sort(),
          resource: { 'Fn::GetAtt': [logicalId(stage().stack, stage().stack.rotation.logGroup), 'Arn'] },
        },
        { actions: [...ROTATION_ACTIONS].sort(), resource: { Ref: secretId('signingKeys') } },
        { actions: [...PUBLISH_ACTIONS], resource: { Ref: secretId('verificationKeys') } },
        ...traceWriting(),
      ]);
      const variables = property<{ Variables: Record<string, unknown> }>(
        stage().json.Resources[fnId('rotate-signing-keys')]!,
        'Environment',
      ).Variables;
      expect(variables.VERIFICATION_KEYS_SECRET_ARN).toEqual({ Ref: secretId('verificationKeys') });
    });

    it('lets no function but the token function and the rotation read the private signing keys', () => {
      expect(SPECS.filter((spec) => spec.secrets.includes('signingKeys')).map((spec) => spec.name)).toEqual(['token']);
    });

    it('has no wildcard action, no dynamodb Scan anywhere in the template, Query only on the user index and BatchGetItem only on the table, for the functions that declare them', () => {
      const actions = allStatements(stage().json).flatMap(({ owner, statement }) =>
        asArray(statement.Action).map((action) => ({ owner, action, resource: statement.Resource, effect: statement.Effect })),
      );
      expect(actions.length).toBeGreaterThan(0);
      // A Deny may name every action: the queues' enforceSSL refuses any of them over plain HTTP.
      expect(actions.filter(({ action, effect }) => action.includes('*') && effect !== 'Deny')).toEqual([]);
      expect(actions.filter(({ action }) => /^dynamodb:(Scan|BatchWriteItem|PartiQL)/i.test(action))).toEqual([]);
      // BatchGetItem reads items by their keys, as GetItem does (the passkeys the user index lists).
      const batchGets = actions.filter(({ action }) => /^dynamodb:BatchGetItem$/i.test(action));
      expect(batchGets.map(({ owner }) => owner).sort()).toEqual(
        SPECS.filter((spec) => spec.table.includes('BatchGetItem'))
          .map((spec) => roleId(spec.name as FunctionName))
          .sort(),
      );
      for (const { resource } of batchGets) expect(JSON.stringify(resource)).not.toContain('/index/');
      const queries = actions.filter(({ action }) => /^dynamodb:Query$/i.test(action));
      expect(queries.map(({ owner }) => owner).sort()).toEqual(
        SPECS.filter((spec) => spec.table.includes('Query'))
          .map((spec) => roleId(spec.name as FunctionName))
          .sort(),
      );
      for (const { resource } of queries) expect(JSON.stringify(resource)).toContain(`/index/${TABLE_DEFINITION.userIndex.name}"`);
    });

    it('lets only functions that declare a secret read it', () => {
      const readers = (secret: SecretName) =>
        allStatements(stage().json)
          .filter(({ statement }) => statement.Effect === 'Allow' && asArray(statement.Action).includes(SECRET_READ_ACTION))
          .filter(({ statement }) => JSON.stringify(statement.Resource).includes(`"${secretId(secret)}"`))
          .map(({ owner }) => owner)
          .sort();
      for (const secret of ['hmac', 'signingKeys', 'verificationKeys'] as const) {
        const expected = SPECS.filter((spec) => spec.secrets.includes(secret)).map((spec) => roleId(spec.name as FunctionName));
        if (secret === 'signingKeys') {
          expected.push(logicalId(stage().stack, stage().stack.rotation.role));
          expected.push(logicalId(stage().stack, stage().stack.backchannel.worker.role));
        }
        expect({ secret, readers: readers(secret) }).toEqual({ secret, readers: expected.sort() });
      }
    });
  });

  describe('the secrets', () => {
    it('are generated by Secrets Manager: no value in the template', () => {
      for (const [id, secret] of ofType(stage().json, 'AWS::SecretsManager::Secret')) {
        expect({ id, value: property(secret, 'SecretString') }).toEqual({ id, value: undefined });
        expect(property(secret, 'GenerateSecretString')).toBeDefined();
      }
      expect(property(stage().json.Resources[secretId('hmac')]!, 'GenerateSecretString')).toEqual(
        expect.objectContaining({ PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false }),
      );
      const text = JSON.stringify(stage().json);
      expect(text.match(/PRIVATE KEY|"kty"|"d":"|"SecretString"/g) ?? []).toEqual([]);
      // No string that looks like key material (32+ base64 characters mixing digits, lower and upper
      // case, as a generated secret does), other than the template's own logical ids.
      const ids = new Set(Object.keys(stage().json.Resources));
      const looksLikeKey = (value: string) =>
        /^[A-Za-z0-9+/_-]{32,}={0,2}$/.test(value) && /[0-9]/.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value);
      const suspicious: string[] = [];
      const walk = (value: unknown): void => {
        if (typeof value === 'string') {
          if (looksLikeKey(value) && !ids.has(value)) suspicious.push(value);
        } else if (value !== null && typeof value === 'object') {
          for (const child of Object.values(value)) walk(child);
        }
      };
      walk(stage().json);
      expect(suspicious).toEqual([]);
    });

    it('rotates the signing key set with the rotation function, at deployment and on the configured period', () => {
      stage().template.hasResourceProperties('AWS::SecretsManager::RotationSchedule', {
        SecretId: { Ref: secretId('signingKeys') },
        RotationLambdaARN: { 'Fn::GetAtt': [fnId('rotate-signing-keys'), 'Arn'] },
        RotationRules: { ScheduleExpression: `rate(${config().deployment.signingKeyRotationDays} days)` },
        RotateImmediatelyOnUpdate: true,
      });
      stage().template.resourceCountIs('AWS::SecretsManager::RotationSchedule', 1);
      stage().template.hasResourceProperties('AWS::Lambda::Permission', {
        FunctionName: { 'Fn::GetAtt': [fnId('rotate-signing-keys'), 'Arn'] },
        Principal: 'secretsmanager.amazonaws.com',
        SourceArn: { Ref: secretId('signingKeys') },
      });
    });

    it('are retained in production', () => {
      for (const name of ['hmac', 'signingKeys', 'verificationKeys'] as const) {
        expect(stage().json.Resources[secretId(name)]!.DeletionPolicy).toBe(retained() ? 'RetainExceptOnCreate' : 'Delete');
      }
    });
  });

  describe('the API', () => {
    it('routes every path of ROUTES, any method, to its function through the Lambda proxy integration', () => {
      const paths = resourcePaths(stage().json);
      const methods = ofType(stage().json, 'AWS::ApiGateway::Method').filter(([, method]) => property(method, 'HttpMethod') === 'ANY');
      const routed = methods.map(([, method]) => {
        const integration = property<{ Type: string; IntegrationHttpMethod: string; Uri: unknown }>(method, 'Integration');
        // The integration invokes the function's `live` alias (infra/deploy-safety.ts), which names the function.
        const alias = stage().json.Resources[/"Ref":"([^"]+)"\},"\/invocations"/.exec(JSON.stringify(integration.Uri))?.[1] ?? ''];
        const target = SPECS.find(
          (spec) => JSON.stringify(alias?.Properties?.FunctionName) === JSON.stringify({ Ref: fnId(spec.name) }),
        )?.name;
        return {
          path: paths.get(property<{ Ref: string }>(method, 'ResourceId').Ref),
          type: integration.Type,
          verb: integration.IntegrationHttpMethod,
          target,
        };
      });
      expect(routed.sort((a, b) => String(a.path).localeCompare(String(b.path)))).toEqual(
        ROUTES.map((route) => ({ path: route.path, type: 'AWS_PROXY', verb: 'POST', target: route.functionName })).sort((a, b) =>
          a.path.localeCompare(b.path),
        ),
      );
    });

    it('lets only IAM principals call the admin routes (AWS_IAM, SigV4), and every other route anyone (the functions authenticate clients)', () => {
      const json = stage().json;
      const authorization = ofType(json, 'AWS::ApiGateway::Method')
        .filter(([, method]) => property(method, 'HttpMethod') === 'ANY')
        .map(([, method]) => ({
          path: resourcePath(json, property<{ Ref: string }>(method, 'ResourceId')),
          type: property<string>(method, 'AuthorizationType'),
        }))
        .sort((a, b) => a.path.localeCompare(b.path));
      expect(authorization).toEqual(
        ROUTES.map((route) => ({ path: route.path, type: route.authorization === 'iam' ? 'AWS_IAM' : 'NONE' })).sort((a, b) =>
          a.path.localeCompare(b.path),
        ),
      );
      expect(authorization.filter(({ type }) => type === 'AWS_IAM').map(({ path }) => path)).toEqual([
        '/idp/v1/admin/test-messages/take',
        '/idp/v1/admin/users/block',
        '/idp/v1/admin/users/end-sessions',
        '/idp/v1/admin/users/remove-passkeys',
        '/idp/v1/admin/users/unblock',
      ]);
      // No preflight on them, whatever the stage's CORS says: no browser calls them.
      const preflighted = ofType(json, 'AWS::ApiGateway::Method')
        .filter(([, method]) => property(method, 'HttpMethod') === 'OPTIONS')
        .map(([, method]) => resourcePath(json, property<{ Ref: string }>(method, 'ResourceId')));
      expect(preflighted.filter((path) => path.startsWith('/idp/v1/admin/'))).toEqual([]);
    });

    it('answers unknown paths, throttling and oversized requests in the service’s error JSON', () => {
      const expected: Record<string, [string | undefined, string]> = {
        MISSING_AUTHENTICATION_TOKEN: ['404', 'not_found'],
        THROTTLED: ['429', 'too_many_requests'],
        REQUEST_TOO_LARGE: ['413', 'invalid_request'],
        WAF_FILTERED: ['403', 'access_denied'],
        DEFAULT_4XX: [undefined, 'invalid_request'],
        DEFAULT_5XX: [undefined, 'server_error'],
      };
      const responses = new Map(
        ofType(stage().json, 'AWS::ApiGateway::GatewayResponse').map(([, response]) => [
          property<string>(response, 'ResponseType'),
          response.Properties!,
        ]),
      );
      for (const [type, [status, error]] of Object.entries(expected)) {
        const response = responses.get(type)!;
        const body = JSON.parse(
          (response.ResponseTemplates as Record<string, string>)['application/json']!.replace('$context.error.messageString', '"message"'),
        ) as unknown;
        expect({
          type,
          status: response.StatusCode,
          body,
          contentType: (response.ResponseParameters as Record<string, string>)['gatewayresponse.header.Content-Type'],
        }).toEqual({
          type,
          status,
          body: { error, error_description: expect.any(String) },
          contentType: "'application/json'",
        });
      }
      for (const [, response] of responses) {
        const template = (response.ResponseTemplates as Record<string, string>)['application/json']!;
        expect(() => void JSON.parse(template.replace('$context.error.messageString', '"m"'))).not.toThrow();
      }
    });

    it('throttles the stage, writes JSON access logs, and logs errors without ever logging bodies', () => {
      const [, stageResource] = ofType(stage().json, 'AWS::ApiGateway::Stage')[0]!;
      expect(property(stageResource, 'MethodSettings')).toEqual([
        expect.objectContaining({
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          ThrottlingRateLimit: config().deployment.throttling.rateLimit,
          ThrottlingBurstLimit: config().deployment.throttling.burstLimit,
        }),
        // Each route's own limit (capacity.test.ts checks them one by one), never logging bodies either.
        ...Object.keys(config().deployment.throttling.routes).map((): unknown =>
          expect.objectContaining({ LoggingLevel: 'ERROR', DataTraceEnabled: false }),
        ),
      ]);
      const accessLog = property<{ DestinationArn: unknown; Format: string }>(stageResource, 'AccessLogSetting');
      expect(JSON.stringify(accessLog.DestinationArn)).toContain(logicalId(stage().stack, stage().stack.api.accessLogs));
      const format = JSON.parse(accessLog.Format) as Record<string, string>;
      expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status', resourcePath: '$context.resourcePath' });
      expect(accessLog.Format).not.toMatch(/\$input|requestOverride|header\.Authorization/i);
    });

    it('answers CORS preflights only where the stage configures CORS', () => {
      const options = ofType(stage().json, 'AWS::ApiGateway::Method').filter(([, method]) => property(method, 'HttpMethod') === 'OPTIONS');
      const cors = config().deployment.cors;
      expect(options.length).toBe(cors === undefined ? 0 : (cors.paths ?? PUBLIC_ROUTES.map((route) => route.path)).length);
    });

    it('answers each preflight exactly as the local runtime does (local/preflight.ts), for every allowed origin, another and none', async () => {
      const json = stage().json;
      const cors = config().deployment.cors;
      const routes = Object.fromEntries(
        ROUTES.map((route) => [
          route.path,
          (): never => {
            throw new Error(`the handler of ${route.path} took a preflight`);
          },
        ]),
      );
      const local = await startApiServer({ routes, preflights: preflightsOf(cors, ROUTES) });
      try {
        const origins = [...(cors?.allowOrigins ?? []), 'https://elsewhere.example', undefined];
        const compared: string[] = [];
        for (const [, method] of ofType(json, 'AWS::ApiGateway::Method').filter(([, m]) => property(m, 'HttpMethod') === 'OPTIONS')) {
          const path = resourcePath(json, property<{ Ref: string }>(method, 'ResourceId'));
          for (const origin of origins) {
            const response = await fetch(`${local.url}${path}`, {
              method: 'OPTIONS',
              headers: origin === undefined ? {} : { Origin: origin },
            });
            const answered = { status: response.status, headers: corsHeadersOf(response.headers) };
            expect({ path, origin, answer: answered }).toEqual({ path, origin, answer: gatewayPreflight(method, origin) });
            compared.push(path);
          }
        }
        expect(new Set(compared).size).toBe(cors === undefined ? 0 : (cors.paths ?? PUBLIC_ROUTES.map((route) => route.path)).length);
      } finally {
        await local.stop();
      }
    });

    it('has a WAF web ACL with a per-IP rate limit on otp/send exactly when the stage asks for one', () => {
      const waf = config().deployment.waf;
      stage().template.resourceCountIs('AWS::WAFv2::WebACL', waf === undefined ? 0 : 1);
      stage().template.resourceCountIs('AWS::WAFv2::WebACLAssociation', waf === undefined ? 0 : 1);
      if (waf === undefined) return;
      stage().template.hasResourceProperties('AWS::WAFv2::WebACL', {
        Scope: 'REGIONAL',
        Rules: Match.arrayWith([
          Match.objectLike({
            Action: { Block: { CustomResponse: Match.objectLike({ ResponseCode: 429 }) } },
            Statement: {
              RateBasedStatement: Match.objectLike({
                AggregateKeyType: 'IP',
                ScopeDownStatement: {
                  RegexMatchStatement: Match.objectLike({ RegexString: pathPattern('/idp/v1/otp/send'), FieldToMatch: { UriPath: {} } }),
                },
              }),
            },
          }),
        ]),
      });
      const [, association] = ofType(stage().json, 'AWS::WAFv2::WebACLAssociation')[0]!;
      expect(JSON.stringify(property(association, 'ResourceArn'))).toContain(
        logicalId(stage().stack, stage().stack.api.api.deploymentStage),
      );
      // Sampled requests would keep client API keys (Authorization) visible in the console.
      const [, acl] = ofType(stage().json, 'AWS::WAFv2::WebACL')[0]!;
      expect(JSON.stringify(acl).match(/"SampledRequestsEnabled":true/g) ?? []).toEqual([]);
    });
  });

  describe('logs and operations', () => {
    it('keeps every log group for the stage’s retention, and retains them in production', () => {
      const groups = ofType(stage().json, 'AWS::Logs::LogGroup');
      expect(groups.length).toBeGreaterThanOrEqual(SPECS.length + 3);
      for (const [id, group] of groups) {
        // SNS's SMS delivery status lines hold phone numbers: kept a month at most (infra/delivery.ts).
        const days = id.includes('SmsDeliveryStatusLogs')
          ? Math.min(config().deployment.logRetentionDays, SMS_DELIVERY_LOG_RETENTION)
          : config().deployment.logRetentionDays;
        expect({ id, days: property(group, 'RetentionInDays'), policy: group.DeletionPolicy }).toEqual({
          id,
          days,
          policy: retained() ? 'RetainExceptOnCreate' : 'Delete',
        });
      }
    });

    // The metrics (Embedded Metric Format in the functions' lines), the alarms, their severities and
    // runbook links, and the budget: test/infra/monitoring.test.ts.

    it('outputs the API URL, the issuer, the JWKS URL and the table name', () => {
      const outputs = stage().json.Outputs ?? {};
      expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'Issuer', 'JwksUrl', 'TableName']));
      expect(outputs.TableName!.Value).toEqual({ Ref: tableId() });
      const issuer = config().issuer;
      if (issuer !== undefined) {
        expect(outputs.Issuer!.Value).toBe(issuer);
        expect(outputs.JwksUrl!.Value).toBe(`${issuer}/.well-known/jwks.json`);
      } else {
        // The API's own stage URL, built from its id (no dependency on the deployment).
        expect(JSON.stringify(outputs.Issuer!.Value)).toContain(`{"Ref":"${logicalId(stage().stack, stage().stack.api.api)}"}`);
        expect(JSON.stringify(outputs.Issuer!.Value)).toContain(`/${stageName}`);
      }
    });
  });

  describe('back-channel logout (infra/backchannel.ts)', () => {
    const queueId = () => logicalId(stage().stack, stage().stack.backchannel.logoutQueue);
    const deadLettersId = () => logicalId(stage().stack, stage().stack.backchannel.deadLetters);
    const workerRoleId = () => logicalId(stage().stack, stage().stack.backchannel.worker.role);

    it('queues notices encrypted at rest, and dead-letters a notice after BACKCHANNEL_MAX_ATTEMPTS receives into a queue that keeps it 14 days', () => {
      const queue = stage().json.Resources[queueId()]!;
      const deadLetters = stage().json.Resources[deadLettersId()]!;
      // The other queues are dead-letter queues of their own (infra/audit.ts, infra/monitoring.ts).
      const others = [stage().stack.audit.deadLetters, stage().stack.monitoring.undeliveredAlarms].flatMap((queue) =>
        queue === undefined ? [] : [logicalId(stage().stack, queue)],
      );
      expect(
        ofType(stage().json, 'AWS::SQS::Queue')
          .map(([id]) => id)
          .sort(),
      ).toEqual([queueId(), deadLettersId(), ...others].sort());
      expect({
        sse: property(queue, 'SqsManagedSseEnabled'),
        redrive: property(queue, 'RedrivePolicy'),
      }).toEqual({
        sse: true,
        redrive: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLettersId(), 'Arn'] }, maxReceiveCount: BACKCHANNEL_MAX_ATTEMPTS },
      });
      expect({ sse: property(deadLetters, 'SqsManagedSseEnabled'), retention: property(deadLetters, 'MessageRetentionPeriod') }).toEqual({
        sse: true,
        retention: 14 * 86_400,
      });
    });

    it('refuses every request to either queue that is not over TLS (enforceSSL)', () => {
      for (const id of [queueId(), deadLettersId()]) {
        const policies = ofType(stage().json, 'AWS::SQS::QueuePolicy').filter(([, policy]) =>
          JSON.stringify(property(policy, 'Queues')).includes(`"${id}"`),
        );
        const statements = policies.flatMap(([, policy]) =>
          asArray(property<{ Statement: Statement[] }>(policy, 'PolicyDocument').Statement),
        );
        expect({
          id,
          denies: statements.filter((statement) => statement.Effect === 'Deny').map((statement) => statement.Condition),
        }).toEqual({
          id,
          denies: [{ Bool: { 'aws:SecureTransport': 'false' } }],
        });
      }
    });

    it('hides a batch from other consumers for at least 6 times the worker’s timeout (AWS’s advice for an SQS event source)', () => {
      const worker = stage().json.Resources[fnId(BACKCHANNEL_FUNCTION)]!;
      const timeout = property<number>(worker, 'Timeout');
      expect(timeout).toBe(BACKCHANNEL_FUNCTION_TIMEOUT.toSeconds());
      expect(property<number>(stage().json.Resources[queueId()]!, 'VisibilityTimeout')).toBeGreaterThanOrEqual(6 * timeout);
    });

    it('feeds the worker batches of 10 from the queue, with partial batch failures (ReportBatchItemFailures)', () => {
      const mappings = ofType(stage().json, 'AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties);
      expect(mappings).toEqual([
        {
          EventSourceArn: { 'Fn::GetAtt': [queueId(), 'Arn'] },
          FunctionName: { Ref: fnId(BACKCHANNEL_FUNCTION) },
          BatchSize: 10,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        },
      ]);
    });

    it('gives the worker its own logs, the signing keys and consuming its queue, from its inline policy only, and the signing keys’ ARN alone', () => {
      const role = stage().json.Resources[workerRoleId()]!;
      expect(property(role, 'ManagedPolicyArns')).toBeUndefined();
      expect(
        ofType(stage().json, 'AWS::IAM::Policy').filter(([, policy]) => JSON.stringify(property(policy, 'Roles')).includes(workerRoleId())),
      ).toEqual([]);
      expect(
        roleStatements(stage().json, workerRoleId()).map((statement) => ({
          actions: asArray(statement.Action).sort(),
          resource: statement.Resource,
        })),
      ).toEqual([
        {
          actions: [...LOG_ACTIONS].sort(),
          resource: { 'Fn::GetAtt': [logicalId(stage().stack, stage().stack.backchannel.worker.logGroup), 'Arn'] },
        },
        { actions: [SECRET_READ_ACTION], resource: { Ref: secretId('signingKeys') } },
        { actions: [...CONSUME_ACTIONS].sort(), resource: { 'Fn::GetAtt': [queueId(), 'Arn'] } },
        ...traceWriting(),
      ]);
      const variables = property<{ Variables: Record<string, unknown> }>(
        stage().json.Resources[fnId(BACKCHANNEL_FUNCTION)]!,
        'Environment',
      ).Variables;
      expect(Object.keys(variables).filter((name) => /ARN|TABLE|QUEUE/.test(name))).toEqual(['SIGNING_KEYS_SECRET_ARN']);
      expect(variables.SIGNING_KEYS_SECRET_ARN).toEqual({ Ref: secretId('signingKeys') });
    });

    it('lets no function send to the queue unless granted (grantNotify): no other policy names it', () => {
      const senders = allStatements(stage().json).filter(({ statement }) =>
        asArray(statement.Action).some((action) => NOTIFY_ACTIONS.includes(action)),
      );
      // The other queues sent to are dead-letter queues of their own sender: the audit forwarder's
      // (infra/audit.ts) and the alarm topics' email subscriptions' (infra/monitoring.ts).
      const deadLetterQueues = [stage().stack.audit.deadLetters, stage().stack.monitoring.undeliveredAlarms].flatMap((queue) =>
        queue === undefined ? [] : [{ 'Fn::GetAtt': [logicalId(stage().stack, queue), 'Arn'] }],
      );
      for (const { statement } of senders) {
        expect([{ 'Fn::GetAtt': [queueId(), 'Arn'] }, ...deadLetterQueues]).toContainEqual(statement.Resource);
      }
    });

    it('counts the worker’s events from its own lines (Embedded Metric Format, in the stack’s namespace): no metric filter on its log group', () => {
      const worker = logicalId(stage().stack, stage().stack.backchannel.worker.logGroup);
      const filters = ofType(stage().json, 'AWS::Logs::MetricFilter').filter(
        ([, filter]) => property<{ Ref: string }>(filter, 'LogGroupName').Ref === worker,
      );
      expect(filters).toEqual([]);
      const fn = stage().json.Resources[logicalId(stage().stack, stage().stack.backchannel.worker.function)]!;
      expect(property<{ Variables: Record<string, unknown> }>(fn, 'Environment').Variables.POWERTOOLS_METRICS_NAMESPACE).toBe(
        `Identity/${stageName}`,
      );
      expect(
        Object.keys(BACKCHANNEL_LOG_EVENTS).map((event) => backchannelMetricNameOf(event as keyof typeof BACKCHANNEL_LOG_EVENTS)),
      ).toContain('BackchannelLogoutDeadLettered');
    });

    it('raises a ticket as soon as one notice is in the dead-letter queue', () => {
      const alarms = ofType(stage().json, 'AWS::CloudWatch::Alarm')
        .map(([, alarm]) => alarm.Properties!)
        .filter((alarm) => alarm.Namespace === 'AWS/SQS' && JSON.stringify(alarm.Dimensions).includes(`"${deadLettersId()}"`));
      expect(alarms).toEqual([
        expect.objectContaining({
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLettersId(), 'QueueName'] } }],
          Statistic: 'Maximum',
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
          AlarmActions: [stage().stack.resolve(stage().stack.monitoring.topics.ticket.topicArn)],
          OKActions: [stage().stack.resolve(stage().stack.monitoring.topics.ticket.topicArn)],
        }),
      ]);
    });
  });

  describe('cdk-nag', () => {
    it.each([
      ['AwsSolutions', () => new AwsSolutionsChecks()],
      ['Serverless', () => new ServerlessChecks()],
    ])('finds nothing unacknowledged in the %s pack, neither errors nor warnings', (_pack, pack) => {
      const report = pack().validateScope(stage().app);
      expect(
        report.violations.map(
          (violation) => `${violation.ruleName} ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
        ),
      ).toEqual([]);
      expect(report.success).toBe(true);
    });

    it('acknowledges only known rules, each with a specific reason', () => {
      const acknowledged: Array<{ path: string; id: string; reason: string }> = [];
      const visit = (construct: IConstruct): void => {
        for (const entry of construct.node.metadata) {
          if (entry.type === 'aws:cdk:acknowledged-rules') {
            for (const [id, reason] of Object.entries(entry.data as Record<string, string>))
              acknowledged.push({ path: construct.node.path, id: id.replace(/^annotation::/i, ''), reason });
          }
        }
        construct.node.children.forEach(visit);
      };
      visit(stage().app);
      const known = [
        'AwsSolutions-L1',
        'AwsSolutions-SMG4',
        'AwsSolutions-APIG2',
        'AwsSolutions-APIG3',
        'AwsSolutions-APIG4',
        'AwsSolutions-COG4',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        // The table's AWS Backup role (infra/recovery.ts): the service-role policies AWS Backup documents for it.
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores]',
        // CodeDeploy's service role for the API functions' deployment groups (infra/deploy-safety.ts).
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
        'AwsSolutions-IAM5[Resource::*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sms-voice:<AWS::Region>:<AWS::AccountId>:phone-number/*]',
        // Dead-letter queues of an SNS subscription, which the rule does not recognise as such (infra/monitoring.ts).
        'AwsSolutions-SQS3',
        // The Serverless pack: functions invoked synchronously or by a queue need no dead-letter queue of
        // their own, a dead-letter queue needs no redrive, X-Ray's write actions have no resource,
        // nodejs22.x is the runtime tested, and CDK's custom resource provider serves no request.
        'Serverless-LambdaDLQ',
        'Serverless-LambdaEventSourceMappingDestination',
        'Serverless-LambdaLatestVersion',
        'Serverless-LambdaStarPermissions',
        'Serverless-SQSRedrivePolicy',
        'Serverless-LambdaTracing',
        'Serverless-LambdaDefaultMemorySize',
      ];
      expect(acknowledged.filter(({ id }) => !known.includes(id))).toEqual([]);
      for (const { path, id, reason } of acknowledged)
        expect({ path, id, specific: reason.length >= 60 }).toEqual({ path, id, specific: true });
      // A blanket acknowledgement at the stack or app would hide future findings.
      expect(acknowledged.filter(({ path }) => !path.includes('/'))).toEqual([]);
    });
  });
});

/**
 * Synthesis bundles 8 functions for each of the 2 stages with the local esbuild. Alone on these
 * 2-core machines it takes well under a minute; inside `npm test` it shares the cores with the
 * DynamoDB-backed suites and the browser (measured 135–184 s at a load average of 12), so the bound
 * here is the one that still catches what matters: bundling in Docker, or a per-function install,
 * which take many minutes. The figure is printed on every run.
 */
it('synthesizes both stages, bundling every function, locally within the bound (and never with Docker)', () => {
  expect(synthesisSeconds).toBeLessThan(300);
  expect(docker.called()).toBe(false);
  console.info(`synthesized ${STAGES.join(' and ')} in ${synthesisSeconds.toFixed(1)} s`);
});
