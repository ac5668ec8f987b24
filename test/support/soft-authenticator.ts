/**
 * A software WebAuthn authenticator and client in one, for tests: it answers the options JSON the
 * service gives the page (PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON)
 * with the JSON the page posts back (RegistrationResponseJSON, AuthenticationResponseJSON), as
 * `@simplewebauthn/browser` would after a platform authenticator answered.
 *
 * It makes ES256 (P-256) credentials with node:crypto, attestation `none` (WebAuthn L3 §8.7), and
 * remembers them as discoverable (resident) credentials, so a request with no `allowCredentials`
 * is answered with one of them and its user handle (§6.2.2 discoverable credentials). Flags by
 * default: UP, UV, BE, BS (and AT at registration) — a synced passkey, as most are today.
 *
 * Knobs for the refusals the server must make: another origin, another RP ID (its hash in the
 * authenticator data), no user verification, a forced signature counter, a forged signature (by
 * another key), another challenge or user handle, and the backup flags.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/** Authenticator data flags (WebAuthn L3 §6.1). */
const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

/** What a test can change of one ceremony (or, given to the constructor, of every one). */
export interface SoftAuthenticatorKnobs {
  /** The origin the client puts in clientDataJSON. */
  readonly origin?: string;
  /** The RP ID whose SHA-256 the authenticator data carries (a wrong one: another site's). */
  readonly rpId?: string;
  /** UV flag (default true). */
  readonly userVerified?: boolean;
  /** UP flag (default true). */
  readonly userPresent?: boolean;
  /** The signature counter to report (default: the credential's own, counted up once per assertion). */
  readonly signCount?: number;
  /** Sign with another key than the credential's. */
  readonly forgeSignature?: boolean;
  /** BE and BS flags. */
  readonly backupEligible?: boolean;
  readonly backupState?: boolean;
  /** The challenge the client puts in clientDataJSON (default: the options'). */
  readonly challenge?: string;
  /** The `type` of clientDataJSON (default `webauthn.create` / `webauthn.get`). */
  readonly type?: string;
  /** The user handle of the assertion (default: the credential's). */
  readonly userHandle?: string | null;
  /** The credential to answer with (default: the newest one for the RP ID that the request allows). */
  readonly credentialId?: string;
}

/** A credential the authenticator holds. */
export interface SoftCredential {
  readonly id: string;
  readonly rpId: string;
  /** base64url of user.id. */
  readonly userHandle: string;
  readonly userName: string;
  readonly privateKey: KeyObject;
  /** The COSE_Key of the public key (what the server stores). */
  readonly cosePublicKey: Uint8Array;
  signCount: number;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  /** @param defaults what every ceremony uses unless it says otherwise; `origin` at least. */
  constructor(private readonly defaults: SoftAuthenticatorKnobs & { readonly origin: string; readonly aaguid?: string }) {}

