/**
 * DynamoDB Local listens on 127.0.0.1 only (regression, security review: it listened on every
 * interface, where anyone on the developer's network could read and change codes, attempt counters
 * and refresh families with the published local credentials). Checked in the socket table: nothing
 * here connects from, or to, an address other than loopback.
 */
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { dynamoDbLocalJar, spawnDynamoDbLocal } from '../../../local/dynamodb';
import { freePort } from '../../../local/ports';
import { requiredEnv } from '../../support/harness';
import { HAS_SOCKET_TABLE, listeningAddresses, listeningIn } from '../../support/socket-table';

const onLinux = HAS_SOCKET_TABLE ? it : it.skip;

describe('the socket table reader', () => {
  // Lines as this machine's kernel (x86-64, little-endian) printed them, the port 0x9D45 = 40261.
  const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
  const tcp6Line = (address: string, state = '0A') =>
    `   0: ${address}:9D45 00000000000000000000000000000000:0000 ${state} 00000000:00000000 00:00000000 00000000     0        0 30328 1\n`;

  it.each([
    ['every interface, IPv6 and IPv4 (DynamoDB Local before the fix)', '00000000000000000000000000000000', '::'],
    ['::1', '00000000000000000000000001000000', '::1'],
    ['127.0.0.1 on an IPv6 socket', '0000000000000000FFFF00000100007F', '::ffff:127.0.0.1'],
  ])('reads a tcp6 listener on %s', (_name, hex, address) => {
    expect(listeningIn(header + tcp6Line(hex), 6, 40261, 'LE')).toEqual([address]);
  });

  it('reads tcp listeners on 127.0.0.1 and 0.0.0.0, and skips other ports and sockets that do not listen', () => {
    const table =
      header +
      '   1: 0100007F:9D45 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1\n' +
      '   2: 00000000:9D45 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1\n' +
      '   3: 00000000:9D46 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3 1\n' +
      '   4: 0100007F:9D45 0100007F:B0BC 01 00000000:00000000 00:00000000 00000000     0        0 4 1\n';
    expect(listeningIn(table, 4, 40261, 'LE')).toEqual(['127.0.0.1', '0.0.0.0']);
    expect(listeningIn(header + tcp6Line('00000000000000000000000001000000', '06'), 6, 40261, 'LE')).toEqual([]);
  });

  onLinux('finds a server listening on 127.0.0.1 in this machine’s table', async () => {
    const server = createServer();
    try {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      expect(listeningAddresses((server.address() as AddressInfo).port)).toEqual(['127.0.0.1']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('DynamoDB Local', () => {
  onLinux(
    'listens on 127.0.0.1 only, never on every interface (the instance the suite uses, as npm start, mutation and bench start it)',
    () => {
      const port = Number(new URL(requiredEnv('TEST_DYNAMODB_ENDPOINT')).port);
      expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
    },
  );

  it('runs with its telemetry off: no installation id written beside the jar in node_modules, no events for Pinpoint', () => {
    // With telemetry on (its default), DynamoDB Local writes this file into its working directory
    // (the jar's) as it starts, then sends a start event to Amazon Pinpoint: the network beyond
    // loopback. The suite's instance has started by now.
    requiredEnv('TEST_DYNAMODB_ENDPOINT');
    expect(existsSync(join(dirname(dynamoDbLocalJar()), 'dynamodb-local-metadata.json'))).toBe(false);
  });

  // 192.0.2.1 (RFC 5737, documentation) is on no interface of this machine: even a launcher that
  // failed to refuse it could not listen there. It refuses before it builds the server.
  onLinux.each([
    ['an address that is not loopback', '192.0.2.1'],
    ['a host name (only a literal address is taken: a name resolves as the machine says)', 'localhost'],
  ])('refuses %s, exits 2 and listens nowhere', async (_name, host) => {
    const port = await freePort();
    const child = await spawnDynamoDbLocal(host, ['-inMemory', '-port', String(port)]);
    const { code, stderr } = await exitOf(child);
    expect({ code, stderr: stderr.trim() }).toEqual({ code: 2, stderr: `dynamodb-loopback: not a literal loopback address: ${host}` });
    expect(listeningAddresses(port)).toEqual([]);
  });
});

function exitOf(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}
