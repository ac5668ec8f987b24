/**
 * Login sessions, as far as tokens name them: every login (a hosted-page login, or an exchange of
 * the API's one-time code) gets a session id, the `sid` of its ID tokens (OpenID Connect
 * Front-Channel Logout §3, Back-Channel Logout §2.4), kept by its refresh token family so the ID
 * tokens of its refreshes carry the same one. 128 random bits: unguessable, and no user data.
 */
import { randomBytes } from 'node:crypto';

/** A new session id (128 bits from the CSPRNG, base64url: 22 characters). */
export function newSessionId(): string {
  return randomBytes(16).toString('base64url');
}
