/**
 * One-time codes in DynamoDB: one item per (environment, client, user), so a new send replaces
 * the old code and sends in one environment never touch another's.
 *
 * The item holds the live code in `live` (a map) and the codes it replaced in `h0` (oldest) …
 * `h{K-1}` (newest), each a map or NULL, for a failed delivery to put back the last code that
 * reached the user (the rule: lib/domain/code-history.ts). Every write is one UpdateItem:
 *
 * - save: shifts the history down by one place, moves `live` into the newest place and writes the
 *   new code into `live`. DynamoDB evaluates every operand against the item as it was before the
 *   update, so the shift is one expression (as in attempt-limiter.ts).
 * - guess: spends one try of the live code, conditionally: it exists, has not expired (by the
 *   application's clock: TTL deletes lazily), has a try left, and this exact guess (code and
 *   PKCE challenge, as one digest) is not among the ones already made; the guess is recorded.
 *   The caller compares the digests on the returned item. So no code is ever compared more than
 *   `max_tries` times, under any concurrency, and the one matching guess succeeds once: its
 *   repetition is refused (single use) without a Delete.
 * - discard: one conditional write per step of code-history.ts; when another write changed the
 *   slot first, the refused write returns the slot as it is now and the step is recomputed.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import '../../zod';
import * as z from 'zod/mini';
import { discardStep, type DiscardStep } from '../../domain/code-history';
import { CHANNELS } from '../../vocabulary';
import type { CodeGuess, CodeRecord, CodeSlot, CodeStore, GuessResult, KeptCode, SlotState } from '../../ports';
import { itemOfFailure, storageFailure } from './client';
import { TABLE_DEFINITION, ttlSeconds } from './table';

export function codeItemKey(slot: CodeSlot): string {
  return `code#${slot.environmentId}#${slot.clientId}#${slot.userKey}`;
}

const LIVE = 'live';
const historyPlace = (index: number) => `h${index}`;
const HISTORY_PLACE = /^h(\d{1,3})$/;

/** A code as stored: in `live` or in a history place. */
const storedCodeSchema = z.strictObject({
  send_id: z.string().check(z.minLength(1)),
  channel: z.enum(CHANNELS),
  code_digest: z.string().check(z.minLength(1)),
  created_at: z.number(),
  not_after: z.number(),
  tries: z.int().check(z.gte(0)),
  max_tries: z.int().check(z.gte(1)),
  code_challenge: z.optional(z.string().check(z.minLength(1))),
  /** Digests of the guesses made, at most max_tries. */
  guesses: z.array(z.string()),
  failed: z.optional(z.literal(true)),
});
type StoredCode = z.infer<typeof storedCodeSchema>;

/** A history place: a code, or NULL when empty. */
const historyCodeSchema = z.nullable(storedCodeSchema);

const codeItemSchema = z.looseObject({
  pk: z.string().check(z.startsWith('code#')),
  [LIVE]: z.optional(storedCodeSchema),
});

