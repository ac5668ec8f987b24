/**
 * The audit events' catalogue and mapping (lib/audit/events.ts, lib/audit/mapping.ts): which log
 * lines become which events, with exactly which fields, and the committed JSON Schemas
 * (docs/events/) as the catalogue generates them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AUDIT_EVENT_TYPES, auditMessages } from '../../../lib/audit/events';
import { auditEventsOf, eventIdOf, parseLogLine, type AuditEvent } from '../../../lib/audit/mapping';
import { LOG_EVENTS } from '../../../lib/platform/log-events';
import { EVENT_SCHEMA_DIR, eventSchemaFiles } from '../../../infra/audit-schemas';
import { auditEventProblems } from '../../support/audit-schemas';
import { auditEventLeaks } from '../../support/log-capture';

const USER = 'AbCdEfGhIj_-';
const FAMILY = 'fAmIlY123456';
const SESSION = 'sEsSiOn12345';
const TIME = '2026-11-26T10:00:00.000Z';
const ORIGIN = { id: '37891234567890123456789012345678901234567890123456789012', timestamp: Date.parse('2026-11-26T10:00:05.000Z') };

/** A line as Powertools writes it on AWS: its own keys, and the EMF members the log adapter adds to a log event's line. */
function line(message: string, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    level: 'INFO',
    message,
    timestamp: TIME,
    service: 'identity',
    cold_start: false,
    function_arn: 'arn:aws:lambda:eu-west-1:210987654321:function:Identity-prod-Token',
    function_memory_size: '512',
    function_name: 'Identity-prod-Token',
    function_request_id: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
    correlation_id: 'f1e2d3c4-0000-4000-8000-123456789abc',
    xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
    _aws: {
      Timestamp: 1,
      CloudWatchMetrics: [{ Namespace: 'Identity/prod', Dimensions: [[]], Metrics: [{ Name: 'TokenIssued', Unit: 'Count' }] }],
    },
    TokenIssued: 1,
    ...fields,
  };
}

const produced: AuditEvent[] = [];
function eventsOf(message: string, fields: Record<string, unknown>): AuditEvent[] {
  const mapped = auditEventsOf(line(message, fields), ORIGIN);
  expect(mapped.invalid).toEqual([]);
  produced.push(...mapped.events);
  return mapped.events;
}
const envelope = (type: string, version = 1) => ({
  version,
  id: eventIdOf(ORIGIN.id, { type, version }),
  time: TIME,
  request: 'f1e2d3c4-0000-4000-8000-123456789abc',
});
const ids = { environment: 'local', client: 'local-web', user: USER };

