/**
 * What `npm run bench` measures: one entry per operation, each naming the function bundle that
 * serves it, the floor export it is compared with (bench/floor.ts), and how to make `count`
 * requests of it, each for its own user (the per-user attempt limits would otherwise refuse the
 * sixth), with whatever they need already stored (a code, an authorization code, a refresh token family) by the service's
 * own adapters. Adding an operation is one more entry.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { ServiceConfig } from '../lib/platform/config';
import type { CodeStore } from '../lib/otp/ports';
import type { AuthorizationCodeStore, RefreshTokenStore } from '../lib/oauth/ports';
import { authorizationCodeHash, mintAuthorizationCode } from '../lib/oauth/authorization-codes';
import { newSessionId } from '../lib/oauth/sessions';
import { digestCode, s256Challenge } from '../lib/otp/codes';
import { subjectOf, userKeyOf, type HmacKeys } from '../lib/keys/hmac-keys';
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

export const REDIRECT_URI = 'http://localhost:3000/callback';
const ENVIRONMENT = 'local';
/** local-server's secret (config/local.json holds only its SHA-256): the confidential client's Basic credentials. */
const LOCAL_SERVER_SECRET = 'local-server-secret';

/** What an operation's requests are made from: the keys and stores of the service under test. */
export interface Seeding {
  readonly config: ServiceConfig;
  readonly keys: HmacKeys;
  readonly codes: CodeStore;
  readonly authorizationCodes: AuthorizationCodeStore;
  readonly refreshTokens: RefreshTokenStore;
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
  const headers = { Host: 'bench.local', 'Content-Type': contentType, 'User-Agent': 'bench' };
  return {
    resource: path,
    path,
    httpMethod: 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      authorizer: null,
      domainName: 'bench.local',
      httpMethod: 'POST',
      identity: { sourceIp, userAgent: 'bench' },
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
