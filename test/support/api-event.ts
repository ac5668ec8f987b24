/** An API Gateway (REST, v1) event and a Lambda context, for tests that call a handler directly. */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { API_TIMEOUT_SECONDS } from '../../lib/platform/routes';

export function apiEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    resource: '/r',
    path: '/r',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: { 'Content-Type': ['application/json'] },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: '{"user_id":"a@example.com"}',
    isBase64Encoded: false,
    requestContext: { requestId: 'unit' } as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

/** A Lambda context whose function has `remainingMs` left when the invocation starts (by default the API functions' timeout, as on Lambda). */
export function lambdaContext(remainingMs = API_TIMEOUT_SECONDS * 1000): Context {
  const started = Date.now();
  return {
    functionName: 'unit',
    awsRequestId: 'unit',
    getRemainingTimeInMillis: () => Math.max(0, remainingMs - (Date.now() - started)),
  } as unknown as Context;
}
