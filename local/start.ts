/**
 * `npm start`: the whole service on this machine, no cloud account. Starts DynamoDB Local, SES
 * local (with its web viewer), the SMS/voice capture, and the API at http://localhost:${PORT:-3000}
 * (the issuer; listening on the loopback addresses only, 127.0.0.1 and ::1) running the same
 * handler exports Lambda runs, and on the same server the demo client (local/demo-client.ts) at
 * http://127.0.0.1:${PORT:-3000}/. Ctrl-C stops everything it started.
 *
 * Ports: PORT (API, 3000), DYNAMODB_PORT (8000), SES_PORT (8005), CAPTURE_PORT (8006).
 */
import { readFileSync } from 'node:fs';
import { buildServiceConfig, parseStageConfig } from '../lib/platform/config';
import { isPublic, ROUTES } from '../lib/platform/routes';
import { preflightsOf, startApiServer, type LocalHandler } from './api-server';
import { createDemoClient, DEMO_CLIENT_ID } from './demo-client';
import { JAVA_HINT } from './java';
import { devRoutes, lambdaEnvironment, OPENAPI_PATH, startLocalServices } from './stack';

const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

async function main(): Promise<void> {
  const apiPort = port('PORT', 3000);
  const services = await startLocalServices({
    dynamodb: { port: port('DYNAMODB_PORT', 8000) },
    ses: { port: port('SES_PORT', 8005) },
    capture: { port: port('CAPTURE_PORT', 8006) },
    // TOKEN_MAX_ATTEMPTS and the like shorten the limits for experiments (README: quick start).
    limitOverrides: process.env,
    progress: (line) => console.log(line),
  });
  // A host name, not an address: WebAuthn refuses an IP address as RP ID, and the passkeys' RP ID
  // is the issuer's host name. Browsers count http://localhost as a secure context, as WebAuthn needs.
  const service = `http://localhost:${apiPort}`;
  const issuer = process.env.ISSUER ?? service;
  // The handlers read their configuration from the environment on first use, as on Lambda.
  Object.assign(process.env, lambdaEnvironment(services, issuer));

  const routes: Record<string, LocalHandler> = {};
  for (const route of ROUTES) {
    const module = (await import(`../functions/${route.functionName}`)) as { handler: LocalHandler };
    routes[route.path] = module.handler;
  }
  // The stage file, read once: the demo's registered redirect and the API's CORS preflights.
  const stage = parseStageConfig(JSON.parse(readFileSync(services.configFile, 'utf8')), services.configFile);
  // The demo is reached as 127.0.0.1, the host of the registered redirect URI; the issuer as localhost:
  // two origins on one server, so the demo's call to the API from the browser is a cross-origin one.
  const demoOrigin = `http://127.0.0.1:${apiPort}`;
  const demoRedirectUri = `${demoOrigin}/callback`;
  const demo = createDemoClient({
    issuer,
    origin: demoOrigin,
    clientId: DEMO_CLIENT_ID,
    redirectUriRegistered: buildServiceConfig(stage).client(DEMO_CLIENT_ID)?.redirectUris.includes(demoRedirectUri),
    outboxUrl: `${service}/__dev/outbox?user_id=`,
    sesViewerUrl: services.sesUrl,
  });
  const api = await startApiServer({
    port: apiPort,
    routes,
    devRoutes: devRoutes(services),
    preflights: preflightsOf(stage.deployment.cors, ROUTES),
    pages: demo.routes,
  });

  console.log(
    [
      '',
      'Identity service running locally:',
      `  Demo client      ${demoOrigin}/  (log in through the browser; read the code in the outbox or the SES viewer)`,
      `  API              ${service}`,
      ...ROUTES.filter(isPublic).map((route) => `    ${route.methods.join(', ').padEnd(9)} ${service}${route.path}`),
      // On AWS these take SigV4-signed requests of the account's IAM principals only; here, anyone on this machine.
      `  Admin (no IAM)   ${service}/idp/v1/admin/users/{block,unblock,end-sessions,remove-passkeys}  (npm run admin -- --help)`,
      `                   ${service}/idp/v1/admin/test-messages/take  (npm run smoke -- ${service})`,
      `  OpenAPI          ${service}${OPENAPI_PATH} (docs/openapi.json; the typed client: client/)`,
      `  Outbox           ${service}/__dev/outbox?user_id=<email or phone>`,
      `  Audit events     ${service}/__dev/events?type=<detail-type>  (what the stack's EventBridge bus would get)`,
      `  SES email viewer ${services.sesUrl}`,
      `  SMS/voice store  ${services.captureUrl}/messages`,
      `  DynamoDB Local   ${services.dynamodbEndpoint} (table ${services.tableName})`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    console.log('Stopping…');
    await api.stop();
    await services.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

main().catch((error: unknown) => {
  const message = (error as Error).message;
  console.error(message === JAVA_HINT ? message : `npm start failed: ${message}`);
  process.exit(1);
});
