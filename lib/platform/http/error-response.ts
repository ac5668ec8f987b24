/**
 * The one serialiser for every error (the house style's `err_out`): an `IdpError` becomes its
 * status, headers and `{"error", "error_description"}`, and so does an error of middy's HTTP
 * contract (`statusCode`, `expose`: lib/platform/errors.ts `ForeignHttpError`); anything else is a bug and
 * becomes a bare 500 `server_error`. Only logs see private details (a bug's name, message and the
 * frame that threw; never its stack trace), and only for 5xx.
 *
 * Registered last in each handler, so middy runs its `onError` first.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ForeignHttpError, IdpError } from '../errors';
import { LOG_EVENTS } from '../log-events';
import type { Log } from '../ports';
import { jsonResponse } from './responses';

export function errorResponse(log: Log): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: (request) => {
      const error = request.error instanceof IdpError ? request.error : (ForeignHttpError.from(request.error) ?? request.error);
      if (error instanceof IdpError && error.error !== 'server_error') {
        const fields = { error: error.error, status: error.statusCode, ...(error.detail === undefined ? {} : { detail: error.detail }) };
        if (error.statusCode >= 500) log.error(LOG_EVENTS.requestFailed, fields, causeOf(error));
        else log.info('request refused', fields);
        request.response = jsonResponse(error.statusCode, error.toJSON(), { ...error.headers });
        return;
      }
      log.error(LOG_EVENTS.unhandledError, { error: describe(request.error) });
      request.response = jsonResponse(500, {
        error: 'server_error',
        error_description: 'The service met an unexpected condition.',
      });
    },
  };
}

/**
 * Name, message and the frame that threw, for the logs: where the bug is, not the stack trace
 * (which the house rules keep out of logs). Messages of our own errors carry no personal data.
 */
function describe(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { name: typeof error };
  const frame = /^\s+at (.+)$/m.exec(error.stack ?? '')?.[1];
  return { name: error.name, message: error.message, ...(frame === undefined ? {} : { at: frame }) };
}

function causeOf(error: IdpError): Record<string, unknown> {
  return error.cause === undefined ? {} : { cause: { name: (error.cause as Error).name } };
}
