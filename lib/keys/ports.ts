/** The keys' port: where the secrets they are derived from come from (lib/adapters/secrets/). */

/** Where the service's secrets come from: a git-ignored folder locally, Secrets Manager on AWS. */
export interface SecretSource {
  /** The master HMAC secret (at least 32 bytes). */
  hmacSecret(): Promise<Buffer>;
  /** The signing key set, as stored (see `lib/keys/signing-keys.ts`): private keys. */
  signingKeySet(): Promise<unknown>;
  /** Its public half, the JWKS the verifying functions read: no private key. */
  verificationKeySet(): Promise<unknown>;
}
