import { SignJWT, calculateJwkThumbprint, createLocalJWKSet, importJWK, jwtVerify, type JWK } from 'jose';
import {
  MIN_RSA_MODULUS_BITS,
  generateStoredKey,
  initialKeySet,
  loadSigningKeys,
  parseStoredKeySet,
  rotateKeySet,
  type StoredKey,
  type StoredKeySet,
  loadVerificationKeys,
  publicKeySet,
} from '../../../lib/keys/signing-keys';

const NOW = new Date(Date.UTC(2026, 0, 15, 9, 30, 0));
const LATER = new Date(Date.UTC(2026, 3, 15, 9, 30, 0));
const SIGNING_ALGORITHM = 'ES256';

/** The keys of one algorithm's group (ES256 unless said otherwise), as a set of their own. */
function group(set: StoredKeySet, alg: StoredKey['alg'] = 'ES256'): StoredKeySet {
  return { keys: set.keys.filter((key) => key.alg === alg) };
}

function keyWith(set: StoredKeySet, status: StoredKey['status'], alg: StoredKey['alg'] = 'ES256'): StoredKey {
  const key = set.keys.find((candidate) => candidate.status === status && candidate.alg === alg);
  if (key === undefined) throw new Error(`no ${status} ${alg} key`);
  return key;
}

function statuses(set: StoredKeySet, alg: StoredKey['alg'] = 'ES256'): string[] {
  return group(set, alg)
    .keys.map((key) => key.status)
    .sort();
}

/** Every private and public member of every key in a set: none may appear in an error message. */
function keyMaterial(set: StoredKeySet): string[] {
  return set.keys.flatMap((key) =>
    Object.entries(key.privateJwk).flatMap(([name, value]) => (name === 'kty' || name === 'crv' || name === 'e' ? [] : [String(value)])),
  );
}

function signWith(key: Parameters<SignJWT['sign']>[0], kid: string, alg = SIGNING_ALGORITHM): Promise<string> {
  return new SignJWT({ scope: 'openid' })
    .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
    .setIssuer('https://idp.test')
    .setAudience('https://api.test')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
}

function verifyWith(jwks: { readonly keys: readonly JWK[] }, token: string) {
  return jwtVerify(token, createLocalJWKSet({ keys: [...jwks.keys] }), { issuer: 'https://idp.test', audience: 'https://api.test' });
}

