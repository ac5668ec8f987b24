/**
 * CORS preflights, answered locally as API Gateway answers them on AWS. The stack gives each
 * route's `OPTIONS` a mock integration built by CDK's `addCorsPreflight` from the same
 * description (lib/platform/http/cors.ts, `preflightFor`): status 204, the fixed allow-headers,
 * allow-methods and max-age, `Vary: Origin`, and `Access-Control-Allow-Origin` set to the first
 * allowed origin, replaced by the request's `Origin` when that is one of the others (the integration
 * response's template). test/infra/preflight.test.ts compares this answer with the synthesized
 * template's for every route and origin.
 */
import type { Preflight } from '../lib/platform/http/cors';

export interface PreflightAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
}

export function answerPreflight(preflight: Preflight, origin: string | undefined): PreflightAnswer {
  const [first, ...others] = preflight.allowOrigins;
  const allowOrigin = origin !== undefined && others.includes(origin) ? origin : (first ?? '');
  return {
    status: 204,
    headers: {
      'Access-Control-Allow-Headers': preflight.allowHeaders.join(','),
      'Access-Control-Allow-Origin': allowOrigin,
      ...(first === '*' ? {} : { Vary: 'Origin' }),
      'Access-Control-Allow-Methods': preflight.allowMethods.join(','),
      'Access-Control-Max-Age': String(preflight.maxAgeSeconds),
    },
  };
}
