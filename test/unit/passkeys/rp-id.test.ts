import { relyingPartyOf } from '../../../lib/passkeys/ceremonies';
import { rpIdOf } from '../../../lib/passkeys/rp-id';

describe('rpIdOf', () => {
  it.each<[string | undefined, string, string]>([
    [undefined, 'https://id.example.com', 'id.example.com'],
    [undefined, 'https://id.example.com/', 'id.example.com'],
    [undefined, 'http://localhost:3000', 'localhost'],
    [undefined, 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod', 'abc123.execute-api.eu-west-1.amazonaws.com'],
    ['example.com', 'https://id.example.com', 'example.com'],
  ])('configured %p, issuer %s: %s (a host, never a port or path)', (configured, issuer, expected) => {
    expect(rpIdOf(configured, issuer)).toBe(expected);
  });

  // What an SMS's origin-bound line names (lib/otp/issue.ts) and what the ceremonies bind a passkey to: one domain.
  it.each<[string | undefined, string]>([
    [undefined, 'http://localhost:3000'],
    [undefined, 'https://id.example.com'],
    ['example.com', 'https://id.example.com'],
  ])('is the ceremonies’ relying party id (configured %p, issuer %s)', (configured, issuer) => {
    expect(rpIdOf(configured, issuer)).toBe(relyingPartyOf(configured, issuer, 'Acme').id);
  });
});
