/**
 * One-time codes in DynamoDB: one item per (environment, client, user), so a new send replaces
 * the old code and sends in one environment never touch another's.
 *
 * The item holds the live code in `live` (a map) and the codes it replaced in `h0` (oldest) …
 * `h{K-1}` (newest), each a map or NULL, for a failed delivery to put back the last code that
 * reached the user (the rule: lib/otp/code-history.ts). Every write is one UpdateItem:
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
 * - discard: one conditional write per step of code-history.ts, each returning the slot as it is
 *   now (written, or as another write left it when the condition was refused), from which the next
 *   step is computed until there is none.
 *
 * Writes whose outcome the caller never learned (a timeout: DynamoDB may still apply them later)
 * are made harmless, so that a 503 never costs the user the code it invites them to retry:
 *
 * - a guess records, beside each guess digest, the id of the presentation (request) that made it
 *   (`presentations`, index for index). A presentation that answered 503 is added to the code's
 *   `abandoned` list (`abandon`); the same guess presented again then takes over the abandoned
 *   presentation's place (one conditional write, `takeOver`) instead of being refused as repeated.
 *   A presentation that got an answer is never abandoned, so a used code stays used. An abandoned
 *   presentation's guess that lands later still is refused by the guess's condition.
 * - a save whose request failed is cancelled (`cancel`): its send id joins the item's `cancelled`
 *   list, which a save's condition refuses, and if it landed already it is discarded like a
 *   failed delivery, so the code the user holds comes back.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import '../../platform/zod';
import * as z from 'zod/mini';
import { discardStep, type DiscardStep } from '../../otp/code-history';
import { CHANNELS } from '../../platform/vocabulary';
import type { AbandonedPresentation, CodeGuess, CodeRecord, CodeSlot, CodeStore, GuessResult, KeptCode, SlotState } from '../../otp/ports';
import { itemOfFailure, storageFailure } from './client';
import { codeItemKey } from './item-keys';
import { TABLE_DEFINITION, ttlSeconds } from './table';

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
  /** The presentation that made each guess, index for index (absent on codes stored before it was recorded). */
  presentations: z.optional(z.array(z.string())),
  /** Presentations that answered 503: their guesses may be taken over by the same guess again. */
  abandoned: z.optional(z.array(z.string())),
  failed: z.optional(z.literal(true)),
});
type StoredCode = z.infer<typeof storedCodeSchema>;

