import fc from 'fast-check';
import { IdpError, InvalidRequestError } from '../../../lib/platform/errors';
import { inferAuthType, mailboxOf, normaliseUser } from '../../../lib/identity/identity';
import { canonicalisePhone } from '../../../lib/phone/phone-canonical';
import { normalisePhone } from '../../../lib/phone/phone-validation';
import { normaliseEmail } from '../../../lib/platform/email-address';
import { AUTH_TYPES, CHANNELS } from '../../../lib/platform/vocabulary';

/** Whatever `fn` throws, or undefined. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error;
  }
}

/** A domain label of `length` letters (1..63). */
const label = (length: number) => 'd'.repeat(length);

describe('AUTH_TYPES and CHANNELS', () => {
  it('are email/sms and email/sms/voice', () => {
    expect(AUTH_TYPES).toEqual(['email', 'sms']);
    expect(CHANNELS).toEqual(['email', 'sms', 'voice']);
  });
});

describe('normaliseEmail', () => {
  it.each([
    ['  Alice@Example.COM ', 'alice@example.com'],
    ['ALICE@EXAMPLE.COM', 'alice@example.com'],
    ['\talice@example.com\n', 'alice@example.com'],
    ['alice@example.com', 'alice@example.com'],
    ['first.last@sub.example.co.uk', 'first.last@sub.example.co.uk'],
    ['user+tag@example.com', 'user+tag@example.com'],
    ["o'brien@example.ie", "o'brien@example.ie"],
    ['a@1.com', 'a@1.com'],
    ['a@xn--bcher-kva.example', 'a@xn--bcher-kva.example'],
    ['a@my-host.example', 'a@my-host.example'],
  ])('normalises %j to %j', (raw, expected) => {
    // Act
    const normalised = normaliseEmail(raw);

    // Assert
    expect(normalised).toBe(expected);
  });

  it.each([
    ['no @', 'alice.example.com'],
    ['two @', 'alice@bob@example.com'],
    ['@@', 'alice@@example.com'],
    ['a space in the local part', 'ali ce@example.com'],
    ['a space in the domain', 'alice@exa mple.com'],
    ['".." in the local part', 'al..ice@example.com'],
    ['a leading dot in the local part', '.alice@example.com'],
    ['a trailing dot in the local part', 'alice.@example.com'],
    ['no TLD', 'alice@example'],
    ['a numeric TLD', 'alice@example.c0m'],
    ['a trailing dot in the domain', 'alice@example.com.'],
    ['".." in the domain', 'alice@example..com'],
    ['a label starting with "-"', 'alice@-example.com'],
    ['a label ending with "-"', 'alice@example-.com'],
    ['an underscore in the domain', 'alice@ex_ample.com'],
    ['a quoted local part', '"alice smith"@example.com'],
    ['a quoted local part without spaces', '"alice"@example.com'],
    ['an IP literal', 'alice@[192.0.2.1]'],
    ['angle brackets', '<alice@example.com>'],
    ['a display name', 'Alice <alice@example.com>'],
    ['an empty local part', '@example.com'],
    ['an empty string', ''],
    ['only whitespace', '   '],
    ['a comma', 'alice,bob@example.com'],
  ])('rejects %s (%j)', (_label, raw) => {
    expect(normaliseEmail(raw)).toBeUndefined();
  });

  it('accepts a 64-character local part and rejects a 65-character one', () => {
    // Arrange
    const at64 = `${'a'.repeat(64)}@example.com`;
    const at65 = `${'a'.repeat(65)}@example.com`;

    // Act / Assert
    expect(normaliseEmail(at64)).toBe(at64);
    expect(normaliseEmail(at65)).toBeUndefined();
  });

  it('accepts a 254-character address and rejects a 255-character one', () => {
    // Arrange: "a@" + four labels of 60/60/60/60 letters joined by dots ends at 2 + 243 = 245; pad the
    // local part to reach the exact lengths.
    const domain = [label(60), label(60), label(60), label(60), 'com'].join('.');
    const at254 = `${'a'.repeat(254 - 1 - domain.length)}@${domain}`;
    const at255 = `${'a'.repeat(255 - 1 - domain.length)}@${domain}`;
    expect(at254).toHaveLength(254);
    expect(at255).toHaveLength(255);

    // Act / Assert
    expect(normaliseEmail(at254)).toBe(at254);
    expect(normaliseEmail(at255)).toBeUndefined();
  });

  it('applies the 254-character limit after trimming (surrounding whitespace does not count)', () => {
    const domain = [label(60), label(60), label(60), label(60), 'com'].join('.');
    const at254 = `${'a'.repeat(254 - 1 - domain.length)}@${domain}`;
    expect(normaliseEmail(`   ${at254}   `)).toBe(at254);
  });

  it('accepts a 63-character domain label and rejects a 64-character one', () => {
    expect(normaliseEmail(`a@${label(63)}.com`)).toBe(`a@${label(63)}.com`);
    expect(normaliseEmail(`a@${label(64)}.com`)).toBeUndefined();
  });

  it.each([
    ['NUL', 'ali\u0000ce@example.com'],
    ['BEL', 'ali\u0007ce@example.com'],
    ['ESC', 'ali\u001bce@example.com'],
    ['DEL', 'ali\u007fce@example.com'],
  ])('rejects a control character (%s) in the local part (RFC 5322 atext and RFC 6531 exclude CTLs)', (_label, raw) => {
    expect(normaliseEmail(raw)).toBeUndefined();
  });

  describe('properties', () => {
    /** Valid ASCII addresses (fast-check's RFC 5322 / RFC 1123 generator). */
    const email = fc.emailAddress();
    const caseMask = fc.array(fc.boolean(), { minLength: 254, maxLength: 254 });
    const whitespace = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r'), maxLength: 3 });

    function recase(value: string, mask: readonly boolean[]): string {
      return Array.from(value, (character, index) => (mask[index] ? character.toUpperCase() : character.toLowerCase())).join('');
    }

    it('accepts every generated valid address, as its lower-case form', () => {
      fc.assert(
        fc.property(email, (address) => {
          expect(normaliseEmail(address)).toBe(address.toLowerCase());
        }),
      );
    });

    it('maps any case change and surrounding whitespace to the same value (one user, one counter)', () => {
      fc.assert(
        fc.property(email, caseMask, whitespace, whitespace, (address, mask, before, after) => {
          // Arrange
          const variant = `${before}${recase(address, mask)}${after}`;

          // Act
          const normalised = normaliseEmail(variant);

          // Assert
          expect(normalised).toBeDefined();
          expect(normalised).toBe(normaliseEmail(address));
        }),
      );
    });

    it('is idempotent', () => {
      fc.assert(
        fc.property(fc.oneof(email, fc.string()), caseMask, whitespace, (address, mask, pad) => {
          const once = normaliseEmail(`${pad}${recase(address, mask)}${pad}`);
          if (once !== undefined) expect(normaliseEmail(once)).toBe(once);
        }),
      );
    });
  });
});

