import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildServiceConfig,
  loadServiceConfig,
  parseStageConfig,
  usesHostedLogin,
  type LimitConfig,
  type StageConfig,
} from '../../../lib/platform/config';
import type * as ConfigModule from '../../../lib/platform/config';
import { readEnvironment } from '../../../lib/platform/env';
import { LIMIT_OVERRIDE_VARIABLES } from '../../../local/limit-overrides';

const LOCAL_FILE = join(__dirname, '../../../config/local.json');
const readLocal = (): unknown => JSON.parse(readFileSync(LOCAL_FILE, 'utf8'));

/** The raw (unvalidated) shape of a stage file, loose enough to break on purpose. */
interface RawEnvironment {
  id: string;
  serviceName: string;
  email: { sender: string };
  [field: string]: unknown;
}
interface RawClient {
  id: string;
  environments: string[];
  redirectUris: string[];
  accessToken: { format: string; audience: string };
  [field: string]: unknown;
}
/** A real P-256 key: its public JWK (what a registration holds), and the private member it must not. */
const SIGNER = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const SIGNER_PUBLIC_JWK = SIGNER.publicKey.export({ format: 'jwk' });
const SIGNER_PRIVATE_D = SIGNER.privateKey.export({ format: 'jwk' }).d;

interface RawConfig {
  defaultEnvironment: string;
  environments: RawEnvironment[];
  clients: RawClient[];
  [field: string]: unknown;
}

/** The smallest valid stage file: everything optional omitted. */
function minimal(): RawConfig {
  return {
    defaultEnvironment: 'dev',
    environments: [{ id: 'dev', serviceName: 'Example', email: { sender: 'no-reply@example.test' } }],
    clients: [
      {
        id: 'web',
        environments: ['dev'],
        redirectUris: ['https://app.example.test/callback'],
        accessToken: { format: 'jwt', audience: 'api' },
      },
    ],
  };
}

/** A valid stage file with two environments, both with the default limits. */
function twoEnvironments(): RawConfig {
  const raw = minimal();
  raw.environments.push({ id: 'staging', serviceName: 'Example', email: { sender: 'no-reply@example.test' } });
  raw.clients[0]!.environments = ['dev', 'staging'];
  return raw;
}

