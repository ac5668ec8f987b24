/**
 * The service's structured logger: Powertools Logger, JSON lines with the Lambda request id, the
 * API Gateway request id as correlation id, level from POWERTOOLS_LOG_LEVEL.
 *
 * What may be logged: decisions, error codes, environment and client ids, and a user's log handle
 * (a prefix of the HMAC key). Never a request body, a code, a token, a key, or a raw email/phone.
 */
import { Logger } from '@aws-lambda-powertools/logger';

/** Powertools reads POWERTOOLS_SERVICE_NAME and POWERTOOLS_LOG_LEVEL itself; the name below is its fallback. */
export const logger = new Logger({ serviceName: 'identity' });
