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
  // The rest of the table, as github.com/passkeydeveloper/passkey-authenticator-aaguids names them.
  ['adce0002-35bc-c60a-648b-0b25f1f05503', 'Chrome on Mac'],
  ['b5397666-4885-aa6b-cebf-e52262a439a2', 'Chromium Browser'],
  ['771b48fd-d3d4-4f74-9232-fc157ab0507a', 'Edge on Mac'],
  ['9ddd1817-af5a-4672-a2b9-3e3dd95000a9', 'Windows Hello'],
  ['dd4ec289-e01d-41c9-bb89-70fa845d4bf2', 'iCloud Keychain (Managed)'],
  ['531126d6-e717-415c-9320-3d9aa6981239', 'Dashlane'],
  ['53414d53-554e-4700-0000-000000000000', 'Samsung Pass'],
  ['fdb141b2-5d84-443e-8a35-4698c205a502', 'KeePassXC'],
  ['50726f74-6f6e-5061-7373-50726f746f6e', 'Proton Pass'],
  ['0ea242b4-43c4-4a1b-8b17-dd6d0b6baec6', 'Keeper'],
  ['b78a0a55-6ef8-d246-a042-ba0f6d55050c', 'LastPass'],
  ['b84e4048-15dc-4dd0-8640-f4f60813c8af', 'NordPass'],
  ['f3809540-7f14-49c1-a8b3-8f813b225541', 'Enpass'],
])('names %s %s', (aaguid, name) => {
  expect(passkeyNameOf(aaguid)).toBe(name);
});

it.each([['00000000-0000-0000-0000-000000000000'], ['11111111-2222-3333-4444-555555555555'], ['toString'], ['__proto__'], ['']])(
  'names no provider for %j',
  (aaguid) => {
    expect(passkeyNameOf(aaguid)).toBeUndefined();
  },
);
