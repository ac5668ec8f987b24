/**
 * What an AWS failure means to a caller (lib/platform/aws.ts): the dependency is unavailable (503,
 * the client may retry) or something is wrong on our side (a 500 that a retry would not fix).
 */
import { isUnavailable, dependencyFailure } from '../../../lib/adapters/aws-failures';
import { TemporarilyUnavailableError } from '../../../lib/platform/errors';

const sdkError = (name: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(name), { name, ...fields });

describe('isUnavailable, as the SDK’s own classifier sees it', () => {
  it.each([
    ['a timeout', sdkError('TimeoutError', { $metadata: {} })],
    ['a refused connection', sdkError('Error', { code: 'ECONNREFUSED' })],
    ['a reset connection', sdkError('Error', { code: 'ECONNRESET' })],
    ['a name that does not resolve', sdkError('Error', { code: 'ENOTFOUND' })],
    ['a network error the SDK wrapped without its code (no answer: no status)', sdkError('Error', { $metadata: { attempts: 1 } })],
    ['DynamoDB throttling', sdkError('ProvisionedThroughputExceededException', { $metadata: { httpStatusCode: 400 } })],
    ['a 429', sdkError('TooManyRequestsException', { $metadata: { httpStatusCode: 429 } })],
    ['an internal server error', sdkError('InternalServerError', { $metadata: { httpStatusCode: 500 } })],
    ['a 503', sdkError('ServiceUnavailable', { $metadata: { httpStatusCode: 503 } })],
  ])('is true for %s', (_name, error) => {
    expect(isUnavailable(error)).toBe(true);
    expect(dependencyFailure(error, 'DynamoDB PutItem')).toBeInstanceOf(TemporarilyUnavailableError);
  });

  it.each([
    ['a validation error', sdkError('ValidationException', { $metadata: { httpStatusCode: 400 } })],
    ['access denied', sdkError('AccessDeniedException', { $metadata: { httpStatusCode: 400 } })],
    ['a missing table', sdkError('ResourceNotFoundException', { $metadata: { httpStatusCode: 400 } })],
    ['an error of our own code (regression: a corrupt item read back answered 503 instead of 500)', new Error('A malformed code item')],
    ['something that is not an Error', 'boom'],
  ])('is false for %s, which stays itself and becomes a 500', (_name, error) => {
    expect(isUnavailable(error)).toBe(false);
    expect(dependencyFailure(error, 'DynamoDB PutItem')).not.toBeInstanceOf(TemporarilyUnavailableError);
  });
});
