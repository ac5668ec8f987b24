/**
 * What `npm run bench` measures: one entry per operation, each naming the function bundle that
 * serves it, the floor export it is compared with (bench/floor.ts), and how to make `count`
 * requests of it, each for its own user (the per-user attempt limits would otherwise refuse the
 * sixth) or its own browser, with whatever they need already stored (a code, an authorization
 * code, a refresh token family, a single sign-on session) by the service's own adapters. Adding an
 * operation is one more entry.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { ServiceConfig } from '../lib/platform/config';
import type { Deps } from '../lib/deps';
import { createHandler as createAuthorizeHandler } from '../functions/authorize';
import { creationOptions, registerPasskey, relyingPartyFor, type SignedInUser } from '../lib/login/passkey-login';
import { LOGIN_COOKIE } from '../lib/login/login-transaction';
import { newChallenge } from '../lib/passkeys/ceremonies';
import { SoftAuthenticator } from '../test/support/soft-authenticator';
import type { CodeStore } from '../lib/otp/ports';
import type { AuthorizationCodeRecord, AuthorizationCodeStore, RefreshTokenStore } from '../lib/oauth/ports';
import type { SessionRecord, SessionStore } from '../lib/sessions/ports';
import { authorizationCodeHash, AUTHORIZATION_CODE_TTL_SECONDS, mintAuthorizationCode } from '../lib/oauth/authorization-codes';
import { newSessionId } from '../lib/oauth/sessions';
import { subjectFor, userClaimsOf } from '../lib/oauth/access-tokens';
import { signIdToken } from '../lib/oauth/id-tokens';
import { newSessionReference, sessionKeepUntil, sessionKeyOf } from '../lib/sessions/sessions';
import { sessionCookieName } from '../lib/sessions/session-cookie';
import { digestCode, s256Challenge } from '../lib/otp/codes';
import { subjectOf, userKeyOf, type HmacKeys } from '../lib/keys/hmac-keys';
import type { SigningKeys } from '../lib/keys/signing-keys';
import {
  familyKeyOf,
  keepUntilOf,
  mintFirstRefreshToken,
  refreshLifetimesOf,
  refreshTokenHash,
  refreshTokenOf,
} from '../lib/oauth/refresh-tokens';
import type { FunctionName } from '../lib/platform/routes';
import type * as floor from './floor';

export const REDIRECT_URI = 'http://127.0.0.1:3000/callback';
/** Where the logout operation's relying party sends the user back (registered for local-web by `benchStageConfig`). */
export const POST_LOGOUT_REDIRECT_URI = 'http://127.0.0.1:3000/signed-out';
/** A second application of the environment, with a back-channel logout URI: the sessions the logout ends served it too. */
export const BACKCHANNEL_CLIENT = 'bench-backchannel';
const BACKCHANNEL_LOGOUT_URI = 'http://127.0.0.1:3000/backchannel-logout';
const ENVIRONMENT = 'local';
/** local-server's secret (config/local.json holds only its SHA-256): the confidential client's Basic credentials. */
const LOCAL_SERVER_SECRET = 'local-server-secret';

/** What an operation's requests are made from: the keys and stores of the service under test. */
export interface Seeding {
  readonly config: ServiceConfig;
  readonly keys: HmacKeys;
  /** The service's signing keys (the ID tokens a logout presents as its hint) and the issuer the handlers answer as. */
  readonly signingKeys: SigningKeys;
  readonly issuer: string;
  readonly codes: CodeStore;
  readonly authorizationCodes: AuthorizationCodeStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly sessions: SessionStore;
  /**
   * The service's whole dependencies (lib/deps `createDeps`, its log silent), for what a request
   * needs made by the service's own code in this process: a page fetched through a real handler,
   * a passkey registered by the real ceremony.
   */
  readonly service: Deps;
}

