/** Amazon SES stand-in: `aws-ses-v2-local`, whose web viewer shows every email sent. */
import type { Server } from 'node:http';
import startSesServer from 'aws-ses-v2-local';
import { describeListening, type Listening } from './http-server';

/** `url` is the SES API endpoint and, at the same address, the web viewer. */
export type SesLocal = Listening;

export async function startSesLocal(options: { port?: number; host?: string } = {}): Promise<SesLocal> {
  const host = options.host ?? '127.0.0.1';
  const server: Server = await startSesServer({ host, port: options.port ?? 0 });
  return describeListening(server, host);
}
