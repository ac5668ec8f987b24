/**
 * The suite-wide log check itself: it finds what it must, and a broken flow that hands it
 * `undefined` (a token that never came) cannot crash it in afterAll and hide the real failure.
 */
import { logLeaks, rememberSecret } from '../../support/log-capture';

describe('the log check', () => {
  it('ignores a secret that is not a non-empty string, and keeps checking', () => {
    expect(() => {
      rememberSecret(undefined);
      rememberSecret(null);
      rememberSecret('');
      rememberSecret(123456);
    }).not.toThrow();
    expect(logLeaks(['{"message":"token issued"}', ''])).toEqual([]);
  });

  it('finds a remembered secret as a whole word, an email address and a phone number', () => {
    rememberSecret('s3cr3t-T0ken.value');
    expect(logLeaks(['{"token":"s3cr3t-T0ken.value"}'])).toHaveLength(1);
    expect(logLeaks(['{"token":"xs3cr3t-T0ken.value"}'])).toEqual([]);
    expect(logLeaks(['mail to someone@example.com'])).toHaveLength(1);
    expect(logLeaks(['call +14155550123 now'])).toHaveLength(1);
  });
});
