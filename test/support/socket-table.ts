/**
 * Where a local TCP port listens, read from Linux's socket table (/proc/net/tcp and /proc/net/tcp6,
 * what `ss -ltn` shows). It only reads: nothing connects anywhere, so a test can tell "listens on
 * 127.0.0.1" from "listens on every interface" without reaching the port from another address.
 */
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';

/** The socket table is Linux's: elsewhere the tests that read it are skipped, and say so. */
export const HAS_SOCKET_TABLE = process.platform === 'linux';

/** The `st` column of a listening socket (TCP_LISTEN). */
const LISTEN = '0A';

/** The local addresses `port` listens on, as text: `127.0.0.1`, `::1`, `0.0.0.0`, `::`, `::ffff:127.0.0.1`. */
export function listeningAddresses(port: number): string[] {
  return [...listeningIn(tableText('/proc/net/tcp'), 4, port), ...listeningIn(tableText('/proc/net/tcp6'), 6, port)];
}

/**
 * The local addresses `port` listens on in one table's text (/proc/net/tcp for `family` 4, tcp6
 * for 6), printed by a host of byte order `order`.
 */
export function listeningIn(table: string, family: 4 | 6, port: number, order = endianness()): string[] {
  const addresses: string[] = [];
  for (const line of table.split('\n').slice(1)) {
    // sl local_address rem_address st …, the local address as HEX:PORT
    const [, local, , state] = line.trim().split(/\s+/);
    const [address, hexPort] = local?.split(':') ?? [];
    if (state === LISTEN && address !== undefined && hexPort !== undefined && Number.parseInt(hexPort, 16) === port) {
      const bytes = bytesOf(address, order);
      addresses.push(family === 4 ? formatIpv4(bytes) : formatIpv6(bytes));
    }
  }
  return addresses;
}

function tableText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    // No tcp6 on a kernel without IPv6: no IPv6 sockets.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/** The kernel prints an address as 32-bit words in the host's byte order. */
function bytesOf(hex: string, order: 'BE' | 'LE'): number[] {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const wordBytes = (hex.slice(word, word + 8).match(/../g) ?? []).map((pair) => Number.parseInt(pair, 16));
    bytes.push(...(order === 'LE' ? wordBytes.reverse() : wordBytes));
  }
  return bytes;
}

const formatIpv4 = (bytes: number[]) => bytes.join('.');

function formatIpv6(bytes: number[]): string {
  if (bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return `::ffff:${formatIpv4(bytes.slice(12))}`;
  }
  const groups = Array.from({ length: 8 }, (_, index) => (((bytes[2 * index] ?? 0) << 8) | (bytes[2 * index + 1] ?? 0)).toString(16));
  // RFC 5952 §4.2: the longest run of two or more zero groups becomes `::`.
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8; start += 1) {
    let length = 0;
    while (groups[start + length] === '0') length += 1;
    if (length > best.length) best = { start, length };
  }
  if (best.start < 0) return groups.join(':');
  return `${groups.slice(0, best.start).join(':')}::${groups.slice(best.start + best.length).join(':')}`;
}