/**
 * The stage configuration the bench runs with: config/local.json (`raw`), with what the logout
 * operation needs and the local stage does not register: local-web's post-logout redirect URI
 * (RP-Initiated Logout §3.1), and a second client of the environment with a back-channel logout
 * URI (Back-Channel Logout §2.2). Nothing else changes: the other operations run as before.
 */
export function benchStageConfig(raw: unknown): unknown {
  const stage = raw as { clients: Array<{ id: string; postLogoutRedirectUris?: string[] }> };
  const web = stage.clients.find((client) => client.id === 'local-web');
  if (web === undefined) throw new Error('config/local.json has no local-web client');
  return {
    ...stage,
    clients: [
      ...stage.clients.map((client) =>
        client === web
          ? { ...web, postLogoutRedirectUris: [...new Set([...(web.postLogoutRedirectUris ?? []), POST_LOGOUT_REDIRECT_URI])] }
          : client,
      ),
      { ...web, id: BACKCHANNEL_CLIENT, postLogoutRedirectUris: [], backchannelLogoutUri: BACKCHANNEL_LOGOUT_URI },
    ],
  };
}

export interface Operation {
  readonly name: string;
  /** The function whose bundle (`dist/<name>/index.mjs`) serves it. */
  readonly function: FunctionName;
  /** The floor's export that does the same requests with nothing else. */
  readonly floor: keyof typeof floor;
  readonly expectedStatus: number;
  /** `count` requests, each for a user of its own named with `tag`, anything they need stored first. */
  requests(seeding: Seeding, count: number, tag: string): Promise<APIGatewayProxyEvent[]>;
}

/**
 * An API Gateway (REST, v1) event, as API Gateway (and the local API server) sends it, from
 * `sourceIp` (a field of the event: nothing connects to it).
 */
export function restEvent(path: string, body: string, contentType: string, sourceIp = '127.0.0.1'): APIGatewayProxyEvent {
  return apiGatewayEvent('POST', path, { headers: { 'Content-Type': contentType }, body, sourceIp });
}

/** A browser's GET of `path` with `query`, sending `cookie`, as API Gateway passes it on. */
export function browserGet(path: string, query: Record<string, string>, cookie: string): APIGatewayProxyEvent {
  return apiGatewayEvent('GET', path, {
    headers: { Accept: 'text/html', 'Accept-Language': 'en-US,en;q=0.9', cookie },
    query,
  });
}

