/**
 * The JWT signing key set and its rotation: one group of keys per signing algorithm (ES256,
 * RFC 7518 §3.4, the default; RS256, §3.3, for consumers that verify RSA only).
 *
 * Each group holds up to three keys, each with a status:
 * - `next`: published in the JWKS but not yet signing, so verifiers that cache the JWKS already
 *   know it when it starts signing;
 * - `current`: signs every new token of that algorithm;
 * - `previous`: no longer signs, still published, so tokens it signed verify until they expire.
 *
 * Rotation (docs/operations/key-rotation.md) rotates every group at once: drops `previous`,
 * demotes `current`, promotes `next` and adds a new `next`. As long as a rotation period is longer
 * than the longest token lifetime plus the JWKS cache time, no token ever fails to verify because
 * of a rotation. A group the set does not have yet (a set stored before RS256 existed) is created
 * by the next rotation with a current and a next key.
 *
 * The `kid` is the key's JWK thumbprint (RFC 7638), so it is derived from the key and unique.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import '../platform/zod';
import * as z from 'zod/mini';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../platform/vocabulary';

export type KeyStatus = 'next' | 'current' | 'previous';

/** RFC 7518 §3.3: "A key of size 2048 bits or larger MUST be used with these algorithms." */
export const MIN_RSA_MODULUS_BITS = 2048;

const base64url = () => z.string().check(z.regex(/^[A-Za-z0-9_-]+$/));
/** An RSA modulus of at least 2048 bits (its base64url form, without leading zero octets). */
const rsaModulus = () =>
  base64url().check(
    z.refine(
      (n) => Buffer.from(n, 'base64url').length * 8 >= MIN_RSA_MODULUS_BITS,
      `an RSA modulus of at least ${MIN_RSA_MODULUS_BITS} bits`,
    ),
  );

const ecPrivateJwk = z.looseObject({ kty: z.literal('EC'), crv: z.literal('P-256'), x: base64url(), y: base64url(), d: base64url() });
const rsaPrivateJwk = z.looseObject({
  kty: z.literal('RSA'),
  n: rsaModulus(),
  e: base64url(),
  d: base64url(),
  p: base64url(),
  q: base64url(),
  dp: base64url(),
  dq: base64url(),
  qi: base64url(),
});

/** The JWK key type each algorithm needs. */
const KEY_TYPE: Readonly<Record<SigningAlgorithm, 'EC' | 'RSA'>> = { ES256: 'EC', RS256: 'RSA' };

const storedKeySchema = z
  .strictObject({
    kid: z.string().check(z.minLength(1)),
    status: z.enum(['next', 'current', 'previous']),
    /** A set stored before RS256 existed has no `alg`: its keys are all ES256. */
    alg: z._default(z.enum(SIGNING_ALGORITHMS), 'ES256'),
    /** ISO 8601: when the key was generated. */
    createdAt: z.string(),
    privateJwk: z.discriminatedUnion('kty', [ecPrivateJwk, rsaPrivateJwk]),
  })
  .check(
    z.refine((key) => key.privateJwk.kty === KEY_TYPE[key.alg], {
      message: 'a key of the wrong type for its algorithm',
      path: ['privateJwk', 'kty'],
    }),
  );

const storedKeySetSchema = z.strictObject({
  keys: z.array(storedKeySchema).check(
    z.refine(
      (keys) =>
        SIGNING_ALGORITHMS.every(
          (alg) => !keys.some((key) => key.alg === alg) || keys.filter((key) => key.alg === alg && key.status === 'current').length === 1,
        ),
      'exactly one key of each algorithm must be current',
    ),
    z.refine((keys) => keys.some((key) => key.alg === 'ES256'), 'the set must hold ES256 keys (the default algorithm)'),
    z.refine((keys) => new Set(keys.map((key) => key.kid)).size === keys.length, 'kids must be unique'),
  ),
});

/** The key set as stored (a Secrets Manager secret on AWS, a file locally). Contains private keys. */
export type StoredKeySet = z.infer<typeof storedKeySetSchema>;
export type StoredKey = z.infer<typeof storedKeySchema>;