describe('generateStoredKey', () => {
  it('generates a P-256 private key whose kid is the RFC 7638 thumbprint of its public JWK', async () => {
    const key = await generateStoredKey('current', NOW);

    const { kty, crv, x, y } = key.privateJwk as { kty: string; crv: string; x: string; y: string };
    expect(key.kid).toBe(await calculateJwkThumbprint({ kty, crv, x, y }, 'sha256'));
    expect(key).toEqual({
      kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      status: 'current',
      alg: 'ES256',
      createdAt: '2026-01-15T09:30:00.000Z',
      privateJwk: { kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), d: expect.any(String) },
    });
    // A P-256 private scalar is 32 bytes: 43 base64url characters.
    expect(key.privateJwk.d).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('generates an RS256 key of 2048 bits (RFC 7518 §3.3: at least 2048) whose kid is its thumbprint', async () => {
    const key = await generateStoredKey('next', NOW, 'RS256');
    const { n, e } = key.privateJwk as { n: string; e: string };
    expect(key).toMatchObject({ alg: 'RS256', status: 'next', privateJwk: { kty: 'RSA', n: expect.any(String), d: expect.any(String) } });
    expect(Buffer.from(n, 'base64url').length * 8).toBe(MIN_RSA_MODULUS_BITS);
    expect(key.kid).toBe(await calculateJwkThumbprint({ kty: 'RSA', n, e }, 'sha256'));
  });

  it('generates a different key every time', async () => {
    const [a, b] = await Promise.all([generateStoredKey('next', NOW), generateStoredKey('next', NOW)]);

    expect(a.kid).not.toBe(b.kid);
    expect(a.privateJwk.d).not.toBe(b.privateJwk.d);
  });
});

describe('initialKeySet', () => {
  it('holds, for each algorithm, one current key and one next key, and is a valid stored set', async () => {
    const set = await initialKeySet(NOW);

    for (const alg of ['ES256', 'RS256'] as const) {
      expect(statuses(set, alg)).toEqual(['current', 'next']);
      expect(keyWith(set, 'current', alg).kid).not.toBe(keyWith(set, 'next', alg).kid);
    }
    expect(parseStoredKeySet(JSON.parse(JSON.stringify(set)))).toEqual(set);
  });
});

describe('rotateKeySet', () => {
  it('demotes current to previous, promotes next to current and adds a new next, in every group', async () => {
    const set = await initialKeySet(NOW);
    const before = structuredClone(set);

    const rotated = await rotateKeySet(set, LATER);

    expect(statuses(rotated)).toEqual(['current', 'next', 'previous']);
    expect(keyWith(rotated, 'previous')).toEqual({ ...keyWith(set, 'current'), status: 'previous' });
    expect(keyWith(rotated, 'current')).toEqual({ ...keyWith(set, 'next'), status: 'current' });
    const next = keyWith(rotated, 'next');
    expect(set.keys.map((key) => key.kid)).not.toContain(next.kid);
    expect(next.createdAt).toBe(LATER.toISOString());
    expect(statuses(rotated, 'RS256')).toEqual(['current', 'next', 'previous']);
    expect(keyWith(rotated, 'current', 'RS256')).toEqual({ ...keyWith(set, 'next', 'RS256'), status: 'current' });
    expect(set).toEqual(before);
  });

  it('creates the RS256 group (current and next) for a set stored before RS256 existed, keeping the ES256 rotation', async () => {
    const legacy = { keys: group(await initialKeySet(NOW)).keys.map(({ alg: _alg, ...key }) => key) };
    const parsed = parseStoredKeySet(legacy);
    expect(parsed.keys.every((key) => key.alg === 'ES256')).toBe(true);

    const rotated = await rotateKeySet(parsed, LATER);

    expect(statuses(rotated, 'ES256')).toEqual(['current', 'next', 'previous']);
    expect(statuses(rotated, 'RS256')).toEqual(['current', 'next']);
  });

  it('drops the previous key, so a group never holds more than three keys', async () => {
    let set = group(await initialKeySet(NOW));
    const seen: string[][] = [];
    for (let rotation = 0; rotation < 5; rotation += 1) {
      const oldCurrent = keyWith(set, 'current').kid;
      const oldPrevious = set.keys.find((key) => key.status === 'previous')?.kid;
      set = group(await rotateKeySet(set, LATER));
      seen.push(set.keys.map((key) => key.kid));

      expect(set.keys).toHaveLength(3);
      expect(statuses(set)).toEqual(['current', 'next', 'previous']);
      expect(keyWith(set, 'previous').kid).toBe(oldCurrent);
      if (oldPrevious !== undefined) expect(set.keys.map((key) => key.kid)).not.toContain(oldPrevious);
      expect(parseStoredKeySet(set)).toEqual(set);
    }
    expect(new Set(seen.flat()).size).toBe(5 + 2);
  });

  it('generates a new current key when the set has no next key', async () => {
    const current = await generateStoredKey('current', NOW);

    const rotated = await rotateKeySet({ keys: [current] }, LATER);

    expect(statuses(rotated)).toEqual(['current', 'next', 'previous']);
    expect(keyWith(rotated, 'previous')).toEqual({ ...current, status: 'previous' });
    expect(keyWith(rotated, 'current').kid).not.toBe(current.kid);
    expect(keyWith(rotated, 'current').createdAt).toBe(LATER.toISOString());
    expect(new Set(group(rotated).keys.map((key) => key.kid)).size).toBe(3);
  });

  it('refuses a set without a current key', async () => {
    const next = await generateStoredKey('next', NOW);

    await expect(rotateKeySet({ keys: [next] }, LATER)).rejects.toThrow('Invalid signing key set: no current ES256 key');
  });
});

describe('parseStoredKeySet', () => {
  let valid: StoredKeySet;
  beforeAll(async () => {
    valid = await rotateKeySet(await initialKeySet(NOW), LATER);
  });

  /** The valid set with one change applied to a deep copy. */
  function variant(change: (copy: { keys: Record<string, unknown>[] } & Record<string, unknown>) => void): unknown {
    const copy = structuredClone(valid) as unknown as { keys: Record<string, unknown>[] } & Record<string, unknown>;
    change(copy);
    return copy;
  }

  function jwkOf(copy: { keys: Record<string, unknown>[] }, index: number): Record<string, unknown> {
    return copy.keys[index]!.privateJwk as Record<string, unknown>;
  }

  it('accepts a valid set, including private JWKs with extra JWK members', () => {
    const withJwkExtras = variant((copy) => Object.assign(jwkOf(copy, 0), { kid: 'k', alg: 'ES256' }));

    expect(parseStoredKeySet(valid)).toEqual(valid);
    expect(() => parseStoredKeySet(withJwkExtras)).not.toThrow();
  });

  // zod/mini has no message texts until some module configures a locale (lib/platform/config.ts does; the
  // rotation Lambda never imports it), so only what holds either way is asserted: the path of the
  // problem where it has one, and the refinements' own messages.
  it.each<[string, () => unknown, RegExp]>([
    [
      'no current key',
      () => variant((copy) => (copy.keys = copy.keys.filter((key) => key.status !== 'current'))),
      /exactly one key of each algorithm must be current/,
    ],
    ['two current keys', () => variant((copy) => (copy.keys[0]!.status = 'current')), /exactly one key of each algorithm must be current/],
    ['no ES256 keys', () => variant((copy) => (copy.keys = copy.keys.filter((key) => key.alg !== 'ES256'))), /must hold ES256 keys/],
    [
      'an RSA key of 1024 bits',
      () => variant((copy) => (jwkOf(copy, 3).n = Buffer.alloc(128, 1).toString('base64url'))),
      /at least 2048 bits/,
    ],
    // 2040 bits: the modulus is counted in decoded octets, not in characters of its base64url text
    [
      'an RSA key of 2040 bits',
      () => variant((copy) => (jwkOf(copy, 3).n = Buffer.alloc(255, 1).toString('base64url'))),
      /at least 2048 bits/,
    ],
    [
      'an RSA key under ES256',
      () => variant((copy) => (copy.keys[3]!.alg = 'ES256')),
      /wrong type for its algorithm[\s\S]*keys\[3\]\.privateJwk\.kty/,
    ],
    [
      'a padded coordinate (base64url has no =)',
      () => variant((copy) => (jwkOf(copy, 0).x = `${jwkOf(copy, 0).x as string}=`)),
      /privateJwk\.x/,
    ],
    [
      'a coordinate that starts with a character outside base64url',
      () => variant((copy) => (jwkOf(copy, 0).y = `+${jwkOf(copy, 0).y as string}`)),
      /privateJwk\.y/,
    ],
    ['duplicate kids', () => variant((copy) => (copy.keys[1]!.kid = copy.keys[0]!.kid)), /kids must be unique/],
    ['a key of an unknown type', () => variant((copy) => (jwkOf(copy, 0).kty = 'OKP')), /privateJwk\.kty/],
    ['an EC key that claims to be RSA', () => variant((copy) => (jwkOf(copy, 0).kty = 'RSA')), /privateJwk\.n/],
    ['a key on another curve', () => variant((copy) => (jwkOf(copy, 1).crv = 'P-384')), /privateJwk\.crv/],
    ['a public key (no d)', () => variant((copy) => delete jwkOf(copy, 2).d), /privateJwk\.d\b/],
    ['an unknown status', () => variant((copy) => (copy.keys[2]!.status = 'retired')), /keys\[2\]\.status/],
    ['an empty kid', () => variant((copy) => (copy.keys[0]!.kid = '')), /keys\[0\]\.kid/],
    ['an extra field on a key', () => variant((copy) => (copy.keys[0]!.note = 'x')), /keys\[0\]/],
    ['an extra field on the set', () => variant((copy) => (copy.version = 2)), /./],
    ['something that is not a set at all', () => 'a CloudFormation placeholder', /./],
  ])('rejects %s, with a message that names the problem but no key material', (_name, build, expected) => {
    let message = '';
    try {
      parseStoredKeySet(build());
    } catch (error) {
      message = (error as Error).message;
    }

    expect(message).toMatch(/^Invalid signing key set: /);
    expect(message).toMatch(expected);
    for (const material of keyMaterial(valid)) expect(message).not.toContain(material);
  });
});

describe('loadSigningKeys', () => {
  let set: StoredKeySet;
  beforeAll(async () => {
    set = await rotateKeySet(await initialKeySet(NOW), LATER);
  });

  it('holds the current key of each algorithm only: what the token function signs with', async () => {
    const loaded = await loadSigningKeys(set);
    expect(Object.keys(loaded)).toEqual(['current']);
    expect([...loaded.current.keys()].sort()).toEqual(['ES256', 'RS256']);
    expect(loaded.current.get('ES256')?.kid).toBe(keyWith(set, 'current').kid);
    expect(loaded.current.get('RS256')?.kid).toBe(keyWith(set, 'current', 'RS256').kid);
  });

  it.each(['ES256', 'RS256'] as const)('signs a %s JWT that verifies against the published public set', async (alg) => {
    const loaded = await loadSigningKeys(set);
    const published = await loadVerificationKeys(publicKeySet(set));
    const signer = loaded.current.get(alg)!;

    const token = await signWith(signer.key, signer.kid, alg);
    const { protectedHeader, payload } = await verifyWith(published.jwks, token);

    expect(protectedHeader).toEqual({ alg, kid: keyWith(set, 'current', alg).kid, typ: 'at+jwt' });
    expect(payload).toMatchObject({ scope: 'openid' });
  });

  it('returns frozen objects, the signing entries included (regression: the freeze was shallow)', async () => {
    const loaded = await loadSigningKeys(set);
    expect(Object.isFrozen(loaded)).toBe(true);
    expect([...loaded.current.values()].every((entry) => Object.isFrozen(entry))).toBe(true);
  });

  it('refuses an invalid set without echoing key material', async () => {
    const twoCurrents = structuredClone(set);
    twoCurrents.keys.forEach((key) => (key.status = 'current'));

    const error = await loadSigningKeys(twoCurrents).then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );

    expect(error?.message).toMatch(/^Invalid signing key set: .*exactly one key of each algorithm must be current/s);
    for (const material of keyMaterial(set)) expect(error?.message).not.toContain(material);
  });
});