function apiGatewayEvent(
  method: 'GET' | 'POST',
  path: string,
  request: { headers: Record<string, string>; body?: string; query?: Record<string, string>; sourceIp?: string },
): APIGatewayProxyEvent {
  const headers = { Host: 'bench.local', 'User-Agent': 'bench', ...request.headers };
  const query = request.query === undefined || Object.keys(request.query).length === 0 ? null : request.query;
  return {
    resource: path,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: query,
    multiValueQueryStringParameters:
      query === null ? null : Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
    pathParameters: null,
    stageVariables: null,
    body: request.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      authorizer: null,
      domainName: 'bench.local',
      httpMethod: method,
      identity: { sourceIp: request.sourceIp ?? '127.0.0.1', userAgent: 'bench' },
      path,
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'bench',
      resourcePath: path,
      stage: 'bench',
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const emailOf = (tag: string, index: number) => `${tag}-${index}@bench.example`;

/** Stores a live code for each user, as otp/send would have (the code store's own write), in batches. */
async function withCodes(seeding: Seeding, clientId: string, users: readonly string[]): Promise<string[]> {
  const environment = seeding.config.environment(ENVIRONMENT);
  if (environment === undefined) throw new Error(`No environment ${ENVIRONMENT}`);
  const codes = users.map(() => String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, '0'));
  const now = Date.now();
  await inBatches(users.length, async (index) => {
    const user = { authType: 'email' as const, value: users[index] as string };
    const code = codes[index] as string;
    await seeding.codes.save(
      {
        environmentId: environment.id,
        clientId,
        userKey: userKeyOf(seeding.keys, user),
        channel: 'email',
        codeDigest: digestCode(
          seeding.keys.code,
          { environmentId: environment.id, clientId, redirectUri: REDIRECT_URI, authType: 'email', user: user.value },
          code,
        ),
        sendId: randomUUID(),
        createdAt: now,
        notAfter: now + environment.code.ttlSeconds * 1000,
        tries: 0,
        maxTries: environment.code.maxTries,
        codeChallenge: undefined,
      },
      environment.limits.send.maxAttempts,
    );
  });
  return codes;
}

/** Runs `task(0 … count-1)` 16 at a time. */
async function inBatches(count: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
}

/** The OTP grant at the token endpoint, for a client of the given access-token settings. */
function codeExchange(name: string, clientId: string): Operation {
  return {
    name,
    function: 'token',
    floor: 'exchangeCode',
    expectedStatus: 200,
    async requests(seeding, count, tag) {
      const users = Array.from({ length: count }, (_, index) => emailOf(tag, index));
      const codes = await withCodes(seeding, clientId, users);
      return users.map((user, index) =>
        restEvent(
          '/idp/v1/account/token',
          form({
            grant_type: 'authorization_code',
            code: codes[index] as string,
            client_id: clientId,
            redirect_uri: REDIRECT_URI,
            user_id: user,
          }),
          'application/x-www-form-urlencoded',
        ),
      );
    },
  };
}

export const OPERATIONS: readonly Operation[] = [
  {
    name: 'email send',
    function: 'otp-send',
    floor: 'sendEmail',
    expectedStatus: 200,
    requests: (_seeding, count, tag) =>
      Promise.resolve(
        Array.from({ length: count }, (_, index) =>
          restEvent(
            '/idp/v1/otp/send',
            JSON.stringify({ auth_type: 'email', client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: emailOf(tag, index) }),
            'application/json',
            // A network of its own per user (a /24 of 127/8): the per-source email window counts
            // one send each, as for users who each send from their own address.
            `127.${(index >> 8) & 255}.${index & 255}.1`,
          ),
        ),
      ),
  },
  codeExchange('JWT exchange (ES256)', 'local-web'),
  codeExchange('opaque exchange', 'local-opaque'),
  codeExchange('RS256 exchange', 'local-rs256'),
  authorizationCodeExchange('authorization-code exchange (hosted login, ID token)', 'local-web'),
  authorizationCodeExchange('authorization-code exchange (confidential, client_secret_basic)', 'local-server', LOCAL_SERVER_SECRET),
  refreshRotation('refresh (JWT, rotation)', 'local-web'),
  refreshRotation('refresh (confidential, client_secret_basic)', 'local-server', LOCAL_SERVER_SECRET),
  authorizationWithSession(),
  passkeySignIn(),
  logoutWithHint(),
];

/**
 * How a request names its client: a public client by `client_id` in the body; a confidential one
 * by HTTP Basic (RFC 6749 §2.3.1), the method every OpenID library defaults to.
 */
function withClient(event: APIGatewayProxyEvent, clientId: string, secret: string | undefined): APIGatewayProxyEvent {
  if (secret === undefined) return event;
  const authorization = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
  return {
    ...event,
    headers: { ...event.headers, Authorization: authorization },
    multiValueHeaders: { ...event.multiValueHeaders, Authorization: [authorization] },
  };
}

/** The code exchange of a hosted login (an ID token with `openid`) by `clientId`, authenticated with `secret` when it has one. */
function authorizationCodeExchange(name: string, clientId: string, secret?: string): Operation {
  return {
    name,
    function: 'token',
    floor: 'exchangeAuthorizationCode',
    expectedStatus: 200,
    async requests(seeding, count, tag) {
      const now = Date.now();
      const verifier = randomBytes(32).toString('base64url');
      const codes = Array.from({ length: count }, () => mintAuthorizationCode());
      await inBatches(count, async (index) => {
        const user = { authType: 'email' as const, value: emailOf(tag, index) };
        await seeding.authorizationCodes.save({
          codeHash: authorizationCodeHash(seeding.keys, codes[index] as string),
          environmentId: ENVIRONMENT,
          clientId,
          redirectUri: REDIRECT_URI,
          codeChallenge: s256Challenge(verifier),
          nonce: 'bench-nonce',
          scope: 'openid email',
          userKey: userKeyOf(seeding.keys, user),
          subject: subjectOf(seeding.keys, ENVIRONMENT, user),
          channel: 'email',
          claims: { email: user.value, email_verified: true },
          authTime: Math.floor(now / 1000),
          sessionId: newSessionId(),
          // Long enough for the run that follows; the service's own codes live 60 s.
          notAfter: now + 10 * 60_000,
        });
      });
      return codes.map((code) =>
        withClient(
          restEvent(
            '/idp/v1/account/token',
            form({
              grant_type: 'authorization_code',
              code,
              ...(secret === undefined ? { client_id: clientId } : {}),
              redirect_uri: REDIRECT_URI,
              code_verifier: verifier,
            }),
            'application/x-www-form-urlencoded',
          ),
          clientId,
          secret,
        ),
      );
    },
  };
}

/** A refresh of `clientId`'s family (JWT, rotation), authenticated with `secret` when it has one. */
function refreshRotation(name: string, clientId: string, secret?: string): Operation {
  return {
    name,
    function: 'token',
    floor: 'refreshTokens',
    expectedStatus: 200,
    async requests(seeding, count, tag) {
      // Each request's family as a login of the client would have started it (token-response.ts
      // `issueTokens`), stored by the service's own adapter; the request presents its first token.
      const client = seeding.config.client(clientId);
      const lifetimes = client === undefined ? undefined : refreshLifetimesOf(client);
      if (lifetimes === undefined) throw new Error(`${clientId} has no refresh tokens`);
      const now = Date.now();
      const tokens = Array.from({ length: count }, () => mintFirstRefreshToken());
      await inBatches(count, async (index) => {
        const user = { authType: 'email' as const, value: emailOf(tag, index) };
        const token = tokens[index] as (typeof tokens)[number];
        const times = { createdAt: now, rotatedAt: now };
        await seeding.refreshTokens.start(
          {
            familyKey: familyKeyOf(seeding.keys, token.familyId),
            environmentId: ENVIRONMENT,
            clientId,
            userKey: userKeyOf(seeding.keys, user),
            subject: subjectOf(seeding.keys, ENVIRONMENT, user),
            channel: 'email',
            claims: {},
            scope: undefined,
            authTime: Math.floor(now / 1000),
            sessionId: newSessionId(),
            ...times,
            generation: 0,
            currentHash: refreshTokenHash(seeding.keys, token),
            previousHash: undefined,
            revokedAt: undefined,
            revokedReason: undefined,
            keepUntil: keepUntilOf(lifetimes, times),
            recentRotations: [],
          },
          undefined,
        );
      });
      return tokens.map((token) =>
        withClient(
          restEvent(
            '/idp/v1/account/token',
            form({
              grant_type: 'refresh_token',
              refresh_token: refreshTokenOf(token),
              ...(secret === undefined ? { client_id: clientId } : {}),
            }),
            'application/x-www-form-urlencoded',
          ),
          clientId,
          secret,
        ),
      );
    },
  };
}

/** The scope of the hosted logins the session operations stand for: an OpenID login that asks for the address. */
const SESSION_SCOPE = 'openid email';

/** A browser signed in at the hosted page: its session cookie's reference, and the session stored for it. */
interface SignedInBrowser {
  readonly reference: string;
  readonly session: SessionRecord;
}

function environmentOf(seeding: Seeding) {
  const environment = seeding.config.environment(ENVIRONMENT);
  if (environment === undefined) throw new Error(`No environment ${ENVIRONMENT}`);
  return environment;
}

function clientOf(seeding: Seeding, clientId: string) {
  const client = seeding.config.client(clientId);
  if (client === undefined) throw new Error(`No client ${clientId}`);
  return client;
}

/**
 * A browser for each of `count` users, each with a live session as a hosted login at local-web
 * starts it (lib/login/authorize.ts `startSession`): the session and that login's authorization
 * code in one transaction, by the session store's own `start`, the session having served
 * `clients`; a session of its own per browser (16 requests using one session at once would only
 * measure their transactions' conflicts).
 */
async function withSessions(seeding: Seeding, count: number, tag: string, clients: readonly string[]): Promise<SignedInBrowser[]> {
  const environment = environmentOf(seeding);
  const client = clientOf(seeding, 'local-web');
  const now = Date.now();
  const browsers = Array.from({ length: count }, (_, index): SignedInBrowser => {
    const user = { authType: 'email' as const, value: emailOf(tag, index) };
    const reference = newSessionReference();
    return {
      reference,
      session: {
        sessionKey: sessionKeyOf(seeding.keys, reference),
        sid: newSessionId(),
        environmentId: environment.id,
        userKey: userKeyOf(seeding.keys, user),
        user,
        channel: 'email',
        authTime: Math.floor(now / 1000),
        createdAt: now,
        lastSeenAt: now,
        clients,
      },
    };
  });
  await inBatches(count, async (index) => {
    const { session } = browsers[index] as SignedInBrowser;
    const code: AuthorizationCodeRecord = {
      codeHash: authorizationCodeHash(seeding.keys, mintAuthorizationCode()),
      environmentId: environment.id,
      clientId: client.id,
      redirectUri: REDIRECT_URI,
      codeChallenge: s256Challenge(randomBytes(32).toString('base64url')),
      nonce: 'bench-nonce',
      scope: SESSION_SCOPE,
      userKey: session.userKey,
      subject: subjectFor(seeding.keys, environment.id, client, session.user),
      channel: session.channel,
      claims: userClaimsOf(session.user, client, SESSION_SCOPE),
      authTime: session.authTime,
      sessionId: session.sid,
      notAfter: now + AUTHORIZATION_CODE_TTL_SECONDS * 1000,
    };
    await seeding.sessions.start(session, sessionKeepUntil(environment, session, now), code);
  });
  return browsers;
}

const sessionCookie = (reference: string) => `${sessionCookieName(ENVIRONMENT)}=${reference}`;
const random = () => randomBytes(16).toString('base64url');

/**
 * Single sign-on (OIDC Core §3.1.2.1, docs/decisions/014-sso-sessions.md): local-web's
 * authorization request from a browser whose cookie names a live session, answered at once with a
 * 302 carrying a code, in two requests: the session's read, then one transaction of its touch and
 * the code's Put.
 */
function authorizationWithSession(): Operation {
  return {
    name: 'authorization with a session',
    function: 'authorize',
    floor: 'authorizeWithSession',
    expectedStatus: 302,
    async requests(seeding, count, tag) {
      const browsers = await withSessions(seeding, count, tag, ['local-web']);
      return browsers.map(({ reference }) =>
        browserGet(
          '/idp/v1/account/authorize',
          {
            response_type: 'code',
            client_id: 'local-web',
            redirect_uri: REDIRECT_URI,
            scope: SESSION_SCOPE,
            state: random(),
            nonce: random(),
            code_challenge: s256Challenge(randomBytes(32).toString('base64url')),
            code_challenge_method: 'S256',
          },
          sessionCookie(reference),
        ),
      );
    },
  };
}

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2): local-web sends the browser to
 * the end-session endpoint with the ID token of its session's login as `id_token_hint`, its
 * registered post-logout redirect URI and `state`. The hint proves the relying party, so the
 * session ends at once: a 302 back with `state` and the cookie cleared. Each session served
 * local-web, whose login holds a refresh token family of it (revoked with it, OIDC Core §11), and
 * the back-channel client, which gets a logout notice (queued, Back-Channel Logout §2.5).
 */
