/**
 * Lambda: the audit forwarder. Invoked by the CloudWatch Logs subscriptions on the API functions'
 * log groups (infra/audit.ts), never by API Gateway: their lines of security decisions become
 * audit events on the stack's EventBridge bus. Wiring only: lib/audit/forward.ts.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { forwardSubscription, type ForwarderDeps, type ForwardReport, type SubscriptionEvent } from '../lib/audit/forward';
import { auditForwarderDeps } from '../lib/deps/audit-forwarder';
import { logger } from '../lib/platform/log';

export function createHandler(deps: () => ForwarderDeps) {
  return middy<SubscriptionEvent, ForwardReport>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event) => forwardSubscription(deps(), event));
}

export const handler = createHandler(auditForwarderDeps);
