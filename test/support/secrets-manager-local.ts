/**
 * An in-memory AWS Secrets Manager for tests. There is no local Secrets Manager, and the project
 * runs real SDK clients against real protocols rather than mocking clients, so this server speaks
 * what `@aws-sdk/client-secrets-manager` speaks: AWS JSON 1.1 (`POST /`, the operation in
 * `X-Amz-Target: secretsmanager.<Operation>`, errors as `{"__type": …, "Message": …}` with 400).
 *
 * Implemented: CreateSecret, GetSecretValue, PutSecretValue, DescribeSecret and
 * UpdateSecretVersionStage, with the staging-label rules of the real service:
 * - a label is attached to at most one version, and attaching it elsewhere moves it;
 * - moving AWSCURRENT gives the version that lost it AWSPREVIOUS (the service does this itself);
 * - UpdateSecretVersionStage must name the label's current holder in RemoveFromVersionId;
 * - a version whose labels are all gone is "deprecated": still readable by VersionId, no longer
 *   listed by DescribeSecret.
 *
 * What the service does without an API call (configuring rotation, and RotateSecret invoking the
 * rotation Lambda) is offered as test controls: `enableRotation`, `startRotation` and `rotate`.
 * Anything else is refused (`UnknownOperationException`), so a call the code under test makes but
 * the stand-in does not implement fails loudly instead of passing here and failing on AWS.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, readBody } from '../../local/http-server';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** What Secrets Manager passes to a rotation Lambda. */
export interface RotationStepEvent {
  SecretId: string;
  ClientRequestToken: string;
  Step: 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';
}

export interface SecretsManagerLocal {
  /** Base URL to use as an SDK client's `endpoint`. */
  url: string;
  /** A real SDK client pointed at the stand-in: us-east-1, placeholder credentials, no retries. */
  client(): SecretsManagerClient;
  /** What configuring rotation (RotateSecret with a Lambda ARN) does: RotationEnabled becomes true. */
  enableRotation(secretId: string): void;
  /** Every version of the secret (deprecated ones too, with no labels), oldest first. */
  versions(secretId: string): Record<string, string[]>;
  /**
   * The first half of RotateSecret: a new version id with the AWSPENDING label and no value yet,
   * created before the rotation Lambda is invoked. Returns that id (the ClientRequestToken).
   */
  startRotation(secretId: string): string;
  /**
   * RotateSecret end to end: `startRotation`, then the rotation Lambda invoked once per step, in
   * order, with the secret's ARN. A step that throws ends the rotation with AWSPENDING left in place.
   */
  rotate(secretId: string, lambda: (event: RotationStepEvent) => Promise<void>): Promise<string>;
  /** The operations received (e.g. 'GetSecretValue'), oldest first: what a budget test counts. */
  operations(): readonly string[];
  /** Stops listening and closes every open connection, the SDK's keep-alive sockets included. */
  stop(): Promise<void>;
}

interface Version {
  /** Absent for the version RotateSecret creates until the rotation Lambda puts its value. */
  value?: string;
  stages: Set<string>;
  created: Date;
}

interface Secret {
  arn: string;
  name: string;
  rotationEnabled: boolean;
  /** Insertion order is creation order. */
  versions: Map<string, Version>;
}

/** A modelled Secrets Manager error; `type` becomes the SDK error's `name`. */
class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const TARGET_PREFIX = 'secretsmanager.';
const CONTENT_TYPE = 'application/x-amz-json-1.1';
/** A secret value is at most 64 KiB; a request much larger than that is not a real call. */
const MAX_BODY_BYTES = 256 * 1024;
const ACCOUNT = '123456789012';
const CURRENT = 'AWSCURRENT';
const PREVIOUS = 'AWSPREVIOUS';
const PENDING = 'AWSPENDING';
const STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;

/**
 * Starts the stand-in on a free port of 127.0.0.1.
 * @example
 * const sm = await startSecretsManagerLocal();
 * await sm.client().send(new CreateSecretCommand({ Name: 'hmac', SecretString: 's3cret' }));
 * await sm.stop();
 */
