/**
 * The local runtime's audit events (local/events.ts, local/log-tap.ts): the service's own log
 * lines, as Powertools writes them with and without POWERTOOLS_DEV, become the dev outbox's events.
 */
import { EventOutbox, LOCAL_EVENT_SOURCE, MAX_EVENTS } from '../../../local/events';
import { onLogLine } from '../../../local/log-tap';
import { LOG_EVENTS } from '../../../lib/platform/log-events';

const USER = 'AbCdEfGhIj_-';
const codeSent = (client: string) =>
  JSON.stringify({
    level: 'INFO',
    message: LOG_EVENTS.codeSent,
    timestamp: '2026-11-26T10:00:00.000Z',
    environment: 'local',
    client,
    channel: 'email',
    user: USER,
  });

describe('EventOutbox', () => {
  it('keeps the events of the service’s lines, newest first, as a rule’s target gets them, by type on request', () => {
    const outbox = new EventOutbox();
    outbox.accept(codeSent('first'));
    outbox.accept('Starting DynamoDB Local…');
    outbox.accept(JSON.stringify({ message: LOG_EVENTS.failureCapReached, environment: 'local', user: USER, failures: 3 }));
    outbox.accept(codeSent('second'));

    expect(outbox.list().map((event) => [event.source, event['detail-type'], event.detail.client])).toEqual([
      [LOCAL_EVENT_SOURCE, 'code.sent', 'second'],
      [LOCAL_EVENT_SOURCE, 'failure_cap.reached', undefined],
      [LOCAL_EVENT_SOURCE, 'code.sent', 'first'],
    ]);
    expect(outbox.list('failure_cap.reached')).toHaveLength(1);
    expect(outbox.list()[0]).toEqual({
      source: LOCAL_EVENT_SOURCE,
      'detail-type': 'code.sent',
      time: '2026-11-26T10:00:00.000Z',
      detail: expect.objectContaining({ version: 1, client: 'second', user: USER }),
    });
  });

  it(`keeps the newest ${MAX_EVENTS}`, () => {
    const outbox = new EventOutbox();
    for (let index = 0; index <= MAX_EVENTS; index += 1) outbox.accept(codeSent(`client-${index}`));
    const events = outbox.list();
    expect(events).toHaveLength(MAX_EVENTS);
    expect([events[0]?.detail.client, events.at(-1)?.detail.client]).toEqual([`client-${MAX_EVENTS}`, 'client-1']);
  });
});

describe('onLogLine', () => {
  it('hands over what the logger writes to the console (POWERTOOLS_DEV: a pretty-printed document per call) and to the streams (a line each), until stopped', () => {
    const seen: string[] = [];
    const stop = onLogLine((text) => seen.push(text));
    const pretty = JSON.stringify({ message: 'pretty' }, null, 4);
    console.info(pretty);
    process.stdout.write('{"message":"one"}\n{"message":"two"}\n');
    stop();
    console.info('after');

    expect(seen).toEqual([pretty, '{"message":"one"}', '{"message":"two"}']);
  });

  it('a listener that throws does not stop the others, nor the write', () => {
    const seen: string[] = [];
    const stopFirst = onLogLine(() => {
      throw new Error('listener');
    });
    const stopSecond = onLogLine((text) => seen.push(text));
    console.warn('{"message":"warned"}');
    stopFirst();
    stopSecond();
    expect(seen).toEqual(['{"message":"warned"}']);
  });
});