describe('each log line becomes its events, with the type’s fields only (never the logger’s keys, the EMF members or another field of the line)', () => {
  it('code sent → code.sent', () => {
    expect(eventsOf(LOG_EVENTS.codeSent, { ...ids, channel: 'sms' })).toEqual([
      { type: 'code.sent', version: 1, detail: { ...envelope('code.sent'), ...ids, channel: 'sms' } },
    ]);
  });

  it('a code check’s refusal (no grant named) → code.checked wrong, with its reason; another grant’s refusal is no code check', () => {
    expect(eventsOf(LOG_EVENTS.grantRefused, { ...ids, reason: 'wrong_code' })).toEqual([
      { type: 'code.checked', version: 1, detail: { ...envelope('code.checked'), ...ids, outcome: 'wrong', reason: 'wrong_code' } },
    ]);
    expect(eventsOf(LOG_EVENTS.grantRefused, { ...ids, grant: 'refresh_token', family: FAMILY, reason: 'revoked' })).toEqual([]);
    expect(eventsOf(LOG_EVENTS.grantRefused, { client: 'local-web', grant: 'authorization_code', reason: 'not_found_or_expired' })).toEqual(
      [],
    );
  });

  it('tokens of a one-time code → code.checked right and login.completed (v1 and v2, side by side); of an authorization code → login.completed; of a refresh → token.refreshed', () => {
    const issued = {
      ...ids,
      format: 'jwt',
      channel: 'email',
      method: 'email',
      amr: ['otp'],
      idToken: false,
      refreshToken: true,
      family: FAMILY,
    };
    const v2 = { method: 'email', amr: ['otp'] };
    expect(eventsOf(LOG_EVENTS.tokenIssued, { ...issued, grant: 'one_time_code' })).toEqual([
      { type: 'code.checked', version: 1, detail: { ...envelope('code.checked'), ...ids, outcome: 'right' } },
      {
        type: 'login.completed',
        version: 1,
        detail: { ...envelope('login.completed'), ...ids, grant: 'one_time_code', channel: 'email', family: FAMILY },
      },
      {
        type: 'login.completed',
        version: 2,
        detail: { ...envelope('login.completed', 2), ...ids, grant: 'one_time_code', ...v2, family: FAMILY },
      },
    ]);
    expect(eventsOf(LOG_EVENTS.tokenIssued, { ...issued, grant: 'authorization_code' })).toEqual([
      {
        type: 'login.completed',
        version: 1,
        detail: { ...envelope('login.completed'), ...ids, grant: 'authorization_code', channel: 'email', family: FAMILY },
      },
      {
        type: 'login.completed',
        version: 2,
        detail: { ...envelope('login.completed', 2), ...ids, grant: 'authorization_code', ...v2, family: FAMILY },
      },
    ]);
    expect(eventsOf(LOG_EVENTS.tokenIssued, { ...issued, grant: 'refresh_token', reuseInterval: true })).toEqual([
      { type: 'token.refreshed', version: 1, detail: { ...envelope('token.refreshed'), ...ids, family: FAMILY } },
    ]);
  });

  it('a code checked on the hosted page → code.checked right', () => {
    expect(eventsOf(LOG_EVENTS.authorizationGranted, ids)).toEqual([
      { type: 'code.checked', version: 1, detail: { ...envelope('code.checked'), ...ids, outcome: 'right' } },
    ]);
  });

  it.each(['passkey', 'synced_passkey'])('a %s sign-in on the hosted page checked no code: no code.checked', (method) => {
    expect(eventsOf(LOG_EVENTS.authorizationGranted, { ...ids, method })).toEqual([]);
  });

  it.each([
    ['passkey', ['hwk', 'user', 'mfa']],
    ['synced_passkey', ['swk', 'user', 'mfa']],
  ])('tokens of a %s login → login.completed v2 only, with its method and amr (v1’s channel cannot say a passkey)', (method, amr) => {
    const issued = { ...ids, grant: 'authorization_code', format: 'jwt', channel: method, method, amr, idToken: true, refreshToken: false };
    expect(eventsOf(LOG_EVENTS.tokenIssued, issued)).toEqual([
      {
        type: 'login.completed',
        version: 2,
        detail: { ...envelope('login.completed', 2), ...ids, grant: 'authorization_code', method, amr },
      },
    ]);
  });

  it('passkey registered → passkey.registered, with the passkey’s handle and whether it is synced', () => {
    const registered = { ...ids, passkey: 'pAsSkEy12345', method: 'synced_passkey' };
    expect(eventsOf(LOG_EVENTS.passkeyRegistered, registered)).toEqual([
      { type: 'passkey.registered', version: 1, detail: { ...envelope('passkey.registered'), ...registered } },
    ]);
  });

  it('passkey removed → passkey.removed, by the user (one, on the page) or by an operator (all of them)', () => {
    const byUser = { ...ids, by: 'user', count: 1, passkey: 'pAsSkEy12345' };
    expect(eventsOf(LOG_EVENTS.passkeyRemoved, byUser)).toEqual([
      { type: 'passkey.removed', version: 1, detail: { ...envelope('passkey.removed'), ...byUser } },
    ]);
    const byOperator = { environment: 'local', user: USER, by: 'operator', count: 3 };
    expect(eventsOf(LOG_EVENTS.passkeyRemoved, byOperator)).toEqual([
      { type: 'passkey.removed', version: 1, detail: { ...envelope('passkey.removed'), ...byOperator } },
    ]);
  });

  it('a passkey refused is no audit event (the logs and their metrics have it)', () => {
    expect(eventsOf(LOG_EVENTS.passkeyRefused, { ...ids, reason: 'counter', passkey: 'pAsSkEy12345' })).toEqual([]);
  });

  it('a refusal that starts a block → block.started; the block’s further refusals are none', () => {
    const refused = { operation: 'token', environment: 'local', user: USER, reason: 'failure_cap' };
    expect(eventsOf(LOG_EVENTS.attemptRefused, { ...refused, blockStarted: true })).toEqual([
      { type: 'block.started', version: 1, detail: { ...envelope('block.started'), ...refused } },
    ]);
    expect(eventsOf(LOG_EVENTS.attemptRefused, { ...refused, blockStarted: false })).toEqual([]);
  });

  it('failure cap reached → failure_cap.reached; blocked user attempt → blocked_user.attempted', () => {
    expect(eventsOf(LOG_EVENTS.failureCapReached, { environment: 'local', user: USER, failures: 10 })).toEqual([
      {
        type: 'failure_cap.reached',
        version: 1,
        detail: { ...envelope('failure_cap.reached'), environment: 'local', user: USER, failures: 10 },
      },
    ]);
    expect(eventsOf(LOG_EVENTS.blockedUserAttempt, { operation: 'send', environment: 'local', user: USER })).toEqual([
      {
        type: 'blocked_user.attempted',
        version: 1,
        detail: { ...envelope('blocked_user.attempted'), operation: 'send', environment: 'local', user: USER },
      },
    ]);
  });

  it('a phone or an email guard’s refusal → fraud_guard.refused (an email’s with channel email)', () => {
    const prefix = { environment: 'local', channel: 'sms', guard: 'prefix', country: 'US', prefix: 'pReFiX123456', range: '+1 415' };
    expect(eventsOf(LOG_EVENTS.phoneSendRefused, prefix)).toEqual([
      { type: 'fraud_guard.refused', version: 1, detail: { ...envelope('fraud_guard.refused'), ...prefix } },
    ]);
    const destination = {
      environment: 'local',
      channel: 'voice',
      guard: 'destination',
      country: 'GB',
      reason: 'number_type',
      numberType: 'PREMIUM_RATE',
    };
    expect(eventsOf(LOG_EVENTS.phoneSendRefused, destination)).toEqual([
      { type: 'fraud_guard.refused', version: 1, detail: { ...envelope('fraud_guard.refused'), ...destination } },
    ]);
    expect(eventsOf(LOG_EVENTS.emailSendRefused, { environment: 'local', guard: 'ip', source: 'sOuRcE123456' })).toEqual([
      {
        type: 'fraud_guard.refused',
        version: 1,
        detail: { ...envelope('fraud_guard.refused'), environment: 'local', channel: 'email', guard: 'ip', source: 'sOuRcE123456' },
      },
    ]);
  });

  it('refresh token reused → refresh_token.reused', () => {
    expect(eventsOf(LOG_EVENTS.refreshTokenReused, { ...ids, grant: 'refresh_token', family: FAMILY, generation: 3 })).toEqual([
      { type: 'refresh_token.reused', version: 1, detail: { ...envelope('refresh_token.reused'), ...ids, family: FAMILY, generation: 3 } },
    ]);
  });

  it('a revocation that revoked something → token.revoked; one that revoked nothing is none', () => {
    expect(eventsOf(LOG_EVENTS.tokenRevoked, { client: 'local-web', kind: 'refresh_token', family: FAMILY, revoked: true })).toEqual([
      {
        type: 'token.revoked',
        version: 1,
        detail: { ...envelope('token.revoked'), client: 'local-web', kind: 'refresh_token', family: FAMILY },
      },
    ]);
    expect(eventsOf(LOG_EVENTS.tokenRevoked, { client: 'local-web', kind: 'access_token', format: 'opaque', revoked: true })).toEqual([
      {
        type: 'token.revoked',
        version: 1,
        detail: { ...envelope('token.revoked'), client: 'local-web', kind: 'access_token', format: 'opaque' },
      },
    ]);
    expect(eventsOf(LOG_EVENTS.tokenRevoked, { client: 'local-web', kind: 'access_token', format: 'jwt', revoked: false })).toEqual([]);
  });

  it('session ended → logout, by the user or an operator', () => {
    const ended = { environment: 'local', user: USER, session: SESSION, reason: 'operator', clients: 2, families: 1, notices: 1 };
    expect(eventsOf(LOG_EVENTS.sessionEnded, ended)).toEqual([{ type: 'logout', version: 1, detail: { ...envelope('logout'), ...ended } }]);
  });

  it('operator action → operator.action (v1 and v2, side by side), completed or failed halfway', () => {
    const audit = { action: 'block', environment: 'local', user: USER, caller: 'arn:aws:sts::210987654321:assumed-role/Operators/ops-1' };
    const done = { ...audit, completed: true, blocked: true, sessions_ended: 1, refresh_families_revoked: 2 };
    expect(eventsOf(LOG_EVENTS.operatorAction, done)).toEqual([
      { type: 'operator.action', version: 1, detail: { ...envelope('operator.action'), ...done } },
      { type: 'operator.action', version: 2, detail: { ...envelope('operator.action', 2), ...done } },
    ]);
    const failed = { ...audit, completed: false, blocked: true, error: 'TemporarilyUnavailableError' };
    expect(eventsOf(LOG_EVENTS.operatorAction, failed)).toEqual([
      { type: 'operator.action', version: 1, detail: { ...envelope('operator.action'), ...failed } },
      { type: 'operator.action', version: 2, detail: { ...envelope('operator.action', 2), ...failed } },
    ]);
  });

  it('remove-passkeys → operator.action v2 only, with how many passkeys it removed (v1’s action cannot name it)', () => {
    const done = { action: 'remove-passkeys', environment: 'local', user: USER, caller: 'anonymous', completed: true, passkeys_removed: 2 };
    expect(eventsOf(LOG_EVENTS.operatorAction, done)).toEqual([
      { type: 'operator.action', version: 2, detail: { ...envelope('operator.action', 2), ...done } },
    ]);
  });

  it('a message no event is derived from, or a line of another service, is none', () => {
    expect(eventsOf(LOG_EVENTS.userInfoServed, ids)).toEqual([]);
    expect(eventsOf('something else', ids)).toEqual([]);
  });
});

