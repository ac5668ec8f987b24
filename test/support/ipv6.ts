/** Whether this machine has the IPv6 loopback address, where the local API listens too (local/api-server.ts). */
import { createServer } from 'node:net';

/** True when a socket can listen on [::1] (false on a kernel without IPv6, or with it disabled). */
export function hasIpv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => probe.close(() => resolve(true)));
  });
}
