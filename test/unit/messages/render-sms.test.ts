import { InvalidRequestError } from '../../../lib/platform/errors';
import { renderSms } from '../../../lib/messages/render-sms';
import { base } from '../../support/rendering';

describe('renderSms', () => {
  it('rounds the lifetime up to whole minutes', () => {
    expect(renderSms({ ...base, expiresInSeconds: 61 }).text).toBe(
      "Your Acme code is 012345. It expires in 2 minutes. Don't share it with anyone.",
    );
  });

  it('replaces every %code% in a caller message', () => {
    // Arrange
    const message = 'Code %code%. Again: %code%.%code%';

    // Act
    const sms = renderSms({ ...base, message });

    // Assert
    expect(sms).toEqual({ text: 'Code 012345. Again: 012345.012345' });
  });

  it('keeps leading zeros', () => {
    expect(renderSms({ ...base, code: '000123' }).text).toBe(
      "Your Acme code is 000123. It expires in 5 minutes. Don't share it with anyone.",
    );
  });

  it('does not treat $ patterns in the message as replacement patterns', () => {
    expect(renderSms({ ...base, message: "$& $' %code% $$" }).text).toBe("$& $' 012345 $$");
  });

  it('rejects an invalid caller message with InvalidRequestError', () => {
    expect(() => renderSms({ ...base, message: 'no placeholder' })).toThrow(InvalidRequestError);
  });

  it.each(['12345', '1234567', '12345a', '１２３４５６', ''])('refuses a malformed code %j without echoing it', (code) => {
    expect(() => renderSms({ ...base, code })).toThrow(new RangeError('code must be exactly six ASCII digits'));
  });

  it.each([0, -60, Number.NaN, Number.POSITIVE_INFINITY])('refuses a lifetime of %p seconds', (expiresInSeconds) => {
    expect(() => renderSms({ ...base, expiresInSeconds })).toThrow(RangeError);
  });
});
