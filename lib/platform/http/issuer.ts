/**
 * The issuer URL (`iss`, and the base of the metadata URLs). Deployed stacks always set it (the
 * ISSUER variable: the configured custom domain or the API's stage URL). Without it, as in tests
 * and ad-hoc local runs, it is derived from the request: the local runtime's origin, or API
 * Gateway's domain and stage, which API Gateway sets and a client cannot forge.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';

export function issuerOf(configured: string | undefined, event: APIGatewayProxyEvent): string {
  if (configured !== undefined) return configured.replace(/\/+$/, '');
  const context = event.requestContext;
  if (context.apiId === 'local') return `http://${context.domainName ?? 'localhost'}`;
  return `https://${context.domainName}/${context.stage}`;
}
