/**
 * The middleware stack every API handler shares, in middy's order: middlewares first, the error
 * serialiser registered last so that its `onError` runs first.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { logger } from '../log';
import { cors, type CorsSettings } from './cors';
import { TemporarilyUnavailableError } from '../errors';
import { errorResponse } from './error-response';
import { securityHeaders } from './security-headers';
import { allowMethods, parseBody, type MediaType, type ParsedEvent } from './request';
import { requireWellFormedUnicode } from './well-formed-unicode';

/** API Gateway's request id as the logs' correlation id, to join them with the access logs. */
const correlateRequest: middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> = {
  before: (request) => logger.setCorrelationId(request.event.requestContext?.requestId),
};

/** How long before the function's timeout a request still waiting on its handler is answered 503. */
export const TIMEOUT_MARGIN_MS = 500;

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface RouteOptions {
  /** Methods the route answers; any other gets 405. */
  readonly methods: readonly string[];
  /** Media types the body may have; omit for routes without a body. */
  readonly body?: readonly MediaType[];
  /** Whether a POST may come without a body (and so without Content-Type): UserInfo's. */
  readonly bodyOptional?: boolean;
  /**
   * A form field given twice: refused with 400 `invalid_request` (the default, RFC 6749 §3.2), or
   * reported in `event.repeatedFields` for the endpoint to answer (the end-session endpoint's page).
   */
  readonly repeatedFields?: 'refuse' | 'report';
  /** The stage's CORS settings (read when a response is sent, so deps stay lazy). */
  readonly cors: () => CorsSettings;
}

/**
 * Wraps `handle` in the shared stack: request context in the logs, lower-case headers, well-formed
 * Unicode everywhere (400), HSTS and CORS headers on every response, 503 when the function is
 * about to time out, 405 for other methods, body parsing
 * (415/413/400), and the error serialiser (registered last, so its onError runs first and CORS
 * sees its response).
 */
export function apiHandler(
  options: RouteOptions,
  handle: (event: ParsedEvent, context: Context) => Promise<APIGatewayProxyResult>,
): ApiHandler {
  const stack = middy<APIGatewayProxyEvent, APIGatewayProxyResult>({
    // A function about to time out answers 503 with Retry-After (the dependency it waits on is
    // slow), with time left to send it, instead of Lambda's bare timeout (a 502/504 from API
    // Gateway) or middy's own TimeoutError (which would be a 500: a bug, it is not).
    timeoutEarlyInMillis: TIMEOUT_MARGIN_MS,
    timeoutEarlyResponse: () => {
      throw new TemporarilyUnavailableError({ detail: 'the function was about to time out' });
    },
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(correlateRequest)
    .use(httpHeaderNormalizer())
    // Lone surrogates are refused (400) before any step reads the request, on every route, bodiless ones included. Only the header normaliser runs first: it
    // merely lower-cases names, and without it CORS could not find `origin` for this 400.
    .use(requireWellFormedUnicode())
    .use(securityHeaders())
    .use(cors(options.cors))
    .use(allowMethods(...options.methods));
  if (options.body !== undefined) {
    stack.use(parseBody(options.body, undefined, { optional: options.bodyOptional, repeated: options.repeatedFields ?? 'refuse' }));
  }
  return stack.use(errorResponse(logger)).handler(async (event, context) => handle(event as ParsedEvent, context));
}
