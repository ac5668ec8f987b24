/**
 * A relying party's own HTTP server, on a loopback address and a port of the system's choosing,
 * listening before the app behind it exists: the service's configuration must register the
 * redirect URI that names this port (OIDC Core §3.1.2.1: an exact match) before the service starts,
 * and the app needs the issuer, which exists only once the service runs. `serve()` puts the app
 * behind the port when it is built.
 */
import { createServer, type RequestListener } from 'node:http';
import { listen } from '../../../local/http-server';

export interface LoopbackServer {
  /** http://127.0.0.1:PORT: a loopback address, as the test service's issuer (the demo service's is localhost). */
  readonly origin: string;
  /** Answers every request with `app` from now on. */
  serve(app: RequestListener): void;
  stop(): Promise<void>;
}

export async function listenOnLoopback(): Promise<LoopbackServer> {
  let app: RequestListener = (_request, response) => {
    response.writeHead(503, { 'Content-Type': 'text/plain' }).end('The app is not built yet.');
  };
  const server = createServer((request, response) => app(request, response));
  const { url, stop } = await listen(server, '127.0.0.1', 0);
  return {
    origin: url,
    serve: (next) => {
      app = next;
    },
    stop,
  };
}
