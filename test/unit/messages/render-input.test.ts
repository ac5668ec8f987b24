import { InvalidRequestError } from '../../../lib/platform/errors';
import { checkInput, type SmsRenderInput } from '../../../lib/messages/render-input';
import { renderEmail } from '../../../lib/messages/render-email';
import { renderSms } from '../../../lib/messages/render-sms';
import { renderVoice } from '../../../lib/messages/render-voice';
import { base } from '../../support/rendering';

describe('checkInput', () => {
  it.each(['email', 'sms', 'voice'] as const)('accepts a valid %s input', (channel) => {
    expect(() => checkInput({ ...base, message: 'Code: %code%' }, channel)).not.toThrow();
  });

  it.each(['12345', '1234567', '12345a', '１２３４５６', ''])(
    'refuses the malformed code %j with a RangeError that does not echo it',
    (code) => {
      expect(() => checkInput({ ...base, code }, 'sms')).toThrow(new RangeError('code must be exactly six ASCII digits'));
    },
  );

  it.each([0, -60, Number.NaN, Number.POSITIVE_INFINITY])('refuses a lifetime of %p seconds', (expiresInSeconds) => {
    expect(() => checkInput({ ...base, expiresInSeconds }, 'email')).toThrow(new RangeError('expiresInSeconds must be a positive number'));
  });

  it('checks a caller message against the channel it is rendered for', () => {
    // Arrange: fits an email (at most 2000 characters), not a call (at most 300).
    const input = { ...base, message: `${'a'.repeat(400)}%code%` };

    // Act and assert
    expect(() => checkInput(input, 'email')).not.toThrow();
    expect(() => checkInput(input, 'voice')).toThrow(InvalidRequestError);
  });
});

describe.each<[string, (input: SmsRenderInput) => unknown]>([
  ['renderEmail', renderEmail],
  ['renderSms', renderSms],
  ['renderVoice', renderVoice],
])('%s', (_name, render) => {
  it('checks its input first', () => {
    expect(() => render({ ...base, code: '1234' })).toThrow(RangeError);
    expect(() => render({ ...base, expiresInSeconds: 0 })).toThrow(RangeError);
    expect(() => render({ ...base, message: 'no placeholder' })).toThrow(InvalidRequestError);
  });
});

describe('each renderer checks a caller message against its own channel’s length limit', () => {
  // Each message is just over the named channel's limit; a renderer that checked it for another
  // channel (or none) would render it.
  it.each<[string, (input: SmsRenderInput) => unknown, string, RegExp]>([
    ['email', renderEmail, `${'a'.repeat(1995)} %code%`, /too long for email/],
    ['sms', renderSms, `${'a'.repeat(460)} %code%`, /too long for SMS/],
    ['voice', renderVoice, `${'a'.repeat(294)} %code%`, /too long for a voice call/],
  ])('%s', (_channel, render, message, expected) => {
    expect(() => render({ ...base, message })).toThrow(expected);
  });
});
