/**
 * Response builders for API Gateway (REST, v1 payload). Every response is JSON and, unless a
 * caller says otherwise, `Cache-Control: no-store`: nothing an identity service answers about a
 * user or a code should sit in a shared cache (RFC 6749 §5.1 requires it for tokens).
 */
import type { APIGatewayProxyResult } from 'aws-lambda';

export const BASE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
});

/** A JSON response; `headers` are added to (and may replace) the base headers. */
export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { ...BASE_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** RFC 6749 §5.1: token responses carry `Cache-Control: no-store` and `Pragma: no-cache`. */
export const TOKEN_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ Pragma: 'no-cache' });