describe('normaliseUser', () => {
  it('normalises an email user', () => {
    expect(normaliseUser('email', ' Alice@Example.com ', normalisePhone)).toEqual({ authType: 'email', value: 'alice@example.com' });
  });

  it.each([
    ['normalisePhone', normalisePhone],
    ['canonicalisePhone', canonicalisePhone],
  ])('normalises an sms user with the phone normalisation it is given (%s)', (_name, phone) => {
    expect(normaliseUser('sms', '+1 (415) 555-2671', phone)).toEqual({ authType: 'sms', value: '+14155552671' });
  });

  it('refuses the phone numbers its phone normalisation refuses', () => {
    expect(() => normaliseUser('sms', '+1 415 555 2671', () => undefined)).toThrow(InvalidRequestError);
  });

  it.each<['email' | 'sms', string]>([
    ['email', 'not-an-email'],
    ['email', '+14155552671'],
    ['sms', 'alice@example.com'],
    ['sms', '4155552671'],
  ])('throws a 400 invalid_request naming user_id for auth_type %s', (authType, raw) => {
    // Act
    const error = thrown(() => normaliseUser(authType, raw, normalisePhone));

    // Assert
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toBeInstanceOf(IdpError);
    const idpError = error as InvalidRequestError;
    expect(idpError.statusCode).toBe(400);
    expect(idpError.error).toBe('invalid_request');
    expect(idpError.description).toContain('user_id');
    expect(idpError.description).toContain(authType === 'email' ? 'email' : 'phone');
  });

  it('does not echo the rejected value in the description (personal data)', () => {
    const error = thrown(() => normaliseUser('email', 'secret-person@nowhere', normalisePhone)) as InvalidRequestError;
    expect(error.description).not.toContain('secret-person');
  });
});

describe('inferAuthType', () => {
  it.each<[string, 'email' | 'sms']>([
    ['alice@example.com', 'email'],
    ['@', 'email'],
    ['+14155552671', 'sms'],
    ['4155552671', 'sms'],
    ['', 'sms'],
  ])('infers %j as %s', (raw, expected) => {
    expect(inferAuthType(raw)).toBe(expected);
  });
});

describe('mailboxOf (the recipient sends are counted per)', () => {
  const mailbox = (value: string) => {
    const counted = mailboxOf({ authType: 'email', value });
    expect(counted.authType).toBe('email');
    return counted.value;
  };

  it.each([
    ['alice+news@example.com', 'alice@example.com'],
    ['alice+a+b@example.com', 'alice@example.com'],
    ['alice@example.com', 'alice@example.com'],
    ['a.lice@example.com', 'a.lice@example.com'],
    ['a.lice+x@gmail.com', 'alice@gmail.com'],
    ['a.l.i.c.e@googlemail.com', 'alice@gmail.com'],
    ['+tag@example.com', '+tag@example.com'],
  ])('%s → %s', (address, expected) => {
    expect(mailbox(address)).toBe(expected);
  });

  it('leaves phone numbers as they are', () => {
    expect(mailboxOf({ authType: 'sms', value: '+14155552671' })).toEqual({ authType: 'sms', value: '+14155552671' });
  });

  it('is idempotent, and maps every tagged or dotted variant of an address to one mailbox', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9]{1,10}$/),
        fc.stringMatching(/^[a-z0-9]{0,6}$/),
        fc.constantFrom('example.com', 'gmail.com'),
        (local, tag, domain) => {
          const plain = mailbox(`${local}@${domain}`);
          expect(mailbox(plain)).toBe(plain);
          expect(mailbox(`${local}+${tag}@${domain}`)).toBe(plain);
          if (domain === 'gmail.com' && local.length > 1) expect(mailbox(`${local[0]}.${local.slice(1)}@googlemail.com`)).toBe(plain);
        },
      ),
    );
  });
});
