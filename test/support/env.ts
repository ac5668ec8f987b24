/**
 * Runs before each test file's modules load. Powertools Logger writes to the global console when
 * POWERTOOLS_DEV is set, which is what lets test/support/log-capture.ts see every log line.
 */
process.env.POWERTOOLS_DEV = 'true';
process.env.POWERTOOLS_SERVICE_NAME = 'identity-test';
process.env.AWS_REGION ??= 'us-east-1';
