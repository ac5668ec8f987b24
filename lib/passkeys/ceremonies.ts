/**
 * The WebAuthn ceremonies' server side: the options the page hands to the browser, and the
 * verification of what the browser posts back (WebAuthn Level 3 §7.1 "Registering a New
 * Credential", §7.2 "Verifying an Authentication Assertion").
 *
 * The cryptography is `@simplewebauthn/server`'s, imported lazily (`await import`) so a code
 * login, which never verifies a passkey, never loads it: esbuild keeps a dynamically imported
 * module uninitialised until the first call. The options are plain JSON built here, for the same
 * reason: every page with a passkey button needs them, and few of those pages end in a passkey.
 *
 * The library refuses by throwing, with messages that are not an API. So every condition whose
 * reason the caller needs (challenge, origin, RP ID, user verification, user handle, counter) is
 * checked here first, from the posted bytes, in the specification's order; the library then
 * checks what is left (the signature, the attestation statement) and whatever it throws is that.
 * A posted value of any shape is a result, never an exception.
 */
import { createHash, createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import '../platform/zod';
import * as z from 'zod/mini';
import type { cose as Cose } from '@simplewebauthn/server/helpers';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { PasskeyRecord } from './ports';
import { rpIdOf } from './rp-id';

/** The relying party the ceremonies run for: the RP ID (a host name), its display name, and the page's origin. */
export interface RelyingParty {
  readonly id: string;
  readonly name: string;
  readonly origin: string;
}

/** A new credential as the registration ceremony proved it (the caller adds whose it is). */
export interface RegisteredCredential {
  readonly credentialId: string;
  /** COSE_Key. */
  readonly publicKey: Uint8Array;
  readonly signCount: number;
  readonly transports: readonly string[];
  readonly backupEligible: boolean;
  readonly backupState: boolean;
  readonly aaguid: string;
}

/** Why a registration was refused: the WebAuthn L3 §7.1 step that failed, or `malformed` for a response of the wrong shape. */
export type RegistrationRefusal = 'malformed' | 'challenge' | 'origin' | 'rp_id' | 'user_verification' | 'algorithm' | 'attestation';
export type RegistrationResult =
  { readonly ok: true; readonly credential: RegisteredCredential } | { readonly ok: false; readonly reason: RegistrationRefusal };

/** Why an assertion was refused: the WebAuthn L3 §7.2 step that failed, or `malformed` for a response of the wrong shape. */
export type AuthenticationRefusal =
  'malformed' | 'signature' | 'counter' | 'user_verification' | 'rp_id' | 'origin' | 'challenge' | 'user_handle';
export type AuthenticationResult =
  | { readonly ok: true; readonly signCount: number; readonly backupState: boolean }
  | { readonly ok: false; readonly reason: AuthenticationRefusal };

/** ES256 and RS256 (COSE -7, -257): what platform authenticators make (WebAuthn L3 §5.4 `pubKeyCredParams` advice). */
const ALGORITHMS = [-7, -257] as const;
/** Five minutes for the user to answer the browser's prompt (WebAuthn L3 §15.1 recommends 300 s to 600 s with UV required). */
const CEREMONY_TIMEOUT_MS = 300_000;
/**
 * A credential id is at most 1023 bytes (WebAuthn L3 §7.1 step 23), so at most 1364 base64url
 * characters; 1,400 bounds what is parsed before anything is looked up.
 */
const MAX_CREDENTIAL_ID_CHARS = 1400;
const MAX_CREDENTIAL_ID_BYTES = 1023;

/** Authenticator data flags (WebAuthn L3 §6.1). */
const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;
/** rpIdHash (32) ‖ flags (1) ‖ signCount (4): the fixed head of authenticator data (WebAuthn L3 §6.1). */
const AUTH_DATA_HEAD = 37;

const base64url = (max: number) => z.string().check(z.minLength(1), z.maxLength(max), z.regex(/^[A-Za-z0-9_-]+$/));
const credentialIdSchema = base64url(MAX_CREDENTIAL_ID_CHARS);
/** Parts of a posted response are bounded: a page's POST body is, and no real one comes near. */
const PART = 64 * 1024;

const registrationResponseSchema = z.looseObject({
  id: credentialIdSchema,
  rawId: credentialIdSchema,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: base64url(PART),
    attestationObject: base64url(PART),
    transports: z.optional(z.array(z.string().check(z.maxLength(32))).check(z.maxLength(10))),
  }),
});

