/**
 * Request hygiene shared by every endpoint: method, media type, size and body parsing. Each is a
 * middy `before` step that throws an `IdpError`, so a malformed request never reaches a handler.
 *
 * Our own rather than middy's body parsers: docs/decisions/006-body-parsing.md says why.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { InvalidRequestError, MethodNotAllowedError, RequestTooLargeError, UnsupportedMediaTypeError } from '../errors';
import { hasDuplicateKey } from './json-duplicate-keys';
import { isWellFormedDeep, NOT_WELL_FORMED } from './well-formed-unicode';

type Middleware = middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** A parsed request body: a JSON object, or form fields (each present once). */
export type RequestFields = Record<string, unknown>;

/** The event after `parseBody`: the parsed fields live beside the raw body. */
export interface ParsedEvent extends APIGatewayProxyEvent {
  fields: RequestFields;
  /**
   * The form fields given more than once, on a route that reports them instead of refusing them
   * (`parseBody`'s `repeated: 'report'`: a page, not JSON, answers the end-session endpoint's
   * mistakes); `fields` then holds each one's first value.
   */
  repeatedFields?: readonly string[];
}

/** 16 KiB: ten times any legitimate request; rejects abuse before any parsing work. */
export const MAX_BODY_BYTES = 16 * 1024;

/** 405 with `Allow` for any method not listed (API Gateway routes every method here). */
export function allowMethods(...methods: string[]): Middleware {
  return {
    before: (request) => {
      if (!methods.includes(request.event.httpMethod)) throw new MethodNotAllowedError(methods);
    },
  };
}

export type MediaType = 'json' | 'form';

const MEDIA_TYPES: Record<MediaType, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
};

/**
 * Parses the body as one of `accepted` media types into `event.fields`. Order of checks: media
 * type (415), size (413), UTF-8 (400), syntax (400), then well-formed strings (400) and no
 * repeated name (400). A JSON body must be an object. A parameter may not be repeated, neither in
 * a form (RFC 6749 §3.2: "parameters MUST NOT be included more than once") nor as a JSON member
 * name at any depth (RFC 7493 §2.3), so that every reader of the body sees the same request.
 */
export function parseBody(
  accepted: readonly MediaType[],
  maxBytes = MAX_BODY_BYTES,
  options: { optional?: boolean; repeated?: 'refuse' | 'report' } = {},
): Middleware {
  return {
    before: (request) => {
      const event = request.event as ParsedEvent;
      // GET and HEAD carry no body (RFC 9110 §9.3.1): a route that takes both GET and a form POST
      // (the authorization endpoint) parses only the POST's.
      if (event.httpMethod === 'GET' || event.httpMethod === 'HEAD') {
        event.fields = {};
        return;
      }
      // Where the body is optional (UserInfo's POST may carry its token in Authorization alone,
      // OIDC Core §5.3.1), a POST without content and without Content-Type is an empty request
      // (RFC 9110 §8.3: Content-Type describes content; there is none). Content with no type is
      // still refused (415) below.
      if (options.optional === true && event.headers?.['content-type'] === undefined && (event.body ?? '') === '') {
        event.fields = {};
        return;
      }
      const mediaType = mediaTypeOf(event.headers?.['content-type']);
      const kind = accepted.find((candidate) => MEDIA_TYPES[candidate] === mediaType);
      if (kind === undefined) {
        throw new UnsupportedMediaTypeError(`Content-Type must be ${accepted.map((k) => MEDIA_TYPES[k]).join(' or ')}.`);
      }
      const raw =
        event.body === null || event.body === undefined
          ? Buffer.alloc(0)
          : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
      if (raw.length > maxBytes) {
        throw new RequestTooLargeError(`The request body must not exceed ${maxBytes} bytes.`);
      }
      if (kind === 'json') {
        event.fields = parseJsonObject(utf8Text(raw));
        return;
      }
      const form = parseForm(utf8Text(raw), options.repeated ?? 'refuse');
      event.fields = form.fields;
      if (form.repeated.length > 0) event.repeatedFields = form.repeated;
    },
  };
}

