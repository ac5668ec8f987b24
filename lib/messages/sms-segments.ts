/**
 * How many SMS segments a text costs: GSM 03.38 (3GPP TS 23.038) for the alphabet and the
 * concatenation rules of 3GPP TS 23.040 §9.2.3.24.1 for what a segment holds. The limit on a
 * caller's SMS `message` is counted in segments, because carriers bill per segment and some
 * reassemble long concatenations badly.
 *
 * Pure: no I/O.
 */

/**
 * The GSM 7-bit default alphabet (3GPP TS 23.038 §6.2.1), 127 characters: the 128-entry table
 * without 0x1B, which is the escape to the extension table. Only `Ç` sits at 0x09 (TS 23.038's
 * character; some handsets show `ç`, which therefore forces UCS-2).
 */
const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' + '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
/**
 * The default extension table (3GPP TS 23.038 §6.2.1.1): each is sent as ESC + character, so it
 * costs two septets.
 */
const GSM7_EXTENSION = new Set('\f^{}\\[~]|€');

/** 140 octets of user data hold 160 septets. */
const GSM7_SINGLE_UNITS = 160;
/** A 6-octet concatenation header (UDH) leaves 134 octets: 153 septets. */
export const GSM7_MULTIPART_UNITS = 153;
/** 140 octets hold 70 UCS-2 (UTF-16) code units. */
const UCS2_SINGLE_UNITS = 70;
/** 134 octets after the header hold 67 code units. */
export const UCS2_MULTIPART_UNITS = 67;

/**
 * How many SMS segments `text` takes, per GSM 03.38 (3GPP TS 23.038) and the concatenation rules
 * of 3GPP TS 23.040:
 * - if every character is in the GSM 7-bit alphabet, the text is GSM-7: basic characters cost one
 *   unit (septet), extension characters (`^{}\[~]|€` and form feed) two; one message holds 160
 *   units, a multipart message 153 per segment;
 * - otherwise the whole text is UCS-2: `units` counts UTF-16 code units (an emoji is two); one
 *   message holds 70, a multipart message 67 per segment.
 *
 * Segments are packed greedily and an escape sequence or a surrogate pair is never split across
 * two segments (senders move it whole to the next one, as a split one would arrive garbled), so a
 * long text can need one segment more than `units / 153` suggests. An empty text still costs one
 * message.
 * @example countSmsSegments('Your code is 012345') // { encoding: 'GSM-7', units: 19, segments: 1 }
 * @example countSmsSegments('€'.repeat(80))        // { encoding: 'GSM-7', units: 160, segments: 1 }
 * @example countSmsSegments('código '.repeat(10))  // { encoding: 'UCS-2', units: 70, segments: 1 }
 */
export function countSmsSegments(text: string): { encoding: 'GSM-7' | 'UCS-2'; units: number; segments: number } {
  const characters = Array.from(text);
  const isGsm7 = characters.every((character) => GSM7_BASIC.has(character) || GSM7_EXTENSION.has(character));
  if (isGsm7) {
    const costs = characters.map((character) => (GSM7_EXTENSION.has(character) ? 2 : 1));
    return { encoding: 'GSM-7', ...packSegments(costs, GSM7_SINGLE_UNITS, GSM7_MULTIPART_UNITS) };
  }
  // Array.from iterates code points: a surrogate pair is one element of length 2, a lone
  // surrogate one element of length 1.
  const costs = characters.map((character) => character.length);
  return { encoding: 'UCS-2', ...packSegments(costs, UCS2_SINGLE_UNITS, UCS2_MULTIPART_UNITS) };
}

/** Fills segments greedily with indivisible characters of the given costs. */
function packSegments(costs: readonly number[], singleUnits: number, multipartUnits: number): { units: number; segments: number } {
  const units = costs.reduce((sum, cost) => sum + cost, 0);
  if (units <= singleUnits) return { units, segments: 1 };
  let segments = 1;
  let used = 0;
  for (const cost of costs) {
    if (used + cost > multipartUnits) {
      segments += 1;
      used = 0;
    }
    used += cost;
  }
  return { units, segments };
}
