/**
 * The fraud guards every SMS and voice send passes, after the per-recipient attempt limit and
 * before a code is stored (docs/decisions/008-sms-fraud-guards.md). SMS pumping asks for codes to
 * numbers whose operators pay the attacker per message, rotating through many numbers so that the
 * per-recipient limit never trips; each guard closes one way around it:
 *
 *   1. the destination: a country the environment allows, a number that can be a person's, and
 *      not of a kind the environment refuses (personal numbers and VoIP by default) (403
 *      `destination_not_allowed`; no request);
 *   2. the source: at most N sends per source IP (an IPv6 /64) in a sliding window (429), unless
 *      the request presented the client's API key: it then comes from the client's own servers,
 *      whose one address serves all its users (the other guards still apply);
 *   3. a known number (docs/decisions/012-known-numbers.md): one that completed a login in the
 *      environment recently passes here, within its own allowance, and the next two guards do
 *      not apply to it: an attacker who spends the budget stops SMS for numbers never seen before
 *      only, never for the users who sign in by SMS;
 *   4. the destination prefix: at most N sends per block of numbers in a sliding window (429);
 *   5. the day's budget of SMS and voice messages of the environment (503 until the next UTC day).
 *
 * The counters are taken in this order, each only after the previous one allowed the send, so a
 * refused send spends nothing after its refusal: a send refused for its IP or its prefix never
 * eats the day's budget (else whoever is refused could starve everyone's SMS), and a send refused
 * for its prefix spends the sender's own IP quota, never a prefix's for a sender over its IP limit
 * (else one IP could keep a victim's number block refused). Once this container knows the budget
 * is spent (every shard met spent, no leased message left), a number that is not known is refused
 * before the prefix and the budget.
 *
 * One write per counter a send meets, none for a refused destination and none for the budget when
 * the container's lease pays: each path's requests are counted on the wire in
 * test/http/phone-guards.test.ts ("DynamoDB requests of each path") and
 * test/integration/dynamodb/send-guards.test.ts (the budget's leases).
 */
import type { EnvironmentConfig } from '../platform/config';
import { DestinationNotAllowedError, TemporarilyUnavailableError, TooManyRequestsError } from '../platform/errors';
import { LOG_EVENTS } from '../platform/log-events';
import type { Log } from '../platform/ports';
import type { KnownNumbers, SendGuards } from './ports';
import type { Channel } from '../platform/vocabulary';
import { budgetRetryAfter, usedPercent } from './daily-budget';
import { destinationOf, destinationRefusal, prefixOf, rangeOf } from '../phone/destinations';
import { guardKeyOf, logHandleOf, type HmacKeys } from '../keys/hmac-keys';
import { sourceNetworkOf } from './source-network';

export interface PhoneGuardDeps {
  readonly guards: SendGuards;
  readonly knownNumbers: KnownNumbers;
  readonly log: Log;
}

export interface PhoneSend {
  readonly environment: EnvironmentConfig;
  readonly channel: Exclude<Channel, 'email'>;
  /** The normalised (E.164) number. Personal data: never logged. */
  readonly phone: string;
  /** The number's HMAC (lib/keys/hmac-keys.ts `userKeyOf`): its known-number record's key. */
  readonly userKey: string;
  /** API Gateway's `requestContext.identity.sourceIp`. Personal data: never logged, never a key in clear. */
  readonly sourceIp: string | undefined;
  /**
   * The request presented the client's API key: it comes from the client's servers, so the source
   * IP is the client's, not the user's, and the per-source guard does not apply.
   */
  readonly serverSide: boolean;
  readonly keys: HmacKeys;
  readonly now: number;
}

/**
 * Passes the send through every guard, or throws the refusal of the first that refuses it (each
 * refusal logged as `phone send refused`, with its guard and the destination's country, and for
 * a destination its reason and, for a refused kind of number, the kind).
 * @example await guardPhoneSend(deps, { environment, channel: 'sms', phone: '+14155552671', sourceIp: '192.0.2.1', serverSide: false, keys, now })
 */
export async function guardPhoneSend(deps: PhoneGuardDeps, send: PhoneSend): Promise<void> {
  const { environment, now } = send;
  const limits = environment.limits;
  const destination = destinationOf(send.phone);
  const refused = (guard: string, fields: Record<string, unknown> = {}) =>
    deps.log.warn(LOG_EVENTS.phoneSendRefused, {
      environment: environment.id,
      channel: send.channel,
      guard,
      country: destination.country,
      ...fields,
    });

  const refusal = destinationRefusal(destination, environment.sms);
  if (refusal !== undefined) {
    // The kind of number, when libphonenumber knows it: an operator tells a premium-rate sweep from
    // users with personal or VoIP numbers (a setting of the environment: sms.refusedNumberTypes).
    refused('destination', {
      reason: refusal,
      ...(refusal === 'number_type' && destination.type !== undefined ? { numberType: destination.type } : {}),
    });
    throw new DestinationNotAllowedError({ detail: `destination ${refusal}` });
  }

  if (!send.serverSide) {
    const sourceKey = guardKeyOf(send.keys, 'ip', sourceNetworkOf(send.sourceIp));
    const bySource = await deps.guards.countSend(
      { guard: 'ip', environmentId: environment.id, subjectKey: sourceKey },
      limits.sendPerIp,
      now,
    );
    if (!bySource.allowed) {
      refused('ip', { source: logHandleOf(sourceKey) });
      throw new TooManyRequestsError(bySource.retryAfterSeconds, { limit: 'phone_sends', detail: 'per source IP' });
    }
  }

  const known = limits.knownNumbers;
  if (
    known.rememberDays > 0 &&
    (await deps.knownNumbers.spendKnown(
      { environmentId: environment.id, userKey: send.userKey },
      { maxSends: known.maxSendsPerDay, windowMs: DAY_MS },
      now,
    ))
  ) {
    deps.log.info(LOG_EVENTS.phoneSendKnown, { environment: environment.id, channel: send.channel, country: destination.country });
    return;
  }

  if (deps.guards.budgetKnownSpent(environment.id, limits.dailyPhoneBudget, now)) {
    refused('budget');
    throw budgetSpent(now);
  }

  const prefixKey = guardKeyOf(send.keys, 'prefix', prefixOf(destination, limits.sendPerPrefix.digits));
  const byPrefix = await deps.guards.countSend(
    { guard: 'prefix', environmentId: environment.id, subjectKey: prefixKey },
    limits.sendPerPrefix,
    now,
  );
  if (!byPrefix.allowed) {
    refused('prefix', { prefix: logHandleOf(prefixKey), range: rangeOf(destination) });
    throw new TooManyRequestsError(byPrefix.retryAfterSeconds, { limit: 'phone_sends', detail: 'per destination prefix' });
  }

  const budget = await deps.guards.spendBudget(environment.id, limits.dailyPhoneBudget, now);
  if (!budget.allowed) {
    refused('budget');
    throw budgetSpent(now);
  }
  deps.log.info(LOG_EVENTS.phoneBudgetSpent, {
    environment: environment.id,
    channel: send.channel,
    country: destination.country,
    usedPercent: usedPercent(budget.sentInShard, budget.shardCap),
  });
}

/** A known number's allowance counts its sends in any 24 hours. */
const DAY_MS = 86_400_000;

/** 503 until the next UTC day: email keeps working, so the description says so. */
function budgetSpent(now: number): TemporarilyUnavailableError {
  return new TemporarilyUnavailableError({
    phoneBudgetSpent: { retryAfterSeconds: budgetRetryAfter(now) },
    detail: 'daily SMS and voice budget spent',
  });
}