function logoutWithHint(): Operation {
  return {
    name: 'logout (ID token hint, one family, one back-channel notice)',
    function: 'logout',
    floor: 'logout',
    expectedStatus: 302,
    async requests(seeding, count, tag) {
      const environment = environmentOf(seeding);
      const client = clientOf(seeding, 'local-web');
      const lifetimes = refreshLifetimesOf(client);
      if (lifetimes === undefined) throw new Error('local-web has no refresh tokens');
      const browsers = await withSessions(seeding, count, tag, ['local-web', BACKCHANNEL_CLIENT]);
      const claims = (session: SessionRecord) => userClaimsOf(session.user, client, SESSION_SCOPE);
      const subject = (session: SessionRecord) => subjectFor(seeding.keys, environment.id, client, session.user);
      await inBatches(count, async (index) => {
        const { session } = browsers[index] as SignedInBrowser;
        // The family the login's code exchange started (token-response.ts `issueTokens`), in the session.
        const token = mintFirstRefreshToken();
        const times = { createdAt: session.createdAt, rotatedAt: session.createdAt };
        await seeding.refreshTokens.start(
          {
            familyKey: familyKeyOf(seeding.keys, token.familyId),
            environmentId: environment.id,
            clientId: client.id,
            userKey: session.userKey,
            subject: subject(session),
            channel: session.channel,
            claims: claims(session),
            scope: SESSION_SCOPE,
            authTime: session.authTime,
            sessionId: session.sid,
            ...times,
            generation: 0,
            currentHash: refreshTokenHash(seeding.keys, token),
            previousHash: undefined,
            revokedAt: undefined,
            revokedReason: undefined,
            keepUntil: keepUntilOf(lifetimes, times),
            recentRotations: [],
          },
          undefined,
        );
      });
      return Promise.all(
        browsers.map(async ({ reference, session }) => {
          // The ID token that exchange returned (lib/oauth/id-tokens.ts, the service's own signing).
          const idToken = await signIdToken(
            seeding.signingKeys,
            {
              issuer: seeding.issuer,
              client,
              environmentId: environment.id,
              subject: subject(session),
              channel: session.channel,
              claims: claims(session),
              scope: SESSION_SCOPE,
              issuedAt: session.authTime,
              authTime: session.authTime,
              nonce: 'bench-nonce',
              sessionId: session.sid,
            },
            randomBytes(32).toString('base64url'),
          );
          return browserGet(
            '/idp/v1/account/logout',
            { id_token_hint: idToken, post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI, state: random() },
            sessionCookie(reference),
          );
        }),
      );
    },
  };
}

