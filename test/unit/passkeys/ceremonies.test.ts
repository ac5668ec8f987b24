/**
 * The ceremonies' server side against recorded authenticator responses
 * (test/fixtures/passkeys/ceremonies.json, made once by test/fixtures/passkeys/record.ts for a fixed
 * relying party and fixed challenges), then against live ones of the software authenticator for
 * each refusal. Each test names the WebAuthn Level 3 requirement it holds the server to.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import fc from 'fast-check';
import {
  authenticationOptions,
  credentialIdOf,
  newChallenge,
  registrationOptions,
  relyingPartyOf,
  signCountAdvances,
  verifyAuthentication,
  verifyRegistration,
  type RegisteredCredential,
} from '../../../lib/passkeys/ceremonies';
import type { PasskeyRecord } from '../../../lib/passkeys/ports';
import recorded from '../../fixtures/passkeys/ceremonies.json';
import { SoftAuthenticator, type SoftAuthenticatorKnobs } from '../../support/soft-authenticator';

const { rp, user, registrationChallenge, authenticationChallenge } = recorded;

/** The record the store would keep for a verified registration. */
function storedOf(credential: RegisteredCredential, overrides: Partial<PasskeyRecord> = {}): PasskeyRecord {
  return {
    environmentId: 'local',
    userKey: 'user-key',
    user: { authType: 'email', value: 'ada@example.com' },
    userHandle: user.handle,
    createdAt: 0,
    ...credential,
    ...overrides,
  };
}

async function registered(response: unknown): Promise<RegisteredCredential> {
  const result = await verifyRegistration(rp, registrationChallenge, response);
  if (!result.ok) throw new Error(`The recorded registration was refused: ${result.reason}`);
  return result.credential;
}

describe('relying party and options', () => {
  it('takes the RP ID from the configuration, else the issuer’s host name; the origin is always the issuer’s', () => {
    expect(relyingPartyOf(undefined, 'https://login.example.com/idp', 'Example')).toEqual({
      id: 'login.example.com',
      name: 'Example',
      origin: 'https://login.example.com',
    });
    expect(relyingPartyOf('example.com', 'https://login.example.com:8443/idp', 'Example')).toEqual({
      id: 'example.com',
      name: 'Example',
      origin: 'https://login.example.com:8443',
    });
    expect(relyingPartyOf(undefined, 'http://localhost:3000', 'Local')).toEqual({
      id: 'localhost',
      name: 'Local',
      origin: 'http://localhost:3000',
    });
  });

  it('makes challenges of 32 random bytes, never the same twice (WebAuthn L3 §13.4.3: at least 16 bytes)', () => {
    const challenges = Array.from({ length: 100 }, newChallenge);
    expect(new Set(challenges).size).toBe(100);
    for (const challenge of challenges) expect(Buffer.from(challenge, 'base64url')).toHaveLength(32);
  });

  it('asks for a discoverable credential with user verification, no attestation, ES256 or RS256, and excludes the user’s passkeys', () => {
    const existing = storedOf({
      credentialId: 'ZXhpc3Rpbmc',
      publicKey: new Uint8Array(),
      signCount: 0,
      transports: ['internal', 'hybrid'],
      backupEligible: true,
      backupState: true,
      aaguid: '00000000-0000-0000-0000-000000000000',
    });

    expect(registrationOptions(rp, user, 'Y2hhbGxlbmdl', [existing, { ...existing, credentialId: 'c2Vjb25k', transports: [] }])).toEqual({
      rp: { id: 'login.example.com', name: 'Example' },
      user: { id: user.handle, name: 'ada@example.com', displayName: 'ada@example.com' },
      challenge: 'Y2hhbGxlbmdl',
      pubKeyCredParams: [
        { type: 'public-key', alg: -7 },
        { type: 'public-key', alg: -257 },
      ],
      timeout: 300_000,
      excludeCredentials: [
        { type: 'public-key', id: 'ZXhpc3Rpbmc', transports: ['internal', 'hybrid'] },
        { type: 'public-key', id: 'c2Vjb25k' },
      ],
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
      attestation: 'none',
    });
  });

  it('asks for any discoverable credential of the RP (no allowCredentials), with user verification', () => {
    expect(authenticationOptions(rp, 'Y2hhbGxlbmdl')).toEqual({
      challenge: 'Y2hhbGxlbmdl',
      rpId: 'login.example.com',
      allowCredentials: [],
      userVerification: 'required',
      timeout: 300_000,
    });
  });
});