const authenticationResponseSchema = z.looseObject({
  id: credentialIdSchema,
  rawId: credentialIdSchema,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: base64url(PART),
    authenticatorData: base64url(PART),
    signature: base64url(PART),
    userHandle: z.optional(z.nullable(z.string().check(z.maxLength(128)))),
  }),
});

/** The members of CollectedClientData this side reads (WebAuthn L3 §5.8.1). */
const clientDataSchema = z.looseObject({
  type: z.string(),
  challenge: z.string(),
  origin: z.string(),
  crossOrigin: z.optional(z.boolean()),
  topOrigin: z.optional(z.string()),
});

/**
 * The relying party of a stage: its RP ID is the configured one, else the issuer's host name (the
 * custom domain on a stage that has one: rp-id.ts, which the SMS's origin-bound line shares); its
 * origin is the issuer's, where the page is served.
 * @example relyingPartyOf(undefined, 'https://login.example.com/idp', 'Example') // { id: 'login.example.com', name: 'Example', origin: 'https://login.example.com' }
 */
export function relyingPartyOf(rpIdConfigured: string | undefined, issuer: string, name: string): RelyingParty {
  return { id: rpIdOf(rpIdConfigured, issuer), name, origin: new URL(issuer).origin };
}

/** A fresh challenge: 32 random bytes, base64url (WebAuthn L3 §13.4.3 asks for at least 16). */
export function newChallenge(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The options of navigator.credentials.create() for a new passkey of `user`: a discoverable
 * credential (so it signs in with no user name), user verification required, no attestation
 * (nothing here decides by the authenticator's make), and the user's existing passkeys excluded so
 * the same authenticator does not make a second one (WebAuthn L3 §5.4.3 `excludeCredentials`).
 */
export function registrationOptions(
  rp: RelyingParty,
  user: { readonly handle: string; readonly name: string; readonly displayName: string },
  challenge: string,
  existing: readonly PasskeyRecord[],
): PublicKeyCredentialCreationOptionsJSON {
  return {
    rp: { id: rp.id, name: rp.name },
    user: { id: user.handle, name: user.name, displayName: user.displayName },
    challenge,
    pubKeyCredParams: ALGORITHMS.map((alg) => ({ type: 'public-key', alg })),
    timeout: CEREMONY_TIMEOUT_MS,
    excludeCredentials: existing.map((passkey) => ({
      type: 'public-key',
      id: passkey.credentialId,
      ...(passkey.transports.length === 0 ? {} : { transports: [...passkey.transports] as AuthenticatorTransportName[] }),
    })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    attestation: 'none',
  };
}

type AuthenticatorTransportName = NonNullable<
  NonNullable<PublicKeyCredentialCreationOptionsJSON['excludeCredentials']>[number]['transports']
>[number];

/**
 * The options of navigator.credentials.get(): no `allowCredentials`, so the browser offers the
 * user's discoverable credentials for the RP (and conditional mediation can fill the field), user
 * verification required.
 */
export function authenticationOptions(rp: RelyingParty, challenge: string): PublicKeyCredentialRequestOptionsJSON {
  return { challenge, rpId: rp.id, allowCredentials: [], userVerification: 'required', timeout: CEREMONY_TIMEOUT_MS };
}

const credentialIdOnlySchema = z.looseObject({ id: credentialIdSchema });

/** The credential id a posted assertion names (to look the credential up), or undefined when it names none well-formed. */
export function credentialIdOf(response: unknown): string | undefined {
  const parsed = credentialIdOnlySchema.safeParse(response);
  return parsed.success ? parsed.data.id : undefined;
}

/**
 * WebAuthn L3 §7.1 for a posted RegistrationResponseJSON (a parsed object or its JSON text),
 * against the challenge of the page that asked for it.
 */
export async function verifyRegistration(rp: RelyingParty, challenge: string, response: unknown): Promise<RegistrationResult> {
  const parsed = registrationResponseSchema.safeParse(jsonOf(response));
  if (!parsed.success || parsed.data.id !== parsed.data.rawId) return refuse('malformed');
  const posted = parsed.data;
  if (Buffer.from(posted.id, 'base64url').length > MAX_CREDENTIAL_ID_BYTES) return refuse('malformed');

  // Steps 5-10: the client data.
  const clientRefusal = clientDataRefusal(posted.response.clientDataJSON, 'webauthn.create', challenge, rp.origin);
  if (clientRefusal !== undefined) return refuse(clientRefusal);

  const lib = await import('@simplewebauthn/server/helpers');
  let authData: Uint8Array<ArrayBuffer>;
  let publicKeyAlgorithm: unknown;
  try {
    authData = lib.decodeAttestationObject(new Uint8Array(Buffer.from(posted.response.attestationObject, 'base64url'))).get('authData');
    const parsedAuthData = lib.parseAuthenticatorData(authData);
    if (parsedAuthData.credentialPublicKey === undefined) return refuse('malformed');
    publicKeyAlgorithm = lib.decodeCredentialPublicKey(parsedAuthData.credentialPublicKey).get(lib.cose.COSEKEYS.alg);
  } catch {
    return refuse('malformed');
  }
  // Steps 13-17: the authenticator data.
  const flagsRefusal = authenticatorDataRefusal(authData, rp.id);
  if (flagsRefusal !== undefined) return refuse(flagsRefusal);
  // Step 12 (AT): a registration carries the new credential.
  if ((authData[32]! & FLAG.AT) === 0) return refuse('malformed');
  // Step 20: an algorithm this relying party offered.
  if (!(ALGORITHMS as readonly unknown[]).includes(publicKeyAlgorithm)) return refuse('algorithm');

  // Steps 21-22 (the attestation statement) and the rest, by the library.
  const { verifyRegistrationResponse } = await import('@simplewebauthn/server');
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: posted as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      supportedAlgorithmIDs: [...ALGORITHMS],
    });
  } catch {
    return refuse('attestation');
  }
  if (!verified.verified) return refuse('attestation');
  const info = verified.registrationInfo;
  return {
    ok: true,
    credential: {
      credentialId: info.credential.id,
      publicKey: new Uint8Array(info.credential.publicKey),
      signCount: info.credential.counter,
      transports: posted.response.transports ?? [],
      backupEligible: info.credentialDeviceType === 'multiDevice',
      backupState: info.credentialBackedUp,
      aaguid: info.aaguid,
    },
  };
}

