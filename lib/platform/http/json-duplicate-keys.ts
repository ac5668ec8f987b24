/**
 * Duplicate member names in a JSON text. `JSON.parse` keeps the last of two members with one name
 * and says nothing, so `{"client_id":"a","client_id":"b"}` means `b` to us and may mean `a` to a
 * WAF rule, a gateway log or a proxy that keeps the first (RFC 8259 §4: "the behavior of software
 * that receives such an object is unpredictable"). I-JSON (RFC 7493 §2.3) forbids duplicates, as
 * RFC 6749 §3.2 forbids a repeated form parameter: one rule for both encodings.
 *
 * A scanner of our own over the text `JSON.parse` already accepted, rather than a second parser
 * from npm: see docs/decisions/005-request-text.md.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether some object in `json` has two members with the same name, at any depth. Names are
 * compared as `JSON.parse` would see them, after unescaping (`"a"` and `"\u0061"` are one name).
 *
 * `json` must be a text `JSON.parse` accepted: the scanner relies on its grammar (a string followed
 * by `:` is a member name of the innermost open object) and does not validate it. On any other
 * text its answer has no meaning (and an invalid escape in a name throws).
 *
 * @example
 * hasDuplicateKey('{"a":1,"b":{"a":2}}');   // false: one `a` per object
 * hasDuplicateKey('{"a":1,"\\u0061":2}');   // true
 */
export function hasDuplicateKey(json: string): boolean {
  // One set of names per open object, innermost last. Arrays need no entry: in valid JSON no member
  // name appears directly inside an array, so a name always belongs to the innermost open object.
  const open: Array<Set<string>> = [];
  let index = 0;
  while (index < json.length) {
    const char = json.charCodeAt(index);
    if (char === QUOTE) {
      const end = endOfString(json, index);
      if (json.charCodeAt(skipWhitespace(json, end)) === COLON) {
        const names = open[open.length - 1];
        const literal = json.slice(index, end);
        // Only an escaped name needs unescaping; JSON.parse does it exactly as it did for the body.
        const name = literal.includes('\\') ? String(JSON.parse(literal)) : literal.slice(1, -1);
        if (names !== undefined) {
          if (names.has(name)) return true;
          names.add(name);
        }
      }
      index = end;
    } else {
      if (char === OPEN_OBJECT) open.push(new Set());
      else if (char === CLOSE_OBJECT) open.pop();
      index += 1;
    }
  }
  return false;
}

/** The index just past the closing quote of the string that opens at `start`. */
function endOfString(json: string, start: number): number {
  let index = start + 1;
  while (index < json.length) {
    const char = json.charCodeAt(index);
    if (char === QUOTE) return index + 1;
    // An escape is two characters at least (`\"`, `\\`, `\u0061`): skipping the next one is enough
    // to never mistake an escaped quote for the end.
    index += char === BACKSLASH ? 2 : 1;
  }
  return json.length;
}

/** JSON's four whitespace characters (RFC 8259 §2). */
function skipWhitespace(json: string, start: number): number {
  let index = start;
  while (index < json.length) {
    const char = json.charCodeAt(index);
    if (char !== 0x20 && char !== 0x09 && char !== 0x0a && char !== 0x0d) break;
    index += 1;
  }
  return index;
}
