import fc from 'fast-check';
import * as z from 'zod/mini';
import { enumField, optionalTextField, parseFields, textField } from '../../../lib/platform/request-fields';
import { InvalidRequestError } from '../../../lib/platform/errors';

/** The InvalidRequestError `fn` throws; fails the test when it throws nothing or something else. */
function invalidRequest(fn: () => unknown): InvalidRequestError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    return error as InvalidRequestError;
  }
  throw new Error('expected an InvalidRequestError, nothing was thrown');
}

const schema = z.object({
  client_id: textField('client_id', 10),
  state: optionalTextField('state', 5),
  auth_type: enumField('auth_type', ['email', 'sms']),
});

const valid = { client_id: 'local-web', auth_type: 'email' };

describe('parseFields', () => {
  it('returns the parsed fields', () => {
    // Act
    const fields = parseFields(schema, { ...valid, state: 'xyz' });

    // Assert
    expect(fields).toEqual({ client_id: 'local-web', state: 'xyz', auth_type: 'email' });
  });

  it('ignores unknown fields (RFC 6749 §3.1) and does not return them', () => {
    // Act
    const fields = parseFields(schema, { ...valid, response_type: 'code', nonce: 42 });

    // Assert
    expect(fields).toEqual({ client_id: 'local-web', auth_type: 'email' });
    expect(fields).not.toHaveProperty('response_type');
  });

  it('throws a 400 invalid_request', () => {
    // Act
    const error = invalidRequest(() => parseFields(schema, {}));

    // Assert
    expect(error.statusCode).toBe(400);
    expect(error.error).toBe('invalid_request');
  });

  it('reports the first problem only, as one sentence', () => {
    const error = invalidRequest(() => parseFields(schema, { client_id: '', auth_type: 'fax' }));
    expect(error.description).toBe('client_id must not be empty.');
  });

  it('rejects a body that is not an object with a 400', () => {
    for (const body of [null, 'client_id=x', 42, []]) {
      const error = invalidRequest(() => parseFields(schema, body));
      expect(error.statusCode).toBe(400);
    }
  });
});

describe('textField', () => {
  const fields = z.object({ user_id: textField('user_id', 10) });

  it.each<[string, unknown, string]>([
    ['missing', undefined, 'user_id is required.'],
    ['a number', 42, 'user_id must be a string.'],
    ['null', null, 'user_id must be a string.'],
    ['an array', ['a'], 'user_id must be a string.'],
    ['an object', { a: 1 }, 'user_id must be a string.'],
    ['empty', '', 'user_id must not be empty.'],
    ['11 characters', 'a'.repeat(11), 'user_id must be at most 10 characters.'],
  ])('names the field when it is %s', (_label, value, message) => {
    // Arrange
    const body = value === undefined ? {} : { user_id: value };

    // Act
    const error = invalidRequest(() => parseFields(fields, body));

    // Assert
    expect(error.description).toBe(message);
  });

  it('accepts exactly max characters', () => {
    expect(parseFields(fields, { user_id: 'a'.repeat(10) })).toEqual({ user_id: 'a'.repeat(10) });
  });

  it('property: accepts every string of 1..max characters unchanged', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 10 }), (value) => {
        expect(parseFields(fields, { user_id: value })).toEqual({ user_id: value });
      }),
    );
  });

  it('property: every rejection names the field', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        try {
          parseFields(fields, { user_id: value });
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidRequestError);
          expect((error as InvalidRequestError).description).toMatch(/^user_id /);
        }
      }),
    );
  });
});

describe('optionalTextField', () => {
  const fields = z.object({ state: optionalTextField('state', 5) });

  it('is undefined when missing', () => {
    expect(parseFields(fields, {}).state).toBeUndefined();
  });

  it('is undefined when empty (an empty form value is no value)', () => {
    expect(parseFields(fields, { state: '' }).state).toBeUndefined();
  });

  it('keeps a non-empty value of up to max characters', () => {
    expect(parseFields(fields, { state: 'abcde' }).state).toBe('abcde');
  });

  it.each<[string, unknown, string]>([
    ['a number', 5, 'state must be a string.'],
    ['null', null, 'state must be a string.'],
    ['too long', 'abcdef', 'state must be at most 5 characters.'],
  ])('names the field when it is %s', (_label, value, message) => {
    const error = invalidRequest(() => parseFields(fields, { state: value }));
    expect(error.description).toBe(message);
  });
});

describe('enumField', () => {
  it.each<[string, unknown, string]>([
    ['missing', undefined, 'auth_type is required.'],
    ['another value', 'fax', "auth_type must be 'email' or 'sms'."],
    ['another case', 'EMAIL', "auth_type must be 'email' or 'sms'."],
    ['a number', 1, "auth_type must be 'email' or 'sms'."],
    ['empty', '', "auth_type must be 'email' or 'sms'."],
  ])('names the field and lists the values when it is %s', (_label, value, message) => {
    // Arrange
    const fields = z.object({ auth_type: enumField('auth_type', ['email', 'sms']) });
    const body = value === undefined ? {} : { auth_type: value };

    // Act
    const error = invalidRequest(() => parseFields(fields, body));

    // Assert
    expect(error.description).toBe(message);
  });

  it('lists three values', () => {
    const fields = z.object({ method: enumField('method', ['email', 'sms', 'voice_with_otp']) });
    const error = invalidRequest(() => parseFields(fields, { method: 'fax' }));
    expect(error.description).toBe("method must be 'email' or 'sms' or 'voice_with_otp'.");
  });

  it('lists a single value', () => {
    const fields = z.object({ grant_type: enumField('grant_type', ['authorization_code']) });
    const error = invalidRequest(() => parseFields(fields, { grant_type: 'password' }));
    expect(error.description).toBe("grant_type must be 'authorization_code'.");
  });

  it('accepts each listed value', () => {
    const fields = z.object({ auth_type: enumField('auth_type', ['email', 'sms']) });
    expect(parseFields(fields, { auth_type: 'email' })).toEqual({ auth_type: 'email' });
    expect(parseFields(fields, { auth_type: 'sms' })).toEqual({ auth_type: 'sms' });
  });
});