/** The item's list of cancelled saves (send ids). */
const CANCELLED = 'cancelled';

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
          // A save cancelled after its request failed never lands, however late it arrives.
          ConditionExpression: 'NOT contains(#cancelled, :sendId)',
          ExpressionAttributeNames: { ...names, '#cancelled': CANCELLED },
          ExpressionAttributeValues: {
            ':none': null,
            ':code': storedCodeOf(record),
            ':expires': ttlSeconds(record.notAfter),
            ':sendId': record.sendId,
          },
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
          UpdateExpression:
            'SET #live.#tries = #live.#tries + :one, #live.#guesses = list_append(#live.#guesses, :guessed), ' +
            '#live.#presentations = list_append(if_not_exists(#live.#presentations, :empty), :presented)',
          ConditionExpression:
            'attribute_exists(#live) AND #live.#notAfter > :now AND #live.#tries < #live.#maxTries AND NOT contains(#live.#guesses, :guess) ' +
            'AND NOT contains(#live.#abandoned, :presentation)',
          ExpressionAttributeNames: {
            '#live': LIVE,
            '#tries': 'tries',
            '#guesses': 'guesses',
            '#presentations': 'presentations',
            '#abandoned': 'abandoned',
            '#notAfter': 'not_after',
            '#maxTries': 'max_tries',
          },
          ExpressionAttributeValues: {
            ':one': 1,
            ':now': guess.now,
            ':guess': guess.guessDigest,
            ':guessed': [guess.guessDigest],
            ':presentation': guess.presentationId,
            ':presented': [guess.presentationId],
            ':empty': [],
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw storageFailure(error, 'guess code');
      return this.afterRefusedGuess(guess, parseItem(itemOfFailure(error))?.[LIVE]);
    }
    // Only the live code matters to a guess: the history places it returns too are left unparsed.
    const live = parseItem(spent)?.[LIVE];
    if (live === undefined) throw new Error('A try was spent on a code that was not returned');
    return { outcome: 'compared', record: keptCodeOf(guess, live) };
  }

  /**
   * A refused guess: when this exact guess was made before, by this presentation (the SDK's retry
   * of a write that landed) it was compared after all; by an abandoned presentation, this one takes
   * its place. Otherwise it is refused.
   */
  private async afterRefusedGuess(guess: CodeGuess, live: StoredCode | undefined): Promise<GuessResult> {
    if (live === undefined) return { outcome: 'refused', record: undefined, repeated: false };
    const index = live.guesses.indexOf(guess.guessDigest);
    const refused: GuessResult = { outcome: 'refused', record: keptCodeOf(guess, live), repeated: index !== -1 };
    // Codes stored before presentations were recorded have none, or fewer than guesses: no owner is known.
    if (index === -1 || live.presentations?.length !== live.guesses.length || live.not_after <= guess.now) return refused;
    const owner = live.presentations[index] as string;
    if (owner === guess.presentationId) return { outcome: 'compared', record: keptCodeOf(guess, live) };
    if (live.abandoned?.includes(owner) !== true) return refused;
    const taken = await this.takeOver(guess, index, owner);
    return taken === undefined ? refused : { outcome: 'compared', record: keptCodeOf(guess, taken) };
  }

  /** The guess at `index`, made by the abandoned presentation `owner`, becomes this presentation's; the live code after, or undefined when another write came first. */
  private async takeOver(guess: CodeGuess, index: number, owner: string): Promise<StoredCode | undefined> {
    let taken: Record<string, unknown> | undefined;
    try {
      ({ Attributes: taken } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: codeItemKey(guess) },
          UpdateExpression: `SET #live.#presentations[${index}] = :presentation`,
          ConditionExpression:
            `#live.#guesses[${index}] = :guess AND #live.#presentations[${index}] = :owner ` +
            'AND contains(#live.#abandoned, :owner) AND #live.#notAfter > :now',
          ExpressionAttributeNames: {
            '#live': LIVE,
            '#guesses': 'guesses',
            '#presentations': 'presentations',
            '#abandoned': 'abandoned',
            '#notAfter': 'not_after',
          },
          ExpressionAttributeValues: {
            ':guess': guess.guessDigest,
            ':owner': owner,
            ':presentation': guess.presentationId,
            ':now': guess.now,
          },
          ReturnValues: 'ALL_NEW',
        }),
      ));
    } catch (error) {
      // Another retry of the same guess took it first: this one is a repetition.
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw storageFailure(error, 'take over guess');
    }
    return parseItem(taken)?.[LIVE];
  }

  async abandon(presentation: AbandonedPresentation): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: codeItemKey(presentation) },
          UpdateExpression: 'SET #live.#abandoned = list_append(if_not_exists(#live.#abandoned, :empty), :abandoned)',
          ConditionExpression: 'attribute_exists(#live)',
          ExpressionAttributeNames: { '#live': LIVE, '#abandoned': 'abandoned' },
          ExpressionAttributeValues: { ':empty': [], ':abandoned': [presentation.presentationId] },
        }),
      );
    } catch (error) {
      // No live code: no guess of it can be taken over, and a late guess finds nothing to spend.
      if (error instanceof ConditionalCheckFailedException) return;
      throw storageFailure(error, 'abandon presentation');
    }
  }

  async cancel(record: CodeRecord, now: number): Promise<void> {
    let item: Record<string, unknown> | undefined;
    try {
      ({ Attributes: item } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: codeItemKey(record) },
          // An item this creates (the save never landed, and the slot was empty) expires with the code.
          UpdateExpression: 'SET #cancelled = list_append(if_not_exists(#cancelled, :empty), :cancelled), #e = if_not_exists(#e, :expires)',
          ExpressionAttributeNames: { '#cancelled': CANCELLED, '#e': TABLE_DEFINITION.timeToLiveAttribute },
          ExpressionAttributeValues: { ':empty': [], ':cancelled': [record.sendId], ':expires': ttlSeconds(record.notAfter) },
          ReturnValues: 'ALL_NEW',
        }),
      ));
    } catch (error) {
      throw storageFailure(error, 'cancel code');
    }
    await this.discard(record, slotStateOf(record, item), now);
  }

  async discard(failed: CodeRecord, known: SlotState, now: number): Promise<void> {
    let state = known;
    // Each refused step means another send saved or discarded in between, and those are bounded
    // by the send limit; the bound here only stops a bug from looping.
    for (let round = 0; round < 2 * (known.history.length + 2); round += 1) {
      const step = discardStep(state, failed.sendId, now);
      if (step.kind === 'none') return;
      state = await this.applyStep(failed, step);
    }
    throw new Error('The slot kept changing while a failed send was discarded');
  }

  /** One conditional write of a discard; the slot as it is now, written or not. */
  private async applyStep(failed: CodeRecord, step: Exclude<DiscardStep, { kind: 'none' }>): Promise<SlotState> {
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
      const { Attributes: written } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: codeItemKey(failed) },
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return slotStateOf(failed, written);
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
    presentations: [],
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
