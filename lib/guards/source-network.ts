/**
 * The network a request comes from, for the per-source guard on SMS and voice sends: the IPv4
 * address itself, or the /64 of an IPv6 address.
 *
 * Why /64 for IPv6: it is the subnet a single customer link gets (RFC 6177 recommends a /48 to /64
 * per site; RFC 4291 fixes interface identifiers at 64 bits), and a host picks addresses in it at
 * will (temporary addresses, RFC 8981), so one attacker holds 2^64 of them. Keyed per address, the
 * guard would count each one once. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a
 * dual-stack socket reports for an IPv4 client) is its IPv4 address.
 *
 * The source is API Gateway's `requestContext.identity.sourceIp` (the TCP peer as API Gateway saw
 * it), never a header the client writes (`X-Forwarded-For`).
 */
import { isIPv4, isIPv6 } from 'node:net';

/** What counts requests whose source is absent or not an address: one shared network (fail closed, not open). */
export const UNKNOWN_NETWORK = 'unknown';

/**
 * The source network of `sourceIp`.
 * @example sourceNetworkOf('2001:db8:1:2:3:4:5:6') // '2001:db8:1:2::/64'
 * @example sourceNetworkOf('::ffff:127.0.0.2') // '127.0.0.2'
 */
export function sourceNetworkOf(sourceIp: string | undefined): string {
  if (sourceIp === undefined) return UNKNOWN_NETWORK;
  if (isIPv4(sourceIp)) return sourceIp;
  // A zone index (`fe80::1%eth0`) names the host's own interface, not part of the address.
  const address = sourceIp.split('%', 1)[0] as string;
  if (!isIPv6(address)) return UNKNOWN_NETWORK;
  const groups = hextetsOf(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6] as number, groups[7] as number];
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad as two groups). */
function hextetsOf(address: string): number[] {
  const halves = address.split('::');
  const groupsOf = (text: string | undefined): number[] =>
    text === undefined || text === ''
      ? []
      : text.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const head = groupsOf(halves[0]);
  if (halves.length === 1) return head;
  const tail = groupsOf(halves[1]);
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}