describe('publicKeySet', () => {
  it('is the public members only, next then current then previous, each with kid, alg and use, for both algorithms', async () => {
    const set = await rotateKeySet(await initialKeySet(NOW), LATER);
    const publicJwk = (status: StoredKey['status'], alg: StoredKey['alg']) => {
      const { kid, privateJwk } = keyWith(set, status, alg);
      const jwk = privateJwk as Record<string, string>;
      const material = alg === 'ES256' ? { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } : { kty: 'RSA', n: jwk.n, e: jwk.e };
      return { ...material, kid, alg, use: 'sig' };
    };
    const keys = publicKeySet(set).keys;
    expect(keys.filter((key) => key.alg === 'ES256')).toEqual([
      publicJwk('next', 'ES256'),
      publicJwk('current', 'ES256'),
      publicJwk('previous', 'ES256'),
    ]);
    expect(keys.filter((key) => key.alg === 'RS256')).toEqual([
      publicJwk('next', 'RS256'),
      publicJwk('current', 'RS256'),
      publicJwk('previous', 'RS256'),
    ]);
    for (const member of ['"d"', '"p"', '"q"', '"dp"', '"dq"', '"qi"']) expect(JSON.stringify(publicKeySet(set))).not.toContain(member);
  });
});

describe('loadVerificationKeys', () => {
  let set: StoredKeySet;
  beforeAll(async () => {
    set = await rotateKeySet(await initialKeySet(NOW), LATER);
  });

  it('verifies a token of the previous key, and refuses one of a key outside the set', async () => {
    const loaded = await loadVerificationKeys(publicKeySet(set));
    const previous = keyWith(set, 'previous');
    const stranger = await generateStoredKey('current', NOW);

    const old = await signWith(await importJWK({ ...previous.privateJwk }, SIGNING_ALGORITHM), previous.kid);
    const previousRsa = keyWith(set, 'previous', 'RS256');
    const oldRsa = await signWith(await importJWK({ ...previousRsa.privateJwk }, 'RS256'), previousRsa.kid, 'RS256');
    const forged = await signWith(await importJWK({ ...stranger.privateJwk }, SIGNING_ALGORITHM), stranger.kid);
    const forgedWithKnownKid = await signWith(await importJWK({ ...stranger.privateJwk }, SIGNING_ALGORITHM), previous.kid);

    expect([...loaded.verification.keys()].sort()).toEqual(set.keys.map((key) => key.kid).sort());
    await expect(verifyWith(loaded.jwks, old)).resolves.toMatchObject({ protectedHeader: { kid: previous.kid } });
    await expect(verifyWith(loaded.jwks, oldRsa)).resolves.toMatchObject({ protectedHeader: { kid: previousRsa.kid, alg: 'RS256' } });
    expect(loaded.verification.get(previousRsa.kid)?.alg).toBe('RS256');
    await expect(verifyWith(loaded.jwks, forged)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    await expect(verifyWith(loaded.jwks, forgedWithKnownKid)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });

  it('refuses a set that carries a private key, so one can never be published by mistake', async () => {
    const leaked = { keys: [{ ...publicKeySet(set).keys[0], d: keyWith(set, 'next').privateJwk.d }] };
    const error = await loadVerificationKeys(leaked).then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    expect(error?.message).toMatch(/^Invalid public key set/);
    for (const material of keyMaterial(set)) expect(error?.message).not.toContain(material);
  });

  it('returns a deeply frozen JWKS', async () => {
    const loaded = await loadVerificationKeys(publicKeySet(set));
    expect(Object.isFrozen(loaded)).toBe(true);
    expect(Object.isFrozen(loaded.jwks)).toBe(true);
    expect(Object.isFrozen(loaded.jwks.keys)).toBe(true);
    expect(loaded.jwks.keys.every((jwk) => Object.isFrozen(jwk))).toBe(true);
  });
});
