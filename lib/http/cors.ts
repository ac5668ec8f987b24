/**
 * CORS on the actual responses (API Gateway answers the preflight; see infra/api.ts): where the
 * stage configuration allows browsers (`deployment.cors`), a request from an allowed origin gets
 * its origin echoed back, errors included, so a browser client can read a 400 or a 429 too.
 * Nothing is ever `*`: these endpoints take user identifiers and codes.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { StageConfig } from '../config';

export type CorsSettings = StageConfig['deployment']['cors'];

/** The CORS headers for a response to `origin` on `path`, given the stage's settings. */
export function corsHeaders(cors: CorsSettings, path: string, origin: string | undefined): Record<string, string> {
  if (cors === undefined || (cors.paths !== undefined && !cors.paths.includes(path))) return {};
  // Vary even when refusing: the answer depends on Origin, and a shared cache must know it.
  if (origin === undefined || !cors.allowOrigins.includes(origin)) return { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': 'Retry-After, WWW-Authenticate',
    Vary: 'Origin',
  };
}

/** Adds the CORS headers to whatever response the handler or the error serialiser produced. */
export function cors(settings: () => CorsSettings): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const current = (): CorsSettings => {
    try {
      return settings();
    } catch {
      // The dependencies could not be built (a broken deployment): the error serialiser has
      // answered 500 already, and CORS must not turn that into an unhandled failure.
      return undefined;
    }
  };
  const apply = (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>) => {
    if (request.response === undefined || request.response === null) return;
    const headers = corsHeaders(current(), request.event.resource, request.event.headers?.origin);
    request.response = { ...request.response, headers: { ...request.response.headers, ...headers } };
  };
  return { after: apply, onError: apply };
}
