/**
 * The passkeys' relying party id (WebAuthn L3 §5.1.2 `rp.id`): the stage's `passkeys.rpId`, else
 * the issuer's host name (the custom domain on a stage that has one). One function, so that what
 * the ceremonies bind a passkey to and what the SMS's origin-bound line names
 * (lib/messages/origin-bound-code.ts) never differ. Pure and dependency-free: the code-sending
 * functions import it without the WebAuthn library.
 */

/**
 * @example rpIdOf(undefined, 'https://id.example.com/') // 'id.example.com'
 * @example rpIdOf('example.com', 'https://id.example.com') // 'example.com'
 * @example rpIdOf(undefined, 'http://localhost:3000')   // 'localhost' (no port: an RP ID is a host)
 */
export function rpIdOf(configured: string | undefined, issuer: string): string {
  return configured ?? new URL(issuer).hostname;
}