  /**
   * navigator.credentials.create(): a new resident ES256 credential for the options' RP and user.
   * Throws (as the browser's InvalidStateError) when it holds one of `excludeCredentials`.
   */
  register(options: PublicKeyCredentialCreationOptionsJSON, knobs: SoftAuthenticatorKnobs = {}): RegistrationResponseJSON {
    const k = { ...this.defaults, ...knobs };
    const rpId = options.rp.id ?? new URL(k.origin).hostname;
    if (!options.pubKeyCredParams.some((param) => param.alg === -7)) throw new Error('NotSupportedError: ES256 is not offered');
    const excluded = new Set((options.excludeCredentials ?? []).map((descriptor) => descriptor.id));
    if (this.credentials.some((held) => held.rpId === rpId && excluded.has(held.id)))
      throw new Error('InvalidStateError: excluded credential');

    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const idBytes = randomBytes(16);
    const credential: SoftCredential = {
      id: idBytes.toString('base64url'),
      rpId,
      userHandle: options.user.id,
      userName: options.user.name,
      privateKey,
      cosePublicKey: coseKeyOf(publicKey),
      signCount: 0,
    };
    // A resident key replaces the one the authenticator held for the same RP and user (CTAP2 authenticatorMakeCredential).
    const same = this.credentials.findIndex((held) => held.rpId === rpId && held.userHandle === credential.userHandle);
    if (same >= 0) this.credentials.splice(same, 1);
    this.credentials.push(credential);

    const signCount = k.signCount ?? credential.signCount;
    const attested = Buffer.concat([aaguidBytes(k.aaguid), uint16(idBytes.length), idBytes, credential.cosePublicKey]);
    const authenticatorData = Buffer.concat([authenticatorDataOf(k.rpId ?? rpId, flagsOf(k) | FLAG.AT, signCount), attested]);
    const attestationObject = encodeCBOR(
      new Map<string, CBORType>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authenticatorData)],
      ]),
    );
    const clientDataJSON = clientDataOf(k.type ?? 'webauthn.create', k.challenge ?? options.challenge, k.origin);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        authenticatorData: b64url(authenticatorData),
        transports: ['hybrid', 'internal'],
        publicKeyAlgorithm: -7,
        publicKey: b64url(publicKey.export({ format: 'der', type: 'spki' })),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: { credProps: { rk: true } },
    };
  }

  /**
   * navigator.credentials.get(): an assertion by the chosen credential (the newest for the RP ID
   * among those allowed; any resident one when none is listed). Throws (as the browser's
   * NotAllowedError) when it holds none.
   */
  authenticate(options: PublicKeyCredentialRequestOptionsJSON, knobs: SoftAuthenticatorKnobs = {}): AuthenticationResponseJSON {
    const k = { ...this.defaults, ...knobs };
    const rpId = options.rpId ?? new URL(k.origin).hostname;
    const allowed = new Set((options.allowCredentials ?? []).map((descriptor) => descriptor.id));
    const candidates = this.credentials.filter(
      (held) =>
        held.rpId === rpId && (allowed.size === 0 || allowed.has(held.id)) && (k.credentialId === undefined || held.id === k.credentialId),
    );
    const credential = candidates.at(-1);
    if (credential === undefined) throw new Error('NotAllowedError: no credential for this request');

    credential.signCount += 1;
    const signCount = k.signCount ?? credential.signCount;
    const authenticatorData = authenticatorDataOf(k.rpId ?? rpId, flagsOf(k), signCount);
    const clientDataJSON = clientDataOf(k.type ?? 'webauthn.get', k.challenge ?? options.challenge, k.origin);
    // WebAuthn L3 §6.3.3 step 11: the signature is over authenticatorData || SHA-256(clientDataJSON).
    const signed = Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]);
    const key = k.forgeSignature === true ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey : credential.privateKey;
    const signature = sign('sha256', signed, key);
    const userHandle = k.userHandle === undefined ? credential.userHandle : k.userHandle;
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /** Forgets a credential (the user deleted the passkey on the device). */
  forget(credentialId: string): void {
    const index = this.credentials.findIndex((held) => held.id === credentialId);
    if (index >= 0) this.credentials.splice(index, 1);
  }
}

function flagsOf(k: SoftAuthenticatorKnobs): number {
  const backupEligible = k.backupEligible ?? true;
  return (
    (k.userPresent === false ? 0 : FLAG.UP) |
    (k.userVerified === false ? 0 : FLAG.UV) |
    (backupEligible ? FLAG.BE : 0) |
    ((k.backupState ?? backupEligible) ? FLAG.BS : 0)
  );
}

/** rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian): WebAuthn L3 §6.1. */
function authenticatorDataOf(rpId: string, flags: number, signCount: number): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(signCount);
  return Buffer.concat([createHash('sha256').update(rpId).digest(), Buffer.from([flags]), count]);
}

/** The JSON the client hashes (WebAuthn L3 §5.8.1), its members in the order browsers write them. */
function clientDataOf(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/** An EC2 P-256 COSE_Key (RFC 9053 §7.1.1): kty 2, alg -7 (ES256), crv 1, x, y. */
function coseKeyOf(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.x === undefined || jwk.y === undefined) throw new Error('Not an EC key');
  return encodeCBOR(
    new Map<number, CBORType>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y, 'base64url'))],
    ]),
  );
}

function aaguidBytes(aaguid: string | undefined): Buffer {
  return aaguid === undefined ? Buffer.alloc(16) : Buffer.from(aaguid.replaceAll('-', ''), 'hex');
}

function uint16(value: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(value);
  return bytes;
}

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
