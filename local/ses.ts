/** Amazon SES stand-in: `aws-ses-v2-local`, whose web viewer shows every email sent. */
import type { Server } from 'node:http';
import startSesServer from 'aws-ses-v2-local';

export interface SesLocal {
  /** The SES API endpoint and, at the same address, the web viewer. */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startSesLocal(options: { port?: number; host?: string } = {}): Promise<SesLocal> {
  const host = options.host ?? '127.0.0.1';
  const server: Server = await startSesServer({ host, port: options.port ?? 0 });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('aws-ses-v2-local did not report its port');
  return {
    url: `http://${host}:${address.port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
