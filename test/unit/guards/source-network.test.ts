import fc from 'fast-check';
import { sourceNetworkOf, UNKNOWN_NETWORK } from '../../../lib/guards/source-network';

describe('sourceNetworkOf', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['127.0.0.2', '127.0.0.2'],
    ['0.0.0.0', '0.0.0.0'],
  ])('keeps the IPv4 address %s as its own network', (ip, network) => {
    expect(sourceNetworkOf(ip)).toBe(network);
  });

  it.each([
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:DB8:1:2::', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
    // `::` early, with groups after it that reach into the first 64 bits
    ['2001:db8::1:2:3:4:5', '2001:db8:0:1::/64'],
    // ffff in the sixth group is only a mapped IPv4 address when the five before it are all zero
    ['2001:db8::ffff:192.0.2.1', '2001:db8:0:0::/64'],
    ['0:0:0:0:1:ffff:192.0.2.1', '0:0:0:0::/64'],
  ])('counts the IPv6 address %s by its /64 (%s): one host holds all of it', (ip, network) => {
    expect(sourceNetworkOf(ip)).toBe(network);
  });

  it.each([
    ['::ffff:127.0.0.2', '127.0.0.2'],
    ['::ffff:c000:221', '192.0.2.33'],
    ['0:0:0:0:0:ffff:192.0.2.1', '192.0.2.1'],
  ])('reads the IPv4-mapped address %s (a dual-stack socket’s IPv4 client) as %s', (ip, network) => {
    expect(sourceNetworkOf(ip)).toBe(network);
  });

  it.each([undefined, '', 'localhost', '1.2.3', '2001:db8::g', '192.0.2.1, 198.51.100.7', '%eth0'])(
    'puts an absent or unparsable source (%j) in one shared network: fail closed, never uncounted',
    (ip) => {
      expect(sourceNetworkOf(ip)).toBe(UNKNOWN_NETWORK);
    },
  );

  it('gives every address of one /64 the same network, and addresses of different /64s different ones', () => {
    const hextet = fc.integer({ min: 0, max: 0xffff }).map((value) => value.toString(16));
    const address = fc.array(hextet, { minLength: 8, maxLength: 8 });
    fc.assert(
      fc.property(address, address, (a, b) => {
        const sameNetwork = a.slice(0, 4).every((group, index) => parseInt(group, 16) === parseInt(b[index] as string, 16));
        // Mapped IPv4 addresses (::ffff:0:0/96) are their IPv4 address, not a /64.
        fc.pre(!isMapped(a) && !isMapped(b));
        expect(sourceNetworkOf(a.join(':')) === sourceNetworkOf(b.join(':'))).toBe(sameNetwork);
      }),
    );
  });
});

function isMapped(groups: readonly string[]): boolean {
  return groups.slice(0, 5).every((group) => parseInt(group, 16) === 0) && parseInt(groups[5] as string, 16) === 0xffff;
}
