/**
 * The page's passkey steps (lib/login/passkey-login.ts) on their own, with the ports faked (an
 * in-memory passkey store that counts its calls, a log that keeps its lines): what a post that is
 * not a credential comes to, which reasons the log gives, and that a refused step asks the store
 * nothing. The steps through the page, over HTTP with DynamoDB Local: test/http/passkeys.test.ts.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildServiceConfig, parseStageConfig } from '../../../lib/platform/config';
import type { AttemptLimiter } from '../../../lib/limits/ports';
import type { Log, LogFields } from '../../../lib/platform/ports';
import type { PasskeyRecord, PasskeyStore } from '../../../lib/passkeys/ports';
import { newChallenge, registrationOptions } from '../../../lib/passkeys/ceremonies';
import { logHandleOf } from '../../../lib/keys/hmac-keys';
import {
  checkAssertion,
  MAX_CREDENTIAL_LENGTH,
  passkeyHandleOf,
  postedCredential,
  registerPasskey,
  relyingPartyFor,
  removePasskey,
  userHandleOf,
  type CeremonyScope,
  type PasskeyLoginDeps,
  type SignedInUser,
} from '../../../lib/login/passkey-login';
import { FakeClock } from '../../support/fake-clock';
import { SoftAuthenticator } from '../../support/soft-authenticator';

const config = buildServiceConfig(parseStageConfig(JSON.parse(readFileSync(resolve(__dirname, '../../../config/local.json'), 'utf8'))));
const environment = config.environment('local')!;
const client = config.client('local-web')!;
const scope: CeremonyScope = { environment, client, rp: relyingPartyFor(config, 'http://localhost:3000', environment) };
const owner: SignedInUser = { userKey: 'user-key', user: { authType: 'email', value: 'ada@example.com' }, userHandle: newChallenge() };

/** The store's records by credential id, and every call made to it. */
class MemoryPasskeys implements PasskeyStore {
  readonly records = new Map<string, PasskeyRecord>();
  readonly calls: string[] = [];
  find(_environmentId: string, credentialId: string) {
    this.calls.push('find');
    return Promise.resolve(this.records.get(credentialId));
  }
  listOf(_environmentId: string, userKey: string) {
    this.calls.push('listOf');
    return Promise.resolve([...this.records.values()].filter((record) => record.userKey === userKey));
  }
  hasAny(_environmentId: string, userKey: string) {
    this.calls.push('hasAny');
    return Promise.resolve([...this.records.values()].some((record) => record.userKey === userKey));
  }
  add(record: PasskeyRecord) {
    this.calls.push('add');
    if (this.records.has(record.credentialId)) return Promise.resolve(false);
    this.records.set(record.credentialId, record);
    return Promise.resolve(true);
  }
  remove(_environmentId: string, userKey: string, credentialId: string) {
    this.calls.push('remove');
    if (this.records.get(credentialId)?.userKey !== userKey) return Promise.resolve(false);
    return Promise.resolve(this.records.delete(credentialId));
  }
  removeAll() {
    this.calls.push('removeAll');
    return Promise.resolve(0);
  }
}

