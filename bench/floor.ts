/**
 * The floor each operation of `npm run bench` is measured against (docs/performance.md): what any
 * implementation must do per request, and nothing more. The same DynamoDB requests as the
 * service's adapters (commands, keys, condition and update expressions, return values), the same
 * delivery call or signatures, the same HMACs (lib/keys/hmac-keys.ts and codes.ts: plain
 * node:crypto), the same client settings (timeouts, retries); with the bare SDK clients (no
 * document client) and jose, and without the framework: no middy, no zod, no logger, no
 * configuration file (constants matching config/local.json), no error vocabulary (a request the
 * floor cannot serve is a 500). Where the client has refresh tokens, a login starts a family as
 * the service does (the same item, condition and transaction; the token minted and hashed by
 * lib/oauth/refresh-tokens.ts, plain node:crypto) and the answer carries the refresh token. A
 * single sign-on session is read and written as lib/adapters/dynamodb/session-store.ts does, and a
 * logout's back-channel notices go to SQS as lib/adapters/sqs/logout-queue.ts sends them. A
 * passkey sign-in opens the login transaction's cookie with jose, checks the assertion with
 * node:crypto alone, and writes what lib/adapters/dynamodb/passkey-sign-in.ts and the session
 * store write, in one transaction. Bundled
 * with the functions' own esbuild options and run by the same worker, so what differs is what the
 * service adds.
 *
 * One export per kind of operation, each an API Gateway (REST, v1) handler like the functions'.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, createPublicKey, randomBytes, randomUUID, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import {
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { importJWK, jwtDecrypt, jwtVerify, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DELIVERY_CLIENT_SETTINGS, DYNAMODB_CLIENT_SETTINGS, QUEUE_CLIENT_SETTINGS } from '../lib/platform/aws';
import { digestCode, digestsEqual, generateCode, guessDigestOf, s256Challenge } from '../lib/otp/codes';
import { slotShifts } from '../lib/adapters/dynamodb/sliding-window';
import { deriveHmacKeys, guardKeyOf, hmac, subjectOf, userKeyOf, type HmacKeys } from '../lib/keys/hmac-keys';
import { sourceNetworkOf } from '../lib/guards/source-network';
import {
  familyKeyOf,
  mintFirstRefreshToken,
  parseRefreshToken,
  refreshTokenHash,
  refreshTokenOf,
  successorOf,
} from '../lib/oauth/refresh-tokens';

/** config/local.json's environment `local` and its clients, as constants. */
const ENVIRONMENT = 'local';
const LIMIT = { maxAttempts: 5, windowSeconds: 60 };
const FAILURE_CAP = { maxConsecutive: 100, windowSeconds: 86_400 };
const CODE = { ttlSeconds: 300, maxTries: 3 };
/** The per-source email window (limits.emailPerIp) and a refresh family's own limit (refreshTokens.limit, its default). */
const EMAIL_PER_IP = { maxSends: 100, windowSeconds: 3600 };
const REFRESH_LIMIT = { maxRefreshes: 10, windowSeconds: 60 };
/** A family's rotation slots (lib/platform/config.ts MAX_REFRESH_WINDOW; not imported: the floor loads no configuration schema). */
const MAX_REFRESH_WINDOW = 20;
const SENDER = 'Identity Dev <no-reply@identity.local>';
const AUDIENCE = 'http://127.0.0.1:3000/api';
/** The environment's single sign-on session lifetimes (s): config/local.json gives none, so the defaults. */
const SESSION = { idleSeconds: 3 * 86_400, absoluteSeconds: 7 * 86_400 };
/** An authorization code's lifetime (s), lib/oauth/authorization-codes.ts. */
const AUTHORIZATION_CODE_TTL_SECONDS = 60;
/** What the bench's stage adds to config/local.json (bench/operations.ts `benchStageConfig`). */
const POST_LOGOUT_REDIRECT_URIS: Record<string, readonly string[]> = { 'local-web': ['http://127.0.0.1:3000/signed-out'] };
const BACKCHANNEL_CLIENTS: ReadonlySet<string> = new Set(['bench-backchannel']);
/** Refresh token lifetimes (s), as config/local.json gives the three clients (the reuse interval at its default, 0). */
const REFRESH = { idleSeconds: 2_592_000, absoluteSeconds: 7_776_000 };
/** How long a family outlives its last usable moment, for the access tokens it issued (lib/oauth/refresh-tokens.ts). */
const ACCESS_TOKEN_MAX_SECONDS = 86_400;
interface FloorClient {
  readonly format: 'jwt' | 'opaque';
  readonly alg: 'ES256' | 'RS256';
  /** The ID token's algorithm: RS256 unless registered otherwise (OIDC Registration §2). */
  readonly idTokenAlg: 'ES256' | 'RS256';
  readonly ttlSeconds: number;
  readonly refresh: typeof REFRESH | undefined;
  /** SHA-256 of a confidential client's secret (config/local.json `apiKeySha256`). */
  readonly secretSha256?: Buffer;
}
const CLIENTS: Record<string, FloorClient> = {
  'local-web': { format: 'jwt', alg: 'ES256', idTokenAlg: 'RS256', ttlSeconds: 3600, refresh: REFRESH },
  'local-rs256': { format: 'jwt', alg: 'RS256', idTokenAlg: 'RS256', ttlSeconds: 3600, refresh: REFRESH },
  'local-opaque': { format: 'opaque', alg: 'ES256', idTokenAlg: 'RS256', ttlSeconds: 3600, refresh: REFRESH },
  'local-server': {
    format: 'jwt',
    alg: 'ES256',
    idTokenAlg: 'RS256',
    ttlSeconds: 3600,
    refresh: REFRESH,
    secretSha256: Buffer.from('ac45725a406be9047a8b06386ae8d97280c515637e60895952747da43e014d65', 'hex'),
  },
};

/**
 * The client a token request comes from, as lib/oauth/client-authentication.ts decides it with the
 * same work: HTTP Basic (RFC 6749 §2.3.1) checked by the secret's SHA-256 in constant time, else
 * the `client_id` a public client names itself with. Undefined for a refused credential.
 */
function requestingClient(event: APIGatewayProxyEvent, fields: Record<string, string>): string | undefined {
  const authorization = event.headers.Authorization ?? event.headers.authorization;
  if (authorization === undefined) return fields.client_id ?? '';
  const [id = '', secret = ''] = Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8').split(':');
  const clientId = decodeURIComponent(id);
  const stored = CLIENTS[clientId]?.secretSha256;
  return stored !== undefined && timingSafeEqual(stored, sha256(decodeURIComponent(secret))) ? clientId : undefined;
}

