/**
 * lib/keys/hmac-keys.ts: the purpose keys and the keyed hashes stored data is found by. Their
 * labels and inputs are part of the stored format: a user's counters, codes, refresh token
 * families and fraud guard counters are keyed by them, and `sub` is derived from them, so a
 * changed label would orphan every stored item and change every user's subject. The vectors
 * below pin them.
 */
import { hkdfSync } from 'node:crypto';
import { deriveHmacKeys, guardKeyOf, hmac, subjectOf, userKeyOf } from '../../../lib/keys/hmac-keys';
import { familyKeyOf, refreshLifetimesOf, refreshTokenHash } from '../../../lib/oauth/refresh-tokens';
import type { ClientConfig } from '../../../lib/platform/config';

const SECRET = Buffer.alloc(32, 7);
const KEYS = deriveHmacKeys(SECRET);

describe('deriveHmacKeys', () => {
  it.each([
    ['user', 'user-key'],
    ['code', 'code-digest'],
    ['subject', 'subject'],
    ['authorizationCode', 'authorization-code'],
    ['loginTransaction', 'login-transaction'],
    ['guard', 'guard-key'],
    ['refreshToken', 'refresh-token'],
    ['refreshSuccessor', 'refresh-successor'],
    ['testMessage', 'test-message'],
  ] as const)('derives %s with HKDF-SHA256, info identity/%s/v1, no salt, 32 bytes (RFC 5869)', (name, purpose) => {
    const expected = Buffer.from(hkdfSync('sha256', SECRET, Buffer.alloc(0), `identity/${purpose}/v1`, 32));
    expect(KEYS[name].equals(expected)).toBe(true);
  });

  it('gives every purpose its own key', () => {
    const keys = Object.values(KEYS).map((key: Buffer) => key.toString('hex'));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('refuses a secret shorter than 32 bytes, and takes one of exactly 32', () => {
    expect(() => deriveHmacKeys(Buffer.alloc(31, 7))).toThrow('The HMAC secret must be at least 32 bytes');
    expect(() => deriveHmacKeys(Buffer.alloc(32, 7))).not.toThrow();
  });
});

describe('the keyed hashes stored items are found by', () => {
  const user = { authType: 'email' as const, value: 'alice@example.com' };

  it('pins the user key, the subject and the guard keys', () => {
    expect(userKeyOf(KEYS, user)).toBe(hmac(KEYS.user, ['email', 'alice@example.com']));
    expect(subjectOf(KEYS, 'dev', user)).toBe(hmac(KEYS.subject, ['dev', 'email', 'alice@example.com']));
    expect(guardKeyOf(KEYS, 'ip', '192.0.2.0/24')).toBe(hmac(KEYS.guard, ['ip', '192.0.2.0/24']));
  });

  it('keeps the fraud guards’ namespaces apart: the same text as a source and as a prefix are two counters', () => {
    expect(guardKeyOf(KEYS, 'ip', '+1415')).not.toBe(guardKeyOf(KEYS, 'prefix', '+1415'));
    expect(guardKeyOf(KEYS, 'prefix', '+1415')).not.toBe(guardKeyOf(KEYS, 'prefix', '+1416'));
  });

  it('pins a refresh family’s key and a refresh token’s hash, each in its own namespace', () => {
    const familyId = 'AAAAAAAAAAAAAAAAAAAAAA';
    expect(familyKeyOf(KEYS, familyId)).toBe(hmac(KEYS.refreshToken, ['family', familyId]));
    expect(familyKeyOf(KEYS, familyId)).not.toBe(familyKeyOf(KEYS, 'BAAAAAAAAAAAAAAAAAAAAA'));
    const token = { familyId, secret: 's'.repeat(43) };
    expect(refreshTokenHash(KEYS, token)).toBe(hmac(KEYS.refreshToken, ['token', familyId, token.secret]));
  });

  it('hmac: HMAC-SHA256 of the JSON of the parts, base64url, so ["a,b"] and ["a","b"] differ', () => {
    expect(hmac(KEYS.user, ['a,b'])).not.toBe(hmac(KEYS.user, ['a', 'b']));
    expect(hmac(KEYS.user, ['x'])).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('refreshLifetimesOf', () => {
  it('turns the configuration’s seconds into milliseconds, the reuse interval too', () => {
    const client = {
      refreshTokens: { idleSeconds: 60, absoluteSeconds: 3600, reuseIntervalSeconds: 2, limit: { maxRefreshes: 4, windowSeconds: 30 } },
    } as ClientConfig;
    expect(refreshLifetimesOf(client)).toEqual({
      idleMs: 60_000,
      absoluteMs: 3_600_000,
      reuseIntervalMs: 2000,
      limit: { maxRefreshes: 4, windowMs: 30_000 },
    });
  });
});
