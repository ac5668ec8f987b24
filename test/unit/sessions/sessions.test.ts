/**
 * What a session is worth to a login (lib/sessions/sessions.ts, docs/decisions/014-sso-sessions.md):
 * its lifetimes to the millisecond, its TTL, and the conditional writes of a use and a
 * re-authentication. test/http/sessions.test.ts drives the same rules through the endpoint.
 */
import { deriveHmacKeys } from '../../../lib/keys/hmac-keys';
import type { EnvironmentConfig } from '../../../lib/platform/config';
import type { SessionRecord } from '../../../lib/sessions/ports';
import {
  isSessionLive,
  newSessionReference,
  SESSION_REFERENCE_PATTERN,
  sessionHandleOf,
  sessionKeepUntil,
  sessionKeyOf,
  sessionRenewalOf,
  sessionUsableUntil,
  sessionUseOf,
} from '../../../lib/sessions/sessions';

const IDLE = 3600;
const ABSOLUTE = 4 * 3600;
const environment = { id: 'local', sessions: { idleSeconds: IDLE, absoluteSeconds: ABSOLUTE } } as EnvironmentConfig;
const START = 1_800_000_000_000;
const session: SessionRecord = {
  sessionKey: 'k'.repeat(43),
  sid: 'the-sid',
  environmentId: 'local',
  userKey: 'user-key',
  user: { authType: 'email', value: 'a@example.com' },
  channel: 'email',
  authTime: START / 1000,
  createdAt: START,
  lastSeenAt: START,
  clients: ['local-web'],
};

describe('a session’s lifetimes', () => {
  it('lives until the earlier of its idle deadline (from the last use) and its absolute one (from the start)', () => {
    expect(sessionUsableUntil(environment, session)).toBe(START + IDLE * 1000);
    const used = { ...session, lastSeenAt: START + (ABSOLUTE - 600) * 1000 };
    expect(sessionUsableUntil(environment, used)).toBe(START + ABSOLUTE * 1000);
  });

  it('is live up to the millisecond before its deadline, and only for its own environment', () => {
    expect(isSessionLive(environment, session, START + IDLE * 1000 - 1)).toBe(true);
    expect(isSessionLive(environment, session, START + IDLE * 1000)).toBe(false);
    expect(isSessionLive({ ...environment, id: 'other' }, session, START)).toBe(false);
  });

  it('keeps its item (TTL, seconds rounded up) until its last usable moment after a use at `now`', () => {
    expect(sessionKeepUntil(environment, session, START + 500)).toBe(Math.ceil((START + 500 + IDLE * 1000) / 1000));
    expect(sessionKeepUntil(environment, session, START + ABSOLUTE * 1000 - 10)).toBe((START + ABSOLUTE * 1000) / 1000);
  });
});

describe('the conditional writes', () => {
  it('uses a session only if it was seen within the idle lifetime and started within the absolute one', () => {
    const now = START + 60_000;
    expect(sessionUseOf(environment, session, 'local-web-2', now)).toEqual({
      sessionKey: session.sessionKey,
      environmentId: 'local',
      clientId: 'local-web-2',
      now,
      seenAfter: now - IDLE * 1000,
      startedAfter: now - ABSOLUTE * 1000,
      keepUntil: Math.ceil((now + IDLE * 1000) / 1000),
    });
  });

  it('re-authenticates its user’s session: the new code’s channel and auth_time, its absolute lifetime from now', () => {
    const now = START + 7200_000;
    expect(sessionRenewalOf(environment, session, { clientId: 'local-web', channel: 'sms', authTime: now / 1000, now })).toEqual({
      ...sessionUseOf(environment, session, 'local-web', now),
      userKey: 'user-key',
      channel: 'sms',
      authTime: now / 1000,
      keepUntil: Math.ceil((now + IDLE * 1000) / 1000),
    });
  });
});

describe('references and keys', () => {
  it('draws 256-bit references and keys each under an HMAC, never the reference itself', () => {
    const keys = deriveHmacKeys(Buffer.alloc(32, 1));
    const reference = newSessionReference();
    expect(reference).toMatch(SESSION_REFERENCE_PATTERN);
    expect(newSessionReference()).not.toBe(reference);
    expect(sessionKeyOf(keys, reference)).not.toContain(reference);
    expect(sessionKeyOf(keys, reference)).toBe(sessionKeyOf(keys, reference));
    expect(sessionKeyOf(deriveHmacKeys(Buffer.alloc(32, 2)), reference)).not.toBe(sessionKeyOf(keys, reference));
    expect(sessionHandleOf(sessionKeyOf(keys, reference))).toHaveLength(12);
  });
});