export async function startSecretsManagerLocal(): Promise<SecretsManagerLocal> {
  const secrets = new Map<string, Secret>();
  const clients: SecretsManagerClient[] = [];

  const find = (secretId: unknown): Secret => {
    // SecretId is a name or an ARN, as on AWS.
    const secret = secrets.get(String(secretId)) ?? [...secrets.values()].find((s) => s.arn === secretId);
    if (secret === undefined) throw new ServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  };

  const operations: Record<string, (input: Record<string, unknown>) => object> = {
    CreateSecret(input) {
      const name = requiredString(input, 'Name');
      if (secrets.has(name))
        throw new ServiceError('ResourceExistsException', `The operation failed because the secret ${name} already exists.`);
      // AWS appends six random characters so that a re-created secret never has a reused ARN.
      const suffix = randomBytes(6).toString('base64url').slice(0, 6);
      const secret: Secret = {
        arn: `arn:aws:secretsmanager:us-east-1:${ACCOUNT}:secret:${name}-${suffix}`,
        name,
        rotationEnabled: false,
        versions: new Map(),
      };
      secrets.set(name, secret);
      const value = optionalString(input, 'SecretString');
      if (value === undefined) return { ARN: secret.arn, Name: name };
      const versionId = optionalString(input, 'ClientRequestToken') ?? randomUUID();
      secret.versions.set(versionId, { value, stages: new Set([CURRENT]), created: new Date() });
      return { ARN: secret.arn, Name: name, VersionId: versionId };
    },

    GetSecretValue(input) {
      const secret = find(input.SecretId);
      const versionId = optionalString(input, 'VersionId');
      // Without either, AWSCURRENT; with both, they must name the same version.
      const stage = optionalString(input, 'VersionStage') ?? (versionId === undefined ? CURRENT : undefined);
      const id = versionId ?? (stage === undefined ? undefined : holder(secret, stage));
      const version = id === undefined ? undefined : secret.versions.get(id);
      if (id === undefined || version === undefined || version.value === undefined || (stage !== undefined && !version.stages.has(stage))) {
        throw new ServiceError(
          'ResourceNotFoundException',
          `Secrets Manager can't find the specified secret value for VersionId: ${versionId ?? '(none)'} and staging label: ${stage ?? '(none)'}`,
        );
      }
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: id,
        SecretString: version.value,
        VersionStages: [...version.stages],
        // JSON 1.1 timestamps are epoch seconds.
        CreatedDate: version.created.getTime() / 1000,
      };
    },

    PutSecretValue(input) {
      const secret = find(input.SecretId);
      // The SDK fills ClientRequestToken in (an idempotency token) when the caller does not.
      const versionId = requiredString(input, 'ClientRequestToken');
      const value = requiredString(input, 'SecretString');
      const stages = input.VersionStages === undefined ? [CURRENT] : stringList(input, 'VersionStages');
      const existing = secret.versions.get(versionId);
      if (existing?.value !== undefined) {
        // Idempotent for the same token and value; a version's value never changes.
        if (existing.value !== value) {
          throw new ServiceError('ResourceExistsException', "You can't modify an existing version, you can only create a new version.");
        }
        return { ARN: secret.arn, Name: secret.name, VersionId: versionId, VersionStages: [...existing.stages] };
      }
      // A version RotateSecret created without a value gets its value here.
      const version: Version = existing ?? { stages: new Set(), created: new Date() };
      version.value = value;
      secret.versions.set(versionId, version);
      for (const stage of stages) attach(secret, stage, versionId);
      return { ARN: secret.arn, Name: secret.name, VersionId: versionId, VersionStages: [...version.stages] };
    },

    DescribeSecret(input) {
      const secret = find(input.SecretId);
      // Versions without a label are deprecated, and DescribeSecret does not list them.
      const versionIdsToStages = Object.fromEntries(
        [...secret.versions].filter(([, version]) => version.stages.size > 0).map(([id, version]) => [id, [...version.stages]]),
      );
      return { ARN: secret.arn, Name: secret.name, RotationEnabled: secret.rotationEnabled, VersionIdsToStages: versionIdsToStages };
    },

    UpdateSecretVersionStage(input) {
      const secret = find(input.SecretId);
      const stage = requiredString(input, 'VersionStage');
      const moveTo = optionalString(input, 'MoveToVersionId');
      const removeFrom = optionalString(input, 'RemoveFromVersionId');
      const current = holder(secret, stage);
      if (moveTo !== undefined && !secret.versions.has(moveTo)) {
        throw new ServiceError('ResourceNotFoundException', `Secrets Manager can't find the specified secret version: ${moveTo}`);
      }
      if (removeFrom !== undefined && removeFrom !== current) {
        throw new ServiceError('InvalidParameterException', `The staging label ${stage} is not attached to version ${removeFrom}.`);
      }
      // The service refuses to move a label silently: the caller must say where it comes from.
      if (moveTo !== undefined && current !== undefined && current !== moveTo && removeFrom === undefined) {
        throw new ServiceError(
          'InvalidParameterException',
          `The parameter RemoveFromVersionId can't be empty. Staging label ${stage} is currently attached to version ${current}, so you must explicitly reference that version in RemoveFromVersionId.`,
        );
      }
      if (moveTo === undefined) {
        // A secret always has a current version: AWSCURRENT can only be moved, never removed.
        if (stage === CURRENT)
          throw new ServiceError(
            'InvalidParameterException',
            'You can only move staging label AWSCURRENT to a different secret version. It can’t be completely removed.',
          );
        if (removeFrom !== undefined) secret.versions.get(removeFrom)?.stages.delete(stage);
      } else {
        attach(secret, stage, moveTo);
      }
      return { ARN: secret.arn, Name: secret.name };
    },
  };

  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(String(req.headers['x-amz-target'] ?? '').replace(TARGET_PREFIX, ''));
    handle(req, res, operations).catch(() => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { __type: 'InternalServiceError', Message: 'Internal error' });
    });
  });
  const { url, stop: stopListening } = await listen(server);

  const startRotation = (secretId: string): string => {
    const secret = find(secretId);
    const pending = holder(secret, PENDING);
    // AWSPENDING on a version other than the current one means a rotation has not finished.
    if (pending !== undefined && !secret.versions.get(pending)?.stages.has(CURRENT)) {
      throw new ServiceError('InvalidRequestException', 'A previous rotation isn’t complete. That rotation will be reattempted.');
    }
    const token = randomUUID();
    secret.versions.set(token, { stages: new Set(), created: new Date() });
    attach(secret, PENDING, token);
    return token;
  };

  return {
    url,
    operations: () => received.slice(),
    client: () => {
      const client = new SecretsManagerClient({
        endpoint: url,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        // A stand-in error must surface at once, not after the SDK's retries.
        maxAttempts: 1,
      });
      clients.push(client);
      return client;
    },
    enableRotation: (secretId) => {
      find(secretId).rotationEnabled = true;
    },
    versions: (secretId) => Object.fromEntries([...find(secretId).versions].map(([id, version]) => [id, [...version.stages]])),
    startRotation,
    rotate: async (secretId, lambda) => {
      const secret = find(secretId);
      if (!secret.rotationEnabled) throw new ServiceError('InvalidRequestException', 'Rotation is not configured for this secret.');
      const token = startRotation(secretId);
      for (const step of STEPS) await lambda({ SecretId: secret.arn, ClientRequestToken: token, Step: step });
      return token;
    },
    stop: () => {
      for (const client of clients) client.destroy();
      return stopListening();
    },
  };
}