/** Validates a stored key set, with a message that says what is wrong (never the key material). */
export function parseStoredKeySet(raw: unknown): StoredKeySet {
  const result = storedKeySetSchema.safeParse(raw);
  if (!result.success) throw new Error(`Invalid signing key set: ${z.prettifyError(result.error)}`);
  return result.data;
}

/** Generates one key of `alg` (RSA: 2048 bits) with its thumbprint as kid. */
export async function generateStoredKey(status: KeyStatus, now: Date, alg: SigningAlgorithm = 'ES256'): Promise<StoredKey> {
  const { privateKey } = await generateKeyPair(alg, {
    extractable: true,
    ...(alg === 'RS256' ? { modulusLength: MIN_RSA_MODULUS_BITS } : {}),
  });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  return { kid, status, alg, createdAt: now.toISOString(), privateJwk: jwk as StoredKey['privateJwk'] };
}

/** A group's first keys: a current key and the next one already published. */
async function initialGroup(alg: SigningAlgorithm, now: Date): Promise<StoredKey[]> {
  return [await generateStoredKey('current', now, alg), await generateStoredKey('next', now, alg)];
}

/** A first key set: for each algorithm, a current key and the next one already published. */
export async function initialKeySet(now: Date): Promise<StoredKeySet> {
  const groups = await Promise.all(SIGNING_ALGORITHMS.map((alg) => initialGroup(alg, now)));
  return { keys: groups.flat() };
}

/**
 * The set with a group (a current and a next key) added for every algorithm it has no keys of;
 * the set itself when it has them all. For the local runtime, whose key set file may predate an
 * algorithm (on AWS the next rotation adds the group).
 */
export async function completeKeySet(set: StoredKeySet, now: Date): Promise<StoredKeySet> {
  const missing = SIGNING_ALGORITHMS.filter((alg) => !set.keys.some((key) => key.alg === alg));
  if (missing.length === 0) return set;
  return { keys: [...set.keys, ...(await Promise.all(missing.map((alg) => initialGroup(alg, now)))).flat()] };
}

/**
 * One rotation step, for every algorithm: previous is dropped, current becomes previous, next
 * becomes current, a new next is added. An algorithm the set has no keys of gets its first ones.
 */
export async function rotateKeySet(set: StoredKeySet, now: Date): Promise<StoredKeySet> {
  const groups = await Promise.all(
    SIGNING_ALGORITHMS.map(async (alg) => {
      const group = set.keys.filter((key) => key.alg === alg);
      if (group.length === 0) return initialGroup(alg, now);
      const current = group.find((key) => key.status === 'current');
      const next = group.find((key) => key.status === 'next');
      if (current === undefined) throw new Error(`Invalid signing key set: no current ${alg} key`);
      const promoted = next ?? (await generateStoredKey('current', now, alg));
      return [
        { ...current, status: 'previous' as const },
        { ...promoted, status: 'current' as const },
        await generateStoredKey('next', now, alg),
      ];
    }),
  );
  return { keys: groups.flat() };
}

/** A key that signs: its kid for the header, the imported private key. */
export interface SigningKey {
  readonly kid: string;
  readonly key: CryptoKey;
}

/** What the token endpoint signs with: the current key of each algorithm, and nothing else of the set. */
export interface SigningKeys {
  readonly current: ReadonlyMap<SigningAlgorithm, SigningKey>;
}

/** Imports the current private key of each algorithm of a stored key set (once per container and max age). */
export async function loadSigningKeys(raw: unknown): Promise<SigningKeys> {
  const set = parseStoredKeySet(raw);
  const current = new Map<SigningAlgorithm, SigningKey>();
  for (const stored of set.keys.filter((key) => key.status === 'current')) {
    current.set(
      stored.alg,
      Object.freeze({ kid: stored.kid, key: await importJWK({ ...stored.privateJwk, alg: stored.alg }, stored.alg) }),
    );
  }
  return Object.freeze({ current });
}

