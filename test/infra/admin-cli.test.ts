/**
 * `npm run admin` (infra/admin-cli.ts) against a stage: the request is signed with SigV4 for
 * API Gateway (`execute-api`) with the default credential chain, here static keys in the
 * environment, and a loopback server stands in for the stage. The signature is checked by
 * recomputing it here from what the server received (AWS Signature Version 4: the canonical
 * request, the string to sign, the derived key), so a request that is altered on the way, or
 * signed for another service, region or body, fails.
 */
import { execFile } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { endpointOf, parseCommand, USAGE } from '../../infra/admin-cli';
import { listen, readBody, type Listening } from '../../local/http-server';

const ACCESS_KEY = 'AKIDEXAMPLEOPERATOR';
const SECRET_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const SESSION_TOKEN = 'session-token-of-an-assumed-role';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let stage: Listening;
const received: Received[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };
beforeAll(async () => {
  stage = await listen(
    createServer((request, response) => {
      void readBody(request, 64 * 1024).then((body) => {
        received.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body: body?.toString('utf8') ?? '',
        });
        response.writeHead(answer.status, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(answer.body));
      });
    }),
  );
});
afterAll(async () => stage.stop());

/** Runs the CLI in a process of its own, as `npm run admin` does, with only static keys to find. */
async function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [require.resolve('tsx/cli'), 'infra/admin-cli.ts', ...args], {
      cwd: resolve(__dirname, '../..'),
      env: {
        PATH: process.env.PATH ?? '',
        AWS_ACCESS_KEY_ID: ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY: SECRET_KEY,
        AWS_SESSION_TOKEN: SESSION_TOKEN,
        // Nothing else in the chain to find: no profile files, no instance metadata.
        AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
        AWS_CONFIG_FILE: '/nonexistent/config',
        AWS_EC2_METADATA_DISABLED: 'true',
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** The signature AWS would compute for `request` (SigV4: canonical request, string to sign, derived key). */
function expectedSignature(request: Received, scope: { date: string; region: string; service: string }, signedHeaders: string[]): string {
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${String(request.headers[name]).trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [request.method, request.path, '', canonicalHeaders, signedHeaders.join(';'), sha256(request.body)].join('\n');
  const credentialScope = `${scope.date}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', request.headers['x-amz-date'], credentialScope, sha256(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${SECRET_KEY}`, scope.date);
  for (const part of [scope.region, scope.service, 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

it('signs a stage request with SigV4 for execute-api in the stage’s region, with the default credential chain’s keys', async () => {
  received.length = 0;
  answer = { status: 200, body: { user: 'a1b2c3d4e5f6', blocked: true, sessions_ended: 2, refresh_families_revoked: 3 } };
  const result = await runCli([
    'block',
    '--env',
    'prod',
    '--user',
    'Alice@Example.com',
    '--url',
    `${stage.url}/prod`,
    '--sign',
    '--region',
    'eu-west-1',
  ]);

  expect(result).toEqual({ code: 0, stdout: `${JSON.stringify(answer.body, null, 2)}\n`, stderr: '' });
  expect(received).toHaveLength(1);
  const [request] = received as [Received];
  expect([request.method, request.path, JSON.parse(request.body)]).toEqual([
    'POST',
    '/prod/idp/v1/admin/users/block',
    { env_id: 'prod', user_id: 'Alice@Example.com' },
  ]);
  const authorization =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
      String(request.headers.authorization),
    );
  expect(authorization).not.toBeNull();
  const [, accessKey, date = '', region = '', service = '', signed = '', signature] = authorization!;
  expect({ accessKey, region, service }).toEqual({ accessKey: ACCESS_KEY, region: 'eu-west-1', service: 'execute-api' });
  expect(request.headers['x-amz-date']).toMatch(new RegExp(`^${date}T\\d{6}Z$`));
  expect(request.headers['x-amz-security-token']).toBe(SESSION_TOKEN);
  // What a request must not lose on its way: where it goes, what it carries, when and for whom.
  const signedHeaders = signed.split(';');
  expect(signedHeaders).toEqual(expect.arrayContaining(['host', 'content-type', 'x-amz-date', 'x-amz-security-token']));
  expect(signature).toBe(expectedSignature(request, { date, region, service }, signedHeaders));
  // The check itself tells a signature apart: another body, region or service does not verify.
  expect(expectedSignature({ ...request, body: request.body.replace('prod', 'dev') }, { date, region, service }, signedHeaders)).not.toBe(
    signature,
  );
  expect(expectedSignature(request, { date, region: 'us-east-1', service }, signedHeaders)).not.toBe(signature);
  expect(expectedSignature(request, { date, region, service: 'lambda' }, signedHeaders)).not.toBe(signature);
}, 60_000);

it('sends the local runtime’s requests unsigned, and says what went wrong when the answer is an error (exit 1)', async () => {
  received.length = 0;
  answer = { status: 400, body: { error: 'invalid_request', error_description: 'env_id does not name a known environment.' } };
  const result = await runCli(['unblock', '--env', 'nowhere', '--user', '+14155550100', '--auth-type', 'sms', '--url', stage.url]);
  expect(result).toEqual({ code: 1, stdout: '', stderr: 'admin: 400 invalid_request: env_id does not name a known environment.\n' });
  const [request] = received as [Received];
  expect(request.headers.authorization).toBeUndefined();
  expect(request.headers['x-amz-date']).toBeUndefined();
  expect([request.path, JSON.parse(request.body)]).toEqual([
    '/idp/v1/admin/users/unblock',
    { env_id: 'nowhere', user_id: '+14155550100', auth_type: 'sms' },
  ]);
}, 60_000);

describe('the command line', () => {
  it('signs for a stage URL and takes its region from it; not for a loopback URL unless told', () => {
    const stageUrl = 'https://abc123.execute-api.ap-southeast-2.amazonaws.com/prod/';
    expect(parseCommand(['end-sessions', '--env', 'prod', '--user', 'a@example.com', '--url', stageUrl], {})).toEqual({
      action: 'end-sessions',
      environmentId: 'prod',
      userId: 'a@example.com',
      authType: undefined,
      url: 'https://abc123.execute-api.ap-southeast-2.amazonaws.com/prod',
      signingRegion: 'ap-southeast-2',
    });
    expect(endpointOf({ url: 'https://abc123.execute-api.ap-southeast-2.amazonaws.com/prod', action: 'end-sessions' }).href).toBe(
      'https://abc123.execute-api.ap-southeast-2.amazonaws.com/prod/idp/v1/admin/users/end-sessions',
    );
    // The local runtime by default, unsigned.
    expect(parseCommand(['block', '--env', 'local', '--user', 'a@example.com'], { PORT: '4000' })).toMatchObject({
      url: 'http://127.0.0.1:4000',
      signingRegion: undefined,
    });
    // A custom domain names no region: the environment's, or --region.
    expect(
      parseCommand(['block', '--env', 'prod', '--user', 'a@example.com', '--url', 'https://id.example.com'], {
        AWS_REGION: 'eu-central-1',
      }),
    ).toMatchObject({
      signingRegion: 'eu-central-1',
    });
    expect(() => parseCommand(['block', '--env', 'prod', '--user', 'a@example.com', '--url', 'https://id.example.com'], {})).toThrow(
      '--region',
    );
    expect(
      parseCommand(['block', '--env', 'prod', '--user', 'a@example.com', '--url', 'https://id.example.com', '--no-sign'], {}),
    ).toMatchObject({ signingRegion: undefined });
  });

  it('knows remove-passkeys: its route, and a line of the usage', () => {
    expect(parseCommand(['remove-passkeys', '--env', 'local', '--user', 'a@example.com'], {})).toMatchObject({ action: 'remove-passkeys' });
    expect(endpointOf({ url: 'https://id.example.com', action: 'remove-passkeys' }).href).toBe(
      'https://id.example.com/idp/v1/admin/users/remove-passkeys',
    );
    expect(USAGE).toMatch(/\n {2}remove-passkeys +remove every passkey of the user/);
  });

  it('refuses an unknown action, a missing --env or --user, an auth type that is neither', () => {
    expect(() => parseCommand(['delete', '--env', 'local', '--user', 'a@example.com'], {})).toThrow('Usage: npm run admin');
    expect(() => parseCommand(['block', '--user', 'a@example.com'], {})).toThrow('--env and --user are required');
    expect(() => parseCommand(['block', '--env', 'local', '--user', 'a@example.com', '--auth-type', 'voice'], {})).toThrow('email or sms');
  });
});