interface Container {
  readonly table: string;
  readonly issuer: string;
  readonly keys: HmacKeys;
  readonly signers: Map<string, { kid: string; key: CryptoKey }>;
  /** Every published key's public half by `kid`, with its algorithm: what an `id_token_hint` is verified with. */
  readonly verifiers: Map<string, { alg: string; key: CryptoKey }>;
  readonly dynamodb: DynamoDBClient;
  readonly ses: SESClient;
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /** The passkeys' relying party (lib/passkeys/ceremonies.ts `relyingPartyOf`): the issuer's origin, and the SHA-256 of its host name (the RP ID). */
  readonly origin: string;
  readonly rpIdHash: Buffer;
}

let container: Promise<Container> | undefined;

/** Once per container, as the service does: the environment, the secrets (files locally), the clients. */
function init(): Promise<Container> {
  container ??= (async () => {
    const secrets = process.env.LOCAL_SECRETS_DIR ?? '';
    const stored = JSON.parse(readFileSync(join(secrets, 'signing-keys.json'), 'utf8')) as {
      keys: Array<{ kid: string; alg: 'ES256' | 'RS256'; status: string; privateJwk: JWK }>;
    };
    const signers = new Map<string, { kid: string; key: CryptoKey }>();
    const verifiers = new Map<string, { alg: string; key: CryptoKey }>();
    for (const key of stored.keys) {
      const { kty, crv, x, y, n: modulus, e } = key.privateJwk;
      const publicJwk = kty === 'EC' ? { kty, crv, x, y } : { kty, n: modulus, e };
      verifiers.set(key.kid, { alg: key.alg, key: (await importJWK({ ...publicJwk, alg: key.alg }, key.alg)) as CryptoKey });
      if (key.status !== 'current') continue;
      signers.set(key.alg, { kid: key.kid, key: (await importJWK({ ...key.privateJwk, alg: key.alg }, key.alg)) as CryptoKey });
    }
    return {
      table: process.env.TABLE_NAME ?? '',
      issuer: process.env.ISSUER ?? '',
      keys: deriveHmacKeys(Buffer.from(readFileSync(join(secrets, 'hmac-secret'), 'utf8').trim(), 'base64url')),
      signers,
      verifiers,
      dynamodb: new DynamoDBClient({ ...DYNAMODB_CLIENT_SETTINGS }),
      ses: new SESClient({ ...DELIVERY_CLIENT_SETTINGS }),
      sqs: new SQSClient({ ...QUEUE_CLIENT_SETTINGS }),
      queueUrl: process.env.LOGOUT_QUEUE_URL ?? '',
      origin: new URL(process.env.ISSUER ?? '').origin,
      rpIdHash: sha256(new URL(process.env.ISSUER ?? '').hostname),
    };
  })();
  return container;
}

const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const fieldsOf = (event: APIGatewayProxyEvent): Record<string, string> =>
  event.headers['Content-Type']?.startsWith('application/json') === true
    ? (JSON.parse(event.body ?? '{}') as Record<string, string>)
    : Object.fromEntries(new URLSearchParams(event.body ?? ''));

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();
/** `at_hash` of an ES256 or RS256 ID token (OIDC Core §3.1.3.6), as lib/oauth/id-tokens.ts. */
const atHash = (accessToken: string) => sha256(accessToken).subarray(0, 16).toString('base64url');
/** The key an opaque token is stored under, as lib/oauth/access-tokens.ts. */
const opaqueTokenHash = (token: string) => sha256(token).toString('base64url');

const n = (value: number): AttributeValue => ({ N: String(value) });
const s = (value: string): AttributeValue => ({ S: value });

