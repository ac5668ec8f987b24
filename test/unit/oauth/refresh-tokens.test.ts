/**
 * Refresh tokens' pure parts (docs/decisions/009-refresh-token-families.md): the token's shape and
 * randomness, the keyed hashes and the family key, the derived successor, the lifetimes'
 * arithmetic, and what a narrowed scope keeps (RFC 6749 §6). Over HTTP: test/http/refresh.test.ts.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildServiceConfig, parseStageConfig, type ClientConfig } from '../../../lib/platform/config';
import { claimsWithin } from '../../../lib/oauth/access-tokens';
import { deriveHmacKeys } from '../../../lib/keys/hmac-keys';
import {
  ACCESS_TOKEN_MAX_SECONDS,
  decoyFamilyId,
  familyHandleOf,
  familyKeyOf,
  keepUntilOf,
  mintFirstRefreshToken,
  parseRefreshToken,
  refreshLifetimesOf,
  refreshTokenHash,
  refreshTokenOf,
  successorOf,
  usableUntil,
} from '../../../lib/oauth/refresh-tokens';
import { narrowScope } from '../../../lib/oauth/scopes';

const config = buildServiceConfig(parseStageConfig(JSON.parse(readFileSync(resolve(__dirname, '../../../config/local.json'), 'utf8'))));
const client = (id: string): ClientConfig => config.client(id) as ClientConfig;
const keys = deriveHmacKeys(Buffer.alloc(32, 7));
const otherKeys = deriveHmacKeys(Buffer.alloc(32, 8));
const DAY_MS = 86_400_000;

describe('the token', () => {
  it('is a 128-bit family id and a 256-bit secret from the CSPRNG, base64url, which parse back', () => {
    const tokens = Array.from({ length: 1000 }, () => mintFirstRefreshToken());
    for (const token of tokens) {
      expect(Buffer.from(token.familyId, 'base64url')).toHaveLength(16);
      expect(Buffer.from(token.secret, 'base64url')).toHaveLength(32);
      expect(parseRefreshToken(refreshTokenOf(token))).toEqual(token);
    }
    expect(new Set(tokens.map((token) => token.familyId)).size).toBe(1000);
    expect(new Set(tokens.map((token) => token.secret)).size).toBe(1000);
  });

  it.each([
    ['an opaque access token', 'x'.repeat(43)],
    ['a JWT', 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'],
    ['a short secret', `${'A'.repeat(22)}.${'B'.repeat(42)}`],
    ['a character outside base64url', `${'A'.repeat(21)}+.${'B'.repeat(43)}`],
    ['surrounding space', ` ${'A'.repeat(22)}.${'B'.repeat(43)}`],
    ['a valid token with more after it', `${'A'.repeat(22)}.${'B'.repeat(43)}C`],
    ['a valid token and a line break', `${'A'.repeat(22)}.${'B'.repeat(43)}\n`],
  ])('is not %s', (_name, text) => {
    expect(parseRefreshToken(text)).toBeUndefined();
  });

  it('never parses a string of another shape (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseRefreshToken(text);
        return parsed === undefined || refreshTokenOf(parsed) === text;
      }),
    );
  });

  it('gets decoy family ids shaped like real ones, never the same twice', () => {
    const decoys = Array.from({ length: 100 }, () => decoyFamilyId());
    expect(decoys.every((id) => /^[A-Za-z0-9_-]{22}$/.test(id))).toBe(true);
    expect(new Set(decoys).size).toBe(100);
  });
});

describe('what is stored, and what is logged', () => {
  const token = mintFirstRefreshToken();

  it('keys the family by a keyed hash of its id, and the token by a keyed hash of id and secret: different keys, different purposes', () => {
    const familyKey = familyKeyOf(keys, token.familyId);
    const hash = refreshTokenHash(keys, token);
    expect(familyKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toBe(familyKey);
    expect(familyKeyOf(otherKeys, token.familyId)).not.toBe(familyKey);
    expect(refreshTokenHash(otherKeys, token)).not.toBe(hash);
    expect(refreshTokenHash(keys, { ...token, secret: mintFirstRefreshToken().secret })).not.toBe(hash);
  });

  it('logs a 12-character prefix of the family key, which is no part of the token', () => {
    const handle = familyHandleOf(familyKeyOf(keys, token.familyId));
    expect(handle).toHaveLength(12);
    expect(refreshTokenOf(token)).not.toContain(handle);
  });
});

describe('the successor', () => {
  it('is derived from the token under the server key: the same every time (the reuse interval’s), another for another key', () => {
    const token = mintFirstRefreshToken();
    const successor = successorOf(keys, token);
    expect(successor.familyId).toBe(token.familyId);
    expect(Buffer.from(successor.secret, 'base64url')).toHaveLength(32);
    expect(successorOf(keys, token)).toEqual(successor);
    expect(successorOf(otherKeys, token)).not.toEqual(successor);
    expect(successorOf(keys, successor)).not.toEqual(successor);
  });

  it('never repeats along a chain (1,000 rotations)', () => {
    let current = mintFirstRefreshToken();
    const seen = new Set([current.secret]);
    for (let step = 0; step < 1000; step += 1) {
      current = successorOf(keys, current);
      seen.add(current.secret);
    }
    expect(seen.size).toBe(1001);
  });
});

describe('lifetimes', () => {
  const lifetimes = refreshLifetimesOf(client('local-web'));

  it('are the client’s settings in ms, and none for a client without refresh tokens', () => {
    expect(lifetimes).toEqual({
      idleMs: 30 * DAY_MS,
      absoluteMs: 90 * DAY_MS,
      reuseIntervalMs: 0,
      limit: { maxRefreshes: 10, windowMs: 60_000 },
    });
    expect(refreshLifetimesOf(client('local-backend'))).toBeUndefined();
  });

  it('end at the earlier of the idle deadline (from the last rotation) and the absolute one (from the login)', () => {
    const login = 1_000_000;
    expect(usableUntil(lifetimes!, { createdAt: login, rotatedAt: login })).toBe(login + 30 * DAY_MS);
    expect(usableUntil(lifetimes!, { createdAt: login, rotatedAt: login + 40 * DAY_MS })).toBe(login + 70 * DAY_MS);
    expect(usableUntil(lifetimes!, { createdAt: login, rotatedAt: login + 80 * DAY_MS })).toBe(login + 90 * DAY_MS);
  });

  it('keep the family a day longer than it is usable (TTL, in seconds, rounded up), for the access tokens it issued', () => {
    const login = 1_000_500;
    expect(keepUntilOf(lifetimes!, { createdAt: login, rotatedAt: login })).toBe(
      Math.ceil((login + 30 * DAY_MS) / 1000) + ACCESS_TOKEN_MAX_SECONDS,
    );
  });
});

describe('a narrowed scope (RFC 6749 §6)', () => {
  it.each<[string | undefined, string | undefined, object]>([
    [undefined, 'openid email', { granted: 'openid email' }],
    ['', 'openid email', { granted: 'openid email' }],
    ['email', 'openid email', { granted: 'email' }],
    ['email openid email', 'openid email', { granted: 'email openid' }],
    ['openid phone', 'openid email', { refused: 'phone' }],
    ['openid', undefined, { refused: 'openid' }],
    [undefined, undefined, { granted: undefined }],
  ])('asked %p of %p: %p', (requested, granted, expected) => {
    expect(narrowScope(requested, granted)).toEqual(expected);
  });

  const claims = { email: 'a@example.com', email_verified: true, phone_number: '+14155552671', phone_number_verified: true };

  it('keeps only the address claims the narrowed scope still covers', () => {
    const web = client('local-web');
    expect(claimsWithin(claims, web, 'openid email')).toEqual({ email: 'a@example.com', email_verified: true });
    expect(claimsWithin(claims, web, 'phone')).toEqual({ phone_number: '+14155552671', phone_number_verified: true });
    expect(claimsWithin(claims, web, 'openid')).toEqual({});
    expect(claimsWithin(claims, web, undefined)).toEqual({});
  });

  it('keeps them all for a client that always wants them (includeUserIdClaim)', () => {
    const always = { ...client('local-web'), accessToken: { ...client('local-web').accessToken, includeUserIdClaim: true } };
    expect(claimsWithin(claims, always, 'openid')).toEqual(claims);
  });
});
