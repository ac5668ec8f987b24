/**
 * The JWT signing key set (ES256, RFC 7518 §3.4) and its rotation.
 *
 * The set holds up to three keys, each with a status:
 * - `next`: published in the JWKS but not yet signing, so verifiers that cache the JWKS already
 *   know it when it starts signing;
 * - `current`: signs every new token;
 * - `previous`: no longer signs, still published, so tokens it signed verify until they expire.
 *
 * Rotation (docs/operations/key-rotation.md) drops `previous`, demotes `current`, promotes `next`
 * and adds a new `next`. As long as a rotation period is longer than the longest token lifetime
 * plus the JWKS cache time, no token ever fails to verify because of a rotation.
 *
 * The `kid` is the key's JWK thumbprint (RFC 7638), so it is derived from the key and unique.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import '../zod';
import * as z from 'zod/mini';

export const SIGNING_ALGORITHM = 'ES256';

export type KeyStatus = 'next' | 'current' | 'previous';

const privateJwkSchema = z.looseObject({
  kty: z.literal('EC'),
  crv: z.literal('P-256'),
  x: z.string(),
  y: z.string(),
  d: z.string(),
});

const storedKeySchema = z.strictObject({
  kid: z.string().check(z.minLength(1)),
  status: z.enum(['next', 'current', 'previous']),
  /** ISO 8601: when the key was generated. */
  createdAt: z.string(),
  privateJwk: privateJwkSchema,
});

const storedKeySetSchema = z.strictObject({
  keys: z.array(storedKeySchema).check(
    z.refine((keys) => keys.filter((key) => key.status === 'current').length === 1, 'exactly one key must be current'),
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

/** Generates one ES256 key with its thumbprint as kid. */
export async function generateStoredKey(status: KeyStatus, now: Date): Promise<StoredKey> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  return { kid, status, createdAt: now.toISOString(), privateJwk: jwk as StoredKey['privateJwk'] };
}

/** A first key set: a current key and the next one already published. */
export async function initialKeySet(now: Date): Promise<StoredKeySet> {
  return { keys: [await generateStoredKey('current', now), await generateStoredKey('next', now)] };
}

/** One rotation step: previous is dropped, current becomes previous, next becomes current, a new next is added. */
export async function rotateKeySet(set: StoredKeySet, now: Date): Promise<StoredKeySet> {
  const current = set.keys.find((key) => key.status === 'current');
  const next = set.keys.find((key) => key.status === 'next');
  if (current === undefined) throw new Error('Invalid signing key set: no current key');
  const promoted = next ?? (await generateStoredKey('current', now));
  return {
    keys: [{ ...current, status: 'previous' }, { ...promoted, status: 'current' }, await generateStoredKey('next', now)],
  };
}

/** What the token endpoint signs with: the current key, and nothing else of the set. */
export interface SigningKeys {
  readonly signing: { readonly kid: string; readonly key: CryptoKey };
}

/** Imports the current private key of a stored key set, once per container. */
export async function loadSigningKeys(raw: unknown): Promise<SigningKeys> {
  const set = parseStoredKeySet(raw);
  const current = set.keys.find((key) => key.status === 'current');
  if (current === undefined) throw new Error('Invalid signing key set: no current key');
  const key = await importJWK({ ...current.privateJwk, alg: SIGNING_ALGORITHM }, SIGNING_ALGORITHM);
  return Object.freeze({ signing: Object.freeze({ kid: current.kid, key }) });
}

/**
 * The public half of a key set: the JWKS document (RFC 7517 §5), every key the set holds, next
 * first, then current, then previous. This is what the rotation function publishes for the
 * functions that only verify (well-known, introspect), so they never hold a private key.
 */
export function publicKeySet(set: StoredKeySet): { keys: JWK[] } {
  const order: Record<KeyStatus, number> = { next: 0, current: 1, previous: 2 };
  return {
    keys: [...set.keys]
      .sort((a, b) => order[a.status] - order[b.status])
      .map((stored) => ({
        kty: 'EC',
        crv: 'P-256',
        x: stored.privateJwk.x,
        y: stored.privateJwk.y,
        kid: stored.kid,
        alg: SIGNING_ALGORITHM,
        use: 'sig',
      })),
  };
}

const publicJwkSchema = z.strictObject({
  kty: z.literal('EC'),
  crv: z.literal('P-256'),
  x: z.string().check(z.minLength(1)),
  y: z.string().check(z.minLength(1)),
  kid: z.string().check(z.minLength(1)),
  alg: z.literal(SIGNING_ALGORITHM),
  use: z.literal('sig'),
});
const publicKeySetSchema = z.strictObject({ keys: z.array(publicJwkSchema).check(z.minLength(1)) });

/** What the verifying functions hold: public keys by kid, and the JWKS they publish. */
export interface VerificationKeys {
  readonly verification: ReadonlyMap<string, CryptoKey>;
  readonly jwks: { readonly keys: readonly JWK[] };
}

/**
 * Imports a published public key set once per container. Strict: a key with any other member
 * (a private `d` above all) is refused, so a private key can never be published by mistake.
 */
export async function loadVerificationKeys(raw: unknown): Promise<VerificationKeys> {
  const result = publicKeySetSchema.safeParse(raw);
  if (!result.success) throw new Error(`Invalid public key set: ${z.prettifyError(result.error)}`);
  const verification = new Map<string, CryptoKey>();
  for (const jwk of result.data.keys) verification.set(jwk.kid, await importJWK(jwk, SIGNING_ALGORITHM));
  // Cached for the container's life: nothing may change what later requests verify with or publish.
  return Object.freeze({
    verification,
    jwks: Object.freeze({ keys: Object.freeze(result.data.keys.map((jwk) => Object.freeze({ ...jwk }))) }),
  });
}
