import fc from 'fast-check';
import { escapeHtml, escapeXml } from '../../../lib/messages/markup';
import { htmlEscapeOracle } from '../../support/rendering';

describe('escapeHtml', () => {
  it('escapes the five HTML-significant characters, the apostrophe numerically', () => {
    expect(escapeHtml(`<a href="x">Tom & 'Jerry'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;');
  });

  it('escapes an ampersand once, so an entity in the text stays literal', () => {
    expect(escapeHtml('&amp; &lt;')).toBe('&amp;amp; &amp;lt;');
  });

  it('drops nothing: control characters and lone surrogates pass through', () => {
    expect(escapeHtml('a\u0000\u0007\ud800b')).toBe('a\u0000\u0007\ud800b');
  });

  it('agrees with an independent oracle for any text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(escapeHtml(text)).toBe(htmlEscapeOracle(text));
      }),
    );
  });
});

describe('escapeXml', () => {
  it('escapes with the five XML predefined entities', () => {
    expect(escapeXml(`<a b="x">Tom & 'Jerry'</a>`)).toBe('&lt;a b=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;');
  });

  it('keeps tab, line feed and carriage return, and drops the other C0 controls', () => {
    expect(escapeXml('a\tb\nc\rd\u0000\u0001\u0008\u000b\u000c\u001be\u001f')).toBe('a\tb\nc\rde');
  });

  it('drops lone surrogates and U+FFFE/U+FFFF, and keeps a surrogate pair', () => {
    expect(escapeXml('a\ud800b\udc00c\ufffe\uffffd😀')).toBe('abcd😀');
  });

  it('leaves nothing XML would refuse or read as markup (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        // Act
        const escaped = escapeXml(text);

        // Assert: only the entities we write, and only characters XML 1.0 §2.2 allows.
        expect(escaped.replace(/&(?:amp|lt|gt|quot|apos);/g, '')).not.toMatch(/[&<>"']/);
        expect(escaped).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|\p{Surrogate}/u);
      }),
    );
  });
});