/**
 * WebAuthn L3 §7.2 for a posted AuthenticationResponseJSON (a parsed object or its JSON text), by
 * the credential it names (`stored`, found by `credentialIdOf`), against the challenge of the page
 * that asked for it. On success, the new signature count and backup state to store.
 */
export async function verifyAuthentication(
  rp: RelyingParty,
  challenge: string,
  response: unknown,
  stored: PasskeyRecord,
): Promise<AuthenticationResult> {
  const parsed = authenticationResponseSchema.safeParse(jsonOf(response));
  if (!parsed.success || parsed.data.id !== parsed.data.rawId) return refuse('malformed');
  const posted = parsed.data;
  // Step 7: the credential record is the one the response names.
  if (posted.id !== stored.credentialId) return refuse('malformed');
  // Step 6: the user was not identified before the ceremony (discoverable credentials), so the
  // response must carry a user handle, and it must be the credential's owner's.
  if (posted.response.userHandle !== stored.userHandle) return refuse('user_handle');

  // Steps 10-14: the client data.
  const clientRefusal = clientDataRefusal(posted.response.clientDataJSON, 'webauthn.get', challenge, rp.origin);
  if (clientRefusal !== undefined) return refuse(clientRefusal);

  // Steps 15-18: the authenticator data.
  const authData = Buffer.from(posted.response.authenticatorData, 'base64url');
  if (authData.length < AUTH_DATA_HEAD) return refuse('malformed');
  const flagsRefusal = authenticatorDataRefusal(authData, rp.id);
  if (flagsRefusal !== undefined) return refuse(flagsRefusal);
  const flags = authData[32]!;
  // Step 19: backup eligibility is fixed at the credential's creation; a change is not this credential.
  if (((flags & FLAG.BE) !== 0) !== stored.backupEligible) return refuse('malformed');
  const signCount = authData.readUInt32BE(33);

  // Step 20: the signature over authData ‖ SHA-256(clientDataJSON) by the stored key, checked with
  // node:crypto; the library only decodes the stored COSE_Key. Its verifyAuthenticationResponse
  // made every step of the hashes, the key import and the verification a WebCrypto job, a third
  // of the sign-in's CPU (docs/decisions/016-passkeys.md); steps 5-19 above are this module's.
  const { cose, decodeCredentialPublicKey } = await import('@simplewebauthn/server/helpers');
  let verified: boolean;
  try {
    const key = publicKeyOf(decodeCredentialPublicKey(new Uint8Array(stored.publicKey)) as unknown as ReadonlyMap<number, unknown>, cose);
    const clientDataHash = createHash('sha256').update(Buffer.from(posted.response.clientDataJSON, 'base64url')).digest();
    verified = verify('sha256', Buffer.concat([authData, clientDataHash]), key, Buffer.from(posted.response.signature, 'base64url'));
  } catch {
    verified = false;
  }
  if (!verified) return refuse('signature');

  if (!signCountAdvances(stored.signCount, signCount)) return refuse('counter');
  return { ok: true, signCount, backupState: (flags & FLAG.BS) !== 0 };
}