let lines: Array<{ level: string; message: string; fields: LogFields }>;
let passkeys: MemoryPasskeys;
let deps: PasskeyLoginDeps;
beforeEach(() => {
  lines = [];
  passkeys = new MemoryPasskeys();
  const keep =
    (level: string) =>
    (message: string, ...extra: LogFields[]) =>
      lines.push({ level, message, fields: Object.assign({}, ...extra) as LogFields });
  const log: Log = { debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
  // No failure is counted by the steps tested here (a found credential's is, over HTTP).
  const limiter = {} as AttemptLimiter;
  deps = { config, clock: new FakeClock(), log, limiter, passkeys };
});

describe('postedCredential: the `credential` field', () => {
  it.each([
    ['absent', undefined],
    ['not a string', 42],
    ['empty', ''],
    ['not JSON', '{"id": '],
    ['one character over the cap', JSON.stringify('a'.repeat(MAX_CREDENTIAL_LENGTH - 1))],
  ])('is no credential when %s', (_, raw) => {
    expect(postedCredential(raw)).toBeUndefined();
  });

  it('is the parsed JSON up to the cap, inclusive', () => {
    const longest = JSON.stringify('a'.repeat(MAX_CREDENTIAL_LENGTH - 2));
    expect(longest).toHaveLength(MAX_CREDENTIAL_LENGTH);
    expect(postedCredential(longest)).toBe('a'.repeat(MAX_CREDENTIAL_LENGTH - 2));
    expect(postedCredential('{"id":"abc"}')).toEqual({ id: 'abc' });
  });
});

describe('registerPasskey', () => {
  const refusal = () => lines.find((line) => line.message === 'passkey refused')?.fields;

  it.each([
    ['NotAllowedError', 'browser:NotAllowedError'],
    ['InvalidStateError', 'browser:InvalidStateError'],
    ['SomethingElse', 'browser:other'],
    ['', 'malformed'],
    [undefined, 'malformed'],
    [7, 'malformed'],
  ])('logs a browser failure %j (no credential) as %s, and stores nothing', async (failure, reason) => {
    expect(await registerPasskey(deps, scope, owner, newChallenge(), '', failure)).toEqual({ ok: false });
    expect(refusal()).toEqual({
      reason,
      ceremony: 'registration',
      environment: 'local',
      client: 'local-web',
      user: logHandleOf(owner.userKey),
    });
    expect(passkeys.calls).toEqual([]);
  });

  it('stores a verified passkey with the authenticator’s transports, logs it by a hash of its id, and never stores one twice', async () => {
    const authenticator = new SoftAuthenticator({ origin: scope.rp.origin });
    const challenge = newChallenge();
    const response = authenticator.register(
      registrationOptions(scope.rp, { ...owner.user, handle: owner.userHandle, name: 'ada', displayName: 'ada' }, challenge, []),
    );
    const registered = await registerPasskey(deps, scope, owner, challenge, JSON.stringify(response), undefined);
    if (!registered.ok) throw new Error('refused');
    expect(registered.passkey).toMatchObject({
      credentialId: response.id,
      userKey: 'user-key',
      userHandle: owner.userHandle,
      transports: response.response.transports,
    });
    expect(lines.at(-1)).toEqual({
      level: 'info',
      message: 'passkey registered',
      fields: {
        environment: 'local',
        client: 'local-web',
        user: logHandleOf('user-key'),
        passkey: passkeyHandleOf(response.id),
        method: 'synced_passkey',
      },
    });
    expect(JSON.stringify(lines)).not.toContain(response.id);

    expect(await registerPasskey(deps, scope, owner, challenge, JSON.stringify(response), undefined)).toEqual({ ok: false });
    expect(refusal()).toMatchObject({ reason: 'credential_exists', passkey: passkeyHandleOf(response.id) });
  });
});

describe('removePasskey', () => {
  it.each([
    ['absent', undefined],
    ['not a string', ['a']],
    ['empty', ''],
    ['over the cap', 'a'.repeat(MAX_CREDENTIAL_LENGTH + 1)],
  ])('removes nothing, and asks the store nothing, for an id %s', async (_, rawId) => {
    expect(await removePasskey(deps, scope, 'user-key', rawId)).toBe(false);
    expect(passkeys.calls).toEqual([]);
    expect(lines).toEqual([]);
  });
});

describe('checkAssertion', () => {
  it('refuses a post that names no credential as malformed, without a read', async () => {
    expect(await checkAssertion(deps, scope, newChallenge(), '{"type":"public-key"}')).toEqual({ ok: false });
    expect(passkeys.calls).toEqual([]);
    expect(lines).toEqual([
      { level: 'info', message: 'passkey refused', fields: { reason: 'malformed', environment: 'local', client: 'local-web' } },
    ]);
  });

  it('refuses an unknown credential, logged by a hash of the id it named, with no user', async () => {
    expect(await checkAssertion(deps, scope, newChallenge(), '{"id":"dW5rbm93bg","rawId":"dW5rbm93bg"}')).toEqual({ ok: false });
    expect(passkeys.calls).toEqual(['find']);
    expect(lines.at(-1)?.fields).toEqual({
      reason: 'unknown_credential',
      environment: 'local',
      client: 'local-web',
      passkey: passkeyHandleOf('dW5rbm93bg'),
    });
  });
});

describe('userHandleOf', () => {
  it('is the user’s passkeys’ handle, else 32 bytes derived from the challenge: never the same for two challenges', () => {
    const challenge = newChallenge();
    const derived = userHandleOf([], challenge);
    expect(Buffer.from(derived, 'base64url')).toHaveLength(32);
    expect(userHandleOf([], challenge)).toBe(derived);
    expect(userHandleOf([], newChallenge())).not.toBe(derived);
    expect(derived).not.toBe(Buffer.from(challenge, 'base64url').toString('base64url'));
    expect(userHandleOf([{ userHandle: 'aGFuZGxl' } as PasskeyRecord], challenge)).toBe('aGFuZGxl');
  });
});
