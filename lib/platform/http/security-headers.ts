/**
 * Headers every response of a deployed stage carries, errors included:
 * `Strict-Transport-Security` (RFC 6797), so a browser that has once reached the API over HTTPS
 * never sends a code or a token to it over plain HTTP. Only on requests that arrived over HTTPS
 * (API Gateway says so in `X-Forwarded-Proto`): the local runtime is plain HTTP on 127.0.0.1,
 * where the header means nothing (RFC 6797 §7.2: ignored over HTTP) and would only confuse.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** Two years, subdomains included: the values HSTS preload lists ask for. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=63072000; includeSubDomains';

export function securityHeaders(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const apply = (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>) => {
    if (request.response === undefined || request.response === null) return;
    if (request.event.headers?.['x-forwarded-proto']?.toLowerCase() !== 'https') return;
    request.response = {
      ...request.response,
      headers: { ...request.response.headers, 'Strict-Transport-Security': STRICT_TRANSPORT_SECURITY },
    };
  };
  return { after: apply, onError: apply };
}
