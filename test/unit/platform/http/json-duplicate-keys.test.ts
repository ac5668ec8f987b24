import fc from 'fast-check';
import { hasDuplicateKey } from '../../../../lib/platform/http/json-duplicate-keys';

/** The scanner's precondition, checked in every test: the text is one JSON.parse accepts. */
function scan(json: string): boolean {
  JSON.parse(json);
  return hasDuplicateKey(json);
}

describe('hasDuplicateKey', () => {
  it('regression: JSON.parse silently kept the second of two client_id members', () => {
    const body = '{"client_id":"local-web","client_id":"evil"}';
    expect((JSON.parse(body) as { client_id: string }).client_id).toBe('evil');
    expect(scan(body)).toBe(true);
  });

  it('regression: an escaped spelling of a name ("\\u0061") hid the duplicate from a textual comparison', () => {
    expect(scan('{"a":1,"\\u0061":2}')).toBe(true);
    expect(scan('{"user_id":"x","\\u0075\\u0073er_id":"y"}')).toBe(true);
    expect(scan('{"\\ud83d\\ude00":1,"😀":2}')).toBe(true);
    expect(scan('{"a\\/b":1,"a/b":2}')).toBe(true);
  });

  it.each([
    ['an empty object', '{}'],
    ['distinct names', '{"a":1,"b":2}'],
    ['names that differ in case only', '{"a":1,"A":2}'],
    ['one name in a parent and a child', '{"a":{"a":1}}'],
    ['one name in sibling objects of an array', '[{"a":1},{"a":1}]'],
    ['one name in sibling objects', '{"x":{"a":1},"y":{"a":1}}'],
    ['a name that appears again as a value', '{"a":"a","b":["a"]}'],
    ['a value holding a quote and a colon', '{"a":"\\":","b":"\\"a\\":"}'],
    ['a value ending in a backslash', '{"a":"\\\\","b":"\\\\"}'],
    ['names that differ by an escape', '{"a\\"":1,"a":2}'],
    ['a scalar', '"a"'],
    ['an array of strings', '["a", "a"]'],
    ['whitespace everywhere', ' { "a" : 1 ,\n\t"b"\r\n: { "a" : [ ] } } '],
  ])('finds none in %s', (_name, json) => {
    expect(scan(json)).toBe(false);
  });

  it.each([
    ['the top level', '{"a":1,"a":1}'],
    ['a nested object', '{"x":{"a":1,"a":2}}'],
    ['an object in an array', '{"x":[1,{"b":null,"b":null}]}'],
    ['an object after a closed sibling', '{"x":{"a":1},"y":2,"x":3}'],
    ['empty names', '{"":1,"":2}'],
    ['__proto__', '{"__proto__":1,"__proto__":2}'],
    ['whitespace before the colon', '{"a" \n:1,"a"\t:2}'],
    ['names holding escaped quotes', '{"a\\"b":1,"a\\"b":2}'],
  ])('finds one in %s', (_name, json) => {
    expect(scan(json)).toBe(true);
  });

  it('scans deep nesting without recursion', () => {
    const depth = 20_000;
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    expect(hasDuplicateKey(deep)).toBe(false);
    expect(hasDuplicateKey(`${'[{"a":'.repeat(depth)}1,"a":2${'}]'.repeat(depth)}`)).toBe(true);
  });
});

describe('hasDuplicateKey (properties)', () => {
  // Any code point in names and values, lone surrogates included: JSON.stringify escapes those.
  const names = fc.string({
    unit: fc.oneof(
      fc.constantFrom('a', 'b', '"', '\\', ':', '{', '}', '[', ']', ','),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
    ),
    maxLength: 6,
  });
  const values = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      names,
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(names, tie('value'), { maxKeys: 5 }),
  })).value;

  it('never reports a duplicate in what JSON.stringify writes, with or without indentation', () => {
    fc.assert(
      fc.property(values, fc.constantFrom(undefined, 0, 2, '\t'), (value, indent) => {
        expect(scan(JSON.stringify(value, null, indent))).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('always reports a duplicate member injected into any object, at any depth, in any spelling', () => {
    fc.assert(
      fc.property(
        values,
        fc.nat(),
        fc.nat(),
        fc.nat(),
        names,
        values,
        fc.array(fc.boolean()),
        (value, objectPick, namePick, position, freshName, duplicateValue, escapes) => {
          // Arrange: choose an object of the value (wrapping the value in one if it has none) and
          // one of its names (or a fresh one, written twice); the copy goes at any position.
          const json = serialiseWithDuplicate(value, { objectPick, namePick, position, freshName, duplicateValue, escapes });

          // Act & Assert
          expect(scan(json)).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

interface Injection {
  readonly objectPick: number;
  readonly namePick: number;
  readonly position: number;
  readonly freshName: string;
  readonly duplicateValue: unknown;
  /** Which characters of the duplicate's name to write as \uXXXX escapes. */
  readonly escapes: readonly boolean[];
}

/** JSON text of `value` in which one object has one member name twice. */
function serialiseWithDuplicate(value: unknown, injection: Injection): string {
  const objects = objectsIn(value);
  const root = objects.length === 0 ? { wrapped: value } : value;
  const all = objects.length === 0 ? [root as Record<string, unknown>] : objects;
  const target = all[injection.objectPick % all.length];
  return serialise(root, target, injection);
}

function objectsIn(value: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(value)) return value.flatMap(objectsIn);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return [record, ...Object.values(record).flatMap(objectsIn)];
  }
  return [];
}

function serialise(value: unknown, target: unknown, injection: Injection): string {
  if (Array.isArray(value)) return `[${value.map((item) => serialise(item, target, injection)).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const members = Object.entries(value).map(([name, item]) => `${JSON.stringify(name)}:${serialise(item, target, injection)}`);
  if (value === target) {
    const names = Object.keys(value);
    const name = names.length === 0 ? injection.freshName : (names[injection.namePick % names.length] as string);
    if (names.length === 0) members.push(`${JSON.stringify(name)}:null`);
    members.splice(
      injection.position % (members.length + 1),
      0,
      `${spell(name, injection.escapes)}:${JSON.stringify(injection.duplicateValue)}`,
    );
  }
  return `{${members.join(',')}}`;
}

/** `name` as a JSON string literal, with the chosen UTF-16 units written as \uXXXX escapes. */
function spell(name: string, escapes: readonly boolean[]): string {
  let literal = '"';
  for (let index = 0; index < name.length; index += 1) {
    const unit = name.charCodeAt(index);
    literal +=
      escapes[index % Math.max(escapes.length, 1)] === true
        ? `\\u${unit.toString(16).padStart(4, '0')}`
        : JSON.stringify(name[index]).slice(1, -1);
  }
  return `${literal}"`;
}