describe('a line that does not fit its type’s schema', () => {
  it('is no event, and is reported by type only: nothing of the line', () => {
    const leaked = auditEventsOf(line(LOG_EVENTS.codeSent, { ...ids, user: 'alice@example.com', channel: 'email' }), ORIGIN);
    expect(leaked).toEqual({ events: [], invalid: ['code.sent v1'] });
    const missing = auditEventsOf(line(LOG_EVENTS.failureCapReached, { environment: 'local', user: USER }), ORIGIN);
    expect(missing).toEqual({ events: [], invalid: ['failure_cap.reached v1'] });
  });
});

describe('the suite-wide check of the events (test/support/log-capture.ts)', () => {
  it('passes the events of good lines, and fails a line of an event’s source that fits no schema, and an event of no committed schema', () => {
    const good = JSON.stringify(line(LOG_EVENTS.codeSent, { ...ids, channel: 'email' }));
    expect(auditEventLeaks([good, 'plain text', JSON.stringify(line(LOG_EVENTS.userInfoServed, ids))])).toEqual([]);
    const bad = JSON.stringify(line(LOG_EVENTS.codeSent, { ...ids, channel: 'fax' }));
    expect(auditEventLeaks([bad])).toEqual([`code.sent v1 refused the line: ${bad.slice(0, 300)}`]);
    expect(auditEventProblems('code.sent', 9, {})).toEqual(['code.sent v9: no schema in docs/events/']);
    expect(auditEventProblems('code.sent', 1, { version: 1 })).not.toEqual([]);
  });
});

