import { createHash, randomBytes, randomInt } from 'node:crypto';
import fc from 'fast-check';
import {
  CODE_LENGTH,
  CODE_VERIFIER_PATTERN,
  S256_CHALLENGE_PATTERN,
  digestCode,
  digestsEqual,
  generateCode,
  isWellFormedCode,
  s256Challenge,
  type CodeBinding,
} from '../../../lib/otp/codes';

/** Upper 0.1% point of the chi-square distribution with 9 degrees of freedom. */
const CHI_SQUARE_DF9_P001 = 27.877;
const SAMPLE_SIZE = 100_000;

/** Per position, how often each digit occurs: counts[position][digit]. */
function digitCounts(codes: readonly string[]): number[][] {
  const counts = Array.from({ length: CODE_LENGTH }, () => new Array<number>(10).fill(0));
  for (const code of codes) {
    for (let position = 0; position < CODE_LENGTH; position += 1) {
      const row = counts[position]!;
      const digit = code.charCodeAt(position) - 48;
      row[digit] = (row[digit] ?? 0) + 1;
    }
  }
  return counts;
}

/** Pearson's chi-square statistic of observed counts against a uniform expectation. */
function chiSquare(observed: readonly number[]): number {
  const total = observed.reduce((sum, count) => sum + count, 0);
  const expected = total / observed.length;
  return observed.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
}

/** The largest per-position chi-square statistic of a sample. */
function worstChiSquare(codes: readonly string[]): number {
  return Math.max(...digitCounts(codes).map(chiSquare));
}

function sampleCodes(size: number, generate: () => string = () => generateCode()): string[] {
  return Array.from({ length: size }, generate);
}

const binding: CodeBinding = {
  environmentId: 'local',
  clientId: 'local-web',
  redirectUri: 'http://localhost:3000/callback',
  authType: 'email',
  user: 'alice@example.com',
};

describe('generateCode', () => {
  it('returns six ASCII digits', () => {
    // Arrange
    const codes = sampleCodes(10_000);

    // Act
    const malformed = codes.filter((code) => !/^\d{6}$/.test(code));

    // Assert
    expect(malformed).toEqual([]);
  });

  it.each<[number, string]>([
    [42, '000042'],
    [0, '000000'],
    [7, '000007'],
    [100_000, '100000'],
    [999_999, '999999'],
  ])('keeps leading zeros: a draw of %d is "%s"', (drawn, expected) => {
    // Arrange
    const draw = () => drawn;

    // Act
    const code = generateCode(draw);

    // Assert
    expect(code).toBe(expected);
  });

  it('asks the draw for exactly 1_000_000 values, so 000000..999999 are all possible (regression: randomInt(0, 9) never yields a 9)', () => {
    // Arrange
    const draw = jest.fn((max: number) => max - 1);

    // Act
    const code = generateCode(draw);

    // Assert
    expect(draw).toHaveBeenCalledTimes(1);
    expect(draw).toHaveBeenCalledWith(1_000_000);
    expect(code).toBe('999999');
  });

  describe(`distribution of ${SAMPLE_SIZE.toLocaleString('en-US')} real draws`, () => {
    let codes: string[];
    beforeAll(() => {
      codes = sampleCodes(SAMPLE_SIZE);
    });

    it(`is uniform at every position (chi-square, df=9, below the p=0.001 critical value ${CHI_SQUARE_DF9_P001})`, () => {
      // Arrange: at p=0.001 over 6 positions a fair generator fails about 0.6% of runs by chance.
      // A genuinely biased generator fails every sample, so one fresh sample is drawn before failing.
      let worst = worstChiSquare(codes);

      // Act
      if (worst >= CHI_SQUARE_DF9_P001) worst = worstChiSquare(sampleCodes(SAMPLE_SIZE));

      // Assert
      expect(worst).toBeLessThan(CHI_SQUARE_DF9_P001);
    });

    it('has every digit at every position', () => {
      // Act
      const counts = digitCounts(codes);

      // Assert
      for (const row of counts) {
        expect(row.every((count) => count > 0)).toBe(true);
      }
    });

    it('starts with a zero in 10% ± 0.6% of codes', () => {
      // Act
      const share = codes.filter((code) => code.startsWith('0')).length / codes.length;

      // Assert
      expect(share).toBeGreaterThan(0.094);
      expect(share).toBeLessThan(0.106);
    });

    it('has as many distinct codes as uniform draws would (1e6 × (1 − e^−0.1) ≈ 95,163, ± 400)', () => {
      // Arrange
      const expected = 1e6 * (1 - Math.exp(-SAMPLE_SIZE / 1e6));

      // Act
      const distinct = new Set(codes).size;

      // Assert
      expect(Math.abs(distinct - expected)).toBeLessThan(400);
    });

    it('the chi-square check catches the classic randomInt(0, 9) per-digit bug (the test has power)', () => {
      // Arrange: the upper bound of randomInt is exclusive, so this never produces a 9.
      const buggy = () => Array.from({ length: CODE_LENGTH }, () => String(randomInt(0, 9))).join('');

      // Act
      const worst = worstChiSquare(sampleCodes(20_000, buggy));

      // Assert
      expect(worst).toBeGreaterThan(CHI_SQUARE_DF9_P001);
    });
  });
});

