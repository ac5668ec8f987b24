/**
 * Every test file's logs are captured (not printed) and checked after its tests: no raw email
 * address, no phone number, and none of the codes or tokens the tests saw may appear in them.
 * Logs contain neither a code nor a raw email or phone number: enforced suite-wide.
 *
 * The same goes for the audit events derived from those lines (lib/audit/, as the forwarder maps
 * them on AWS): each must match its committed schema (docs/events/), a line of an event's source
 * that does not fit it is a failure (the forwarder would drop it), and no event may hold personal
 * data or a remembered secret.
 */
import { auditEventsOf, parseLogLine } from '../../lib/audit/mapping';
import { auditEventProblems } from './audit-schemas';

const captured: string[] = [];
const secrets = new Set<string>();

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;
const PHONE = /\+[1-9]\d{6,14}\b/;

/** All log lines written so far by this test file. */
export function capturedLogs(): readonly string[] {
  return captured;
}

/**
 * A value (a code, a token) that must never appear in the logs. Anything but a non-empty string is
 * ignored: a flow that broke hands over `undefined`, and the check must still run and report the
 * test's own failure, not crash in afterAll and hide it (regression: 52 mutants were reported as
 * errors, not kills, because of that crash).
 */
export function rememberSecret(value: unknown): void {
  if (typeof value === 'string' && value !== '') secrets.add(value);
}

/** Problems found in `lines`: personal data or a remembered secret. */
export function logLeaks(lines: readonly string[]): string[] {
  const leaks: string[] = [];
  for (const line of lines) {
    if (EMAIL.test(line)) leaks.push(`email address in: ${line.slice(0, 300)}`);
    if (PHONE.test(line)) leaks.push(`phone number in: ${line.slice(0, 300)}`);
    for (const secret of secrets) {
      if (new RegExp(`(^|[^0-9A-Za-z_-])${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^0-9A-Za-z_-])`).test(line)) {
        leaks.push(`secret ${secret.slice(0, 3)}… in: ${line.slice(0, 300)}`);
      }
    }
  }
  return leaks;
}

function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return `${value.name}: ${value.message}\n${value.stack ?? ''}`;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
  jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
    captured.push(args.map(render).join(' '));
  });
}

/** Problems of the audit events derived from `lines`: a line that fits no schema, an event its schema refuses, personal data or a secret in one. */
export function auditEventLeaks(lines: readonly string[]): string[] {
  const problems: string[] = [];
  lines.forEach((text, index) => {
    const line = parseLogLine(text);
    if (line === undefined) return;
    const mapped = auditEventsOf(line, { id: String(index), timestamp: 0 });
    for (const type of mapped.invalid) problems.push(`${type} refused the line: ${text.slice(0, 300)}`);
    for (const event of mapped.events) {
      problems.push(...auditEventProblems(event.type, event.version, event.detail));
      problems.push(...logLeaks([JSON.stringify(event)]).map((leak) => `audit event ${event.type}: ${leak}`));
    }
  });
  return problems;
}

afterAll(() => {
  const leaks = logLeaks(captured);
  if (process.env.SHOW_LOGS === '1') process.stdout.write(`${captured.join('\n')}\n`);
  expect(leaks).toEqual([]);
  expect(auditEventLeaks(captured)).toEqual([]);
});