describe('the envelope', () => {
  it('id: the same for the same line and type, another for another line or type, UUID-shaped', () => {
    const id = eventIdOf('1', { type: 'code.sent', version: 1 });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(eventIdOf('1', { type: 'code.sent', version: 1 })).toBe(id);
    expect(
      new Set([
        id,
        eventIdOf('2', { type: 'code.sent', version: 1 }),
        eventIdOf('1', { type: 'code.checked', version: 1 }),
        eventIdOf('1', { type: 'code.sent', version: 2 }),
      ]).size,
    ).toBe(4);
  });

  it('time: the line’s own, else the time CloudWatch gave it; request: only when the line has one', () => {
    const withoutTime = { ...line(LOG_EVENTS.codeSent, { ...ids, channel: 'email' }), timestamp: undefined, correlation_id: undefined };
    expect(auditEventsOf(withoutTime, ORIGIN).events[0]?.detail).toEqual({
      version: 1,
      id: eventIdOf(ORIGIN.id, { type: 'code.sent', version: 1 }),
      time: '2026-11-26T10:00:05.000Z',
      ...ids,
      channel: 'email',
    });
    // A time or a request id of another type is not the logger's: CloudWatch's time, and no request.
    const odd = { ...line(LOG_EVENTS.codeSent, { ...ids, channel: 'email' }), timestamp: 12345, correlation_id: 42 };
    const [event] = auditEventsOf(odd, ORIGIN).events;
    expect(event?.detail).toEqual(expect.objectContaining({ time: '2026-11-26T10:00:05.000Z' }));
    expect(Object.keys(event?.detail ?? {})).not.toContain('request');
  });

  it('copies only the fields a line has: an optional field it lacks is absent from the detail, not undefined', () => {
    const [event] = auditEventsOf(line(LOG_EVENTS.codeSent, { ...ids, channel: 'email' }), ORIGIN).events;
    expect(Object.keys(event?.detail ?? {}).sort()).toEqual([
      'channel',
      'client',
      'environment',
      'id',
      'request',
      'time',
      'user',
      'version',
    ]);
  });
});

