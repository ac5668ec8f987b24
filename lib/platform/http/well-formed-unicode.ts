/**
 * Well-formed Unicode in every string of a request: anything else is a 400 before any work. A lone surrogate (a JSON `"\ud800"`) is a valid JavaScript string but not text: it has no
 * UTF-8 encoding, so whatever serialises it next fails or silently alters it (the AWS SDK's query
 * serialiser for SES throws URIError on it: a client's mistake in `message` became a 502). I-JSON
 * (RFC 7493 §2.1) forbids surrogates in member names and string values; we refuse them wherever a
 * client can put a string: body values and member names at any depth, query parameters, headers
 * and the path.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { InvalidRequestError } from '../errors';

/** The one description: fixed, because the offending text is the client's input (never echoed). */
export const NOT_WELL_FORMED = 'The request contains text that is not well-formed Unicode.';

/**
 * Whether every string in `value` (a string, or arrays and objects of them at any depth, member
 * names included) is well-formed UTF-16, i.e. has no lone surrogate. Iterative, so that a body of
 * 16 KiB of `[` cannot exhaust the stack.
 *
 * @example
 * isWellFormedDeep({ user_id: 'a@example.com', tags: ['😀'] }); // true
 * isWellFormedDeep({ user_id: '\ud800' });                        // false
 */
export function isWellFormedDeep(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (!next.isWellFormed()) return false;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (next !== null && typeof next === 'object') {
      for (const [name, item] of Object.entries(next)) {
        if (!name.isWellFormed()) return false;
        pending.push(item);
      }
    }
  }
  return true;
}

/**
 * A middy `before` step that refuses (400 `invalid_request`) an event with a lone surrogate in its
 * path, path or query parameters (names and values, single and multi-value), headers (names and
 * values) or raw body. A base64 body is bytes, checked as UTF-8 when it is decoded (`parseBody`);
 * a JSON body's escapes (`"\ud800"`) only become strings when parsed, so `parseBody` checks the
 * parsed value too.
 */
export function requireWellFormedUnicode(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: (request) => {
      const event = request.event;
      const parts = [
        event.path,
        event.pathParameters,
        event.queryStringParameters,
        event.multiValueQueryStringParameters,
        event.headers,
        event.multiValueHeaders,
        event.isBase64Encoded ? null : event.body,
      ];
      if (!isWellFormedDeep(parts)) throw new InvalidRequestError(NOT_WELL_FORMED);
    },
  };
}
