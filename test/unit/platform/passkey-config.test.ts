import { acceptsMethod, buildServiceConfig, parseStageConfig } from '../../../lib/platform/config';
import { CHANNELS, LOGIN_METHODS, isPasskeyMethod, type LoginMethod } from '../../../lib/platform/vocabulary';

/** The smallest valid stage file, with `extra` fields at the top level. */
function stage(extra: Record<string, unknown> = {}, client: Record<string, unknown> = {}, environment: Record<string, unknown> = {}) {
  return {
    defaultEnvironment: 'dev',
    environments: [{ id: 'dev', serviceName: 'Example', email: { sender: 'no-reply@example.test' }, ...environment }],
    clients: [
      {
        id: 'web',
        environments: ['dev'],
        redirectUris: ['https://app.example.test/callback'],
        accessToken: { format: 'jwt', audience: 'api' },
        ...client,
      },
    ],
    ...extra,
  };
}

describe('login methods (lib/platform/vocabulary.ts)', () => {
  it('are the three channels, then a device-bound and a synced passkey', () => {
    expect(LOGIN_METHODS).toEqual(['email', 'sms', 'voice', 'passkey', 'synced_passkey']);
  });

  it.each<[LoginMethod, boolean]>([
    ['email', false],
    ['sms', false],
    ['voice', false],
    ['passkey', true],
    ['synced_passkey', true],
  ])('isPasskeyMethod(%j) is %j', (method, expected) => {
    expect(isPasskeyMethod(method)).toBe(expected);
  });
});

describe('client setting passkeys', () => {
  it("defaults to 'offered'", () => {
    expect(parseStageConfig(stage()).clients[0]!.passkeys).toBe('offered');
  });

  it.each(['off', 'offered', 'required'])('takes %j', (value) => {
    expect(parseStageConfig(stage({}, { passkeys: value })).clients[0]!.passkeys).toBe(value);
  });

  it.each(['on', 'Required', true, ''])('refuses %j, naming the field', (value) => {
    expect(() => parseStageConfig(stage({}, { passkeys: value }))).toThrow(/clients\[0\]\.passkeys|clients\.0\.passkeys/);
  });
});

describe('acceptsMethod', () => {
  const client = (channels: string[], passkeys: string) => parseStageConfig(stage({}, { channels, passkeys })).clients[0]!;

  it('accepts a code by a channel the client allows, and no other channel', () => {
    const emailOnly = client(['email'], 'offered');
    expect(CHANNELS.map((channel) => acceptsMethod(emailOnly, channel))).toEqual([true, false, false]);
  });

  it.each<[string, boolean]>([
    ['off', false],
    ['offered', true],
    ['required', true],
  ])("accepts both passkey methods exactly when passkeys is not 'off' (%s → %j), whatever the channels", (passkeys, expected) => {
    const emailOnly = client(['email'], passkeys);
    expect([acceptsMethod(emailOnly, 'passkey'), acceptsMethod(emailOnly, 'synced_passkey')]).toEqual([expected, expected]);
  });

  it("keeps a client's channels when its passkeys are off", () => {
    expect(acceptsMethod(client(['sms', 'voice'], 'off'), 'voice')).toBe(true);
  });
});

describe('environment setting passkeys.askAgainDays', () => {
  it('defaults to 30 days, also when the object is empty', () => {
    expect(parseStageConfig(stage()).environments[0]!.passkeys).toEqual({ askAgainDays: 30 });
    expect(parseStageConfig(stage({}, {}, { passkeys: {} })).environments[0]!.passkeys).toEqual({ askAgainDays: 30 });
  });

  it.each([1, 365])('takes %j', (days) => {
    expect(parseStageConfig(stage({}, {}, { passkeys: { askAgainDays: days } })).environments[0]!.passkeys.askAgainDays).toBe(days);
  });

  it.each([0, 366, 1.5, '30'])('refuses %j', (days) => {
    expect(() => parseStageConfig(stage({}, {}, { passkeys: { askAgainDays: days } }))).toThrow(/askAgainDays/);
  });

  it('refuses an unknown field', () => {
    expect(() => parseStageConfig(stage({}, {}, { passkeys: { askAgain: 3 } }))).toThrow(/askAgain/);
  });
});

describe('stage setting passkeys.rpId', () => {
  it('is absent by default: the issuer host name decides at run time', () => {
    const config = buildServiceConfig(parseStageConfig(stage()));
    expect(config.stage.passkeys).toBeUndefined();
    expect(config.passkeyRpId).toBeUndefined();
  });

  it('is exposed by the service configuration when set', () => {
    const config = buildServiceConfig(parseStageConfig(stage({ passkeys: { rpId: 'example.test' } })));
    expect(config.passkeyRpId).toBe('example.test');
  });

  it.each(['login.example.test', 'example.test'])(
    'takes %j beside the issuer https://login.example.test: the host or a parent domain (WebAuthn L3 §5.1.2)',
    (rpId) => {
      expect(parseStageConfig(stage({ issuer: 'https://login.example.test', passkeys: { rpId } })).passkeys?.rpId).toBe(rpId);
    },
  );

  it.each(['other.test', 'badexample.test', 'auth.login.example.test'])(
    'refuses %j beside the issuer https://login.example.test: not that host nor a parent domain',
    (rpId) => {
      expect(() => parseStageConfig(stage({ issuer: 'https://login.example.test', passkeys: { rpId } }))).toThrow(
        /parent domain[\s\S]*at passkeys\.rpId/,
      );
    },
  );

  it.each(['https://example.test', 'example.test:443', 'example.test/path', 'Example.test', '127.0.0.1', '', 'a..b'])(
    'refuses %j: a lower-case host name only, never an IP address',
    (rpId) => {
      expect(() => parseStageConfig(stage({ passkeys: { rpId } }))).toThrow(/rpId/);
    },
  );

  it('refuses an unknown field', () => {
    expect(() => parseStageConfig(stage({ passkeys: { origin: 'https://example.test' } }))).toThrow(/origin/);
  });
});
