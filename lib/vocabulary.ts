/**
 * Words every layer shares: how a user is identified and how a code travels. A leaf module (it
 * imports nothing), so the configuration and the domain can both use it and every dependency
 * arrow points one way.
 */

/** How the user is identified: `user_id` is an email address or an E.164 phone number. */
export type AuthType = 'email' | 'sms';
export const AUTH_TYPES: readonly AuthType[] = ['email', 'sms'];

/** How a code travels. `voice` is a call to the phone number of an `sms` user. */
export type Channel = 'email' | 'sms' | 'voice';
export const CHANNELS: readonly [Channel, ...Channel[]] = ['email', 'sms', 'voice'];