/** The message parseStageConfig throws for `raw`, or undefined when it parses. */
function problemsOf(raw: unknown): string | undefined {
  try {
    parseStageConfig(raw);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function thrownMessage(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Every object reachable from `value` that is not frozen, by path. */
function unfrozenPaths(value: unknown, path = '$'): string[] {
  if (value === null || typeof value !== 'object') return [];
  const own = Object.isFrozen(value) ? [] : [path];
  return [...own, ...Object.entries(value).flatMap(([key, child]) => unfrozenPaths(child, `${path}.${key}`))];
}

const ATTEMPT_LIMIT_DEFAULTS: LimitConfig = { maxAttempts: 5, windowSeconds: 60, blockSeconds: 300 };
/** NIST SP 800-63B §5.2.2: at most 100 consecutive failures, here over a rolling day. */
const FAILURE_CAP = { maxConsecutive: 100, windowSeconds: 86_400 };
/**
 * The send guards' defaults: SMS fraud (docs/decisions/008-sms-fraud-guards.md), email per source
 * and per login transaction (docs/decisions/010-hosted-login-abuse.md), known numbers (012).
 */
const GUARD_DEFAULTS = {
  sendPerIp: { maxSends: 10, windowSeconds: 3600 },
  emailPerIp: { maxSends: 30, windowSeconds: 3600 },
  sendsPerTransaction: 5,
  sendPerPrefix: { digits: 6, maxSends: 20, windowSeconds: 3600 },
  dailyPhoneBudget: { maxMessages: 1000 },
  knownNumbers: { rememberDays: 30, maxSendsPerDay: 5 },
};
const DEFAULT_LIMITS = { token: ATTEMPT_LIMIT_DEFAULTS, send: ATTEMPT_LIMIT_DEFAULTS, failures: FAILURE_CAP, ...GUARD_DEFAULTS };

describe('config/local.json', () => {
  let config: StageConfig;
  beforeAll(() => {
    config = parseStageConfig(readLocal(), LOCAL_FILE);
  });

  it('parses, with the environment "local" as the default', () => {
    expect(config.defaultEnvironment).toBe('local');
    expect(config.environments.map((environment) => environment.id)).toEqual(['local']);
  });

  it('has the clients local-web and local-web-2 (jwt, ES256: the demo’s two applications), local-rs256 (jwt, RS256), local-opaque (opaque), local-backend and local-server, all with the redirect URI http://127.0.0.1:3000/callback', () => {
    // Act
    const clients = config.clients.map((client) => ({
      id: client.id,
      format: client.accessToken.format,
      alg: client.accessToken.signingAlgorithm,
      redirectUris: client.redirectUris,
      environments: client.environments,
    }));

    // Assert
    const shared = { redirectUris: ['http://127.0.0.1:3000/callback'], environments: ['local'] };
    expect(clients).toEqual([
      { id: 'local-web', format: 'jwt', alg: 'ES256', ...shared },
      { id: 'local-web-2', format: 'jwt', alg: 'ES256', ...shared },
      { id: 'local-rs256', format: 'jwt', alg: 'RS256', ...shared },
      { id: 'local-opaque', format: 'opaque', alg: 'ES256', ...shared },
      { id: 'local-backend', format: expect.any(String), alg: 'ES256', ...shared },
      { id: 'local-server', format: 'jwt', alg: 'ES256', ...shared },
    ]);
  });

  it('lets local-web and local-opaque send without a Bearer key', () => {
    const byId = new Map(config.clients.map((client) => [client.id, client]));
    expect(byId.get('local-web')?.sendRequiresApiKey).toBe(false);
    expect(byId.get('local-opaque')?.sendRequiresApiKey).toBe(false);
  });

  it('makes local-backend require the API key "local-dev-api-key" (stored as its SHA-256 hex) and lets it introspect', () => {
    // Arrange
    const expectedDigest = createHash('sha256').update('local-dev-api-key').digest('hex');

    // Act
    const backend = config.clients.find((client) => client.id === 'local-backend');

    // Assert
    expect(backend?.sendRequiresApiKey).toBe(true);
    expect(backend?.mayIntrospect).toBe(true);
    expect(backend?.apiKeySha256).toContain(expectedDigest);
  });

  it('issues refresh tokens to local-web, local-web-2, local-rs256, local-opaque and the confidential local-server (30 days idle, 90 days in all, no reuse interval), not to local-backend', () => {
    const refresh = Object.fromEntries(config.clients.map((client) => [client.id, client.refreshTokens]));
    const on = {
      issue: 'always',
      idleSeconds: 30 * 86_400,
      absoluteSeconds: 90 * 86_400,
      reuseIntervalSeconds: 0,
      limit: { maxRefreshes: 10, windowSeconds: 60 },
    };
    expect(refresh).toEqual({
      'local-web': on,
      'local-web-2': on,
      'local-rs256': on,
      'local-opaque': on,
      'local-backend': undefined,
      'local-server': on,
    });
  });

  it('keeps the default limits (5 per 60 s, 300 s block) and code settings (300 s, 3 tries)', () => {
    const local = config.environments[0]!;
    // Every local request comes from a loopback address: 100 an hour per IP, not the defaults 10 and 30.
    expect(local.limits).toEqual({
      ...DEFAULT_LIMITS,
      sendPerIp: { maxSends: 100, windowSeconds: 3600 },
      emailPerIp: { maxSends: 100, windowSeconds: 3600 },
    });
    expect(local.code).toEqual({ ttlSeconds: 300, maxTries: 3 });
  });

  it('allows SMS and voice codes to the countries of the README’s examples', () => {
    expect(config.environments[0]!.sms.allowedCountries).toEqual(
      expect.arrayContaining(['US', 'CA', 'GB', 'DE', 'FR', 'ES', 'PT', 'BR', 'NL', 'IT', 'IN', 'AU']),
    );
  });
});

describe('hostedLogin', () => {
  it('defaults to the page for every client but one whose codes only its servers may request, and refuses to give it the page', () => {
    const raw = minimal();
    const base = raw.clients[0]!;
    raw.clients = [
      base,
      { ...base, id: 'server', sendRequiresApiKey: true, apiKeySha256: ['a'.repeat(64)] },
      { ...base, id: 'no-page', hostedLogin: false },
    ];
    const parsed = parseStageConfig(raw).clients;
    expect(parsed.map((client) => [client.id, usesHostedLogin(client)])).toEqual([
      [base.id, true],
      ['server', false],
      ['no-page', false],
    ]);
    raw.clients[1] = { ...raw.clients[1]!, hostedLogin: true };
    expect(() => parseStageConfig(raw)).toThrow(/cannot use the hosted login page[\s\S]*clients\[1\]\.hostedLogin/);
  });
});

describe('parseStageConfig defaults', () => {
  it('applies the default limits to token and send when limits are omitted', () => {
    // Act
    const config = parseStageConfig(minimal());

    // Assert
    expect(config.environments[0]!.limits).toEqual(DEFAULT_LIMITS);
  });

  it('fills in the fields omitted from a partial limit', () => {
    // Arrange
    const raw = minimal();
    raw.environments[0]!.limits = { token: { maxAttempts: 3 }, send: { blockSeconds: 900 } };

    // Act
    const config = parseStageConfig(raw);

    // Assert
    expect(config.environments[0]!.limits).toEqual({
      ...DEFAULT_LIMITS,
      token: { maxAttempts: 3, windowSeconds: 60, blockSeconds: 300 },
      send: { maxAttempts: 5, windowSeconds: 60, blockSeconds: 900 },
    });
  });

  it('takes the fraud guards per environment, filling in what a partial one omits, within bounds', () => {
    const raw = minimal();
    raw.environments[0]!.limits = {
      sendPerIp: { maxSends: 3 },
      emailPerIp: { windowSeconds: 600 },
      sendsPerTransaction: 2,
      sendPerPrefix: { digits: 4 },
      dailyPhoneBudget: {},
    };
    expect(parseStageConfig(raw).environments[0]!.limits).toEqual({
      ...DEFAULT_LIMITS,
      sendPerIp: { maxSends: 3, windowSeconds: 3600 },
      emailPerIp: { maxSends: 30, windowSeconds: 600 },
      sendsPerTransaction: 2,
      sendPerPrefix: { digits: 4, maxSends: 20, windowSeconds: 3600 },
    });
    for (const [limits, path] of [
      [{ sendPerIp: { maxSends: 101 } }, /limits\.sendPerIp\.maxSends/],
      [{ emailPerIp: { maxSends: 101 } }, /limits\.emailPerIp\.maxSends/],
      [{ sendsPerTransaction: 0 }, /limits\.sendsPerTransaction/],
      [{ knownNumbers: { maxSendsPerDay: 11 } }, /limits\.knownNumbers\.maxSendsPerDay/],
      [{ knownNumbers: { rememberDays: 366 } }, /limits\.knownNumbers\.rememberDays/],
      [{ sendsPerTransaction: 51 }, /limits\.sendsPerTransaction/],
      [{ sendPerPrefix: { maxSends: 0 } }, /limits\.sendPerPrefix\.maxSends/],
      [{ sendPerPrefix: { digits: 0 } }, /limits\.sendPerPrefix\.digits/],
      [{ sendPerIp: { windowSeconds: 86_401 } }, /limits\.sendPerIp\.windowSeconds/],
      [{ dailyPhoneBudget: { maxMessages: 0 } }, /limits\.dailyPhoneBudget\.maxMessages/],
    ] as const) {
      raw.environments[0]!.limits = limits;
      expect(() => parseStageConfig(raw)).toThrow(path);
    }
  });

  it('allows no SMS or voice destination unless the environment lists its countries, and refuses personal and VoIP numbers', () => {
    expect(parseStageConfig(minimal()).environments[0]!.sms).toEqual({
      allowedCountries: [],
      refusedNumberTypes: ['PERSONAL_NUMBER', 'VOIP'],
    });
    const raw = minimal();
    raw.environments[0]!.sms = { senderId: 'Example', allowedCountries: ['GB', 'IE'] };
    expect(parseStageConfig(raw).environments[0]!.sms).toEqual({
      senderId: 'Example',
      allowedCountries: ['GB', 'IE'],
      refusedNumberTypes: ['PERSONAL_NUMBER', 'VOIP'],
    });
  });

  it('takes sms.refusedNumberTypes emptied or with one kind, for an environment whose users have such numbers', () => {
    const raw = minimal();
    for (const refusedNumberTypes of [[], ['VOIP'], ['PERSONAL_NUMBER']]) {
      raw.environments[0]!.sms = { allowedCountries: ['GB'], refusedNumberTypes };
      expect(parseStageConfig(raw).environments[0]!.sms).toEqual({ allowedCountries: ['GB'], refusedNumberTypes });
    }
  });

  it.each(['PREMIUM_RATE', 'MOBILE', 'voip', ''])(
    'refuses %j in sms.refusedNumberTypes (premium rate and the like are refused everywhere, not a setting)',
    (type) => {
      const raw = minimal();
      raw.environments[0]!.sms = { refusedNumberTypes: [type] };
      expect(problemsOf(raw)).toMatch(/→ at environments\[0\]\.sms\.refusedNumberTypes\[0\]$/);
    },
  );

  it.each(['UK', 'gb', 'USA', 'EU', '001', ''])('refuses %j as a country, pointing at the ISO code', (country) => {
    const raw = minimal();
    raw.environments[0]!.sms = { allowedCountries: [country] };
    expect(problemsOf(raw)).toBe(
      'Invalid configuration:\n✖ an ISO 3166-1 alpha-2 country code (GB, not UK)\n  → at environments[0].sms.allowedCountries[0]',
    );
  });

  it('takes a failure cap per environment, filling in what a partial one omits, within bounds', () => {
    const raw = minimal();
    raw.environments[0]!.limits = { failures: { maxConsecutive: 20 } };
    expect(parseStageConfig(raw).environments[0]!.limits.failures).toEqual({ maxConsecutive: 20, windowSeconds: 86_400 });
    raw.environments[0]!.limits = { failures: { maxConsecutive: 0 } };
    expect(() => parseStageConfig(raw)).toThrow(/maxConsecutive/);
    raw.environments[0]!.limits = { failures: { windowSeconds: 59 } };
    expect(() => parseStageConfig(raw)).toThrow(/windowSeconds/);
  });

  it('takes an audience per environment only for environments the client may use', () => {
    const raw = minimal();
    const client = raw.clients[0] as { environments: string[]; accessToken: Record<string, unknown> };
    client.accessToken.audienceByEnvironment = { [client.environments[0]!]: 'https://api.example.com' };
    expect(parseStageConfig(raw).clients[0]!.accessToken.audienceByEnvironment).toEqual({
      [client.environments[0]!]: 'https://api.example.com',
    });
    client.accessToken.audienceByEnvironment = { elsewhere: 'https://api.example.com' };
    expect(() => parseStageConfig(raw)).toThrow(/not allowed in environment "elsewhere"/);
  });

  it('applies the code defaults (ttl 300 s, 3 tries), also when the code object is partial', () => {
    // Arrange
    const partial = minimal();
    partial.environments[0]!.code = { maxTries: 5 };

    // Act
    const omitted = parseStageConfig(minimal()).environments[0]!.code;
    const filled = parseStageConfig(partial).environments[0]!.code;

    // Assert
    expect(omitted).toEqual({ ttlSeconds: 300, maxTries: 3 });
    expect(filled).toEqual({ ttlSeconds: 300, maxTries: 5 });
  });

  it('applies the client defaults: email and sms, 3600 s tokens, RS256 ID tokens (OIDC Registration §2), public subjects, PKCE, no user claim, no custom message, no API key, no introspection, no logout URIs', () => {
    // Act
    const client = parseStageConfig(minimal()).clients[0]!;

    // Assert
    expect(client).toEqual({
      id: 'web',
      environments: ['dev'],
      redirectUris: ['https://app.example.test/callback'],
      channels: ['email', 'sms'],
      accessToken: { format: 'jwt', signingAlgorithm: 'ES256', ttlSeconds: 3600, audience: 'api', includeUserIdClaim: false },
      allowCustomMessage: false,
      sendRequiresApiKey: false,
      apiKeySha256: [],
      mayIntrospect: false,
      responseTypes: ['code'],
      idTokenSignedResponseAlg: 'RS256',
      idTokenTtlSeconds: 3600,
      subjectType: 'public',
      requirePkce: true,
      postLogoutRedirectUris: [],
      backchannelLogoutSessionRequired: false,
      passkeys: 'offered',
    });
  });

  it('defaults the environment locale to en-US', () => {
    expect(parseStageConfig(minimal()).environments[0]!.defaultLocale).toBe('en-US');
  });

  it('defaults sessions to Auth0’s lifetimes: 3 days idle, 7 days in all (docs/decisions/014-sso-sessions.md)', () => {
    expect(parseStageConfig(minimal()).environments[0]!.sessions).toEqual({ idleSeconds: 259_200, absoluteSeconds: 604_800 });
  });

  it('takes a back-channel logout URI over https, or plain http on a loopback host', () => {
    for (const uri of [
      'https://rp.example.com/logout?x=1',
      'http://127.0.0.1:4000/logout',
      'http://localhost/logout',
      'http://[::1]:8080/bc',
    ]) {
      const raw = minimal();
      raw.clients[0]!.backchannelLogoutUri = uri;
      raw.clients[0]!.backchannelLogoutSessionRequired = true;
      expect(parseStageConfig(raw).clients[0]!.backchannelLogoutUri).toBe(uri);
    }
  });

  it('regression: defaulted objects are fresh per parse, not shared with the schema (mutating one parse leaks into no other)', async () => {
    // Arrange: a fresh module instance, so the shared constants of other tests are untouched.
    let isolated: typeof ConfigModule | undefined;
    await jest.isolateModulesAsync(async () => {
      isolated = await import('../../../lib/platform/config');
    });
    const first = isolated!.parseStageConfig(minimal());

    // Act
    first.environments[0]!.limits.token.maxAttempts = 99;
    const second = isolated!.parseStageConfig(minimal());

    // Assert
    expect(first.environments[0]!.limits.send.maxAttempts).toBe(5);
    expect(second.environments[0]!.limits).toEqual(DEFAULT_LIMITS);
  });
});

describe('parseStageConfig validation: each problem is reported with its path', () => {
  it.each<[string, (raw: RawConfig) => void, RegExp[]]>([
    ['an unknown defaultEnvironment', (raw) => void (raw.defaultEnvironment = 'prod'), [/no environment "prod"/, /defaultEnvironment/]],
    [
      'a client naming an unknown environment',
      (raw) => void raw.clients[0]!.environments.push('prod'),
      [/no environment "prod"/, /clients\[0\]\.environments/],
    ],
    ['duplicate client ids', (raw) => void raw.clients.push({ ...raw.clients[0]! }), [/duplicate client "web"/, /clients\[1\]\.id/]],
    [
      'duplicate environment ids',
      (raw) => void raw.environments.push({ ...raw.environments[0]! }),
      [/duplicate environment "dev"/, /environments\[1\]\.id/],
    ],
    ['a client id with a space', (raw) => void (raw.clients[0]!.id = 'my web'), [/ids are 1-64 of/, /clients\[0\]\.id/]],
    ['a client id with a "#" (a key delimiter)', (raw) => void (raw.clients[0]!.id = 'web#1'), [/clients\[0\]\.id/]],
    ['a client id starting with "-"', (raw) => void (raw.clients[0]!.id = '-web'), [/clients\[0\]\.id/]],
    ['a 65-character client id', (raw) => void (raw.clients[0]!.id = 'a'.repeat(65)), [/clients\[0\]\.id/]],
    ['an environment id with a "/"', (raw) => void (raw.environments[0]!.id = 'de/v'), [/environments\[0\]\.id/]],
    ['an empty id', (raw) => void (raw.clients[0]!.id = ''), [/clients\[0\]\.id/]],
    [
      'sendRequiresApiKey without key hashes',
      (raw) => void (raw.clients[0]!.sendRequiresApiKey = true),
      [/needs at least one key hash/, /clients\[0\]\.apiKeySha256/],
    ],
    [
      'mayIntrospect without key hashes',
      (raw) => void (raw.clients[0]!.mayIntrospect = true),
      [/needs at least one key hash/, /clients\[0\]\.apiKeySha256/],
    ],
    [
      'a secret method without the secret’s hash',
      (raw) => void (raw.clients[0]!.tokenEndpointAuthMethod = 'client_secret_basic'),
      [/authenticates by client_secret_basic needs the hash of its secret/, /clients\[0\]\.apiKeySha256/],
    ],
    [
      'a client with a secret registered as public (none): it must authenticate, RFC 6749 §3.2.1',
      (raw) => void Object.assign(raw.clients[0]!, { apiKeySha256: ['a'.repeat(64)], tokenEndpointAuthMethod: 'none' }),
      [/its method cannot be none/, /clients\[0\]\.tokenEndpointAuthMethod/],
    ],
    [
      'client_secret_jwt, which the service does not offer (it never holds a secret in clear)',
      (raw) => void Object.assign(raw.clients[0]!, { apiKeySha256: ['a'.repeat(64)], tokenEndpointAuthMethod: 'client_secret_jwt' }),
      [/clients\[0\]\.tokenEndpointAuthMethod/],
    ],
    [
      'private_key_jwt without the client’s public keys',
      (raw) => void (raw.clients[0]!.tokenEndpointAuthMethod = 'private_key_jwt'),
      [/needs its public keys \(jwks\)/, /clients\[0\]\.jwks/],
    ],
    [
      'jwks on a client that does not use private_key_jwt',
      (raw) => void (raw.clients[0]!.jwks = { keys: [SIGNER_PUBLIC_JWK] }),
      [/jwks are for private_key_jwt/, /clients\[0\]\.jwks/],
    ],
    [
      'a private key in jwks (a stage file holds no client secret)',
      (raw) =>
        void Object.assign(raw.clients[0]!, {
          tokenEndpointAuthMethod: 'private_key_jwt',
          jwks: { keys: [{ ...SIGNER_PUBLIC_JWK, d: SIGNER_PRIVATE_D }] },
        }),
      [/no private members/, /clients\[0\]\.jwks\.keys\[0\]/],
    ],
    [
      'three secrets at once (two are enough to rotate one)',
      (raw) => void (raw.clients[0]!.apiKeySha256 = ['a'.repeat(64), 'b'.repeat(64), 'c'.repeat(64)]),
      [/at most two secrets at once/, /clients\[0\]\.apiKeySha256/],
    ],
    [
      'grant types without authorization_code (how every login gets its tokens)',
      (raw) => void Object.assign(raw.clients[0]!, { grantTypes: ['refresh_token'], refreshTokens: {} }),
      [/every client needs authorization_code/, /clients\[0\]\.grantTypes/],
    ],
    [
      'refresh_token as a grant type without refresh token settings',
      (raw) => void (raw.clients[0]!.grantTypes = ['authorization_code', 'refresh_token']),
      [/exactly when the client has refreshTokens/, /clients\[0\]\.grantTypes/],
    ],
    [
      'refresh token settings without refresh_token among the grant types',
      (raw) => void Object.assign(raw.clients[0]!, { grantTypes: ['authorization_code'], refreshTokens: {} }),
      [/exactly when the client has refreshTokens/, /clients\[0\]\.grantTypes/],
    ],
    [
      'a pairwise client on two redirect hosts without a sector identifier URI (OIDC Core §8.1)',
      (raw) =>
        void Object.assign(raw.clients[0]!, { subjectType: 'pairwise', redirectUris: ['https://a.example/cb', 'https://b.example/cb'] }),
      [/needs a sectorIdentifierUri/, /clients\[0\]\.sectorIdentifierUri/],
    ],
    [
      'a pairwise native app (a private-use scheme has no host: unrelated apps would share a sector)',
      (raw) => void Object.assign(raw.clients[0]!, { subjectType: 'pairwise', redirectUris: ['com.example.app:/callback'] }),
      [/not on an http\(s\) host/, /clients\[0\]\.sectorIdentifierUri/],
    ],
    [
      'a pairwise app whose scheme makes its path look like a host (myapp://cb)',
      (raw) => void Object.assign(raw.clients[0]!, { subjectType: 'pairwise', redirectUris: ['myapp://cb'] }),
      [/needs a sectorIdentifierUri/, /clients\[0\]\.sectorIdentifierUri/],
    ],
    [
      'a key Node cannot import (no curve point)',
      (raw) =>
        void Object.assign(raw.clients[0]!, {
          tokenEndpointAuthMethod: 'private_key_jwt',
          jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }] },
        }),
      [/a key that imports/, /clients\[0\]\.jwks\.keys\[0\]/],
    ],
    [
      'a key whose alg is not one assertions may be signed with (an HMAC)',
      (raw) =>
        void Object.assign(raw.clients[0]!, {
          tokenEndpointAuthMethod: 'private_key_jwt',
          jwks: { keys: [{ ...SIGNER_PUBLIC_JWK, alg: 'HS256' }] },
        }),
      [/clients\[0\]\.jwks\.keys\[0\]\.alg/],
    ],
    [
      'a sector identifier URI on a public-subject client',
      (raw) => void (raw.clients[0]!.sectorIdentifierUri = 'https://sector.example/uris.json'),
      [/for a pairwise client/, /clients\[0\]\.sectorIdentifierUri/],
    ],
    [
      'an http sector identifier URI (OIDC Core §8.1: https)',
      (raw) => void Object.assign(raw.clients[0]!, { subjectType: 'pairwise', sectorIdentifierUri: 'http://sector.example/uris.json' }),
      [/clients\[0\]\.sectorIdentifierUri/],
    ],
    [
      'a public client without PKCE (RFC 9700 §2.1.1)',
      (raw) => void (raw.clients[0]!.requirePkce = false),
      [/a public client always needs PKCE/, /clients\[0\]\.requirePkce/],
    ],
    ['a response type other than code', (raw) => void (raw.clients[0]!.responseTypes = ['token']), [/clients\[0\]\.responseTypes/]],
    [
      'a refresh idle lifetime longer than the absolute one',
      (raw) => void (raw.clients[0]!.refreshTokens = { idleSeconds: 7200, absoluteSeconds: 3600 }),
      [/idle lifetime cannot be longer/, /clients\[0\]\.refreshTokens\.idleSeconds/],
    ],
    [
      'a session idle lifetime longer than the absolute one',
      (raw) => void (raw.environments[0]!.sessions = { idleSeconds: 7200, absoluteSeconds: 3600 }),
      [/idle lifetime cannot be longer/, /environments\[0\]\.sessions\.idleSeconds/],
    ],
    [
      'a session idle lifetime under a minute',
      (raw) => void (raw.environments[0]!.sessions = { idleSeconds: 59 }),
      [/environments\[0\]\.sessions\.idleSeconds/],
    ],
    [
      'a back-channel logout URI over plain http on a public host',
      (raw) => void (raw.clients[0]!.backchannelLogoutUri = 'http://rp.example.com/logout'),
      [/https, or http on a loopback host/, /clients\[0\]\.backchannelLogoutUri/],
    ],
    [
      'a back-channel logout URI with a fragment (Back-Channel Logout §2.2)',
      (raw) => void (raw.clients[0]!.backchannelLogoutUri = 'https://rp.example.com/logout#x'),
      [/no fragment/, /clients\[0\]\.backchannelLogoutUri/],
    ],
    [
      'backchannelLogoutSessionRequired without a back-channel logout URI',
      (raw) => void (raw.clients[0]!.backchannelLogoutSessionRequired = true),
      [/for a client with a backchannelLogoutUri/, /clients\[0\]\.backchannelLogoutSessionRequired/],
    ],
    [
      'a post-logout redirect URI that is not a URL',
      (raw) => void (raw.clients[0]!.postLogoutRedirectUris = ['not a url']),
      [/clients\[0\]\.postLogoutRedirectUris\[0\]/],
    ],
    [
      'a reuse interval over a minute',
      (raw) => void (raw.clients[0]!.refreshTokens = { reuseIntervalSeconds: 61 }),
      [/clients\[0\]\.refreshTokens\.reuseIntervalSeconds/],
    ],
    [
      'an upper-case SHA-256 hex',
      (raw) => void (raw.clients[0]!.apiKeySha256 = ['A'.repeat(64)]),
      [/lower-case hex SHA-256/, /clients\[0\]\.apiKeySha256\[0\]/],
    ],
    ['a 63-character SHA-256 hex', (raw) => void (raw.clients[0]!.apiKeySha256 = ['a'.repeat(63)]), [/clients\[0\]\.apiKeySha256\[0\]/]],
    [
      'a key in clear instead of its hash',
      (raw) => void (raw.clients[0]!.apiKeySha256 = ['local-dev-api-key']),
      [/clients\[0\]\.apiKeySha256\[0\]/],
    ],
    ['an unknown field in an environment', (raw) => void (raw.environments[0]!.extra = true), [/environments\[0\]/]],
    ['an unknown field in a client', (raw) => void (raw.clients[0]!.redirectUri = 'https://x.test'), [/clients\[0\]/]],
    ['an unknown field at the top level', (raw) => void (raw.environment = 'dev'), [/Invalid/]],
    [
      'an unknown field in a limit',
      (raw) => void (raw.environments[0]!.limits = { token: { max: 5 } }),
      [/environments\[0\]\.limits\.token/],
    ],
    ['a redirect URI that is not a URL', (raw) => void (raw.clients[0]!.redirectUris = ['not a url']), [/clients\[0\]\.redirectUris\[0\]/]],
    ['no redirect URI', (raw) => void (raw.clients[0]!.redirectUris = []), [/clients\[0\]\.redirectUris/]],
    [
      'maxAttempts 0',
      (raw) => void (raw.environments[0]!.limits = { token: { maxAttempts: 0 } }),
      [/environments\[0\]\.limits\.token\.maxAttempts/],
    ],
    [
      'a fractional windowSeconds',
      (raw) => void (raw.environments[0]!.limits = { send: { windowSeconds: 1.5 } }),
      [/environments\[0\]\.limits\.send\.windowSeconds/],
    ],
    [
      'blockSeconds 0',
      (raw) => void (raw.environments[0]!.limits = { send: { blockSeconds: 0 } }),
      [/environments\[0\]\.limits\.send\.blockSeconds/],
    ],
    ['a code ttl below 30 s', (raw) => void (raw.environments[0]!.code = { ttlSeconds: 10 }), [/environments\[0\]\.code\.ttlSeconds/]],
    [
      'an unknown access-token format',
      (raw) => void (raw.clients[0]!.accessToken.format = 'paseto'),
      [/clients\[0\]\.accessToken\.format/],
    ],
    ['an invalid sender address', (raw) => void (raw.environments[0]!.email.sender = 'no-reply'), [/environments\[0\]\.email\.sender/]],
    ['no environments', (raw) => void (raw.environments = []), [/environments/]],
  ])('rejects %s', (_label, mutate, expected) => {
    // Arrange
    const raw = minimal();
    mutate(raw);

    // Act
    const message = problemsOf(raw);

    // Assert
    expect(message).toBeDefined();
    for (const pattern of expected) expect(message).toMatch(pattern);
  });

  it('names the unknown field itself, so the reader knows what to remove (regression: zod/mini installs no messages, so it said only "Invalid input")', () => {
    // Arrange: zod keeps its locale in globalThis.__zod_globalConfig. Remove it, as in a Lambda
    // where nothing else has loaded one, then load lib/platform/config afresh: it must install English itself.
    const zodConfig = (globalThis as { __zod_globalConfig?: { localeError?: unknown } }).__zod_globalConfig;
    const saved = zodConfig?.localeError;
    if (zodConfig !== undefined) delete zodConfig.localeError;
    const raw = minimal();
    raw.environments[0]!.extraField = true;

    // Act
    let message: string | undefined;
    try {
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const fresh = require('../../../lib/platform/config') as typeof ConfigModule;
        try {
          fresh.parseStageConfig(raw);
        } catch (error) {
          message = (error as Error).message;
        }
      });
    } finally {
      if (zodConfig !== undefined && saved !== undefined) zodConfig.localeError = saved;
    }

    // Assert
    expect(message).toContain('extraField');
  });

  it('lists every problem in one message, prefixed by the source', () => {
    // Arrange
    const raw = minimal();
    raw.defaultEnvironment = 'prod';
    raw.clients[0]!.id = 'my web';

    // Act
    const message = thrownMessage(() => parseStageConfig(raw, 'config/test.json'));

    // Assert
    expect(message).toMatch(/^Invalid config\/test\.json:/);
    expect(message).toMatch(/defaultEnvironment/);
    expect(message).toMatch(/clients\[0\]\.id/);
  });

  it('rejects a file that is not an object', () => {
    expect(problemsOf(null)).toBeDefined();
    expect(problemsOf([])).toBeDefined();
  });
});

