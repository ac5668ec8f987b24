/**
 * ID token hints (lib/oauth/id-token-hints.ts): only an ID token this service signed, for this
 * issuer, passes; expired ones do (OpenID Connect RP-Initiated Logout 1.0 §2), tokens of the
 * other kinds our keys sign do not.
 */
import { SignJWT, generateKeyPair } from 'jose';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildServiceConfig, parseStageConfig, type ClientConfig } from '../../../lib/platform/config';
import { signAccessToken, signingKeyFor, type Grant } from '../../../lib/oauth/access-tokens';
import { signIdToken } from '../../../lib/oauth/id-tokens';
import { verifyIdTokenHint } from '../../../lib/oauth/id-token-hints';
import { signLogoutToken } from '../../../lib/logout/logout-tokens';
import {
  initialKeySet,
  loadSigningKeys,
  loadVerificationKeys,
  publicKeySet,
  type SigningKeys,
  type VerificationKeys,
} from '../../../lib/keys/signing-keys';

const config = buildServiceConfig(parseStageConfig(JSON.parse(readFileSync(resolve(__dirname, '../../../config/local.json'), 'utf8'))));
const client = (id: string): ClientConfig => {
  const found = config.client(id);
  if (found === undefined) throw new Error(`no client ${id}`);
  return found;
};
const ISSUER = 'http://127.0.0.1:3000';
const ISSUED_AT = Math.floor(Date.now() / 1000);

const grant = (overrides: Partial<Grant> = {}): Grant => ({
  issuer: ISSUER,
  client: client('local-web'),
  environmentId: 'local',
  subject: 'the-subject',
  channel: 'email',
  claims: {},
  scope: 'openid',
  issuedAt: ISSUED_AT,
  authTime: ISSUED_AT - 5,
  sessionId: 'the-session-id',
  ...overrides,
});

let signing: SigningKeys;
let verification: VerificationKeys;
beforeAll(async () => {
  const stored = await initialKeySet(new Date());
  signing = await loadSigningKeys(stored);
  verification = await loadVerificationKeys(publicKeySet(stored));
});

