/**
 * Words every layer shares: how a user is identified, how a code travels and how a user logged in.
 * A leaf module (it imports nothing), so the configuration and the domain can both use it and every dependency
 * arrow points one way.
 */

/** How the user is identified: `user_id` is an email address or an E.164 phone number. */
export type AuthType = 'email' | 'sms';
export const AUTH_TYPES: readonly AuthType[] = ['email', 'sms'];

/** How a code travels. `voice` is a call to the phone number of an `sms` user. */
export type Channel = 'email' | 'sms' | 'voice';
export const CHANNELS: readonly [Channel, ...Channel[]] = ['email', 'sms', 'voice'];

/**
 * How a user logged in: a code by one of the {@link CHANNELS}, or a passkey (WebAuthn). `passkey`
 * is a device-bound credential (its authenticator says it is not backup eligible: the key never
 * leaves that device); `synced_passkey` is one that is backup eligible (a passkey a provider such
 * as iCloud Keychain or Google Password Manager syncs between devices). Carried by sessions,
 * authorization codes and refresh families (in a field still named `channel`), and the source of a
 * token's `amr` and `acr` (lib/oauth/access-tokens.ts `amrOf`, `acrOf`).
 */
export type LoginMethod = Channel | 'passkey' | 'synced_passkey';
export const LOGIN_METHODS: readonly [LoginMethod, ...LoginMethod[]] = [...CHANNELS, 'passkey', 'synced_passkey'];

/** Whether `method` is a passkey login (device-bound or synced), as opposed to a code by a channel. */
export function isPasskeyMethod(method: LoginMethod): method is 'passkey' | 'synced_passkey' {
  return method === 'passkey' || method === 'synced_passkey';
}

/**
 * The locales the service has texts and a voice for, as BCP 47 language-REGION tags. Their texts
 * are in lib/messages/locales/ (one file each, registered in its index, which must cover exactly this
 * list: the compiler checks). The list lives here, apart from the texts, so that the configuration
 * and the functions that send no message (token, introspection, well-known) can validate a locale
 * without carrying every language's strings. Order matters once a language has two regions: a
 * request for a third region of that language gets the first one listed (lib/messages/locale.ts).
 */
export const SUPPORTED_LOCALES = [
  // The first five keep their places; a language's further regions come after its first, which
  // is the region a request for one we lack gets (en-AU → en-US, fr-BE → fr-FR, es-AR → es-ES,
  // pt-AO → pt-BR).
  'en-US',
  'de-DE',
  'fr-FR',
  'es-ES',
  'pt-BR',
  'en-GB',
  'fr-CA',
  'es-MX',
  'es-US',
  'pt-PT',
  'it-IT',
  'nl-NL',
  'pl-PL',
  'sv-SE',
  'da-DK',
  'nb-NO',
  'ro-RO',
  'tr-TR',
  'ru-RU',
  'ja-JP',
  'ko-KR',
  'zh-CN',
] as const;

/** One of {@link SUPPORTED_LOCALES}, spelled exactly as there. */
export type Locale = (typeof SUPPORTED_LOCALES)[number];

/**
 * The JWS algorithms access tokens (and ID tokens) are signed with, per client (RFC 7518): ES256
 * (ECDSA P-256 with SHA-256, §3.4: short signatures, fast signing) by default, or RS256 (RSASSA
 * PKCS#1 v1.5 with SHA-256, §3.3) for the consumers that verify RSA only, such as API Gateway's
 * JWT authorizers.
 */
export const SIGNING_ALGORITHMS = ['ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/**
 * The grant types the token endpoint takes (RFC 6749 §4.1.3, §6; metadata `grant_types_supported`,
 * which lists `refresh_token` only when some client is issued refresh tokens).
 */
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/**
 * The JWS algorithms a client may sign its `private_key_jwt` assertions with (RFC 7523 §3; metadata
 * `token_endpoint_auth_signing_alg_values_supported`): RS256 (which OIDC Discovery §3 says servers
 * SHOULD support), PS256, ES256 and EdDSA. Never `none`, and no HMAC: the service holds no client
 * secret in clear, so `client_secret_jwt` cannot be checked.
 */
export const CLIENT_ASSERTION_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

/** The response types the authorization endpoint answers (OIDC Core §3: the code flow only). */
export const RESPONSE_TYPES = ['code'] as const;

/**
 * How the authorization endpoint returns its response (metadata `response_modes_supported`):
 * `query`, the code flow's default, or `form_post` (OAuth 2.0 Form Post Response Mode).
 */
export const RESPONSE_MODES = ['query', 'form_post'] as const;

/** How `sub` is chosen for a client (OIDC Core §8): one per user, or one per user and sector (§8.1). */
export const SUBJECT_TYPES = ['public', 'pairwise'] as const;
export type SubjectType = (typeof SUBJECT_TYPES)[number];

/**
 * How a client authenticates at the token endpoint (the IANA registry's names, RFC 7591 §2): the
 * ones the service accepts, and so the `token_endpoint_auth_methods_supported` of its metadata.
 */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];
