/**
 * SSML to the text a listener hears, for the outbox: a voice message sent as SSML is shown there
 * as its spoken words (the raw markup is kept beside it), so a person or a test reads the code
 * from a call the same way as from an SMS.
 */

/**
 * What a listener hears, as text: markup, comments and processing instructions removed, XML
 * entities decoded, whitespace collapsed. A tag becomes a space (a `<break/>` or a `<say-as>` per
 * digit is a pause a reader should see: "1 2 3", not "123"), and no space is left before
 * punctuation. Entities are decoded in one pass so `&amp;lt;` stays the literal `&lt;` that the
 * markup meant.
 * @example ssmlToText('<speak>Your code is <say-as interpret-as="digits">1</say-as><break/>2.</speak>')
 * // 'Your code is 1 2.'
 */
export function ssmlToText(ssml: string): string {
  return ssml
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<\?[\s\S]*?\?>/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(ENTITY, (entity, hex?: string, dec?: string, name?: string) => {
      if (name !== undefined) return NAMED_ENTITIES[name] ?? entity;
      const codePoint = hex !== undefined ? parseInt(hex, 16) : Number(dec);
      return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : entity;
    })
    .replace(/\s+/g, ' ')
    .replace(/ ([.,;:!?])/g, '$1')
    .trim();
}

/** XML's five predefined entities (names are case-sensitive) and numeric character references. */
const ENTITY = /&(?:#x([0-9a-fA-F]+)|#(\d+)|(amp|lt|gt|quot|apos));/g;
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
