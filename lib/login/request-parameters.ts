/**
 * What the service's browser endpoints (the authorization endpoint, lib/login/authorize.ts, and
 * the end-session endpoint, lib/login/end-session.ts) share about their requests and their
 * redirects: the longest parameter, the page's locale, and a redirect URI with parameters added.
 * A module of its own, so the end-session endpoint does not ship the login page's code checks and
 * phone data.
 */
import type { ServiceConfig } from '../platform/config';
import type { Locale } from '../messages/locales';
import { SUPPORTED_LOCALES } from '../platform/vocabulary';
import { resolveLocale } from '../messages/locale';

/** The longest value any parameter may have: far above every legitimate one, far below abuse. */
export const MAX_PARAMETER_LENGTH = 2048;

/**
 * The longest `id_token_hint`: an ID token of ours carries its client's `nonce`, which the
 * authorization endpoint takes up to MAX_PARAMETER_LENGTH, besides its other claims and an RS256
 * signature; four times that is room for all of it, and still bounds the work a request asks.
 */
export const MAX_ID_TOKEN_HINT_LENGTH = 4 * MAX_PARAMETER_LENGTH;

/** The longest a parameter `name` may be: an `id_token_hint` is longer than any other. */
export function maxLengthOf(name: string): number {
  return name === 'id_token_hint' ? MAX_ID_TOKEN_HINT_LENGTH : MAX_PARAMETER_LENGTH;
}

/**
 * The locale of the page: the first supported of `ui_locales` (OIDC Core §3.1.2.1, in order of
 * preference), then of Accept-Language (RFC 9110 §12.5.4, by quality; `q=0` means "not this"),
 * then the default environment's. A tag counts when its language is one the service speaks
 * (`pt` → pt-BR, `de-AT` → de-DE).
 */
export function pickLocale(uiLocales: string | undefined, acceptLanguage: string | undefined, config: ServiceConfig): Locale {
  const fallback = config.environment(undefined)?.defaultLocale ?? 'en-US';
  const candidates = [...(uiLocales ?? '').split(' ').slice(0, 10), ...byQuality(acceptLanguage)].filter(
    (tag) => tag !== '' && tag !== '*',
  );
  for (const candidate of candidates) {
    const resolved = resolveLocale(candidate, fallback);
    const language = candidate.toLowerCase().split(/[-_]/)[0];
    if (SUPPORTED_LOCALES.some((locale) => locale === resolved && locale.toLowerCase().startsWith(`${language}-`))) return resolved;
  }
  return fallback;
}

/** Accept-Language's tags, the most preferred first (a stable sort keeps the header's order among equals). */
function byQuality(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .slice(0, 20)
    .map((part) => {
      const [tag = '', ...parameters] = part.split(';').map((piece) => piece.trim());
      const q = parameters.find((parameter) => /^q=/i.test(parameter));
      const quality = q === undefined ? 1 : Number(q.slice(2));
      return { tag, quality: Number.isFinite(quality) ? quality : 0 };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality)
    .map((entry) => entry.tag);
}

/** The redirect URI with `parameters` added to its query (RFC 6749 §4.1.2: keeping any query it has). */
export function redirectWith(redirectUri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