describe('buildServiceConfig', () => {
  const build = () => buildServiceConfig(parseStageConfig(twoEnvironments()));

  it('returns the default environment for environment(undefined)', () => {
    expect(build().environment(undefined)?.id).toBe('dev');
  });

  it('looks environments up by id', () => {
    expect(build().environment('staging')?.id).toBe('staging');
  });

  it.each(['prod', '', 'DEV', '__proto__', 'constructor'])('returns undefined for the unknown environment %j', (id) => {
    expect(build().environment(id)).toBeUndefined();
  });

  it('looks clients up by id', () => {
    expect(build().client('web')?.id).toBe('web');
  });

  it.each(['mobile', '', 'WEB', '__proto__', 'toString'])('returns undefined for the unknown client %j', (id) => {
    expect(build().client(id)).toBeUndefined();
  });

  it('exposes the stage configuration', () => {
    expect(build().stage.defaultEnvironment).toBe('dev');
  });

  it('is deeply frozen', () => {
    // Act
    const service = build();

    // Assert
    expect(unfrozenPaths(service)).toEqual([]);
  });

  it('rejects mutation (strict mode throws) and keeps the values', () => {
    // Arrange
    const service = build();
    const limits = service.environment('dev')!.limits.token as { maxAttempts: number };
    const client = service.client('web')!;

    // Act / Assert
    expect(() => {
      limits.maxAttempts = 1000;
    }).toThrow(TypeError);
    expect(() => client.redirectUris.push('https://evil.example.test/')).toThrow(TypeError);
    expect(() => {
      (service as { environment: unknown }).environment = () => undefined;
    }).toThrow(TypeError);
    expect(limits.maxAttempts).toBe(5);
    expect(client.redirectUris).toEqual(['https://app.example.test/callback']);
  });
});

