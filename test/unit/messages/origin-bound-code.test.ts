/**
 * The origin-bound last line of an SMS (WICG "Origin-bound one-time codes delivered via SMS"):
 * `@<host> #<code>` after a blank line, for a host the parser reads back whole.
 */
import { withOriginBoundLine } from '../../../lib/messages/origin-bound-code';

it('ends the text with a blank line and @host #code', () => {
  expect(withOriginBoundLine('Your code is 012345.', 'id.example.com', '012345')).toBe('Your code is 012345.\n\n@id.example.com #012345');
});

it.each([['localhost'], ['a.example'], ['x'], ['login-1.example.co.uk'], ['xn--bcher-kva.example'], ['127.0.0.1'], ['[::1]']])(
  'takes the host %s, single-character labels and addresses included',
  (host) => {
    expect(withOriginBoundLine('Code', host, '000000')).toBe(`Code\n\n@${host} #000000`);
  },
);

it.each([
  ['Login.Example.com'],
  ['id.example.com #1'],
  ['a b'],
  ['evil@example.com'],
  ['-lead.example'],
  ['trail-.example'],
  [''],
  ['a..b'],
])('refuses %j, which the parser would misread (a RangeError: the host comes from our configuration)', (host) => {
  expect(() => withOriginBoundLine('Code', host, '000000')).toThrow(RangeError);
});
