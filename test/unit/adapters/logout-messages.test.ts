/**
 * The logout queue's message body (lib/adapters/sqs/logout-messages.ts): what the notifier writes
 * the worker reads back unchanged, and anything else is not a notice (the worker reports it
 * failed, so it ends in the dead-letter queue where its alarm is seen).
 */
import { logoutMessageBody, noticeOf } from '../../../lib/adapters/sqs/logout-messages';
import type { LogoutNotice } from '../../../lib/logout/ports';

const NOTICE: LogoutNotice = {
  issuer: 'https://id.example.com/prod',
  environmentId: 'prod',
  clientId: 'shop',
  subject: 'pairwise-subject',
  sid: 'c2Vzc2lvbi1pZA',
};

describe('logout messages', () => {
  it('round-trips a notice through its body', () => {
    expect(noticeOf(logoutMessageBody(NOTICE))).toEqual(NOTICE);
  });

  it('writes a versioned JSON object with the notice’s fields and nothing else', () => {
    expect(JSON.parse(logoutMessageBody(NOTICE))).toEqual({ v: 1, ...NOTICE });
  });

  it.each([
    ['not JSON', 'logout'],
    ['JSON but not an object', '"shop"'],
    ['another version', JSON.stringify({ ...NOTICE, v: 2 })],
    ['no version', JSON.stringify(NOTICE)],
    ['a field missing', JSON.stringify({ v: 1, ...NOTICE, sid: undefined })],
    ['an empty field', JSON.stringify({ v: 1, ...NOTICE, clientId: '' })],
    ['a field of another type', JSON.stringify({ v: 1, ...NOTICE, subject: 42 })],
    ['an extra field', JSON.stringify({ v: 1, ...NOTICE, token: 'eyJ' })],
  ])('refuses a body that is %s', (_, body) => {
    expect(noticeOf(body)).toBeUndefined();
  });
});
