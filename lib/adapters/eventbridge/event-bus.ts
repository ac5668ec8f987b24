/**
 * The stack's EventBridge bus, for the audit forwarder (lib/audit/forward.ts): `PutEvents` of at
 * most 10 entries, answered per entry.
 *
 * Limits: the forwarder runs off the response path (a CloudWatch Logs subscription invokes it), so
 * it can wait longer than the API functions' clients: 3 attempts, 1 s to connect and 3 s for the
 * answer each, at most 3 × 4 s + 1 s + 2 s of backoff = 15 s a call (lib/platform/aws.ts
 * `callBudgetMs`); the forwarder's 3 attempts of its own fit its 60 s timeout (infra/audit.ts).
 */
import { EventBridgeClient, PutEventsCommand, type EventBridgeClientConfig } from '@aws-sdk/client-eventbridge';
import type { ClientLimits } from '../../platform/aws';
import { traced } from '../../platform/tracing';
import type { BusEntry, EventBus } from '../../audit/forward';

export const EVENTBRIDGE_CLIENT_SETTINGS: ClientLimits = Object.freeze({
  maxAttempts: 3,
  requestHandler: Object.freeze({
    connectionTimeout: 1000,
    requestTimeout: 3000,
    socketTimeout: 3000,
    throwOnRequestTimeout: true as const,
  }),
});

export class EventBridgeBus implements EventBus {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {}

  /** A bus named `busName`, with the limits above (`config`: a local endpoint, the tests' credentials). */
  static create(busName: string, config: EventBridgeClientConfig = {}): EventBridgeBus {
    return new EventBridgeBus(traced(new EventBridgeClient({ ...EVENTBRIDGE_CLIENT_SETTINGS, ...config })), busName);
  }

  async put(entries: readonly BusEntry[]): Promise<Array<string | undefined>> {
    const answer = await this.client.send(
      new PutEventsCommand({
        Entries: entries.map((entry) => ({
          EventBusName: this.busName,
          Source: entry.source,
          DetailType: entry.detailType,
          Detail: entry.detail,
          Time: entry.time,
        })),
      }),
    );
    // The answer's entries are in the request's order; one without an error code was taken.
    return entries.map((_entry, index) => {
      const result = answer.Entries?.[index];
      if (result === undefined) return 'NoAnswer';
      return result.ErrorCode === undefined || result.ErrorCode === '' ? undefined : result.ErrorCode;
    });
  }
}