/**
 * The public half of a key set: the JWKS document (RFC 7517 §5), every key the set holds, each
 * with its `kid`, `alg` and `use`, next first, then current, then previous. This is what the
 * rotation function publishes for the functions that only verify (well-known, introspect), so
 * they never hold a private key.
 */
export function publicKeySet(set: StoredKeySet): { keys: JWK[] } {
  const order: Record<KeyStatus, number> = { next: 0, current: 1, previous: 2 };
  return {
    keys: [...set.keys]
      .sort((a, b) => order[a.status] - order[b.status])
      .map((stored) => {
        const jwk = stored.privateJwk;
        const material = jwk.kty === 'EC' ? { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } : { kty: 'RSA', n: jwk.n, e: jwk.e };
        return { ...material, kid: stored.kid, alg: stored.alg, use: 'sig' };
      }),
  };
}

const publicJwkSchema = z.discriminatedUnion('kty', [
  z.strictObject({
    kty: z.literal('EC'),
    crv: z.literal('P-256'),
    x: base64url(),
    y: base64url(),
    kid: z.string().check(z.minLength(1)),
    alg: z.literal('ES256'),
    use: z.literal('sig'),
  }),
  z.strictObject({
    kty: z.literal('RSA'),
    n: rsaModulus(),
    e: base64url(),
    kid: z.string().check(z.minLength(1)),
    alg: z.literal('RS256'),
    use: z.literal('sig'),
  }),
]);
/**
 * The published public key set: what the verifying functions accept, and what the JWKS endpoint
 * serves (docs/openapi.json describes the endpoint's answer with this schema: infra/openapi/).
 */
export const publicKeySetSchema = z.strictObject({ keys: z.array(publicJwkSchema).check(z.minLength(1)) });
/** The JWKS (RFC 7517 §5) as published: public members only. */
export type PublicKeySet = z.infer<typeof publicKeySetSchema>;

/** A key that verifies, and the one algorithm it verifies (a token's `alg` must name it). */
export interface VerificationKey {
  readonly alg: SigningAlgorithm;
  readonly key: CryptoKey;
}

/** What the verifying functions hold: public keys by kid, and the JWKS they publish. */
export interface VerificationKeys {
  readonly verification: ReadonlyMap<string, VerificationKey>;
  readonly jwks: { readonly keys: readonly PublicKeySet['keys'][number][] };
}

/**
 * The public key a JWT's header names, if the service published it for that algorithm: for
 * jose's `jwtVerify` key function. The key is chosen by `kid`, and only for the algorithm it was
 * published with, so a token that names another `alg` for a known key finds no key (RFC 8725
 * §3.1, algorithm confusion); an empty key then fails verification as a bad signature, never a match.
 * @example
 * await jwtVerify(token, (header) => verificationKeyFor(keys, header.kid, header.alg), { algorithms: [...SIGNING_ALGORITHMS] });
 */
export function verificationKeyFor(keys: VerificationKeys, kid: string | undefined, alg: string | undefined): CryptoKey | Uint8Array {
  const entry = keys.verification.get(kid ?? '');
  return entry !== undefined && entry.alg === alg ? entry.key : new Uint8Array(0);
}

/**
 * Imports a published public key set once per container (and max age). Strict: a key with any
 * other member (a private `d` above all) is refused, so a private key can never be published by
 * mistake.
 */
export async function loadVerificationKeys(raw: unknown): Promise<VerificationKeys> {
  const result = publicKeySetSchema.safeParse(raw);
  if (!result.success) throw new Error(`Invalid public key set: ${z.prettifyError(result.error)}`);
  const verification = new Map<string, VerificationKey>();
  for (const jwk of result.data.keys) verification.set(jwk.kid, Object.freeze({ alg: jwk.alg, key: await importJWK(jwk, jwk.alg) }));
  return Object.freeze({
    verification,
    jwks: Object.freeze({ keys: Object.freeze(result.data.keys.map((jwk) => Object.freeze({ ...jwk }))) }),
  });
}