/** A form post of the hosted login page with the transaction cookie `cookie`, as API Gateway passes it on. */
function pagePost(path: string, fields: Record<string, string>, cookie: string): APIGatewayProxyEvent {
  return apiGatewayEvent('POST', path, {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html', cookie },
    body: form(fields),
  });
}

/** A Lambda context for a handler called in this process while seeding (middy's early timeout reads the time left). */
function seedingContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'bench-seeding',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench-seeding',
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/bench-seeding',
    logStreamName: 'bench-seeding',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The value of the cookie `name` a response sets (in `headers` or `multiValueHeaders`). */
function setCookieValue(response: APIGatewayProxyResult, name: string): string | undefined {
  const all = [response.headers?.['Set-Cookie'], ...(response.multiValueHeaders?.['Set-Cookie'] ?? [])];
  for (const cookie of all) {
    if (typeof cookie === 'string' && cookie.startsWith(`${name}=`)) return cookie.slice(name.length + 1, cookie.indexOf(';'));
  }
  return undefined;
}

const unescapeHtml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (_entity, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? '');

/**
 * Passkey sign-in on the hosted login page (docs/decisions/016-passkeys.md, lib/login/authorize.ts
 * `signInWithPasskey`): local-web's page posted with `action=passkey` and a WebAuthn assertion in
 * `credential`, from a browser with no session cookie, answered with a 302 carrying a code, in two
 * requests: the credential's read, then one transaction of its new count, the spent challenge,
 * the user's block check, the session and the code.
 *
 * Each request is a user of its own with a passkey (a synced ES256 one, test/support's software
 * authenticator) registered by the service's own ceremony and store (passkey-login.ts
 * `registerPasskey`), and a page of its own: the authorization request's GET through the real
 * handler in this process, whose transaction cookie holds the page's challenge (single use: the
 * spent-challenge item refuses a replay) and whose passkey form holds the request options that
 * challenge is in, which the authenticator signs (its count 1, the stored one 0).
 */
