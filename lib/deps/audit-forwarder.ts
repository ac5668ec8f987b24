/**
 * The `audit-forwarder` function's container: the stack's event bus and the events' source, from
 * the variables infra/audit.ts sets. No configuration, no secrets, no table: the forwarder only
 * maps log lines and publishes them (lib/audit/forward.ts).
 */
import { EventBridgeBus } from '../adapters/eventbridge/event-bus';
import type { ForwarderDeps } from '../audit/forward';
import { readEnvironment, required } from '../platform/env';
import { lazy } from '../platform/lazy';
import { logger } from '../platform/log';

export const auditForwarderDeps: () => ForwarderDeps = /* @__PURE__ */ lazy(() => {
  const env = readEnvironment();
  return {
    bus: EventBridgeBus.create(required(env, 'AUDIT_EVENT_BUS_NAME')),
    source: required(env, 'AUDIT_EVENT_SOURCE'),
    log: logger,
  };
});