/**
 * WebAuthn L3 §7.2 step 21: if either the stored or the new signature count is non-zero, the new
 * one must be greater; otherwise the authenticator may have been cloned, and this relying party
 * refuses. Both zero is an authenticator that does not count (most synced passkeys).
 */
export function signCountAdvances(storedCount: number, newCount: number): boolean {
  if (newCount === 0 && storedCount === 0) return true;
  return newCount > storedCount;
}

/**
 * The client data checks (WebAuthn L3 §7.1 steps 5-10, §7.2 steps 9-14): its type, the challenge
 * this page issued, this service's origin, and no cross-origin frame (the page is never framed).
 */
function clientDataRefusal(
  clientDataJSON: string,
  type: 'webauthn.create' | 'webauthn.get',
  challenge: string,
  origin: string,
): 'malformed' | 'challenge' | 'origin' | undefined {
  let data: z.infer<typeof clientDataSchema>;
  try {
    const parsed = clientDataSchema.safeParse(JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')));
    if (!parsed.success) return 'malformed';
    data = parsed.data;
  } catch {
    return 'malformed';
  }
  if (data.type !== type) return 'malformed';
  if (data.challenge !== challenge) return 'challenge';
  if (data.origin !== origin) return 'origin';
  if (data.crossOrigin === true || data.topOrigin !== undefined) return 'origin';
  return undefined;
}

/**
 * The authenticator data checks shared by both ceremonies (WebAuthn L3 §7.1 steps 13-17, §7.2
 * steps 15-18): the RP ID's hash, user presence, user verification (required by this service),
 * and the backup flags' consistency (BS without BE is not a valid state).
 */
function authenticatorDataRefusal(authData: Uint8Array, rpId: string): 'malformed' | 'rp_id' | 'user_verification' | undefined {
  if (authData.length < AUTH_DATA_HEAD) return 'malformed';
  const rpIdHash = createHash('sha256').update(rpId).digest();
  if (!rpIdHash.equals(authData.subarray(0, 32))) return 'rp_id';
  const flags = authData[32]!;
  if ((flags & FLAG.UP) === 0 || (flags & FLAG.UV) === 0) return 'user_verification';
  if ((flags & FLAG.BE) === 0 && (flags & FLAG.BS) !== 0) return 'malformed';
  return undefined;
}

/** A posted credential is JSON text (the form field) or the object it parses to. */
function jsonOf(response: unknown): unknown {
  if (typeof response !== 'string') return response;
  try {
    return JSON.parse(response) as unknown;
  } catch {
    return undefined;
  }
}

function refuse<R extends string>(reason: R): { readonly ok: false; readonly reason: R } {
  return { ok: false, reason };
}

/**
 * A stored COSE_Key (RFC 9053) of an algorithm the ceremonies offer (ALGORITHMS) as a node:crypto
 * public key: ES256 (EC2, P-256; its signatures are DER, node's default) or RS256 (RSA, PKCS#1
 * v1.5). Any other key throws: registration never stores one.
 */
function publicKeyOf(key: ReadonlyMap<number, unknown>, cose: typeof Cose): KeyObject {
  const b64 = (value: unknown) => Buffer.from(value as Uint8Array).toString('base64url');
  const alg = key.get(cose.COSEKEYS.alg);
  if (alg === cose.COSEALG.ES256 && key.get(cose.COSEKEYS.kty) === cose.COSEKTY.EC2 && key.get(cose.COSEKEYS.crv) === cose.COSECRV.P256) {
    return createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: b64(key.get(cose.COSEKEYS.x)), y: b64(key.get(cose.COSEKEYS.y)) },
      format: 'jwk',
    });
  }
  if (alg === cose.COSEALG.RS256 && key.get(cose.COSEKEYS.kty) === cose.COSEKTY.RSA) {
    return createPublicKey({ key: { kty: 'RSA', n: b64(key.get(cose.COSEKEYS.n)), e: b64(key.get(cose.COSEKEYS.e)) }, format: 'jwk' });
  }
  throw new Error('A key of an algorithm the ceremonies do not offer');
}