function passkeySignIn(): Operation {
  return {
    name: 'passkey sign-in',
    function: 'authorize',
    floor: 'passkeySignIn',
    expectedStatus: 302,
    async requests(seeding, count, tag) {
      const { service } = seeding;
      const environment = environmentOf(seeding);
      const client = clientOf(seeding, 'local-web');
      const scope = { environment, client, rp: relyingPartyFor(seeding.config, seeding.issuer, environment) };
      const authorize = createAuthorizeHandler(() => service);
      const events = new Array<APIGatewayProxyEvent>(count);
      await inBatches(count, async (index) => {
        // The user's passkey, as the passkeys page creates it after a login by code.
        const user = { authType: 'email' as const, value: emailOf(tag, index) };
        const owner: SignedInUser = { userKey: userKeyOf(seeding.keys, user), user, userHandle: randomBytes(32).toString('base64url') };
        const authenticator = new SoftAuthenticator({ origin: scope.rp.origin });
        const challenge = newChallenge();
        const options = JSON.parse(creationOptions(scope.rp, owner, challenge, [])) as PublicKeyCredentialCreationOptionsJSON;
        const registration = await registerPasskey(
          service,
          scope,
          owner,
          challenge,
          JSON.stringify(authenticator.register(options)),
          undefined,
        );
        if (!registration.ok) throw new Error(`${tag}-${index}: the passkey was not registered`);

        // The page, through the real handler: its transaction cookie, CSRF token and request options.
        const page = await authorize(
          browserGet(
            '/idp/v1/account/authorize',
            {
              response_type: 'code',
              client_id: client.id,
              redirect_uri: REDIRECT_URI,
              scope: SESSION_SCOPE,
              state: random(),
              nonce: random(),
              code_challenge: s256Challenge(randomBytes(32).toString('base64url')),
              code_challenge_method: 'S256',
            },
            '',
          ),
          seedingContext(),
        );
        const transaction = setCookieValue(page, LOGIN_COOKIE);
        const csrf = /name="csrf" value="([^"]*)"/.exec(page.body)?.[1];
        const requestOptions = /<form id="passkey-form"[^>]*\bdata-options="([^"]*)"/.exec(page.body)?.[1];
        if (page.statusCode !== 200 || transaction === undefined || csrf === undefined || requestOptions === undefined) {
          throw new Error(`The authorization page answered ${page.statusCode} without a passkey form: ${page.body.slice(0, 300)}`);
        }
        const assertion = authenticator.authenticate(JSON.parse(unescapeHtml(requestOptions)) as PublicKeyCredentialRequestOptionsJSON);
        events[index] = pagePost(
          '/idp/v1/account/authorize',
          { csrf: unescapeHtml(csrf), action: 'passkey', credential: JSON.stringify(assertion) },
          `${LOGIN_COOKIE}=${transaction}`,
        );
      });
      return events;
    },
  };
}
