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

/**
 * The preflight (`OPTIONS`) a route answers where the stage allows browsers: one description,
 * which the CDK stack hands to API Gateway (infra/api.ts, `addCorsPreflight`) and the local runtime
 * answers itself the way API Gateway does (local/preflight.ts), so the two cannot disagree.
 */
export interface Preflight {
  readonly allowOrigins: readonly string[];
  readonly allowMethods: readonly string[];
  readonly allowHeaders: readonly string[];
  readonly maxAgeSeconds: number;
}

/** Request headers a browser client sends that need a preflight: a JSON body, a Bearer token. */
export const PREFLIGHT_ALLOW_HEADERS = ['Content-Type', 'Authorization'] as const;

/** How long a browser may cache a preflight answer. */
export const PREFLIGHT_MAX_AGE_SECONDS = 3600;

/** The preflight of the route at `path` taking `methods`, or undefined where CORS is off for it. */
export function preflightFor(cors: CorsSettings, path: string, methods: readonly string[]): Preflight | undefined {
  if (cors === undefined || (cors.paths !== undefined && !cors.paths.includes(path))) return undefined;
  return {
    allowOrigins: cors.allowOrigins,
    allowMethods: [...methods, 'OPTIONS'],
    allowHeaders: PREFLIGHT_ALLOW_HEADERS,
    maxAgeSeconds: PREFLIGHT_MAX_AGE_SECONDS,
  };
}