describe('parseLogLine', () => {
  it.each([
    ['plain text', 'START RequestId: 1 Version: $LATEST'],
    ['not JSON', '{ broken'],
    ['an array', '[{"message":"code sent"}]'],
    ['no message', '{"level":"INFO"}'],
    ['a message that is no string', '{"message":{"text":"code sent"}}'],
  ])('%s is no line of ours', (_, text) => {
    expect(parseLogLine(text)).toBeUndefined();
  });

  it('reads a compact line and a pretty-printed one (Powertools’ dev mode) alike', () => {
    const fields = { message: 'code sent', user: USER };
    expect(parseLogLine(JSON.stringify(fields))).toEqual(fields);
    expect(parseLogLine(`  ${JSON.stringify(fields, null, 4)}\n`)).toEqual(fields);
  });
});

describe('the catalogue', () => {
  it('derives every event from a message of LOG_EVENTS, and each type and version once', () => {
    const messages: string[] = Object.values(LOG_EVENTS);
    expect(auditMessages().filter((message) => !messages.includes(message))).toEqual([]);
    const names = AUDIT_EVENT_TYPES.map((eventType) => `${eventType.type} v${eventType.version}`);
    expect(new Set(names).size).toBe(names.length);
  });

  it('has the issue’s event types (at least)', () => {
    expect(AUDIT_EVENT_TYPES.map((eventType) => eventType.type)).toEqual(
      expect.arrayContaining([
        'code.sent',
        'code.checked',
        'block.started',
        'failure_cap.reached',
        'login.completed',
        'token.refreshed',
        'refresh_token.reused',
        'token.revoked',
        'logout',
        'operator.action',
        'fraud_guard.refused',
        'passkey.registered',
        'passkey.removed',
      ]),
    );
  });

  it('is what docs/events/ holds: one schema per type and version, as generated (`npm run event-schemas`)', () => {
    const generated = eventSchemaFiles();
    const committed = Object.fromEntries(
      readdirSync(EVENT_SCHEMA_DIR)
        .filter((name) => name.endsWith('.json'))
        .map((name) => [name, readFileSync(resolve(EVENT_SCHEMA_DIR, name), 'utf8')]),
    );
    expect(committed).toEqual(generated);
  });
});

afterAll(() => {
  // Every event these tests produced matches its committed schema (ajv, independent of zod).
  expect(produced.length).toBeGreaterThan(15);
  expect(produced.flatMap((event) => auditEventProblems(event.type, event.version, event.detail))).toEqual([]);
});