export class DynamoDbCodeStore implements CodeStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async save(record: CodeRecord, keep: number): Promise<SlotState> {
    if (!Number.isInteger(keep) || keep < 1) throw new Error(`A slot keeps at least one replaced code, not ${keep}`);
    const names: Record<string, string> = { '#live': LIVE, '#e': TABLE_DEFINITION.timeToLiveAttribute };
    const shifts: string[] = [];
    for (let index = 0; index < keep; index += 1) {
      names[`#h${index}`] = historyPlace(index);
      const from = index < keep - 1 ? `#h${index + 1}` : '#live';
      shifts.push(`#h${index} = if_not_exists(${from}, :none)`);
    }
    let written: Record<string, unknown> | undefined;
    try {
      ({ Attributes: written } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: codeItemKey(record) },
          UpdateExpression: `SET ${shifts.join(', ')}, #live = :code, #e = :expires`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':none': null, ':code': storedCodeOf(record), ':expires': ttlSeconds(record.notAfter) },
          ReturnValues: 'ALL_NEW',
        }),
      ));
    } catch (error) {
      throw storageFailure(error, 'save code');
    }
    return slotStateOf(record, written);
  }

  async guess(guess: CodeGuess): Promise<GuessResult> {
    let spent: Record<string, unknown> | undefined;
    try {
      ({ Attributes: spent } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: codeItemKey(guess) },
          UpdateExpression: 'SET #live.#tries = #live.#tries + :one, #live.#guesses = list_append(#live.#guesses, :guessed)',
          ConditionExpression:
            'attribute_exists(#live) AND #live.#notAfter > :now AND #live.#tries < #live.#maxTries AND NOT contains(#live.#guesses, :guess)',
          ExpressionAttributeNames: {
            '#live': LIVE,
            '#tries': 'tries',
            '#guesses': 'guesses',
            '#notAfter': 'not_after',
            '#maxTries': 'max_tries',
          },
          ExpressionAttributeValues: { ':one': 1, ':now': guess.now, ':guess': guess.guessDigest, ':guessed': [guess.guessDigest] },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw storageFailure(error, 'guess code');
      const live = parseItem(itemOfFailure(error))?.[LIVE];
      return {
        outcome: 'refused',
        record: live === undefined ? undefined : keptCodeOf(guess, live),
        repeated: live?.guesses.includes(guess.guessDigest) ?? false,
      };
    }
    // Only the live code matters to a guess: the history places it returns too are left unparsed.
    const live = parseItem(spent)?.[LIVE];
    if (live === undefined) throw new Error('A try was spent on a code that was not returned');
    return { outcome: 'compared', record: keptCodeOf(guess, live) };
  }

  async discard(failed: CodeRecord, known: SlotState, now: number): Promise<void> {
    let state = known;
    // Each refused step means another send saved or discarded in between, and those are bounded
    // by the send limit; the bound here only stops a bug from looping.
    for (let round = 0; round < 2 * (known.history.length + 2); round += 1) {
      const step = discardStep(state, failed.sendId, now);
      if (step.kind === 'none') return;
      const current = await this.applyStep(failed, step);
      if (current === undefined) return;
      state = current;
    }
    throw new Error('The slot kept changing while a failed send was discarded');
  }

  /** One conditional write of a discard; the slot as it is now when the condition failed. */
  private async applyStep(failed: CodeRecord, step: Exclude<DiscardStep, { kind: 'none' }>): Promise<SlotState | undefined> {
    // DynamoDB refuses names and values an expression does not use: each step adds its own.
    const names: Record<string, string> = { '#sendId': 'send_id' };
    const values: Record<string, unknown> = { ':failed': failed.sendId };
    let update: string;
    let condition: string;
    switch (step.kind) {
      case 'restore':
        names['#live'] = LIVE;
        names['#h'] = historyPlace(step.index);
        names['#failedFlag'] = 'failed';
        values[':restored'] = step.sendId;
        values[':none'] = null;
        update = 'SET #live = #h, #h = :none';
        condition = '#live.#sendId = :failed AND #h.#sendId = :restored AND attribute_not_exists(#h.#failedFlag)';
        break;
      case 'clear':
        names['#live'] = LIVE;
        update = 'REMOVE #live';
        condition = '#live.#sendId = :failed';
        break;
      case 'mark':
        names['#h'] = historyPlace(step.index);
        names['#failedFlag'] = 'failed';
        values[':true'] = true;
        update = 'SET #h.#failedFlag = :true';
        condition = '#h.#sendId = :failed';
        break;
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: codeItemKey(failed) },
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return slotStateOf(failed, itemOfFailure(error));
      throw storageFailure(error, 'discard code');
    }
  }
}

function storedCodeOf(record: CodeRecord): StoredCode {
  return {
    send_id: record.sendId,
    channel: record.channel,
    code_digest: record.codeDigest,
    created_at: record.createdAt,
    not_after: record.notAfter,
    tries: record.tries,
    max_tries: record.maxTries,
    code_challenge: record.codeChallenge,
    guesses: [],
  };
}

function keptCodeOf(slot: CodeSlot, stored: StoredCode): KeptCode {
  return {
    environmentId: slot.environmentId,
    clientId: slot.clientId,
    userKey: slot.userKey,
    channel: stored.channel,
    codeDigest: stored.code_digest,
    sendId: stored.send_id,
    createdAt: stored.created_at,
    notAfter: stored.not_after,
    tries: stored.tries,
    maxTries: stored.max_tries,
    codeChallenge: stored.code_challenge,
    failed: stored.failed === true,
  };
}

/** The slot an item holds; no item is an empty slot. */
function slotStateOf(slot: CodeSlot, item: Record<string, unknown> | undefined): SlotState {
  const parsed = parseItem(item);
  if (parsed === undefined) return { live: undefined, history: [] };
  const history: Array<KeptCode | undefined> = [];
  for (const [name, value] of Object.entries(parsed)) {
    const place = HISTORY_PLACE.exec(name);
    if (place === null) continue;
    const stored = historyCodeSchema.safeParse(value);
    if (!stored.success) throw new Error(`A malformed code item (${name}): ${z.prettifyError(stored.error)}`);
    history[Number(place[1])] = stored.data === null ? undefined : keptCodeOf(slot, stored.data);
  }
  return { live: parsed[LIVE] === undefined ? undefined : keptCodeOf(slot, parsed[LIVE]), history: Array.from(history) };
}

/**
 * Every code item read back is parsed: a corrupt or partial item is an error (a 500), never a
 * plausible code with defaults filled in.
 */
function parseItem(item: Record<string, unknown> | undefined): z.infer<typeof codeItemSchema> | undefined {
  if (item === undefined) return undefined;
  const result = codeItemSchema.safeParse(item);
  if (!result.success) throw new Error(`A malformed code item: ${z.prettifyError(result.error)}`);
  return result.data;
}
