/**
 * The local stack: DynamoDB Local, SES local, the SMS/voice capture, the table and the secrets.
 * `npm start` (local/start.ts) runs the service's real handler exports on top of it; tests build
 * handlers with their own dependencies (an injected clock) on top of the same services.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ensureTable, LOCAL_AWS, startDynamoDbLocal } from './dynamodb';
import { configFileWithOverrides, overridesIn } from './limit-overrides';
import { startCaptureServer, type CaptureServerOptions } from './capture';
import { EventOutbox } from './events';
import { readOutbox } from './outbox';
import { ensureLocalSecrets } from './secrets';
import { startSesLocal } from './ses';
import type { DevRoute } from './api-server';

export const PROJECT_ROOT = resolve(__dirname, '..');

/** Where the local runtime serves the API's description, and the file it serves. */
export const OPENAPI_PATH = '/idp/v1/openapi.json';
export const OPENAPI_DOCUMENT = resolve(PROJECT_ROOT, 'docs/openapi.json');

export interface LocalServicesOptions {
  readonly dynamodb?: { readonly endpoint: string } | { readonly port?: number };
  readonly ses?: { readonly url: string } | { readonly port?: number };
  readonly capture?: CaptureServerOptions;
  readonly tableName?: string;
  readonly secretsDir?: string;
  readonly configFile?: string;
  /**
   * Where to read the limit overrides from (`process.env` for npm start; local/limit-overrides.ts):
   * when it sets any, the handlers read a copy of the stage file with them applied.
   */
  readonly limitOverrides?: Readonly<Record<string, string | undefined>>;
  /** Progress lines for a person watching (npm start); tests leave it out. */
  readonly progress?: (line: string) => void;
}

export interface LocalServices {
  readonly dynamodbEndpoint: string;
  readonly sesUrl: string;
  readonly captureUrl: string;
  readonly tableName: string;
  readonly secretsDir: string;
  /** The stage file the handlers read: the one given, or its copy with the limit overrides applied. */
  readonly configFile: string;
  /** The audit events of the service's log lines in this process (local/events.ts, `/__dev/events`). */
  readonly events: EventOutbox;
  /** Stops what this call started (not services it was handed). */
  stop(): Promise<void>;
}

export async function startLocalServices(options: LocalServicesOptions = {}): Promise<LocalServices> {
  // First, so that an invalid override fails before anything is started.
  const stageFile = options.configFile ?? resolve(PROJECT_ROOT, 'config/local.json');
  const overrides = overridesIn(options.limitOverrides ?? {});
  const configFile =
    options.limitOverrides === undefined
      ? stageFile
      : configFileWithOverrides(stageFile, options.limitOverrides, resolve(PROJECT_ROOT, '.local/config'));
  if (overrides.length > 0) options.progress?.(`Limit overrides: ${overrides.join(', ')} (the handlers read ${configFile})`);
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const stopOne of stops.reverse()) await stopOne().catch(() => undefined);
  };
  try {
    const wanted = options.dynamodb ?? {};
    const dynamodb =
      'endpoint' in wanted
        ? { endpoint: wanted.endpoint }
        : await startWithProgress(options.progress, 'DynamoDB Local (Java: the first start can take several seconds)', () =>
            startDynamoDbLocal(wanted),
          );
    if ('stop' in dynamodb) stops.push(() => dynamodb.stop());
    const ses = options.ses !== undefined && 'url' in options.ses ? { url: options.ses.url } : await startSesLocal(options.ses ?? {});
    if ('stop' in ses) stops.push(() => ses.stop());
    const capture = await startCaptureServer(options.capture ?? {});
    stops.push(() => capture.close());

    const tableName = options.tableName ?? 'identity-local';
    await ensureTable(dynamodb.endpoint, tableName);
    const secretsDir = options.secretsDir ?? resolve(PROJECT_ROOT, '.local/secrets');
    await ensureLocalSecrets(secretsDir);
    const events = EventOutbox.listening();
    stops.push(() => Promise.resolve(events.stop()));

    return {
      dynamodbEndpoint: dynamodb.endpoint,
      sesUrl: ses.url,
      captureUrl: capture.url,
      tableName,
      secretsDir,
      configFile,
      events: events.outbox,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts something slow, telling a watching person before and after (with the time it took). */
async function startWithProgress<T>(progress: ((line: string) => void) | undefined, what: string, start: () => Promise<T>): Promise<T> {
  const started = Date.now();
  progress?.(`Starting ${what}…`);
  const result = await start();
  progress?.(`  ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/**
 * The environment the real handler exports read (lib/deps/, `otpSendDeps` and the others): the same
 * variables a Lambda gets from the CDK stack, plus the SDK's own endpoint overrides.
 */
export function lambdaEnvironment(services: LocalServices, issuer: string): Record<string, string> {
  return {
    IDP_CONFIG_FILE: services.configFile,
    TABLE_NAME: services.tableName,
    LOCAL_SECRETS_DIR: services.secretsDir,
    ISSUER: issuer,
    AWS_REGION: LOCAL_AWS.region,
    AWS_ACCESS_KEY_ID: LOCAL_AWS.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_AWS.credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: services.dynamodbEndpoint,
    AWS_ENDPOINT_URL_SES: services.sesUrl,
    AWS_ENDPOINT_URL_SNS: services.captureUrl,
    AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2: services.captureUrl,
  };
}

/** The local-only routes: the outbox, the audit events. */
export function devRoutes(services: LocalServices): Record<string, DevRoute> {
  return {
    // The API's description (docs/openapi.json, `npm run openapi`), as committed. On AWS the same
    // document goes into API Gateway's documentation (docs/deploy.md).
    [OPENAPI_PATH]: async () => ({ status: 200, body: JSON.parse(await readFile(OPENAPI_DOCUMENT, 'utf8')) as unknown }),
    '/__dev/outbox': async (url) => {
      const userId = url.searchParams.get('user_id') ?? undefined;
      return { status: 200, body: { messages: await readOutbox(services.sesUrl, services.captureUrl, userId) } };
    },
    // What the stack's EventBridge bus would get (docs/operations/audit-events.md), newest first.
    '/__dev/events': (url) =>
      Promise.resolve({ status: 200, body: { events: services.events.list(url.searchParams.get('type') ?? undefined) } }),
  };
}