function mediaTypeOf(header: string | undefined): string | undefined {
  return header?.split(';', 1)[0]?.trim().toLowerCase();
}

/** Strict: throws on bytes that are not UTF-8; keeps a byte order mark, so JSON.parse refuses it as before. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body as text. Bytes that are not UTF-8 (only a base64 body can carry them: a string body was
 * checked by `requireWellFormedUnicode`) are refused rather than replaced by U+FFFD, which would
 * turn one request into another.
 */
function utf8Text(raw: Buffer): string {
  try {
    return UTF8.decode(raw);
  } catch {
    throw new InvalidRequestError(NOT_WELL_FORMED);
  }
}

function parseJsonObject(text: string): RequestFields {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidRequestError('The request body is not valid JSON.');
  }
  // Escapes (`"\ud800"`) become lone surrogates only now: check names and values at every depth.
  if (!isWellFormedDeep(value)) throw new InvalidRequestError(NOT_WELL_FORMED);
  // A fixed text: the name is the client's input, and descriptions never echo input.
  if (hasDuplicateKey(text)) throw new InvalidRequestError('A JSON member name is repeated (RFC 7493 section 2.3 allows each once).');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidRequestError('The request body must be a JSON object.');
  }
  return value as RequestFields;
}

function parseForm(text: string, repeated: 'refuse' | 'report'): { fields: RequestFields; repeated: string[] } {
  const fields: RequestFields = {};
  const names = new Set<string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(fields, name)) {
      // A fixed text: the name is the client's input, and descriptions never echo input.
      if (repeated === 'refuse') throw new InvalidRequestError('A parameter is repeated (RFC 6749 section 3.2 allows each once).');
      names.add(name);
      continue;
    }
    fields[name] = value;
  }
  return { fields, repeated: [...names] };
}

/** A header by lower-case name (after @middy/http-header-normalizer). */
export function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  return event.headers?.[name] ?? undefined;
}

/**
 * The query's parameters, each with its first value, and the names given more than once (API
 * Gateway's multi-value form, REST API payload v1; the local runtime builds it too): for an
 * endpoint that answers a repeated parameter itself, with a page rather than JSON.
 */
export function queryValues(event: APIGatewayProxyEvent): {
  readonly values: Record<string, string>;
  readonly repeated: readonly string[];
} {
  const values: Record<string, string> = {};
  const repeated: string[] = [];
  for (const [name, given] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    const [first, ...more] = given ?? [];
    if (first !== undefined) values[name] = first;
    if (more.length > 0) repeated.push(name);
  }
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined && !Object.hasOwn(values, name)) values[name] = value;
  }
  return { values, repeated };
}

/** The fixed description of a repeated query parameter: the name is the client's input, and descriptions never echo input. */
const REPEATED_QUERY_PARAMETER = 'A query parameter is repeated (RFC 6749 section 3.1 allows each once).';

/**
 * A single query parameter; an empty value counts as absent. Given more than once it is refused
 * (400 `invalid_request`, RFC 6749 §3.1: "Request and response parameters MUST NOT be included
 * more than once"), as the authorization endpoint refuses its own: API Gateway's
 * `queryStringParameters` keeps only the last value, so `?env_id=a&env_id=b` would be read as `b`
 * here while a WAF rule, a log or a proxy that reads the first sees `a`. The values are in
 * `multiValueQueryStringParameters` (REST API, payload v1; the local runtime builds it too).
 * Called before the endpoint's work, so a refused request counts no attempt.
 */
export function queryParameter(event: APIGatewayProxyEvent, name: string): string | undefined {
  if ((event.multiValueQueryStringParameters?.[name]?.length ?? 0) > 1) throw new InvalidRequestError(REPEATED_QUERY_PARAMETER);
  const value = event.queryStringParameters?.[name];
  return value === undefined || value === null || value === '' ? undefined : value;
}
