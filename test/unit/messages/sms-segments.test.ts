import fc from 'fast-check';
import { countSmsSegments } from '../../../lib/messages/sms-segments';

describe('countSmsSegments', () => {
  it.each<[string, string, ReturnType<typeof countSmsSegments>]>([
    ['empty text: still one message', '', { encoding: 'GSM-7', units: 0, segments: 1 }],
    ['plain ASCII', 'Your code is 012345', { encoding: 'GSM-7', units: 19, segments: 1 }],
    ['GSM-7 accented letters', 'äöüßéèÄÖÜÑ£¥§¿¡', { encoding: 'GSM-7', units: 15, segments: 1 }],
    ['extension characters cost 2', '^{}\\[~]|€\f', { encoding: 'GSM-7', units: 20, segments: 1 }],
    ['160 GSM-7 units: one message', 'a'.repeat(160), { encoding: 'GSM-7', units: 160, segments: 1 }],
    ['161 GSM-7 units: two segments', 'a'.repeat(161), { encoding: 'GSM-7', units: 161, segments: 2 }],
    ['80 euro signs are 160 units', '€'.repeat(80), { encoding: 'GSM-7', units: 160, segments: 1 }],
    ['80 euro signs and a letter', `${'€'.repeat(80)}a`, { encoding: 'GSM-7', units: 161, segments: 2 }],
    ['3 x 153 GSM-7 units', 'a'.repeat(459), { encoding: 'GSM-7', units: 459, segments: 3 }],
    ['3 x 153 + 1 GSM-7 units', 'a'.repeat(460), { encoding: 'GSM-7', units: 460, segments: 4 }],
    [
      'an escape sequence is never split across segments',
      `${'a'.repeat(152)}€${'a'.repeat(152)}€${'a'.repeat(151)}`,
      { encoding: 'GSM-7', units: 459, segments: 4 },
    ],
    ['one non-GSM character makes it UCS-2', 'Your code is 012345 ç', { encoding: 'UCS-2', units: 21, segments: 1 }],
    ['70 UCS-2 units: one message', 'ó'.repeat(70), { encoding: 'UCS-2', units: 70, segments: 1 }],
    ['71 UCS-2 units: two segments', 'ó'.repeat(71), { encoding: 'UCS-2', units: 71, segments: 2 }],
    ['3 x 67 UCS-2 units', 'ó'.repeat(201), { encoding: 'UCS-2', units: 201, segments: 3 }],
    ['3 x 67 + 1 UCS-2 units', 'ó'.repeat(202), { encoding: 'UCS-2', units: 202, segments: 4 }],
    ['an emoji is two UTF-16 units', '😀'.repeat(35), { encoding: 'UCS-2', units: 70, segments: 1 }],
    [
      'a surrogate pair is never split across segments',
      `${'ó'.repeat(66)}😀${'ó'.repeat(5)}`,
      { encoding: 'UCS-2', units: 73, segments: 2 },
    ],
    ['the typographic apostrophe is not GSM-7', 'Don’t', { encoding: 'UCS-2', units: 5, segments: 1 }],
  ])('%s', (_name, text, expected) => {
    expect(countSmsSegments(text)).toEqual(expected);
  });

  it('counts units and packs segments within their bounds (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        // Act
        const { encoding, units, segments } = countSmsSegments(text);

        // Assert
        if (encoding === 'UCS-2') expect(units).toBe(text.length);
        else expect(units).toBeGreaterThanOrEqual(Array.from(text).length);
        const [single, multipart] = encoding === 'GSM-7' ? [160, 153] : [70, 67];
        if (units <= single) {
          expect(segments).toBe(1);
        } else {
          // An indivisible character costs at most 2, so a segment wastes at most one unit.
          expect(segments).toBeGreaterThanOrEqual(Math.ceil(units / multipart));
          expect(segments).toBeLessThanOrEqual(Math.ceil(units / (multipart - 1)));
        }
      }),
    );
  });
});