describe('isWellFormedCode', () => {
  it.each(['000000', '123456', '999999', '042917'])('accepts %j', (value) => {
    expect(isWellFormedCode(value)).toBe(true);
  });

  it.each([
    ['five digits', '12345'],
    ['seven digits', '1234567'],
    ['empty', ''],
    ['a leading space', ' 123456'],
    ['a trailing space', '123456 '],
    ['a space inside', '123 456'],
    ['a trailing newline', '123456\n'],
    ['Arabic-Indic digits', '١٢٣٤٥٦'],
    ['full-width digits', '１２３４５６'],
    ['a letter', '12345a'],
    ['a sign', '+12345'],
    ['a decimal point', '12345.'],
  ])('rejects %s (%j)', (_label, value) => {
    expect(isWellFormedCode(value)).toBe(false);
  });
});

describe('digestCode', () => {
  const key = randomBytes(32);

  it('is deterministic', () => {
    // Act
    const first = digestCode(key, binding, '012345');
    const second = digestCode(key, { ...binding }, '012345');

    // Assert
    expect(second).toBe(first);
  });

  it('is the base64url of a 32-byte HMAC and does not contain the code', () => {
    // Act
    const digest = digestCode(key, binding, '012345');

    // Assert
    expect(digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(digest).not.toContain('012345');
  });

  it.each<[keyof CodeBinding, string]>([
    ['environmentId', 'prod'],
    ['clientId', 'local-opaque'],
    ['redirectUri', 'http://localhost:3000/callback/'],
    ['authType', 'sms'],
    ['user', 'bob@example.com'],
  ])('changes when %s changes', (field, value) => {
    // Arrange
    const changed: CodeBinding = { ...binding, [field]: value };

    // Act
    const original = digestCode(key, binding, '012345');
    const other = digestCode(key, changed, '012345');

    // Assert
    expect(other).not.toBe(original);
  });

  it('changes when the code changes', () => {
    expect(digestCode(key, binding, '012346')).not.toBe(digestCode(key, binding, '012345'));
  });

  it('changes when the key changes', () => {
    expect(digestCode(randomBytes(32), binding, '012345')).not.toBe(digestCode(key, binding, '012345'));
  });

  it('does not collide across field boundaries (clientId "a" + redirectUri "bc" vs "ab" + "c")', () => {
    // Arrange
    const left: CodeBinding = { ...binding, clientId: 'a', redirectUri: 'bc' };
    const right: CodeBinding = { ...binding, clientId: 'ab', redirectUri: 'c' };

    // Act / Assert
    expect(digestCode(key, left, '012345')).not.toBe(digestCode(key, right, '012345'));
  });

  it('does not collide across the user/code boundary (user "x1" + code "23456" style shifts)', () => {
    // Arrange: same concatenation "…user|code" with the boundary moved by one character.
    const left: CodeBinding = { ...binding, user: 'alice@example.com1' };

    // Act / Assert
    expect(digestCode(key, left, '23456')).not.toBe(digestCode(key, binding, '123456'));
  });

  it('property: two different (binding, code) pairs never share a digest', () => {
    const text = fc.string({ maxLength: 6, unit: fc.constantFrom('a', 'b', '|', ',', '"', '\\', ':') });
    const bindingArb = fc.record({
      environmentId: text,
      clientId: text,
      redirectUri: text,
      authType: fc.constantFrom<'email' | 'sms'>('email', 'sms'),
      user: text,
    });
    fc.assert(
      fc.property(bindingArb, text, bindingArb, text, (b1, c1, b2, c2) => {
        const same = JSON.stringify([b1, c1]) === JSON.stringify([b2, c2]);
        fc.pre(!same);
        expect(digestCode(key, b1, c1)).not.toBe(digestCode(key, b2, c2));
      }),
    );
  });
});

describe('digestsEqual', () => {
  const key = randomBytes(32);
  const digest = digestCode(key, binding, '012345');

  it('is true for equal digests', () => {
    expect(digestsEqual(digest, `${digest}`)).toBe(true);
  });

  it('is false for different digests of the same length', () => {
    expect(digestsEqual(digest, digestCode(key, binding, '012346'))).toBe(false);
  });

  it('is false (and does not throw) for digests of different lengths', () => {
    expect(digestsEqual(digest, digest.slice(0, 22))).toBe(false);
    expect(digestsEqual(digest.slice(0, 22), digest)).toBe(false);
    expect(digestsEqual(digest, '')).toBe(false);
  });
});

describe('s256Challenge (RFC 7636 §4.2)', () => {
  it('matches the RFC 7636 Appendix B example', () => {
    // Arrange
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

    // Act
    const challenge = s256Challenge(verifier);

    // Assert
    expect(challenge).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('property: equals BASE64URL(SHA256(verifier)), unpadded, and matches S256_CHALLENGE_PATTERN', () => {
    const unreserved = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'.split(''));
    fc.assert(
      fc.property(fc.string({ unit: unreserved, minLength: 43, maxLength: 128 }), (verifier) => {
        const challenge = s256Challenge(verifier);
        expect(challenge).toBe(createHash('sha256').update(verifier).digest('base64url'));
        expect(challenge).not.toContain('=');
        expect(S256_CHALLENGE_PATTERN.test(challenge)).toBe(true);
      }),
    );
  });
});

describe('CODE_VERIFIER_PATTERN (RFC 7636 §4.1)', () => {
  const unreserved = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';

  it.each([43, 64, 128])('accepts %d unreserved characters', (length) => {
    const verifier = unreserved.repeat(2).slice(0, length);
    expect(verifier).toHaveLength(length);
    expect(CODE_VERIFIER_PATTERN.test(verifier)).toBe(true);
  });

  it('accepts every unreserved character', () => {
    expect(CODE_VERIFIER_PATTERN.test(unreserved)).toBe(true);
  });

  it.each([42, 129, 0])('rejects %d characters', (length) => {
    expect(CODE_VERIFIER_PATTERN.test('a'.repeat(length))).toBe(false);
  });

  it.each(['+', '/', '=', ' ', '%', '!', '*', 'é', '\n'])('rejects %j among otherwise valid characters', (character) => {
    expect(CODE_VERIFIER_PATTERN.test(`${'a'.repeat(42)}${character}`)).toBe(false);
  });
});

describe('S256_CHALLENGE_PATTERN', () => {
  it('accepts a 43-character base64url value', () => {
    expect(S256_CHALLENGE_PATTERN.test('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
  });

  it.each([
    ['42 characters', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c'],
    ['44 characters', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cMx'],
    ['padding', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c='],
    ['standard base64 "+"', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw+cM'],
    ['standard base64 "/"', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw/cM'],
    ['"~" (a verifier character, not base64url)', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw~cM'],
  ])('rejects %s', (_label, value) => {
    expect(S256_CHALLENGE_PATTERN.test(value)).toBe(false);
  });
});
