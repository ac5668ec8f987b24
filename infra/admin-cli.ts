/**
 * `npm run admin`: the operator controls from a terminal (docs/operations/operator-controls.md).
 *
 *   npm run admin -- block --env prod --user alice@example.com --url https://abc123.execute-api.eu-west-1.amazonaws.com/prod
 *   npm run admin -- unblock --env local --user +14155550100
 *   npm run admin -- end-sessions --env local --user alice@example.com
 *   npm run admin -- remove-passkeys --env local --user alice@example.com
 *
 * Against a stage the admin routes take only SigV4-signed requests of the account's IAM principals
 * (API Gateway AWS_IAM, service `execute-api`): the request is signed with the default credential
 * chain (AWS_PROFILE, the environment's keys, SSO, an instance role…). The local runtime
 * (`npm start`, the default `--url`) has no IAM and is called unsigned. Whether to sign follows
 * the URL (anything but a loopback address is a stage), unless `--sign` or `--no-sign` says.
 *
 * Prints the answer's JSON (what was done, the user as their log handle); exits 1 on any other
 * answer, with the error on stderr.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { parseArgs } from 'node:util';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { OPERATOR_ACTIONS, type OperatorAction } from '../lib/admin/operator';
import { ROUTES } from '../lib/platform/routes';

export const USAGE = `Usage: npm run admin -- <${OPERATOR_ACTIONS.join('|')}> --env <environment id> --user <email or phone>
       [--auth-type email|sms] [--url <API base URL>] [--region <AWS region>] [--sign | --no-sign]

  block          refuse the user's sends and code checks (answered as for a user with no code), and end their sessions
  unblock        lift the block
  end-sessions   end every session and refresh token family of the user (back-channel logout to their clients)
  remove-passkeys  remove every passkey of the user in the environment (their next login is by code)

  --url          the API's base URL, stage included (default http://127.0.0.1:\${PORT:-3000}, the local runtime)
  --region       the stage's region, when the URL does not name it (a custom domain); else AWS_REGION
  --sign         sign with SigV4 (default: unless the URL is a loopback address)`;

export interface AdminCommand {
  readonly action: OperatorAction;
  readonly environmentId: string;
  readonly userId: string;
  readonly authType: 'email' | 'sms' | undefined;
  readonly url: string;
  /** The region to sign for; undefined when the request goes unsigned. */
  readonly signingRegion: string | undefined;
}

/** Parses the command line (without `node` and the script); throws a message for the user. */
export function parseCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): AdminCommand {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      env: { type: 'string' },
      user: { type: 'string' },
      'auth-type': { type: 'string' },
      url: { type: 'string' },
      region: { type: 'string' },
      sign: { type: 'boolean' },
      'no-sign': { type: 'boolean' },
    },
  });
  const [action, ...extra] = positionals;
  if (!OPERATOR_ACTIONS.includes(action as OperatorAction) || extra.length > 0) throw new Error(USAGE);
  if (values.env === undefined || values.user === undefined) throw new Error(`--env and --user are required.\n\n${USAGE}`);
  const authType = values['auth-type'];
  if (authType !== undefined && authType !== 'email' && authType !== 'sms') throw new Error('--auth-type is email or sms.');
  const url = (values.url ?? `http://127.0.0.1:${env.PORT ?? 3000}`).replace(/\/+$/, '');
  const host = new URL(url).hostname;
  const sign = values.sign === true ? true : values['no-sign'] === true ? false : !isLoopback(host);
  const region = values.region ?? regionOf(host) ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (sign && region === undefined) throw new Error('Which region is the stage in? Give --region (or set AWS_REGION).');
  return {
    action: action as OperatorAction,
    environmentId: values.env,
    userId: values.user,
    authType,
    url,
    signingRegion: sign ? region : undefined,
  };
}

/** The route of an action (lib/platform/routes.ts), under the API's base URL. */
export function endpointOf(command: Pick<AdminCommand, 'url' | 'action'>): URL {
  const route = ROUTES.find((candidate) => candidate.functionName === 'admin' && candidate.path.endsWith(`/${command.action}`));
  if (route === undefined) throw new Error(`No route for ${command.action}`);
  return new URL(`${command.url}${route.path}`);
}

/** Sends the command; resolves the HTTP status and the answer's JSON. */
export async function runCommand(command: AdminCommand): Promise<{ status: number; body: unknown }> {
  const endpoint = endpointOf(command);
  const body = JSON.stringify({
    env_id: command.environmentId,
    user_id: command.userId,
    ...(command.authType === undefined ? {} : { auth_type: command.authType }),
  });
  let headers: Record<string, string> = { 'content-type': 'application/json' };
  if (command.signingRegion !== undefined) headers = await signedHeaders(endpoint, body, command.signingRegion);
  const response = await fetch(endpoint, { method: 'POST', headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page): shown as it came.
  }
  return { status: response.status, body: parsed };
}

/**
 * The SigV4 headers (execute-api) of a POST of `body` to `endpoint`, with the default credential
 * chain. Also the smoke command's (infra/smoke.ts), for the test outbox's admin route.
 */
export async function signedHeaders(endpoint: URL, body: string, region: string): Promise<Record<string, string>> {
  const signer = new SignatureV4({ service: 'execute-api', region, credentials: defaultProvider(), sha256: NodeSha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: endpoint.protocol,
    hostname: endpoint.hostname,
    ...(endpoint.port === '' ? {} : { port: Number(endpoint.port) }),
    path: endpoint.pathname,
    query: {},
    headers: { host: endpoint.host, 'content-type': 'application/json' },
    body,
  });
  // fetch writes Host itself, from the same URL.
  const { host: _host, ...headers } = signed.headers;
  return headers;
}

/** SHA-256 and HMAC-SHA-256 for the signer, from node:crypto (what @smithy/hash-node does). */
class NodeSha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = NodeSha256.create(secret);
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(typeof data === 'string' ? data : toBuffer(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = NodeSha256.create(this.secret);
  }
  private static create(secret: string | ArrayBuffer | ArrayBufferView | undefined): Hash | Hmac {
    return secret === undefined ? createHash('sha256') : createHmac('sha256', typeof secret === 'string' ? secret : toBuffer(secret));
  }
}

function toBuffer(data: ArrayBuffer | ArrayBufferView): Buffer {
  return ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data);
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The region in an API Gateway default URL (`<id>.execute-api.<region>.amazonaws.com`). */
export function regionOf(host: string): string | undefined {
  return /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(host)?.[1];
}

if (require.main === module) {
  void (async () => {
    const argv = process.argv.slice(2);
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    try {
      const { status, body } = await runCommand(parseCommand(argv, process.env));
      if (status >= 200 && status < 300) {
        process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        return;
      }
      const { error, error_description: description } = (body ?? {}) as { error?: string; error_description?: string };
      console.error(`admin: ${status} ${error ?? ''}${description === undefined ? '' : `: ${description}`}`.trim());
      process.exitCode = 1;
    } catch (error) {
      console.error((error as Error).message);
      process.exitCode = 1;
    }
  })();
}
