/**
 * Lambda: the Secrets Manager rotation function of the JWT signing key set. Invoked by Secrets
 * Manager (right after deployment, then on the configured schedule), never by API Gateway.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SECRETS_MANAGER_CLIENT_SETTINGS } from '../lib/platform/aws';
import { traced } from '../lib/platform/tracing';
import { SigningKeyRotation, type RotationEvent } from '../lib/adapters/secrets/signing-key-rotation';
import { readEnvironment, required } from '../lib/platform/env';
import { lazy } from '../lib/platform/lazy';
import { logger } from '../lib/platform/log';

// Built on the first invocation, from the environment read by the one schema (lib/platform/env.ts):
// VERIFICATION_KEYS_SECRET_ARN is where the public half of each new key set is published.
const rotation = lazy(
  () =>
    new SigningKeyRotation(
      traced(new SecretsManagerClient(SECRETS_MANAGER_CLIENT_SETTINGS)),
      logger,
      required(readEnvironment(), 'VERIFICATION_KEYS_SECRET_ARN'),
    ),
);

export const handler = middy<RotationEvent, void>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    logger.appendKeys({ step: event.Step });
    await rotation().run(event);
  });
