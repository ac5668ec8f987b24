/**
 * Lambda: the Secrets Manager rotation function of the JWT signing key set. Invoked by Secrets
 * Manager (right after deployment, then on the configured schedule), never by API Gateway.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SigningKeyRotation, type RotationEvent } from '../lib/adapters/secrets/signing-key-rotation';
import { logger } from '../lib/log';

const rotation = new SigningKeyRotation(new SecretsManagerClient({}), logger);

export const handler = middy<RotationEvent, void>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    logger.appendKeys({ step: event.Step });
    await rotation.run(event);
  });
