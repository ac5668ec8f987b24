/**
 * The passkeys page names a passkey by its provider where the AAGUID is a well-known one, and
 * says "Passkey" (undefined here) otherwise.
 */
import { passkeyNameOf } from '../../../lib/passkeys/authenticators';

it.each([
  ['fbfc3007-154e-4ecc-8c0b-6e020557d7bd', 'iCloud Keychain'],
  ['ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4', 'Google Password Manager'],
  ['08987058-cadc-4b81-b6e1-30de50dcbe96', 'Windows Hello'],
  ['bada5566-a7aa-401f-bd96-45619a55120d', '1Password'],
  ['D548826E-79B4-DB40-A3D8-11116F7E8349', 'Bitwarden'],
])('names %s %s', (aaguid, name) => {
  expect(passkeyNameOf(aaguid)).toBe(name);
});

it.each([['00000000-0000-0000-0000-000000000000'], ['11111111-2222-3333-4444-555555555555'], ['toString'], ['__proto__'], ['']])(
  'names no provider for %j',
  (aaguid) => {
    expect(passkeyNameOf(aaguid)).toBeUndefined();
  },
);
