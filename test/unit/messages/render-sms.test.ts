import { InvalidRequestError } from '../../../lib/platform/errors';
import { renderSms } from '../../../lib/messages/render-sms';
import { base } from '../../support/rendering';

describe('renderSms', () => {
  it('rounds the lifetime up to whole minutes, and ends with the origin-bound line', () => {
    expect(renderSms({ ...base, expiresInSeconds: 61 }).text).toBe(
      "Your Acme code is 012345. It expires in 2 minutes. Don't share it with anyone.\n\n@id.example.com #012345",
    );
  });

  it('replaces every %code% in a caller message, and adds the origin-bound line to it too', () => {
    // Arrange
    const message = 'Code %code%. Again: %code%.%code%';

    // Act
    const sms = renderSms({ ...base, message });

    // Assert
    expect(sms).toEqual({ text: 'Code 012345. Again: 012345.012345\n\n@id.example.com #012345' });
  });

  it('names the host it is given: the passkeys’ RP ID, never with a scheme or port', () => {
    expect(
      renderSms({ ...base, originHost: 'localhost' })
        .text.split('\n')
        .at(-1),
    ).toBe('@localhost #012345');
  });

  it('keeps leading zeros, in the text and in the line', () => {
    expect(renderSms({ ...base, code: '000123' }).text).toBe(
      "Your Acme code is 000123. It expires in 5 minutes. Don't share it with anyone.\n\n@id.example.com #000123",
    );
  });

  it('does not treat $ patterns in the message as replacement patterns', () => {
    expect(renderSms({ ...base, message: "$& $' %code% $$" }).text).toBe("$& $' 012345 $$\n\n@id.example.com #012345");
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

  // The host comes from the configuration (a validated host name) or the issuer URL's hostname;
  // anything else is our bug, and would garble the line for the browser's parser.
  it.each([
    '',
    'https://id.example.com',
    'id.example.com:443',
    'ID.example.com',
    'id example.com',
    'id.example.com #1',
    'a@b',
    'id.example.com.',
  ])('refuses a host %j that is not a lower-case host name', (originHost) => {
    expect(() => renderSms({ ...base, originHost })).toThrow(new RangeError('the origin-bound line needs a lower-case host name'));
  });

  it.each(['127.0.0.1', '[::1]', 'xn--bcher-kva.example'])('accepts the host %j, as a URL’s hostname gives it', (originHost) => {
    expect(renderSms({ ...base, originHost }).text.endsWith(`\n\n@${originHost} #012345`)).toBe(true);
  });
});