describe('credentialIdOf', () => {
  it('gives the posted credential’s id', () => {
    expect(credentialIdOf(recorded.authentication.synced)).toBe(recorded.registration.synced.id);
  });

  it.each([
    ['nothing', undefined],
    ['a string', 'abc'],
    ['no id', { rawId: 'abc' }],
    ['an empty id', { id: '' }],
    ['an id not base64url', { id: 'ab+c/d==' }],
    ['an id of another type', { id: 42 }],
    ['an id longer than a credential id can be (WebAuthn L3 §7.1 step 23: 1023 bytes)', { id: 'a'.repeat(1401) }],
  ])('gives nothing for %s', (_, posted) => {
    expect(credentialIdOf(posted)).toBeUndefined();
  });

  it('takes the longest id a credential can have', () => {
    expect(credentialIdOf({ id: 'a'.repeat(1400) })).toBe('a'.repeat(1400));
  });
});

describe('verifyRegistration, recorded responses (WebAuthn L3 §7.1)', () => {
  it('accepts a synced passkey and gives what to store: id, COSE key, count, transports, backup flags, AAGUID', async () => {
    const credential = await registered(recorded.registration.synced);

    expect(credential).toEqual({
      credentialId: recorded.registration.synced.id,
      publicKey: expect.any(Uint8Array),
      signCount: 0,
      transports: ['hybrid', 'internal'],
      backupEligible: true,
      backupState: true,
      aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
    });
    // An EC2 COSE_Key (RFC 9053 §7.1.1): a map whose first entry is kty (1) = EC2 (2).
    expect([...credential.publicKey.subarray(0, 3)]).toEqual([0xa5, 0x01, 0x02]);
  });

  it('accepts the JSON text of the form field as well as the parsed object', async () => {
    expect(await verifyRegistration(rp, registrationChallenge, JSON.stringify(recorded.registration.synced))).toMatchObject({ ok: true });
  });

  it('tells a device-bound passkey (no BE flag) from a synced one', async () => {
    expect(await registered(recorded.registration.bound)).toMatchObject({
      backupEligible: false,
      backupState: false,
      aaguid: '00000000-0000-0000-0000-000000000000',
    });
  });

  it.each([
    ['another challenge (step 8)', { challenge: 'b3RoZXI' }, recorded.registration.synced, 'challenge'],
    ['another origin (step 9)', {}, recorded.registration.wrongOrigin, 'origin'],
    ['another RP ID’s hash (step 13)', {}, recorded.registration.wrongRpId, 'rp_id'],
    ['no user verification (step 15: required by this relying party)', {}, recorded.registration.noUserVerification, 'user_verification'],
    ['an RP of another origin (step 9)', { origin: 'https://other.example.com' }, recorded.registration.synced, 'origin'],
  ])('refuses %s', async (_, change, response, reason) => {
    const challenge = (change as { challenge?: string }).challenge ?? registrationChallenge;
    const party = { ...rp, ...(change as { origin?: string }) };
    expect(await verifyRegistration(party, challenge, response)).toEqual({ ok: false, reason });
  });

  it('refuses an authentication response posted as a registration (step 7: type webauthn.create)', async () => {
    expect(await verifyRegistration(rp, authenticationChallenge, recorded.authentication.synced)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });
});

describe('verifyAuthentication, recorded responses (WebAuthn L3 §7.2)', () => {
  let synced: PasskeyRecord;
  let bound: PasskeyRecord;
  beforeAll(async () => {
    synced = storedOf(await registered(recorded.registration.synced));
    bound = storedOf(await registered(recorded.registration.bound), { signCount: 5 });
  });

  it('accepts an assertion of a synced passkey that does not count (both counts 0), and gives its backup state', async () => {
    expect(await verifyAuthentication(rp, authenticationChallenge, recorded.authentication.synced, synced)).toEqual({
      ok: true,
      signCount: 0,
      backupState: true,
    });
  });

  it('accepts an assertion of a counting authenticator whose count went up, and gives the new count', async () => {
    expect(await verifyAuthentication(rp, authenticationChallenge, recorded.authentication.bound, bound)).toEqual({
      ok: true,
      signCount: 8,
      backupState: false,
    });
  });

  it('refuses a count that did not go up (step 21: a possibly cloned authenticator)', async () => {
    expect(await verifyAuthentication(rp, authenticationChallenge, recorded.authentication.boundCounterRegression, bound)).toEqual({
      ok: false,
      reason: 'counter',
    });
    expect(await verifyAuthentication(rp, authenticationChallenge, recorded.authentication.bound, { ...bound, signCount: 8 })).toEqual({
      ok: false,
      reason: 'counter',
    });
  });

  it('refuses a count of 0 once the credential has counted (step 21: either count non-zero)', async () => {
    expect(await verifyAuthentication(rp, authenticationChallenge, recorded.authentication.synced, { ...synced, signCount: 3 })).toEqual({
      ok: false,
      reason: 'counter',
    });
  });

  it.each([
    ['another RP ID’s hash (step 15)', 'wrongRpId', 'rp_id'],
    ['another origin (step 13)', 'wrongOrigin', 'origin'],
    ['another challenge (step 12: a replay of another ceremony’s assertion)', 'otherChallenge', 'challenge'],
    ['no user verification (step 17: required by this relying party)', 'noUserVerification', 'user_verification'],
    ['a signature by another key (step 20)', 'forgedSignature', 'signature'],
    ['another user handle (step 6: the credential is another user’s)', 'wrongUserHandle', 'user_handle'],
    ['no user handle (step 6: a discoverable credential must give it)', 'noUserHandle', 'user_handle'],
  ] as const)('refuses %s', async (_, name, reason) => {
    expect(await verifyAuthentication(rp, authenticationChallenge, recorded.authentication[name], synced)).toEqual({ ok: false, reason });
  });

  it('refuses an assertion checked against the challenge of another page (step 12)', async () => {
    expect(await verifyAuthentication(rp, newChallenge(), recorded.authentication.synced, synced)).toEqual({
      ok: false,
      reason: 'challenge',
    });
  });

  it('refuses an assertion by a credential other than the stored one (step 7)', async () => {
    expect(await verifyAuthentication(rp, authenticationChallenge, recorded.authentication.synced, bound)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^(malformed|user_handle)$/),
    });
    expect(
      await verifyAuthentication(rp, authenticationChallenge, recorded.authentication.synced, { ...synced, credentialId: 'b3RoZXI' }),
    ).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses an assertion whose BE flag differs from the credential’s (step 19: backup eligibility never changes)', async () => {
    expect(
      await verifyAuthentication(rp, authenticationChallenge, recorded.authentication.synced, { ...synced, backupEligible: false }),
    ).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses a registration response posted as an assertion (step 11: type webauthn.get)', async () => {
    const asAssertion = {
      ...recorded.registration.synced,
      response: {
        clientDataJSON: recorded.registration.synced.response.clientDataJSON,
        authenticatorData: recorded.registration.synced.response.authenticatorData,
        signature: recorded.authentication.synced.response.signature,
        userHandle: user.handle,
      },
    };
    expect(await verifyAuthentication(rp, registrationChallenge, asAssertion, synced)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('malformed responses are results, never exceptions', () => {
  let synced: PasskeyRecord;
  beforeAll(async () => {
    synced = storedOf(await registered(recorded.registration.synced));
  });
  const assertion = recorded.authentication.synced;
  const registration = recorded.registration.synced;
  const b64 = (text: string) => Buffer.from(text).toString('base64url');

  it.each([
    ['not JSON', '{"id":'],
    ['JSON null', 'null'],
    ['an array', []],
    ['a number', 42],
    ['no response', { ...assertion, response: undefined }],
    ['rawId not the id', { ...assertion, rawId: 'b3RoZXI' }],
    ['another type', { ...assertion, type: 'password' }],
    ['client data not JSON', { ...assertion, response: { ...assertion.response, clientDataJSON: b64('{not json') } }],
    ['client data of the wrong shape', { ...assertion, response: { ...assertion.response, clientDataJSON: b64('{"type":1}') } }],
    ['authenticator data too short', { ...assertion, response: { ...assertion.response, authenticatorData: b64('short') } }],
    ['a signature of garbage', { ...assertion, response: { ...assertion.response, signature: b64('garbage') } }],
    ['a user handle of another type', { ...assertion, response: { ...assertion.response, userHandle: 7 } }],
    ['a field not base64url', { ...assertion, response: { ...assertion.response, signature: 'a+b/c=' } }],
  ])('verifyAuthentication: %s', async (_, posted) => {
    const result = await verifyAuthentication(rp, authenticationChallenge, posted, synced);
    expect(result.ok).toBe(false);
  });

  it.each([
    ['not JSON', '{"id":'],
    ['no response', { ...registration, response: undefined }],
    ['an attestation object not CBOR', { ...registration, response: { ...registration.response, attestationObject: b64('not cbor') } }],
    ['an attestation object of the wrong shape', { ...registration, response: { ...registration.response, attestationObject: 'oA' } }],
    ['transports not strings', { ...registration, response: { ...registration.response, transports: [1] } }],
    ['an id of more than 1023 bytes (step 23)', { ...registration, id: 'a'.repeat(1372), rawId: 'a'.repeat(1372) }],
  ])('verifyRegistration: %s', async (_, posted) => {
    expect(await verifyRegistration(rp, registrationChallenge, posted)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('property: any JSON value posted is refused as a result, never a throw', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (posted) => {
        expect((await verifyAuthentication(rp, authenticationChallenge, posted, synced)).ok).toBe(false);
        expect((await verifyRegistration(rp, registrationChallenge, posted)).ok).toBe(false);
        expect((await verifyAuthentication(rp, authenticationChallenge, JSON.stringify(posted), synced)).ok).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('property: the recorded assertion with any one byte of its authenticator data or signature changed is refused', async () => {
    const authData = Buffer.from(assertion.response.authenticatorData, 'base64url');
    const signature = Buffer.from(assertion.response.signature, 'base64url');
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.nat(), fc.integer({ min: 1, max: 255 }), async (inAuthData, at, xor) => {
        const bytes = Buffer.from(inAuthData ? authData : signature);
        bytes[at % bytes.length] = bytes[at % bytes.length]! ^ xor;
        const field = inAuthData ? 'authenticatorData' : 'signature';
        const posted = { ...assertion, response: { ...assertion.response, [field]: bytes.toString('base64url') } };
        expect((await verifyAuthentication(rp, authenticationChallenge, posted, synced)).ok).toBe(false);
      }),
      { numRuns: 100 },
    );
  });
});

describe('signCountAdvances: WebAuthn L3 §7.2 step 21', () => {
  it.each([
    [0, 0, true],
    [0, 1, true],
    [5, 6, true],
    [5, 5, false],
    [5, 4, false],
    [5, 0, false],
    [1, 0, false],
  ])('stored %i, new %i: %s', (stored, next, advances) => {
    expect(signCountAdvances(stored, next)).toBe(advances);
  });

  it('property: accepted exactly when both are zero or the new count is greater', () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 32 - 1 }), fc.nat({ max: 2 ** 32 - 1 }), (stored, next) => {
        expect(signCountAdvances(stored, next)).toBe((stored === 0 && next === 0) || next > stored);
      }),
    );
  });
});

describe('live responses of the software authenticator', () => {
  const party = relyingPartyOf(undefined, 'http://localhost:3000/idp', 'Local');
  let authenticator: SoftAuthenticator;
  let stored: PasskeyRecord;
  beforeEach(async () => {
    authenticator = new SoftAuthenticator({ origin: party.origin });
    const challenge = newChallenge();
    const handle = newChallenge();
    const result = await verifyRegistration(
      party,
      challenge,
      authenticator.register(registrationOptions(party, { ...user, handle }, challenge, [])),
    );
    if (!result.ok) throw new Error(result.reason);
    stored = storedOf(result.credential, { userHandle: handle });
  });

  async function signIn(knobs: SoftAuthenticatorKnobs = {}, against: PasskeyRecord = stored) {
    const challenge = newChallenge();
    const response = authenticator.authenticate(authenticationOptions(party, challenge), knobs);
    return verifyAuthentication(party, challenge, response, against);
  }

  it('registers, then signs in with no user name: the discoverable credential gives its user handle', async () => {
    expect(await signIn()).toEqual({ ok: true, signCount: 1, backupState: true });
  });

  it('refuses a wrong RP ID', async () => {
    expect(await signIn({ rpId: 'evil.example' })).toEqual({ ok: false, reason: 'rp_id' });
  });

  it('refuses a wrong origin', async () => {
    expect(await signIn({ origin: 'http://127.0.0.1:3000' })).toEqual({ ok: false, reason: 'origin' });
  });

  it('refuses an assertion replayed against another challenge', async () => {
    const response = authenticator.authenticate(authenticationOptions(party, newChallenge()));
    expect(await verifyAuthentication(party, newChallenge(), response, stored)).toEqual({ ok: false, reason: 'challenge' });
  });

  it('refuses a forged signature', async () => {
    expect(await signIn({ forgeSignature: true })).toEqual({ ok: false, reason: 'signature' });
  });

  it('refuses a counter regression', async () => {
    expect(await signIn({ signCount: 2 }, { ...stored, signCount: 7 })).toEqual({ ok: false, reason: 'counter' });
  });

  it('refuses an assertion without user verification', async () => {
    expect(await signIn({ userVerified: false })).toEqual({ ok: false, reason: 'user_verification' });
  });

  it('refuses an assertion without user presence', async () => {
    expect(await signIn({ userPresent: false })).toEqual({ ok: false, reason: 'user_verification' });
  });

  it('refuses a wrong user handle', async () => {
    expect(await signIn({ userHandle: newChallenge() })).toEqual({ ok: false, reason: 'user_handle' });
  });

  it.each([
    ['crossOrigin and topOrigin', { crossOrigin: true, topOrigin: 'https://evil.example' }],
    ['crossOrigin alone', { crossOrigin: true }],
    ['topOrigin alone', { topOrigin: 'https://evil.example' }],
  ])('refuses a cross-origin (framed) ceremony: %s (WebAuthn L3 §7.2 step 13, the page is never framed)', async (_, frame) => {
    const challenge = newChallenge();
    const response = authenticator.authenticate(authenticationOptions(party, challenge));
    const clientData = { type: 'webauthn.get', challenge, origin: party.origin, ...frame };
    const framed = {
      ...response,
      response: { ...response.response, clientDataJSON: Buffer.from(JSON.stringify(clientData)).toString('base64url') },
    };
    expect(await verifyAuthentication(party, challenge, framed, stored)).toEqual({ ok: false, reason: 'origin' });
  });

  it.each([
    ['authenticator data shorter than its 37-byte head', { authenticatorData: Buffer.alloc(36).toString('base64url') }],
    ['client data that is not JSON', { clientDataJSON: Buffer.from('not json').toString('base64url') }],
    ['client data without a challenge', { clientDataJSON: Buffer.from('{"type":"webauthn.get"}').toString('base64url') }],
  ])('refuses %s as malformed', async (_, part) => {
    const challenge = newChallenge();
    const response = authenticator.authenticate(authenticationOptions(party, challenge));
    const broken = { ...response, response: { ...response.response, ...part } };
    expect(await verifyAuthentication(party, challenge, broken, stored)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses a response whose rawId is not its id (one credential, named twice)', async () => {
    const challenge = newChallenge();
    const response = authenticator.authenticate(authenticationOptions(party, challenge));
    expect(await verifyAuthentication(party, challenge, { ...response, rawId: 'b3RoZXI' }, stored)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    const registrationChallenge = newChallenge();
    const created = new SoftAuthenticator({ origin: party.origin }).register(
      registrationOptions(party, { ...user, handle: newChallenge() }, registrationChallenge, []),
    );
    expect(await verifyRegistration(party, registrationChallenge, { ...created, rawId: 'b3RoZXI' })).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it('refuses malformed JSON', async () => {
    expect(await verifyAuthentication(party, newChallenge(), '{"id": "abc", ', stored)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses BS without BE at registration (WebAuthn L3 §7.1 step 16)', async () => {
    const challenge = newChallenge();
    const response = new SoftAuthenticator({ origin: party.origin }).register(registrationOptions(party, user, challenge, []), {
      backupEligible: false,
      backupState: true,
    });
    expect(await verifyRegistration(party, challenge, response)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('the authenticator refuses to make a second passkey for a user it holds one of (excludeCredentials)', () => {
    const options = registrationOptions(party, user, newChallenge(), [stored]);
    expect(() => authenticator.register(options)).toThrow(/InvalidStateError/);
  });
});

describe('step 20: the signature is checked with the stored key, for each algorithm the options offer', () => {
  const party = relyingPartyOf(undefined, 'http://localhost:3000/idp', 'Local');
  const handle = 'dXNlci1oYW5kbGUtb2YtMzItYnl0ZXMtZm9yLXRlc3Q';
  const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();
  const bytes = (base64url: unknown) => new Uint8Array(Buffer.from(base64url as string, 'base64url'));

  /** An assertion (UP and UV, count 1) for `challenge`, signed by `privateKey` as the authenticator signs (WebAuthn L3 §6.3.3). */
  function assertion(privateKey: KeyObject, challenge: string, credentialId: string) {
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: party.origin, crossOrigin: false }));
    const authenticatorData = Buffer.concat([sha256(Buffer.from(party.id)), Buffer.from([0x05, 0, 0, 0, 1])]);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), privateKey);
    return {
      id: credentialId,
      rawId: credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: handle,
      },
      clientExtensionResults: {},
    };
  }

  /** The record of a device-bound credential whose public key is `coseKey` (RFC 9053 labels). */
  function recordOf(coseKey: Map<number, unknown>, credentialId: string): PasskeyRecord {
    return {
      environmentId: 'local',
      userKey: 'user-key',
      user: { authType: 'email', value: 'ada@example.com' },
      userHandle: handle,
      createdAt: 0,
      credentialId,
      publicKey: isoCBOR.encode(coseKey as never),
      signCount: 0,
      transports: ['internal'],
      backupEligible: false,
      backupState: false,
      aaguid: '00000000-0000-0000-0000-000000000000',
    };
  }

  const es256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const es256Jwk = es256.publicKey.export({ format: 'jwk' });
  const es256Key = new Map<number, unknown>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, bytes(es256Jwk.x)],
    [-3, bytes(es256Jwk.y)],
  ]);
  const rs256 = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const rs256Jwk = rs256.publicKey.export({ format: 'jwk' });
  const rs256Key = new Map<number, unknown>([
    [1, 3],
    [3, -257],
    [-1, bytes(rs256Jwk.n)],
    [-2, bytes(rs256Jwk.e)],
  ]);

  async function check(privateKey: KeyObject, coseKey: Map<number, unknown>) {
    const challenge = newChallenge();
    return verifyAuthentication(party, challenge, assertion(privateKey, challenge, 'Y3JlZA'), recordOf(coseKey, 'Y3JlZA'));
  }

  it('accepts ES256 (EC2, P-256, a DER signature) and RS256 (RSA, PKCS#1 v1.5)', async () => {
    expect(await check(es256.privateKey, es256Key)).toEqual({ ok: true, signCount: 1, backupState: false });
    expect(await check(rs256.privateKey, rs256Key)).toEqual({ ok: true, signCount: 1, backupState: false });
  });

  it('refuses a signature by another key of the same algorithm, or of the other one', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(await check(other.privateKey, es256Key)).toEqual({ ok: false, reason: 'signature' });
    expect(await check(rs256.privateKey, es256Key)).toEqual({ ok: false, reason: 'signature' });
    expect(await check(es256.privateKey, rs256Key)).toEqual({ ok: false, reason: 'signature' });
  });

  // Each key signed by the private key its numbers are, so only the labels make it wrong.
  it.each([
    ['an algorithm not offered (EdDSA)', new Map<number, unknown>([...es256Key, [3, -8]]), es256.privateKey],
    ['ES256 on another curve (P-384)', new Map<number, unknown>([...es256Key, [-1, 2]]), es256.privateKey],
    ['ES256 with an RSA key type', new Map<number, unknown>([...es256Key, [1, 3]]), es256.privateKey],
    ['RS256 with an EC2 key type', new Map<number, unknown>([...rs256Key, [1, 2]]), rs256.privateKey],
    ['an RSA key labelled ES256', new Map<number, unknown>([...rs256Key, [3, -7]]), rs256.privateKey],
    ['a key with no algorithm', new Map<number, unknown>([...es256Key].filter(([label]) => label !== 3)), es256.privateKey],
  ])('refuses a stored key of %s', async (_, coseKey, signer) => {
    expect(await check(signer, coseKey)).toEqual({ ok: false, reason: 'signature' });
  });
});