describe('verifyIdTokenHint', () => {
  it.each(['local-web', 'local-rs256'])('gives the sub, aud, sid and auth_time of an ID token we issued to %s', async (id) => {
    const hint = await signIdToken(signing, grant({ client: client(id) }), 'access-token');

    await expect(verifyIdTokenHint(verification, ISSUER, hint)).resolves.toEqual({
      sub: 'the-subject',
      aud: [id],
      sid: 'the-session-id',
      authTime: ISSUED_AT - 5,
    });
  });

  it('leaves sid out when the ID token has none', async () => {
    const hint = await signIdToken(signing, grant({ sessionId: undefined }), 'access-token');

    expect(await verifyIdTokenHint(verification, ISSUER, hint)).not.toHaveProperty('sid');
  });

  it('accepts an expired ID token (RP-Initiated Logout §2: "even when the exp time has passed")', async () => {
    const yearAgo = ISSUED_AT - 365 * 86_400;
    const hint = await signIdToken(signing, grant({ issuedAt: yearAgo, authTime: yearAgo }), 'access-token');

    await expect(verifyIdTokenHint(verification, ISSUER, hint)).resolves.toMatchObject({ sub: 'the-subject', sid: 'the-session-id' });
  });

  it('refuses a forged signature: another key under our kid', async () => {
    const genuine = await signIdToken(signing, grant(), 'access-token');
    const kid = signingKeyFor(signing, 'ES256').kid;
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ sid: 'the-session-id' })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid })
      .setIssuer(ISSUER)
      .setSubject('the-subject')
      .setAudience('local-web')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);

    await expect(verifyIdTokenHint(verification, ISSUER, forged)).resolves.toBeUndefined();
    // And a genuine token whose claims were altered.
    const [header, , signature] = genuine.split('.');
    const altered = Buffer.from(JSON.stringify({ iss: ISSUER, sub: 'someone-else', aud: 'local-web', sid: 'x' })).toString('base64url');
    await expect(verifyIdTokenHint(verification, ISSUER, `${header}.${altered}.${signature}`)).resolves.toBeUndefined();
  });

  it('refuses an unsigned token (alg none) and a key published for another algorithm (RFC 8725 §3.1)', async () => {
    const esKid = signingKeyFor(signing, 'ES256').kid;
    const claims = Buffer.from(JSON.stringify({ iss: ISSUER, sub: 'the-subject', aud: 'local-web' })).toString('base64url');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT', kid: esKid })).toString('base64url')}.${claims}.`;
    // Signed by our RS256 key, but naming the ES256 key's kid: no key is published for that pair.
    const rsa = signingKeyFor(signing, 'RS256');
    const confused = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: esKid })
      .setIssuer(ISSUER)
      .setSubject('the-subject')
      .setAudience('local-web')
      .sign(rsa.key);

    await expect(verifyIdTokenHint(verification, ISSUER, none)).resolves.toBeUndefined();
    await expect(verifyIdTokenHint(verification, ISSUER, confused)).resolves.toBeUndefined();
  });

  it('refuses an ID token of another issuer (another stage or host signs with other keys, and with ours it is still not ours)', async () => {
    const hint = await signIdToken(signing, grant({ issuer: 'https://idp.example.com' }), 'access-token');

    await expect(verifyIdTokenHint(verification, ISSUER, hint)).resolves.toBeUndefined();
  });

  it('refuses an access token presented as a hint (typ at+jwt, RFC 8725 §3.11: it is not an ID token)', async () => {
    const { accessToken } = await signAccessToken(signing, grant({ familyKey: 'the-session-id' }));

    await expect(verifyIdTokenHint(verification, ISSUER, accessToken)).resolves.toBeUndefined();
  });

  it('refuses a logout token presented as a hint (typ logout+jwt, Back-Channel Logout §4.1)', async () => {
    const notice = { issuer: ISSUER, environmentId: 'local', clientId: 'local-web', subject: 'the-subject', sid: 'the-session-id' };
    const logoutToken = await signLogoutToken(signing, client('local-web'), notice, Date.now());

    await expect(verifyIdTokenHint(verification, ISSUER, logoutToken)).resolves.toBeUndefined();
  });

  it('refuses a token of ours with no typ, or with no sub', async () => {
    const signer = signingKeyFor(signing, 'ES256');
    const untyped = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: signer.kid })
      .setIssuer(ISSUER)
      .setSubject('the-subject')
      .setAudience('local-web')
      .sign(signer.key);
    const noSubject = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: signer.kid })
      .setIssuer(ISSUER)
      .setAudience('local-web')
      .sign(signer.key);

    await expect(verifyIdTokenHint(verification, ISSUER, untyped)).resolves.toBeUndefined();
    await expect(verifyIdTokenHint(verification, ISSUER, noSubject)).resolves.toBeUndefined();
  });

  it.each(['', 'not-a-jwt', 'a.b.c', '...'])('refuses %j without throwing', async (hint) => {
    await expect(verifyIdTokenHint(verification, ISSUER, hint)).resolves.toBeUndefined();
  });

  it('refuses a key it has not published (a key of another deployment)', async () => {
    const other = await loadSigningKeys(await initialKeySet(new Date()));
    const hint = await signIdToken(other, grant(), 'access-token');

    await expect(verifyIdTokenHint(verification, ISSUER, hint)).resolves.toBeUndefined();
  });

  /** A token our ES256 key signs with `claims` (our key, our issuer, `typ: JWT`): only its claims can be wrong. */
  async function signedWith(claims: Record<string, unknown>): Promise<string> {
    const signer = signingKeyFor(signing, 'ES256');
    return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: signer.kid }).setIssuer(ISSUER).sign(signer.key);
  }

  it.each([
    ['an empty sub', { sub: '', aud: 'local-web' }],
    ['a sub that is not a string', { sub: 42, aud: 'local-web' }],
    ['no audience at all (an empty list)', { sub: 'the-subject', aud: [] }],
    ['an audience with a member that is not a string', { sub: 'the-subject', aud: ['local-web', 7] }],
  ])('names nobody with %s, even under our own key', async (_, claims) => {
    await expect(verifyIdTokenHint(verification, ISSUER, await signedWith(claims))).resolves.toBeUndefined();
  });

  it('takes a string audience as a list of one, and leaves out a sid or auth_time of the wrong shape', async () => {
    const hint = await signedWith({ sub: 'the-subject', aud: 'local-web', sid: '', auth_time: 'yesterday' });
    await expect(verifyIdTokenHint(verification, ISSUER, hint)).resolves.toEqual({ sub: 'the-subject', aud: ['local-web'] });
    const numeric = await signedWith({ sub: 'the-subject', aud: ['local-web', 'local-rs256'], sid: 5, auth_time: 1_700_000_000 });
    await expect(verifyIdTokenHint(verification, ISSUER, numeric)).resolves.toEqual({
      sub: 'the-subject',
      aud: ['local-web', 'local-rs256'],
      authTime: 1_700_000_000,
    });
  });
});