describe('loadServiceConfig', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'config-test-'));
  });
  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads the file named by IDP_CONFIG_FILE', () => {
    // Act
    const service = loadServiceConfig({ IDP_CONFIG_FILE: LOCAL_FILE });

    // Assert
    expect(service.environment(undefined)?.id).toBe('local');
    expect(service.client('local-backend')?.sendRequiresApiKey).toBe(true);
    expect(unfrozenPaths(service)).toEqual([]);
  });

  it.each(['dev', 'prod'])(
    'keeps config/%s.json’s limits with every limit override variable set: a deployed stage’s limits are its file’s alone',
    (stageName) => {
      // Arrange: every variable the local runtime reads as an override (local/limit-overrides.ts), as if set on the function.
      const file = join(__dirname, `../../../config/${stageName}.json`);
      const overrides = Object.fromEntries(LIMIT_OVERRIDE_VARIABLES.map((variable) => [variable, '1']));

      // Act: as a Lambda container reads its configuration (lib/deps/secrets.ts `container`).
      const service = loadServiceConfig(readEnvironment({ ...overrides, IDP_CONFIG_FILE: file }));
      const unread = loadServiceConfig({ ...overrides, IDP_CONFIG_FILE: file });

      // Assert
      const fromFile = parseStageConfig(JSON.parse(readFileSync(file, 'utf8'))).environments.map((environment) => environment.limits);
      expect(service.stage.environments.map((environment) => environment.limits)).toEqual(fromFile);
      expect(unread.stage.environments.map((environment) => environment.limits)).toEqual(fromFile);
    },
  );

  it('reports a missing file clearly, naming it', () => {
    // Arrange
    const missing = join(directory, 'does-not-exist.json');

    // Act
    const message = thrownMessage(() => loadServiceConfig({ IDP_CONFIG_FILE: missing }));

    // Assert
    expect(message).toContain(`Cannot read configuration file ${missing}`);
    expect(message).toMatch(/ENOENT|no such file/);
  });

  it('reports a file that is not JSON, naming it', () => {
    // Arrange
    const file = join(directory, 'broken.json');
    writeFileSync(file, '{ "defaultEnvironment": ');

    // Act
    const message = thrownMessage(() => loadServiceConfig({ IDP_CONFIG_FILE: file }));

    // Assert
    expect(message).toContain(`Cannot read configuration file ${file}`);
  });

  it('reports an invalid configuration with the file name and the path of the problem', () => {
    // Arrange
    const file = join(directory, 'invalid.json');
    const raw = minimal();
    raw.defaultEnvironment = 'prod';
    writeFileSync(file, JSON.stringify(raw));

    // Act
    const message = thrownMessage(() => loadServiceConfig({ IDP_CONFIG_FILE: file }));

    // Assert
    expect(message).toContain(`Invalid ${file}:`);
    expect(message).toContain('defaultEnvironment');
  });

  it('falls back to $LAMBDA_TASK_ROOT/config.json when IDP_CONFIG_FILE is not set', () => {
    // Arrange
    writeFileSync(join(directory, 'config.json'), JSON.stringify(minimal()));

    // Act
    const service = loadServiceConfig({ LAMBDA_TASK_ROOT: directory });

    // Assert
    expect(service.environment(undefined)?.id).toBe('dev');
  });
});