/** The version a label is attached to, if any. */
function holder(secret: Secret, stage: string): string | undefined {
  return [...secret.versions].find(([, version]) => version.stages.has(stage))?.[0];
}

/** Attaches a label to a version, taking it from its holder; AWSCURRENT leaves AWSPREVIOUS behind. */
function attach(secret: Secret, stage: string, versionId: string): void {
  const previous = holder(secret, stage);
  if (previous === versionId) return;
  if (previous !== undefined) secret.versions.get(previous)?.stages.delete(stage);
  secret.versions.get(versionId)?.stages.add(stage);
  if (stage === CURRENT && previous !== undefined) attach(secret, PREVIOUS, previous);
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  operations: Record<string, (input: Record<string, unknown>) => object>,
): Promise<void> {
  const target = String(req.headers['x-amz-target'] ?? '');
  if (req.method !== 'POST' || req.url !== '/') {
    req.resume();
    return sendJson(res, 404, { __type: 'UnknownOperationException', Message: 'Secrets Manager accepts only POST /' });
  }
  const body = (await readBody(req, MAX_BODY_BYTES))?.toString('utf8');
  if (body === undefined) return sendJson(res, 413, { __type: 'RequestEntityTooLargeException', Message: 'Request body exceeds 256 KiB' });
  // The SDK always signs with SigV4; signatures are not verified (the credentials are placeholders).
  if (!/^AWS4-HMAC-SHA256 /.test(req.headers.authorization ?? '')) {
    return sendJson(res, 400, { __type: 'MissingAuthenticationTokenException', Message: 'Missing Authentication Token' });
  }
  const operation = target.startsWith(TARGET_PREFIX) ? operations[target.slice(TARGET_PREFIX.length)] : undefined;
  if (operation === undefined) return sendJson(res, 400, { __type: 'UnknownOperationException', Message: `Unknown operation ${target}` });
  let input: unknown;
  try {
    input = JSON.parse(body);
  } catch {
    return sendJson(res, 400, { __type: 'SerializationException', Message: 'Request body is not valid JSON' });
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return sendJson(res, 400, { __type: 'SerializationException', Message: 'Request body is not a JSON object' });
  }
  try {
    sendJson(res, 200, operation(input as Record<string, unknown>));
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    sendJson(res, 400, { __type: error.type, Message: error.message });
  }
}

function requiredString(input: Record<string, unknown>, name: string): string {
  const value = optionalString(input, name);
  if (value === undefined || value === '') throw new ServiceError('InvalidParameterException', `${name} is required.`);
  return value;
}

function optionalString(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ServiceError('InvalidParameterException', `${name} must be a string.`);
  return value;
}

function stringList(input: Record<string, unknown>, name: string): string[] {
  const value = input[name];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new ServiceError('InvalidParameterException', `${name} must be a list of strings.`);
  }
  return value as string[];
}

function sendJson(res: ServerResponse, status: number, payload: object): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'Content-Type': CONTENT_TYPE, 'Content-Length': Buffer.byteLength(body), 'x-amzn-RequestId': randomUUID() });
  res.end(body);
}
