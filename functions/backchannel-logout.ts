/**
 * Lambda: the back-channel logout worker. Invoked by the logout queue's event source (SQS, batches
 * of up to 10, ReportBatchItemFailures: infra/backchannel.ts), never by API Gateway. Wiring only:
 * the batch is lib/adapters/sqs/logout-messages.ts, each delivery lib/logout/backchannel.ts.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverLogoutBatch } from '../lib/adapters/sqs/logout-messages';
import { backchannelDeps } from '../lib/deps/backchannel';
import type { BackchannelDeps } from '../lib/logout/backchannel';
import { logger } from '../lib/platform/log';

export function createHandler(deps: () => BackchannelDeps) {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event) => deliverLogoutBatch(deps(), event));
}

export const handler = createHandler(backchannelDeps);