/** The attempt limiter's write (lib/adapters/dynamodb/attempt-limiter.ts `tryProcess`), with the token endpoint's failure cap or without. */
function attemptWrite(c: Container, operation: 'send' | 'token', userKey: string, now: number): UpdateItemCommand {
  // `#o`: an operator's block, which the same write reads back (and keeps from expiring).
  const names: Record<string, string> = { '#b': 'blocked_until', '#e': 'expires_at', '#o': 'operator_blocked' };
  const shifts: string[] = [];
  for (let index = 0; index < LIMIT.maxAttempts; index += 1) {
    names[`#s${index}`] = `a${index}`;
    shifts.push(index < LIMIT.maxAttempts - 1 ? `#s${index} = if_not_exists(#s${index + 1}, :zero)` : `#s${index} = :now`);
  }
  const window = operation === 'token' ? Math.max(LIMIT.windowSeconds, FAILURE_CAP.windowSeconds) : LIMIT.windowSeconds;
  let condition = '(attribute_not_exists(#b) OR #b <= :now) AND (attribute_not_exists(#s0) OR #s0 <= :windowStart)';
  const values: Record<string, AttributeValue> = {
    ':now': n(now),
    ':zero': n(0),
    ':windowStart': n(now - LIMIT.windowSeconds * 1000),
    ':expires': n(Math.ceil((now + window * 1000) / 1000)),
  };
  if (operation === 'token') {
    names['#fc'] = 'fail_count';
    names['#fs'] = 'fail_since';
    condition += ' AND (attribute_not_exists(#fc) OR #fc < :cap OR #fs <= :runStart)';
    values[':cap'] = n(FAILURE_CAP.maxConsecutive);
    values[':runStart'] = n(now - FAILURE_CAP.windowSeconds * 1000);
  }
  return new UpdateItemCommand({
    TableName: c.table,
    Key: { pk: s(`limit#${operation}#${ENVIRONMENT}#${userKey}`) },
    UpdateExpression: `SET ${shifts.join(', ')}, #e = if_not_exists(#o, :expires)`,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
}

/** A small email of the size the service renders (subject, text and HTML). */
function email(code: string): { subject: string; text: string; html: string } {
  const text = `Use this code to sign in to Identity Dev:\n\n${code}\n\nIt expires in 5 minutes.\n\nIf you didn't request this code, you can safely ignore this email. Don't share it with anyone.\n`;
  const paragraph = 'margin:0 0 16px;font:16px/1.5 -apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#1a1a1a';
  const html = `<!DOCTYPE html>\n<html lang="en-US">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width">\n<title>Your Identity Dev sign-in code</title>\n</head>\n<body style="margin:0;padding:24px;background:#f6f6f6">\n<div style="max-width:480px;margin:0 auto;padding:24px;background:#ffffff;border-radius:8px">\n<p style="${paragraph}">Use this code to sign in to Identity Dev:</p>\n<p style="margin:0 0 16px;font:600 28px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:4px">${code}</p>\n<p style="${paragraph}">It expires in 5 minutes.</p>\n<p style="${paragraph}">If you didn't request this code, you can safely ignore this email. Don't share it with anyone.</p>\n</div>\n</body>\n</html>\n`;
  return { subject: 'Your Identity Dev sign-in code', text, html };
}

/**
 * The per-source email window's write (lib/guards/email-guards.ts, send-guards.ts `countSend`): its
 * key is the HMAC of the source's network, as guardKeyOf/sourceNetworkOf make it.
 */
function emailWindowWrite(c: Container, sourceKey: string, now: number): UpdateItemCommand {
  const slots = EMAIL_PER_IP.maxSends;
  return new UpdateItemCommand({
    TableName: c.table,
    Key: { pk: s(`guard#email_ip#${ENVIRONMENT}#${sourceKey}`) },
    UpdateExpression: `SET ${slotShifts(slots, (index) => `w${index}`).join(', ')}, #e = :expires`,
    ConditionExpression: 'attribute_not_exists(w0) OR w0 <= :windowStart',
    ExpressionAttributeNames: { '#e': 'expires_at' },
    ExpressionAttributeValues: {
      ':now': n(now),
      ...(slots > 1 ? { ':zero': n(0) } : {}),
      ':windowStart': n(now - EMAIL_PER_IP.windowSeconds * 1000),
      ':expires': n(Math.ceil((now + EMAIL_PER_IP.windowSeconds * 1000) / 1000)),
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
}

/** `POST /idp/v1/otp/send` by email: the attempt, the source's email window, the code (lib/adapters/dynamodb/code-store.ts `save`), SES. */
export async function sendEmail(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const c = await init();
  const fields = fieldsOf(event);
  const user = (fields.user_id ?? '').trim().toLowerCase();
  const clientId = fields.client_id ?? '';
  const now = Date.now();
  await c.dynamodb.send(attemptWrite(c, 'send', userKeyOf(c.keys, { authType: 'email', value: user }), now));
  await c.dynamodb.send(emailWindowWrite(c, guardKeyOf(c.keys, 'ip', sourceNetworkOf(event.requestContext.identity.sourceIp)), now));
  const code = generateCode();
  const names: Record<string, string> = { '#live': 'live', '#e': 'expires_at' };
  const shifts: string[] = [];
  for (let index = 0; index < LIMIT.maxAttempts; index += 1) {
    names[`#h${index}`] = `h${index}`;
    shifts.push(`#h${index} = if_not_exists(${index < LIMIT.maxAttempts - 1 ? `#h${index + 1}` : '#live'}, :none)`);
  }
  const codeDigest = digestCode(
    c.keys.code,
    { environmentId: ENVIRONMENT, clientId, redirectUri: fields.redirect_uri ?? '', authType: 'email', user },
    code,
  );
  const notAfter = now + CODE.ttlSeconds * 1000;
  const sendId = randomUUID();
  await c.dynamodb.send(
    new UpdateItemCommand({
      TableName: c.table,
      Key: { pk: s(`code#${ENVIRONMENT}#${clientId}#${userKeyOf(c.keys, { authType: 'email', value: user })}`) },
      UpdateExpression: `SET ${shifts.join(', ')}, #live = :code, #e = :expires`,
      ConditionExpression: 'NOT contains(#cancelled, :sendId)',
      ExpressionAttributeNames: { ...names, '#cancelled': 'cancelled' },
      ExpressionAttributeValues: {
        ':sendId': s(sendId),
        ':none': { NULL: true },
        ':code': {
          M: {
            send_id: s(sendId),
            channel: s('email'),
            code_digest: s(codeDigest),
            created_at: n(now),
            not_after: n(notAfter),
            tries: n(0),
            max_tries: n(CODE.maxTries),
            guesses: { L: [] },
            presentations: { L: [] },
          },
        },
        ':expires': n(Math.ceil(notAfter / 1000)),
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const message = email(code);
  const utf8 = (data: string) => ({ Data: data, Charset: 'UTF-8' });
  await c.ses.send(
    new SendEmailCommand({
      Source: SENDER,
      Destination: { ToAddresses: [user] },
      Message: { Subject: utf8(message.subject), Body: { Text: utf8(message.text), Html: utf8(message.html) } },
    }),
  );
  return json(200, { status: 'sent', channel: 'email', expires_in: CODE.ttlSeconds });
}

/** What a grant puts in its tokens: whose, since when, with what scope and address claims. */
interface FloorGrant {
  readonly sub: string;
  readonly authTime: number;
  readonly now: number;
  readonly scope: string | undefined;
  readonly claims: Record<string, string | boolean>;
  readonly nonce?: string | undefined;
  /** The login's session id, the ID token's `sid`. */
  readonly sid?: string | undefined;
}

const claimsItem = (claims: Record<string, string | boolean>): Record<string, AttributeValue> =>
  Object.keys(claims).length === 0
    ? {}
    : {
        claims: {
          M: Object.fromEntries(
            Object.entries(claims).map(([name, value]) => [name, typeof value === 'string' ? s(value) : { BOOL: value }]),
          ),
        },
      };

const clientOf = (clientId: string): FloorClient => {
  const client = CLIENTS[clientId];
  if (client === undefined) throw new Error('unknown client');
  return client;
};

/**
 * The access token as the client's settings say: signed (RFC 9068, with `sid` when it belongs to
 * a refresh token family), or opaque, with the item to store for it (lib/adapters/dynamodb/token-store.ts
 * `tokenItemOf`), which the caller writes alone or inside its own transaction.
 */
async function mintAccessToken(
  c: Container,
  clientId: string,
  grant: FloorGrant,
  familyKey: string | undefined,
): Promise<{ token: string; item: Record<string, AttributeValue> | undefined }> {
  const client = clientOf(clientId);
  const iat = Math.floor(grant.now / 1000);
  if (client.format === 'opaque') {
    const token = randomBytes(32).toString('base64url');
    const item: Record<string, AttributeValue> = {
      pk: s(`token#${opaqueTokenHash(token)}`),
      sub: s(grant.sub),
      client_id: s(clientId),
      environment_id: s(ENVIRONMENT),
      aud: s(AUDIENCE),
      ...(grant.scope === undefined ? {} : { scope: s(grant.scope) }),
      jti: s(randomUUID()),
      amr: { L: [s('otp'), s('email')] },
      iat: n(iat),
      auth_time: n(grant.authTime),
      exp: n(iat + client.ttlSeconds),
      ...claimsItem(grant.claims),
      ...(familyKey === undefined ? {} : { family: s(familyKey) }),
      expires_at: n(iat + client.ttlSeconds),
    };
    return { token, item };
  }
  const signer = c.signers.get(client.alg);
  if (signer === undefined) throw new Error('no signing key');
  const token = await new SignJWT({
    client_id: clientId,
    env_id: ENVIRONMENT,
    auth_time: grant.authTime,
    amr: ['otp', 'email'],
    ...(grant.scope === undefined ? {} : { scope: grant.scope }),
    ...(familyKey === undefined ? {} : { sid: familyKey }),
    ...grant.claims,
  })
    .setProtectedHeader({ alg: client.alg, typ: 'at+jwt', kid: signer.kid })
    .setIssuer(c.issuer)
    .setSubject(grant.sub)
    .setAudience(AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + client.ttlSeconds)
    .setJti(randomUUID())
    .sign(signer.key);
  return { token, item: undefined };
}

const tokenPut = (c: Container, item: Record<string, AttributeValue>) => ({
  TableName: c.table,
  Item: item,
  ConditionExpression: 'attribute_not_exists(pk)',
});

/** A family's TTL (epoch seconds): a day past its last usable moment (lib/oauth/refresh-tokens.ts `keepUntilOf`). */
function keepUntilOf(refresh: typeof REFRESH, createdAt: number, rotatedAt: number): number {
  return (
    Math.ceil(Math.min(rotatedAt + refresh.idleSeconds * 1000, createdAt + refresh.absoluteSeconds * 1000) / 1000) +
    ACCESS_TOKEN_MAX_SECONDS
  );
}

/**
 * The tokens of a login (lib/oauth/token-response.ts `issueTokens`): without refresh tokens the
 * access token (an opaque one's item put alone); with them, a new family whose first token is
 * returned, its item put alone beside a JWT or in one transaction with an opaque token's
 * (lib/adapters/dynamodb/refresh-token-store.ts `start`).
 */
async function issueTokens(
  c: Container,
  clientId: string,
  grant: FloorGrant,
  userKey: string,
): Promise<{ accessToken: string; refreshToken: string | undefined }> {
  const { refresh } = clientOf(clientId);
  if (refresh === undefined) {
    const minted = await mintAccessToken(c, clientId, grant, undefined);
    if (minted.item !== undefined) await c.dynamodb.send(new PutItemCommand(tokenPut(c, minted.item)));
    return { accessToken: minted.token, refreshToken: undefined };
  }
  const first = mintFirstRefreshToken();
  const familyKey = familyKeyOf(c.keys, first.familyId);
  const minted = await mintAccessToken(c, clientId, grant, familyKey);
  const familyPut = {
    TableName: c.table,
    Item: {
      pk: s(`refresh#${familyKey}`),
      environment_id: s(ENVIRONMENT),
      client_id: s(clientId),
      user_key: s(userKey),
      sub: s(grant.sub),
      channel: s('email'),
      ...claimsItem(grant.claims),
      ...(grant.scope === undefined ? {} : { scope: s(grant.scope) }),
      auth_time: n(grant.authTime),
      ...(grant.sid === undefined ? {} : { sid: s(grant.sid) }),
      created_at: n(grant.now),
      rotated_at: n(grant.now),
      generation: n(0),
      current: s(refreshTokenHash(c.keys, first)),
      // In the user index, as the service writes it (a logout finds the families of its session).
      user_index: s(`${ENVIRONMENT}#${userKey}`),
      user_sort: s(`${(grant.scope ?? '').split(' ').includes('offline_access') ? 'offline' : 'family'}#${grant.sid ?? ''}`),
      expires_at: n(keepUntilOf(refresh, grant.now, grant.now)),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  };
  if (minted.item === undefined) await c.dynamodb.send(new PutItemCommand(familyPut));
  else await c.dynamodb.send(new TransactWriteItemsCommand({ TransactItems: [{ Put: familyPut }, { Put: tokenPut(c, minted.item) }] }));
  return { accessToken: minted.token, refreshToken: refreshTokenOf(first) };
}

/** The ID token (OIDC Core §2, §3.1.3.6), when the scope has `openid`, as lib/oauth/id-tokens.ts. */
async function idTokenFor(c: Container, clientId: string, grant: FloorGrant, accessToken: string): Promise<string | undefined> {
  if (!(grant.scope ?? '').split(' ').includes('openid')) return undefined;
  const client = clientOf(clientId);
  const signer = c.signers.get(client.idTokenAlg);
  if (signer === undefined) throw new Error('no signing key');
  const iat = Math.floor(grant.now / 1000);
  return new SignJWT({
    auth_time: grant.authTime,
    amr: ['otp'],
    at_hash: atHash(accessToken),
    ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
    ...(grant.sid === undefined ? {} : { sid: grant.sid }),
    ...grant.claims,
  })
    .setProtectedHeader({ alg: client.idTokenAlg, typ: 'JWT', kid: signer.kid })
    .setIssuer(c.issuer)
    .setSubject(grant.sub)
    .setAudience(clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + client.ttlSeconds)
    .sign(signer.key);
}

/** The token response (RFC 6749 §5.1), with the fields the service sets. */
async function tokenResponse(
  c: Container,
  clientId: string,
  grant: FloorGrant,
  tokens: { accessToken: string; refreshToken: string | undefined },
): Promise<APIGatewayProxyResult> {
  const idToken = await idTokenFor(c, clientId, grant, tokens.accessToken);
  return json(
    200,
    {
      access_token: tokens.accessToken,
      token_type: 'Bearer',
      expires_in: clientOf(clientId).ttlSeconds,
      ...(grant.scope === undefined ? {} : { scope: grant.scope }),
      ...(tokens.refreshToken === undefined ? {} : { refresh_token: tokens.refreshToken }),
      ...(idToken === undefined ? {} : { id_token: idToken }),
    },
    { 'Cache-Control': 'no-store' },
  );
}

/** `POST /idp/v1/account/token` with a one-time code: the attempt, the guess (code-store.ts `guess`), the tokens. */
export async function exchangeCode(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const c = await init();
  const fields = fieldsOf(event);
  const user = { authType: 'email' as const, value: (fields.user_id ?? '').trim().toLowerCase() };
  const clientId = fields.client_id ?? '';
  const userKey = userKeyOf(c.keys, user);
  const now = Date.now();
  await c.dynamodb.send(attemptWrite(c, 'token', userKey, now));
  const codeDigest = digestCode(
    c.keys.code,
    { environmentId: ENVIRONMENT, clientId, redirectUri: fields.redirect_uri ?? '', authType: 'email', user: user.value },
    fields.code ?? '',
  );
  const guessDigest = guessDigestOf(codeDigest, undefined);
  const presentationId = randomUUID();
  const { Attributes: item } = await c.dynamodb.send(
    new UpdateItemCommand({
      TableName: c.table,
      Key: { pk: s(`code#${ENVIRONMENT}#${clientId}#${userKey}`) },
      UpdateExpression:
        'SET #live.#tries = #live.#tries + :one, #live.#guesses = list_append(#live.#guesses, :guessed), ' +
        '#live.#presentations = list_append(if_not_exists(#live.#presentations, :empty), :presented)',
      ConditionExpression:
        'attribute_exists(#live) AND #live.#notAfter > :now AND #live.#tries < #live.#maxTries AND NOT contains(#live.#guesses, :guess) ' +
        'AND NOT contains(#live.#abandoned, :presentation)',
      ExpressionAttributeNames: {
        '#live': 'live',
        '#tries': 'tries',
        '#guesses': 'guesses',
        '#presentations': 'presentations',
        '#abandoned': 'abandoned',
        '#notAfter': 'not_after',
        '#maxTries': 'max_tries',
      },
      ExpressionAttributeValues: {
        ':one': n(1),
        ':now': n(now),
        ':guess': s(guessDigest),
        ':guessed': { L: [s(guessDigest)] },
        ':presentation': s(presentationId),
        ':presented': { L: [s(presentationId)] },
        ':empty': { L: [] },
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
  const stored = item?.live?.M?.code_digest?.S;
  if (stored === undefined || !digestsEqual(stored, codeDigest)) return json(400, { error: 'invalid_grant' });
  const grant: FloorGrant = {
    sub: subjectOf(c.keys, ENVIRONMENT, user),
    authTime: Math.floor(now / 1000),
    now,
    scope: undefined,
    claims: {},
    // Every login gets a session id (lib/oauth/sessions.ts), which its family keeps.
    sid: randomBytes(16).toString('base64url'),
  };
  return tokenResponse(c, clientId, grant, await issueTokens(c, clientId, grant, userKey));
}

/**
 * `POST /idp/v1/account/token` with the hosted login's code: its single-use delete, the tokens and
 * the ID token (an unguessable code counts into no per-user limit: docs/decisions/011).
 */
export async function exchangeAuthorizationCode(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const c = await init();
  const fields = fieldsOf(event);
  const now = Date.now();
  const { Attributes: record } = await c.dynamodb.send(
    new DeleteItemCommand({
      TableName: c.table,
      Key: { pk: s(`authcode#${hmac(c.keys.authorizationCode, [fields.code ?? ''])}`) },
      ConditionExpression: 'not_after > :now',
      ExpressionAttributeValues: { ':now': n(now) },
      ReturnValues: 'ALL_OLD',
    }),
  );
  const userKey = record?.user_key?.S ?? '';
  const clientId = requestingClient(event, fields);
  if (clientId === undefined) return json(401, { error: 'invalid_client' });
  if (
    record?.client_id?.S !== clientId ||
    record.redirect_uri?.S !== fields.redirect_uri ||
    !digestsEqual(record.code_challenge?.S ?? '', s256Challenge(fields.code_verifier ?? ''))
  ) {
    return json(400, { error: 'invalid_grant' });
  }
  const grant: FloorGrant = {
    sub: record.sub?.S ?? '',
    authTime: Number(record.auth_time?.N),
    now,
    scope: record.scope?.S,
    claims: claimsOf(record.claims),
    nonce: record.nonce?.S,
    sid: record.sid?.S,
  };
  return tokenResponse(c, clientId, grant, await issueTokens(c, clientId, grant, userKey));
}

/** Stored address claims (a map of strings and booleans) as plain values. */
function claimsOf(item: AttributeValue | undefined): Record<string, string | boolean> {
  return Object.fromEntries(Object.entries(item?.M ?? {}).map(([name, value]) => [name, value.S ?? value.BOOL ?? false]));
}

/**
 * `POST /idp/v1/account/token` with `grant_type=refresh_token` (lib/oauth/grants/refresh-token-grant.ts):
 * the family read (strongly consistent), its checks (client, not revoked, lifetimes, the presented
 * token live), the rotation (refresh-token-store.ts `rotate`: one conditional update with the
 * family's own refresh limit, a transaction with an opaque token's item), the tokens with the
 * successor. No per-user attempt: a refresh token is unguessable (docs/decisions/011).
 */
export async function refreshTokens(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const c = await init();
  const fields = fieldsOf(event);
  const clientId = requestingClient(event, fields);
  if (clientId === undefined) return json(401, { error: 'invalid_client' });
  const { refresh } = clientOf(clientId);
  const presented = parseRefreshToken(fields.refresh_token ?? '');
  if (refresh === undefined || presented === undefined) return json(400, { error: 'invalid_grant' });
  const now = Date.now();
  const familyKey = familyKeyOf(c.keys, presented.familyId);
  const key = { pk: s(`refresh#${familyKey}`) };
  const { Item: family } = await c.dynamodb.send(new GetItemCommand({ TableName: c.table, Key: key, ConsistentRead: true }));
  if (family === undefined) return json(400, { error: 'invalid_grant' });
  const createdAt = Number(family.created_at?.N);
  const rotatedAt = Number(family.rotated_at?.N);
  const presentedHash = refreshTokenHash(c.keys, presented);
  if (
    family.client_id?.S !== clientId ||
    family.environment_id?.S !== ENVIRONMENT ||
    family.revoked_at !== undefined ||
    now >= Math.min(rotatedAt + refresh.idleSeconds * 1000, createdAt + refresh.absoluteSeconds * 1000) ||
    presentedHash !== family.current?.S
  ) {
    return json(400, { error: 'invalid_grant' });
  }
  const grant: FloorGrant = {
    sub: family.sub?.S ?? '',
    authTime: Number(family.auth_time?.N),
    now,
    scope: family.scope?.S,
    claims: claimsOf(family.claims),
    sid: family.sid?.S,
  };
  const successor = successorOf(c.keys, presented);
  const limitSlot = `r${MAX_REFRESH_WINDOW - REFRESH_LIMIT.maxRefreshes}`;
  const minted = await mintAccessToken(c, clientId, grant, familyKey);
  const update = {
    TableName: c.table,
    Key: key,
    UpdateExpression: `SET #current = :successor, #previous = :presented, #generation = #generation + :one, #rotated_at = :now, #expires_at = :keep, ${slotShifts(MAX_REFRESH_WINDOW, (index) => `r${index}`).join(', ')}`,
    ConditionExpression: `#current = :presented AND attribute_not_exists(#revoked_at) AND #rotated_at > :issued_after AND #created_at > :started_after AND (attribute_not_exists(${limitSlot}) OR ${limitSlot} <= :window_start)`,
    ExpressionAttributeNames: {
      '#current': 'current',
      '#previous': 'previous',
      '#generation': 'generation',
      '#rotated_at': 'rotated_at',
      '#created_at': 'created_at',
      '#revoked_at': 'revoked_at',
      '#expires_at': 'expires_at',
    },
    ExpressionAttributeValues: {
      ':successor': s(refreshTokenHash(c.keys, successor)),
      ':presented': s(presentedHash),
      ':one': n(1),
      ':now': n(now),
      ':keep': n(keepUntilOf(refresh, createdAt, now)),
      ':issued_after': n(now - refresh.idleSeconds * 1000),
      ':started_after': n(now - refresh.absoluteSeconds * 1000),
      ':window_start': n(now - REFRESH_LIMIT.windowSeconds * 1000),
      ':zero': n(0),
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  if (minted.item === undefined) await c.dynamodb.send(new UpdateItemCommand(update));
  else await c.dynamodb.send(new TransactWriteItemsCommand({ TransactItems: [{ Update: update }, { Put: tokenPut(c, minted.item) }] }));
  return tokenResponse(c, clientId, grant, { accessToken: minted.token, refreshToken: refreshTokenOf(successor) });
}

/** The session cookie's reference for the environment (lib/sessions/session-cookie.ts), and the key its session is stored under. */
function sessionKeyOfRequest(c: Container, event: APIGatewayProxyEvent): string | undefined {
  const name = `idp_sso_${ENVIRONMENT}`;
  for (const part of (event.headers.cookie ?? event.headers.Cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return hmac(c.keys.session, ['session', value.join('=')]);
  }
  return undefined;
}

/** A session item read back as the service uses it, or undefined when it is not live in the environment at `now`. */
function liveSession(item: Record<string, AttributeValue> | undefined, now: number) {
  if (item === undefined || item.environment_id?.S !== ENVIRONMENT) return undefined;
  const createdAt = Number(item.created_at?.N);
  const lastSeen = Number(item.last_seen?.N);
  const usableUntil = Math.min(lastSeen + SESSION.idleSeconds * 1000, createdAt + SESSION.absoluteSeconds * 1000);
  if (now >= usableUntil) return undefined;
  return {
    sid: item.sid?.S ?? '',
    userKey: item.user_key?.S ?? '',
    user: { authType: item.auth_type?.S === 'sms' ? ('sms' as const) : ('email' as const), value: item.user_id?.S ?? '' },
    channel: item.channel?.S ?? '',
    authTime: Number(item.auth_time?.N),
    createdAt,
    clients: item.clients?.SS ?? [],
  };
}

const redirect = (location: string, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode: 302,
  headers: { Location: location, 'Cache-Control': 'no-store', ...headers },
  body: '',
});

/**
 * `GET /idp/v1/account/authorize` from a browser with a live session (lib/login/authorize.ts
 * `loginWithSession`): the request's checks, the session's read (strongly consistent), then its
 * touch and the authorization code's Put in one transaction on condition that it is still live
 * (session-store.ts `use`), and a 302 to the client with the code.
 */
export async function authorizeWithSession(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const c = await init();
  const query = event.queryStringParameters ?? {};
  const clientId = query.client_id ?? '';
  const redirectUri = query.redirect_uri ?? '';
  const codeChallenge = query.code_challenge ?? '';
  if (
    CLIENTS[clientId] === undefined ||
    redirectUri !== 'http://127.0.0.1:3000/callback' ||
    query.response_type !== 'code' ||
    query.code_challenge_method !== 'S256' ||
    !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)
  ) {
    return json(400, { error: 'invalid_request' });
  }
  const sessionKey = sessionKeyOfRequest(c, event);
  if (sessionKey === undefined) return json(400, { error: 'login_required' });
  const now = Date.now();
  const key = { pk: s(`session#${sessionKey}`) };
  const { Item: item } = await c.dynamodb.send(new GetItemCommand({ TableName: c.table, Key: key, ConsistentRead: true }));
  const session = liveSession(item, now);
  if (session === undefined || !['email', 'sms', 'voice'].includes(session.channel)) return json(400, { error: 'login_required' });
  const scope = query.scope ?? '';
  const claims: Record<string, string | boolean> = scope.split(' ').includes('email')
    ? { email: session.user.value, email_verified: true }
    : {};
  const code = randomBytes(32).toString('base64url');
  const notAfter = now + AUTHORIZATION_CODE_TTL_SECONDS * 1000;
  await c.dynamodb.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        {
          Update: {
            TableName: c.table,
            Key: key,
            UpdateExpression: 'SET last_seen = :now, #expires = :keep ADD clients :client',
            ConditionExpression:
              'attribute_exists(pk) AND environment_id = :environment AND last_seen > :seenAfter AND created_at > :startedAfter',
            ExpressionAttributeNames: { '#expires': 'expires_at' },
            ExpressionAttributeValues: {
              ':now': n(now),
              ':keep': n(Math.ceil(Math.min(now + SESSION.idleSeconds * 1000, session.createdAt + SESSION.absoluteSeconds * 1000) / 1000)),
              ':client': { SS: [clientId] },
              ':environment': s(ENVIRONMENT),
              ':seenAfter': n(now - SESSION.idleSeconds * 1000),
              ':startedAfter': n(now - SESSION.absoluteSeconds * 1000),
            },
          },
        },
        {
          Put: {
            TableName: c.table,
            Item: {
              pk: s(`authcode#${hmac(c.keys.authorizationCode, [code])}`),
              environment_id: s(ENVIRONMENT),
              client_id: s(clientId),
              redirect_uri: s(redirectUri),
              code_challenge: s(codeChallenge),
              ...(query.nonce === undefined ? {} : { nonce: s(query.nonce) }),
              scope: s(scope),
              user_key: s(session.userKey),
              sub: s(subjectOf(c.keys, ENVIRONMENT, session.user)),
              channel: s(session.channel),
              ...claimsItem(claims),
              auth_time: n(session.authTime),
              sid: s(session.sid),
              not_after: n(notAfter),
              expires_at: n(Math.ceil(notAfter / 1000)),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    }),
  );
  const location = new URL(redirectUri);
  location.searchParams.set('code', code);
  if (query.state !== undefined) location.searchParams.set('state', query.state);
  location.searchParams.set('iss', c.issuer);
  return redirect(location.toString());
}

/**
 * `GET /idp/v1/account/logout` with an `id_token_hint` of the browser's session (lib/login/end-session.ts
 * `requestLogout`, lib/sessions/end-sessions.ts `endSession`): the hint verified (any age), the
 * redirect URI checked, the session's read, its delete, the user index's Query, the revocation of
 * each refresh token family that ends with it, one SQS SendMessageBatch of the logout notices of
 * its back-channel clients, and a 302 back with `state` that clears the cookie.
 */
export async function logout(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const c = await init();
  const query = event.queryStringParameters ?? {};
  let hint: { sub?: unknown; aud?: unknown; sid?: unknown };
  try {
    ({ payload: hint } = await jwtVerify(
      query.id_token_hint ?? '',
      (header) => {
        const verifier = c.verifiers.get(header.kid ?? '');
        return verifier !== undefined && verifier.alg === header.alg ? verifier.key : new Uint8Array(0);
      },
      {
        issuer: c.issuer,
        typ: 'JWT',
        algorithms: ['ES256', 'RS256'],
        requiredClaims: ['sub', 'aud'],
        clockTolerance: Number.MAX_SAFE_INTEGER,
      },
    ));
  } catch {
    return json(400, { error: 'confirmation needed' });
  }
  const clientId = typeof hint.aud === 'string' ? hint.aud : Array.isArray(hint.aud) ? String(hint.aud[0]) : '';
  const redirectUri = query.post_logout_redirect_uri ?? '';
  const sessionKey = sessionKeyOfRequest(c, event);
  if (!(POST_LOGOUT_REDIRECT_URIS[clientId] ?? []).includes(redirectUri) || sessionKey === undefined) {
    return json(400, { error: 'confirmation needed' });
  }
  const key = { pk: s(`session#${sessionKey}`) };
  const { Item: found } = await c.dynamodb.send(new GetItemCommand({ TableName: c.table, Key: key, ConsistentRead: true }));
  if (found !== undefined && (found.environment_id?.S !== ENVIRONMENT || found.sid?.S !== hint.sid)) {
    return json(400, { error: 'confirmation needed' });
  }
  const { Attributes: ended } = await c.dynamodb.send(new DeleteItemCommand({ TableName: c.table, Key: key, ReturnValues: 'ALL_OLD' }));
  if (ended !== undefined) {
    const sid = ended.sid?.S ?? '';
    const userKey = ended.user_key?.S ?? '';
    const families: string[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await c.dynamodb.send(
        new QueryCommand({
          TableName: c.table,
          IndexName: 'byUser',
          KeyConditionExpression: '#index = :index',
          ExpressionAttributeNames: { '#index': 'user_index' },
          ExpressionAttributeValues: { ':index': s(`${ENVIRONMENT}#${userKey}`) },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        if (item.pk?.S?.startsWith('refresh#') === true && item.user_sort?.S === `family#${sid}`) families.push(item.pk.S);
      }
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    const now = Date.now();
    await Promise.all(
      families.map((pk) =>
        c.dynamodb.send(
          new UpdateItemCommand({
            TableName: c.table,
            Key: { pk: s(pk) },
            UpdateExpression:
              'SET #revoked_at = if_not_exists(#revoked_at, :now), #revoked_reason = if_not_exists(#revoked_reason, :reason)',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#revoked_at': 'revoked_at', '#revoked_reason': 'revoked_reason' },
            ExpressionAttributeValues: { ':now': n(now), ':reason': s('session_ended') },
          }),
        ),
      ),
    );
    const user = { authType: ended.auth_type?.S === 'sms' ? ('sms' as const) : ('email' as const), value: ended.user_id?.S ?? '' };
    const notices = (ended.clients?.SS ?? [])
      .filter((client) => BACKCHANNEL_CLIENTS.has(client))
      .map((client) =>
        JSON.stringify({
          v: 1,
          issuer: c.issuer,
          environmentId: ENVIRONMENT,
          clientId: client,
          subject: subjectOf(c.keys, ENVIRONMENT, user),
          sid,
        }),
      );
    if (notices.length > 0) {
      await c.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: c.queueUrl,
          Entries: notices.map((body, index) => ({ Id: String(index), MessageBody: body })),
        }),
      );
    }
  }
  const location = new URL(redirectUri);
  if (query.state !== undefined) location.searchParams.set('state', query.state);
  return redirect(location.toString(), { 'Set-Cookie': `idp_sso_${ENVIRONMENT}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax` });
}

/**
 * A COSE_Key (RFC 9052 §7) of an ES256 credential (kty EC2, alg -7, crv P-256) as a public key:
 * the CBOR map's integer labels and byte-string or integer values read in place, nothing else.
 */
function coseEs256Key(cose: Uint8Array): KeyObject {
  let at = 0;
  const byte = () => {
    const value = cose[at];
    if (value === undefined) throw new Error('A truncated COSE key');
    at += 1;
    return value;
  };
  const head = () => {
    const initial = byte();
    const info = initial & 31;
    const argument = info < 24 ? info : info === 24 ? byte() : info === 25 ? byte() * 256 + byte() : NaN;
    if (Number.isNaN(argument)) throw new Error('A COSE key this floor does not read');
    return { major: initial >> 5, argument };
  };
  const map = head();
  if (map.major !== 5) throw new Error('A COSE key that is not a map');
  const fields = new Map<number, number | Uint8Array>();
  for (let entry = 0; entry < map.argument; entry += 1) {
    const label = head();
    const value = head();
    const integer = (item: { major: number; argument: number }) => (item.major === 0 ? item.argument : -1 - item.argument);
    if (value.major === 2) {
      fields.set(integer(label), cose.subarray(at, at + value.argument));
      at += value.argument;
    } else fields.set(integer(label), integer(value));
  }
  const x = fields.get(-2);
  const y = fields.get(-3);
  if (fields.get(1) !== 2 || fields.get(3) !== -7 || fields.get(-1) !== 1 || !(x instanceof Uint8Array) || !(y instanceof Uint8Array)) {
    throw new Error('Not an ES256 COSE key');
  }
  const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: base64url(x), y: base64url(y) }, format: 'jwk' });
}

/** Authenticator data flags (WebAuthn L3 §6.1). */
const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10 } as const;

/** The login transaction as lib/login/login-transaction.ts seals it: what a passkey sign-in reads of it. */
interface FloorTransaction {
  readonly environmentId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge?: string;
  readonly state?: string;
  readonly nonce?: string;
  readonly scope?: string;
  readonly csrf: string;
  readonly passkeyChallenge?: string;
  readonly signedIn?: unknown;
}

/**
 * `POST /idp/v1/account/authorize` with `action=passkey` from a browser without a session cookie
 * (lib/login/authorize.ts `signInWithPasskey`, passkey-login.ts `checkAssertion`,
 * lib/passkeys/ceremonies.ts `verifyAuthentication`): the transaction cookie decrypted (jose), the
 * CSRF token compared, the credential's read (strongly consistent), the assertion checked (user
 * handle, client data, authenticator data, the ES256 signature over authenticatorData ‖
 * SHA-256(clientDataJSON) by the stored COSE key, converted for each request, the count), then
 * one transaction: the credential's count, the spent challenge, the operator-block check, the
 * session and the authorization code (passkey-sign-in.ts `passkeySignInItems`, session-store.ts
 * `start`), and a 302 to the client that clears the transaction and sets the session cookie.
 */
export async function passkeySignIn(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const c = await init();
  const fields = fieldsOf(event);
  let sealed = '';
  for (const part of (event.headers.cookie ?? event.headers.Cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === 'idp_login') sealed = value.join('=');
  }
  const now = Date.now();
  let transaction: FloorTransaction;
  let expiresAt: number;
  try {
    const { payload } = await jwtDecrypt(sealed, c.keys.loginTransaction, {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
      currentDate: new Date(now),
    });
    transaction = payload.tx as FloorTransaction;
    expiresAt = payload.exp ?? 0;
  } catch {
    return json(400, { error: 'expired' });
  }
  const csrf = Buffer.from(fields.csrf ?? '');
  const challenge = transaction.passkeyChallenge;
  if (
    transaction.environmentId !== ENVIRONMENT ||
    CLIENTS[transaction.clientId] === undefined ||
    csrf.length !== Buffer.byteLength(transaction.csrf) ||
    !timingSafeEqual(csrf, Buffer.from(transaction.csrf)) ||
    challenge === undefined ||
    transaction.signedIn !== undefined
  ) {
    return json(400, { error: 'expired' });
  }
  const refused = () => json(400, { error: 'passkey refused' });
  let posted: { id?: unknown; rawId?: unknown; response?: Record<string, unknown> };
  try {
    posted = JSON.parse(fields.credential ?? '') as typeof posted;
  } catch {
    return refused();
  }
  const response = posted.response ?? {};
  if (typeof posted.id !== 'string' || posted.id !== posted.rawId) return refused();
  const key = { pk: s(`passkey#${ENVIRONMENT}#${sha256(posted.id).toString('base64url')}`) };
  const { Item: passkey } = await c.dynamodb.send(new GetItemCommand({ TableName: c.table, Key: key, ConsistentRead: true }));
  if (passkey === undefined || passkey.environment_id?.S !== ENVIRONMENT || passkey.credential_id?.S !== posted.id) return refused();
  if (response.userHandle !== passkey.user_handle?.S) return refused();
  const clientDataJSON = Buffer.from(String(response.clientDataJSON), 'base64url');
  const clientData = JSON.parse(clientDataJSON.toString('utf8')) as {
    type?: unknown;
    challenge?: unknown;
    origin?: unknown;
    crossOrigin?: unknown;
  };
  if (
    clientData.type !== 'webauthn.get' ||
    clientData.challenge !== challenge ||
    clientData.origin !== c.origin ||
    clientData.crossOrigin === true
  ) {
    return refused();
  }
  const authData = Buffer.from(String(response.authenticatorData), 'base64url');
  const flags = authData[32] ?? 0;
  const backupEligible = passkey.backup_eligible?.BOOL === true;
  if (
    authData.length < 37 ||
    !c.rpIdHash.equals(authData.subarray(0, 32)) ||
    (flags & FLAG.UP) === 0 ||
    (flags & FLAG.UV) === 0 ||
    ((flags & FLAG.BE) !== 0) !== backupEligible ||
    ((flags & FLAG.BE) === 0 && (flags & FLAG.BS) !== 0)
  ) {
    return refused();
  }
  const signed = Buffer.concat([authData, createHash('sha256').update(clientDataJSON).digest()]);
  const publicKey = coseEs256Key(passkey.public_key?.B ?? new Uint8Array(0));
  if (!verify('sha256', signed, publicKey, Buffer.from(String(response.signature), 'base64url'))) return refused();
  const signCount = authData.readUInt32BE(33);
  const previousSignCount = Number(passkey.sign_count?.N);
  if (!(signCount > previousSignCount || (signCount === 0 && previousSignCount === 0))) return refused();

  const userKey = passkey.user_key?.S ?? '';
  const user = { authType: passkey.auth_type?.S === 'sms' ? ('sms' as const) : ('email' as const), value: passkey.user_id?.S ?? '' };
  const channel = backupEligible ? 'synced_passkey' : 'passkey';
  const authTime = Math.floor(now / 1000);
  const scope = transaction.scope;
  const claims: Record<string, string | boolean> =
    user.authType === 'email' && (scope ?? '').split(' ').includes('email') ? { email: user.value, email_verified: true } : {};
  const reference = randomBytes(32).toString('base64url');
  const sid = randomBytes(16).toString('base64url');
  const code = randomBytes(32).toString('base64url');
  const notAfter = now + AUTHORIZATION_CODE_TTL_SECONDS * 1000;
  await c.dynamodb.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        {
          Update: {
            TableName: c.table,
            Key: key,
            UpdateExpression: 'SET sign_count = :count, last_used_at = :now, backup_state = :backupState',
            ConditionExpression: 'attribute_exists(pk) AND user_key = :userKey AND sign_count = :previous',
            ExpressionAttributeValues: {
              ':count': n(signCount),
              ':now': n(now),
              ':backupState': { BOOL: (flags & FLAG.BS) !== 0 },
              ':userKey': s(userKey),
              ':previous': n(previousSignCount),
            },
          },
        },
        {
          Put: {
            TableName: c.table,
            Item: { pk: s(`pkchallenge#${sha256(challenge).toString('base64url')}`), expires_at: n(expiresAt) },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          ConditionCheck: {
            TableName: c.table,
            Key: { pk: s(`limit#token#${ENVIRONMENT}#${userKey}`) },
            ConditionExpression: 'attribute_not_exists(#blocked)',
            ExpressionAttributeNames: { '#blocked': 'operator_blocked' },
          },
        },
        {
          Put: {
            TableName: c.table,
            Item: {
              pk: s(`session#${hmac(c.keys.session, ['session', reference])}`),
              sid: s(sid),
              environment_id: s(ENVIRONMENT),
              user_key: s(userKey),
              auth_type: s(user.authType),
              user_id: s(user.value),
              channel: s(channel),
              auth_time: n(authTime),
              created_at: n(now),
              last_seen: n(now),
              clients: { SS: [transaction.clientId] },
              user_index: s(`${ENVIRONMENT}#${userKey}`),
              user_sort: s(`session#${sid}`),
              expires_at: n(Math.ceil((now + SESSION.idleSeconds * 1000) / 1000)),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: c.table,
            Item: {
              pk: s(`authcode#${hmac(c.keys.authorizationCode, [code])}`),
              environment_id: s(ENVIRONMENT),
              client_id: s(transaction.clientId),
              redirect_uri: s(transaction.redirectUri),
              ...(transaction.codeChallenge === undefined ? {} : { code_challenge: s(transaction.codeChallenge) }),
              ...(transaction.nonce === undefined ? {} : { nonce: s(transaction.nonce) }),
              ...(scope === undefined ? {} : { scope: s(scope) }),
              user_key: s(userKey),
              sub: s(subjectOf(c.keys, ENVIRONMENT, user)),
              channel: s(channel),
              ...claimsItem(claims),
              auth_time: n(authTime),
              sid: s(sid),
              not_after: n(notAfter),
              expires_at: n(Math.ceil(notAfter / 1000)),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    }),
  );
  const location = new URL(transaction.redirectUri);
  location.searchParams.set('code', code);
  if (transaction.state !== undefined) location.searchParams.set('state', transaction.state);
  location.searchParams.set('iss', c.issuer);
  const path = event.requestContext.path;
  return {
    ...redirect(location.toString()),
    multiValueHeaders: {
      'Set-Cookie': [
        `idp_login=; Max-Age=0; Path=${path}; HttpOnly; SameSite=Lax`,
        `idp_sso_${ENVIRONMENT}=${reference}; Max-Age=${SESSION.absoluteSeconds}; Path=/; HttpOnly; SameSite=Lax`,
      ],
    },
  };
}
