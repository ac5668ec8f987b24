/**
 * The login page's stylesheet against what lib/login/login-page.ts says of it: the contrast of
 * each colour pair it documents (WCAG 2.2 SC 1.4.3 asks 4.5:1 of text, SC 1.4.11 asks 3:1 of an
 * input's border and of a focus indicator), computed from the declarations themselves with
 * WCAG's relative luminance, and controls that span the card fitting inside it (SC 1.4.10, reflow).
 * A real browser renders the page in test/browser/hosted-login.test.ts.
 */
import { STYLESHEET } from '../../../lib/login/login-page';

/** The stylesheet's rules as selector → declarations (it has no at-rules and no nesting). */
const rules = new Map(
  STYLESHEET.split('}')
    .filter((rule) => rule !== '')
    .map((rule) => {
      const [selector = '', body = ''] = rule.split('{');
      const declarations = new Map(
        body.split(';').map((declaration) => {
          const colon = declaration.indexOf(':');
          return [declaration.slice(0, colon), declaration.slice(colon + 1)] as const;
        }),
      );
      return [selector, declarations] as const;
    }),
);

function declared(selector: string, property: string): string {
  const value = rules.get(selector)?.get(property);
  if (value === undefined) throw new Error(`the stylesheet sets no ${property} for ${selector}`);
  return value;
}

/** The one colour a declaration names (`#rgb` or `#rrggbb`), as `#rrggbb`. */
function colourIn(value: string): string {
  const hex = /#([0-9a-f]{6}|[0-9a-f]{3})\b/i.exec(value)?.[1];
  if (hex === undefined) throw new Error(`no colour in ${value}`);
  return `#${hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex}`.toLowerCase();
}

/** WCAG 2.2 "relative luminance" and "contrast ratio" (Understanding SC 1.4.3). */
function contrast(first: string, second: string): number {
  const luminance = (colour: string) => {
    const [r = 0, g = 0, b = 0] = [1, 3, 5].map((at) => {
      const channel = Number.parseInt(colour.slice(at, at + 2), 16) / 255;
      return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [lighter, darker] = [luminance(first), luminance(second)].sort((a, b) => b - a);
  return Math.round((((lighter ?? 0) + 0.05) / ((darker ?? 0) + 0.05)) * 10) / 10;
}

describe('the login page’s stylesheet', () => {
  const page = () => colourIn(declared('body', 'background'));
  const card = () => colourIn(declared('main', 'background'));

  it('reads the colours it checks from the rules the page uses', () => {
    expect(colourIn('#fff')).toBe('#ffffff');
    expect(page()).toBe('#f4f4f5');
    expect(card()).toBe('#ffffff');
  });

  it.each([
    ['text on the card', () => colourIn(declared('body', 'color')), card, 17.7],
    ['a hint', () => colourIn(declared('.hint', 'color')), card, 7.7],
    ['an error', () => colourIn(declared('.error', 'color')), card, 6.5],
    [
      'a notice’s text on its own background',
      () => colourIn(declared('body', 'color')),
      () => colourIn(declared('.notice', 'background')),
      16.1,
    ],
    [
      'the button’s label on the button',
      () => colourIn(declared('button', 'color')),
      () => colourIn(declared('button', 'background')),
      6.7,
    ],
    ['a secondary button (a link’s look) on the card', () => colourIn(declared('.secondary button', 'color')), card, 6.7],
    [
      'the passkey button’s label on its own background',
      () => colourIn(declared('.passkey button', 'color')),
      () => colourIn(declared('.passkey button', 'background')),
      6.7,
    ],
  ])('keeps text readable (SC 1.4.3, at least 4.5:1): %s', (_name, text, background, ratio) => {
    expect(contrast(text(), background())).toBe(ratio);
    expect(ratio).toBeGreaterThanOrEqual(4.5);
  });

  it.each([
    ['a text input’s border on the card', () => colourIn(declared('input[type=text]', 'border')), card, 4.8],
    ['an invalid input’s border on the card', () => colourIn(declared('input[aria-invalid=true]', 'border')), card, 6.5],
    ['the focus ring on the page, its worst background', () => colourIn(declared(':focus-visible', 'outline')), page, 6.1],
    ['the passkey button’s border on the card', () => colourIn(declared('.passkey button', 'border')), card, 6.7],
  ])('keeps a control’s outline visible (SC 1.4.11, at least 3:1): %s', (_name, outline, background, ratio) => {
    expect(contrast(outline(), background())).toBe(ratio);
    expect(ratio).toBeGreaterThanOrEqual(3);
  });

  it('marks an invalid input by more than colour: a thicker border (SC 1.4.1)', () => {
    const width = (selector: string) => Number(/(\d+)px/.exec(declared(selector, 'border'))?.[1]);
    expect(width('input[aria-invalid=true]')).toBeGreaterThan(width('input[type=text]'));
  });

  it('draws a focus ring of at least 2 CSS pixels, apart from the control (SC 2.4.7)', () => {
    expect(Number(/(\d+)px solid/.exec(declared(':focus-visible', 'outline'))?.[1])).toBeGreaterThanOrEqual(2);
    expect(declared(':focus-visible', 'outline-offset')).toBe('2px');
  });

  it('fits the controls that span the card inside it: their width includes padding and border (SC 1.4.10)', () => {
    const fullWidth = [...rules].filter(([, declarations]) => declarations.get('width') === '100%').map(([selector]) => selector);
    expect(fullWidth).toEqual(['input[type=text]', 'button']);
    // A width of 100% plus padding and border would stick out of the card, at 320 px as at any width.
    expect(declared('*', 'box-sizing')).toBe('border-box');
  });

  it('tells a secondary button from text by more than colour: it is underlined (SC 1.4.1)', () => {
    expect(declared('.secondary button', 'text-decoration')).toBe('underline');
  });

  it('hides what carries `hidden` even where a rule displays it (a button the page script has not shown yet)', () => {
    expect(declared('[hidden]', 'display')).toBe('none!important');
    expect(declared('button', 'display')).toBe('block');
  });
});
