/**
 * `npm start` as a newcomer runs it: the real entry point (local/start.ts) in its own process, on
 * free ports, with the real handler exports. It must serve docs/api.md's examples, show each
 * message in the outbox (email also in the SES viewer), log nothing personal, listen on loopback
 * only, stop everything on Ctrl-C, and say in one line how to install Java when it is missing.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { freePort } from '../../local/ports';
import { JAVA_HINT } from '../../local/java';
import { basicAuth, createIdentityClient, FORM } from '../../client';
import { checkedFetch, contractMiddleware } from '../support/contract-recorder';
import { logLeaks, rememberSecret } from '../support/log-capture';
import { codeIn } from '../support/harness';
import { HAS_SOCKET_TABLE, listeningAddresses } from '../support/socket-table';
import { hasIpv6Loopback } from '../support/ipv6';

const ROOT = resolve(__dirname, '../..');
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

interface Started {
  readonly child: ChildProcessWithoutNullStreams;
  readonly output: () => string;
  readonly ports: Record<'PORT' | 'DYNAMODB_PORT' | 'SES_PORT' | 'CAPTURE_PORT', number>;
}

async function startNpmStart(): Promise<Started> {
  const ports = { PORT: await freePort(), DYNAMODB_PORT: await freePort(), SES_PORT: await freePort(), CAPTURE_PORT: await freePort() };
  const child = spawn(process.execPath, [TSX, 'local/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), POWERTOOLS_DEV: '' },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 60_000);
    const check = () => {
      if (output.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolveReady();
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return { child, output: () => output, ports };
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolvePort(true);
    });
    socket.once('error', () => resolvePort(false));
  });
}

describe('npm start', () => {
  let started: Started;
  let api: string;
  beforeAll(async () => {
    started = await startNpmStart();
    // The issuer has a host name (WebAuthn refuses an IP address as RP ID); the demo is on 127.0.0.1.
    api = `http://localhost:${started.ports.PORT}`;
  }, 90_000);
  afterAll(async () => {
    // Stopped as Ctrl-C stops it when the Ctrl-C test did not run (jest -t): a SIGKILL reached only
    // tsx's own process and left local/start.ts and its Java running (and jest waiting on their pipes).
    if (started.child.exitCode !== null || started.child.signalCode !== null) return;
    const exited = new Promise((resolveExit) => started.child.once('exit', resolveExit));
    const timer = setTimeout(() => started.child.kill('SIGKILL'), 10_000);
    started.child.kill('SIGINT');
    await exited;
    clearTimeout(timer);
  });

  it('says it is starting DynamoDB Local before the slow part, and when it is ready', () => {
    const output = started.output();
    // (stderr interleaves: the AWS SDK prints its Node version notice in between)
    expect(output).toMatch(/Starting DynamoDB Local .*…/);
    expect(output).toMatch(/\n {2}ready in \d+\.\d s/);
    expect(output.indexOf('Starting DynamoDB Local')).toBeLessThan(output.indexOf('ready in'));
    expect(output.indexOf('Starting DynamoDB Local')).toBeLessThan(output.indexOf('Identity service running locally'));
  });

  it('prints the URLs of the API, the outbox and the SES viewer', () => {
    expect(started.output()).toContain(`API              ${api}`);
    // Each route with the methods it really answers (regression: every route was printed as POST).
    expect(started.output()).toMatch(new RegExp(`GET +${api}/\\.well-known/jwks\\.json`));
    expect(started.output()).toMatch(new RegExp(`POST +${api}/idp/v1/account/token`));
    expect(started.output()).not.toMatch(/POST +\S+\/\.well-known\//);
    expect(started.output()).toContain(`${api}/__dev/outbox?user_id=`);
    expect(started.output()).toContain(`SES email viewer http://127.0.0.1:${started.ports.SES_PORT}`);
  });

  // Regression (security review): DynamoDB Local listened on every interface, where anyone on the
  // network could read and change the table with the published local credentials. Read from the
  // socket table, never by connecting from another address.
  (HAS_SOCKET_TABLE ? it : it.skip)(
    'listens on loopback only: DynamoDB Local, SES and the capture on 127.0.0.1, the API on 127.0.0.1 and ::1, none on every interface',
    async () => {
      const listening = Object.fromEntries(Object.entries(started.ports).map(([name, port]) => [name, listeningAddresses(port)]));
      expect(listening).toEqual({
        // ::1 too where the machine has IPv6: localhost, the issuer's host, resolves there first on many systems.
        PORT: (await hasIpv6Loopback()) ? ['127.0.0.1', '::1'] : ['127.0.0.1'],
        DYNAMODB_PORT: ['127.0.0.1'],
        SES_PORT: ['127.0.0.1'],
        CAPTURE_PORT: ['127.0.0.1'],
      });
    },
  );

  it('answers at http://localhost:PORT over IPv4 and IPv6 alike (whichever the system resolves localhost to first)', async () => {
    const addresses = ['127.0.0.1', ...((await hasIpv6Loopback()) ? ['[::1]'] : [])];
    for (const address of addresses) {
      const response = await fetch(`http://${address}:${started.ports.PORT}/.well-known/openid-configuration`);
      expect({ address, status: response.status }).toEqual({ address, status: 200 });
      // The issuer is localhost's, however the request came (ISSUER is set by npm start).
      expect(((await response.json()) as { issuer: string }).issuer).toBe(api);
    }
  });

  // Every answer of the API is checked against docs/openapi.json (test/support/contract-recorder.ts).
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    checkedFetch(`${api}/idp/v1/otp/send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const outbox = async (userId: string) =>
    (
      (await (await fetch(`${api}/__dev/outbox?user_id=${encodeURIComponent(userId)}`)).json()) as {
        messages: Array<{ channel: string; to: string; text: string; subject?: string }>;
      }
    ).messages;

  it('serves the docs/api.md example by email: the code is in the outbox and in the SES viewer', async () => {
    const response = await post({
      auth_type: 'email',
      client_id: 'local-web',
      redirect_uri: 'http://127.0.0.1:3000/callback',
      user_id: 'alice@example.com',
      locale: 'en-US',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'sent', channel: 'email', expires_in: 300 });
    const [message] = await outbox('alice@example.com');
    const code = codeIn(message?.text ?? '');
    expect(code).toMatch(/^\d{6}$/);
    rememberSecret(code);
    const store = (await (await fetch(`http://127.0.0.1:${started.ports.SES_PORT}/store`)).json()) as {
      emails: Array<{ body: { text: string } }>;
    };
    expect(store.emails.some((email) => email.body.text.includes(code as string))).toBe(true);
    const viewer = await fetch(`http://127.0.0.1:${started.ports.SES_PORT}/`);
    expect(viewer.status).toBe(200);
  });

  it('serves the docs/api.md example by SMS', async () => {
    const response = await post({
      auth_type: 'sms',
      client_id: 'local-web',
      redirect_uri: 'http://127.0.0.1:3000/callback',
      user_id: '+14155552671',
      locale: 'en-US',
    });
    expect(response.status).toBe(200);
    const [message] = await outbox('+14155552671');
    expect(message).toMatchObject({ channel: 'sms', to: '+14155552671' });
    rememberSecret(codeIn(message?.text ?? ''));
  });

  it('serves the docs/api.md example by voice call', async () => {
    const response = await post({
      auth_type: 'sms',
      client_id: 'local-web',
      redirect_uri: 'http://127.0.0.1:3000/callback',
      user_id: '+14155552671',
      method: 'voice_with_otp',
      locale: 'en-US',
    });
    expect(response.status).toBe(200);
    const [message] = await outbox('+14155552671');
    expect(message).toMatchObject({ channel: 'voice', to: '+14155552671' });
    rememberSecret(codeIn(message?.text ?? ''));
  });

  it('serves the docs/api.md example with the Bearer API key of local-backend', async () => {
    const body = {
      auth_type: 'email',
      client_id: 'local-backend',
      redirect_uri: 'http://127.0.0.1:3000/callback',
      user_id: 'bob@example.com',
    };
    expect((await post(body)).status).toBe(401);
    expect((await post(body, { Authorization: 'Bearer local-dev-api-key' })).status).toBe(200);
  });

  it('serves the docs/api.md walk-through: send, read the code, exchange it, verify the JWT with the JWKS', async () => {
    const user = 'walkthrough@example.com';
    expect(
      (await post({ auth_type: 'email', client_id: 'local-web', redirect_uri: 'http://127.0.0.1:3000/callback', user_id: user })).status,
    ).toBe(200);
    const code = codeIn((await outbox(user))[0]?.text ?? '') as string;
    rememberSecret(code);
    const response = await checkedFetch(`${api}/idp/v1/account/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: 'local-web',
        redirect_uri: 'http://127.0.0.1:3000/callback',
        user_id: user,
      }),
    });
    expect(response.status).toBe(200);
    const { access_token: token } = (await response.json()) as { access_token: string };
    rememberSecret(token);
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${api}/.well-known/jwks.json`)), {
      issuer: api,
      audience: 'http://127.0.0.1:3000/api',
      typ: 'at+jwt',
    });
    expect(payload.client_id).toBe('local-web');
    const again = await checkedFetch(`${api}/idp/v1/account/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: 'local-web',
        redirect_uri: 'http://127.0.0.1:3000/callback',
        user_id: user,
      }),
    });
    expect(again.status).toBe(400);
  });

  it('serves the typed client (client/, the docs/api.md example): send, exchange, introspect, each answer typed and checked', async () => {
    const idp = createIdentityClient(api);
    idp.use(contractMiddleware);
    const user = 'typed-client@example.com';
    const redirect_uri = 'http://127.0.0.1:3000/callback';

    const sent = await idp.POST('/idp/v1/otp/send', {
      body: { auth_type: 'email', client_id: 'local-backend', redirect_uri, user_id: user },
    });
    // local-backend needs its API key: the error is typed by status.
    expect(sent.response.status).toBe(401);
    expect(sent.error?.error).toBe('invalid_token');
    const sentWithKey = await idp.POST('/idp/v1/otp/send', {
      body: { auth_type: 'email', client_id: 'local-backend', redirect_uri, user_id: user },
      headers: { Authorization: 'Bearer local-dev-api-key' },
    });
    expect(sentWithKey.data).toEqual({ status: 'sent', channel: 'email', expires_in: 300 });

    const code = codeIn((await outbox(user))[0]?.text ?? '') as string;
    rememberSecret(code);
    // A confidential client authenticates at the token endpoint too: here client_secret_post.
    const token = await idp.POST('/idp/v1/account/token', {
      body: {
        grant_type: 'authorization_code',
        code,
        client_id: 'local-backend',
        client_secret: 'local-dev-api-key',
        redirect_uri,
        user_id: user,
      },
      headers: FORM,
    });
    expect({ status: token.response.status, error: token.error }).toEqual({ status: 200, error: undefined });
    const accessToken = token.data?.access_token as string;
    rememberSecret(accessToken);
    expect(token.data).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number) });

    const introspected = await idp.POST('/idp/v1/account/introspect', {
      body: { token: accessToken },
      headers: { ...FORM, Authorization: basicAuth('local-backend', 'local-dev-api-key') },
    });
    expect(introspected.data).toMatchObject({ active: true, client_id: 'local-backend', token_type: 'Bearer' });
  });

  it('passes `npm run smoke -- <its URL>`: a whole login to its test recipient, every step ok, exit 0, no code or token shown', async () => {
    const run = await new Promise<{ code: number | null; output: string }>((resolveRun, reject) => {
      const child = spawn(process.execPath, [TSX, 'infra/smoke.ts', api], { cwd: ROOT, env: { ...process.env, NODE_NO_WARNINGS: '1' } });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('error', reject);
      child.once('exit', (code) => resolveRun({ code, output }));
    });
    expect({ code: run.code, output: run.output }).toEqual({ code: 0, output: expect.stringContaining('revoked token refused') });
    expect(run.output).not.toMatch(/\b\d{6}\b|eyJ[\w-]+\./);
  }, 60_000);

  it('serves the API description it answers by (docs/openapi.json) at /idp/v1/openapi.json', async () => {
    const response = await fetch(`${api}/idp/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')));
  });

  it('serves the demo client at http://127.0.0.1:PORT/, which starts a standard authorization request with PKCE, state and nonce', async () => {
    const demo = `http://127.0.0.1:${started.ports.PORT}`;
    expect(started.output()).toContain(`Demo client      ${demo}/`);
    // Reached as localhost (the issuer's host), it sends the browser to the host its redirect URI names, where its cookie must be.
    const viaAddress = await fetch(`${api}/`, { redirect: 'manual' });
    expect(viaAddress.status).toBe(302);
    expect(viaAddress.headers.get('location')).toBe(`${demo}/`);

    const home = await fetch(`${demo}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await home.text();
    expect(html).toContain('Demo client: a sample application served by npm start');
    expect(html).toContain('<a class="button" id="login" href="/login">Log in</a>');
    // Not on port 3000, the demo's callback is not one local-web registered: the page says so.
    expect(html).toContain(`does not have this demo’s redirect URI ${demo}/callback registered`);

    const login = await fetch(`${demo}/login?prompt=login`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    expect(login.headers.get('set-cookie')).toMatch(/^demo_login=[A-Za-z0-9_-]{22}; Path=\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/);
    const location = new URL(login.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${api}/idp/v1/account/authorize`);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'local-web',
      redirect_uri: `${demo}/callback`,
      scope: 'openid email phone',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      prompt: 'login',
    });

    // The second application (config/local.json's local-web-2), which a session logs in without a code.
    expect(html).toContain('<a id="second" href="/second">second application</a>');
    const second = await fetch(`${demo}/second`);
    expect(second.status).toBe(200);
    expect(await second.text()).toContain('<a class="button" id="login" href="/second/login">Log in</a>');
    const secondLogin = await fetch(`${demo}/second/login`, { redirect: 'manual' });
    expect(secondLogin.status).toBe(302);
    expect(new URL(secondLogin.headers.get('location') ?? '').searchParams.get('client_id')).toBe('local-web-2');
    // Log out without a login here (or without the demo's own token in the link) ends nothing: back home.
    const logout = await fetch(`${demo}/logout`, { redirect: 'manual' });
    expect(logout.status).toBe(302);
    expect(logout.headers.get('location')).toBe(`${demo}/`);

    // A callback it did not start (here an error from the issuer) is shown, not thrown.
    const stray = await fetch(`${demo}/callback?error=access_denied&state=unknown`);
    expect(stray.status).toBe(400);
    const strayHtml = await stray.text();
    expect(strayHtml).toContain('No login in progress');
    expect(strayHtml).toContain('<dt>error</dt><dd>access_denied</dd>');

    // The callback page's own script (local/demo-browser.ts with the typed client), bundled at first request.
    const script = await fetch(`${demo}/demo.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const code = await script.text();
    expect(code).toContain('/idp/v1/account/userinfo');
    expect(code).not.toMatch(/\brequire\(|from ["'](?:openapi-fetch|node:)/);
  });

  it('logs JSON lines without any code, email address or phone number', () => {
    const lines = started
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.map((line) => JSON.parse(line) as { message: string }).some((line) => line.message === 'code sent')).toBe(true);
    expect(logLeaks(started.output().split('\n'))).toEqual([]);
  });

  it('stops every process it started on Ctrl-C (SIGINT)', async () => {
    const exited = new Promise<number | null>((resolveExit) => started.child.once('exit', (code) => resolveExit(code)));
    started.child.kill('SIGINT');
    expect(await exited).toBe(0);
    for (const port of Object.values(started.ports)) expect(await isListening(port)).toBe(false);
  });
});

describe('npm start without Java', () => {
  it('says in one line how to install it', () => {
    // A PATH with node and nothing else.
    const bin = mkdtempSync(join(tmpdir(), 'no-java-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    // NODE_NO_WARNINGS hides the AWS SDK's Node 22 notice, which is not ours to test.
    const env = { ...process.env, PATH: bin, NODE_NO_WARNINGS: '1' };
    const result = spawnSync(process.execPath, [TSX, 'local/start.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([JAVA_HINT]);
  });
});
