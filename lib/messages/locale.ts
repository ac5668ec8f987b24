/**
 * Which locale a request is rendered in, and the one piece of grammar the renderers need from it:
 * "N minutes" in the right plural form. The texts themselves are data in lib/messages/locales/.
 *
 * Pure: no I/O, no clock. A request's `locale` never fails the request: at worst it changes the
 * language to the environment's default.
 */
import { LOCALES, SUPPORTED_LOCALES, type Locale } from './locales';

/**
 * True when `value` is a supported locale spelled exactly (case-sensitive); use
 * {@link resolveLocale} for what a request sends.
 * @example isSupportedLocale('de-DE') // true
 * @example isSupportedLocale('de-de') // false
 */
export function isSupportedLocale(value: string): value is Locale {
  return (SUPPORTED_LOCALES as readonly string[]).includes(value);
}

/** Longer than any language-REGION tag worth reading (BCP 47 tags are short); treated as garbage. */
const MAX_LOCALE_TAG_LENGTH = 35;
/** An ISO 639 language subtag, then optional further subtags (BCP 47, RFC 5646 §2.1). */
const LOCALE_TAG_PATTERN = /^([a-z]{2,3})(?:[-_][a-z0-9]{1,8})*$/i;

/**
 * Picks the locale to render in. The request's `locale` is "language-REGION", and a user who asked
 * for Austrian German is better served by German than by the environment's default, so:
 * 1. the full tag, case-insensitively (`_` accepted for `-`, as some clients send `de_DE`);
 * 2. else a supported locale with the same language (`de-AT` → `de-DE`, `pt-PT` → `pt-BR`), the
 *    first of that language in the registry's order;
 * 3. else `fallback`, the environment's default. Missing or malformed input never fails a
 *    request: it only changes the language.
 * @example resolveLocale('de-de', 'en-US') // 'de-DE'
 * @example resolveLocale('en-GB', 'de-DE') // 'en-US'
 * @example resolveLocale('xx', 'fr-FR')    // 'fr-FR'
 */
export function resolveLocale(requested: string | undefined, fallback: Locale): Locale {
  if (requested === undefined) return fallback;
  const tag = requested.trim();
  if (tag.length > MAX_LOCALE_TAG_LENGTH) return fallback;
  const match = LOCALE_TAG_PATTERN.exec(tag);
  if (match === null) return fallback;
  const wanted = tag.replaceAll('_', '-').toLowerCase();
  const exact = SUPPORTED_LOCALES.find((locale) => locale.toLowerCase() === wanted);
  if (exact !== undefined) return exact;
  const language = (match[1] ?? '').toLowerCase();
  const sameLanguage = SUPPORTED_LOCALES.find((locale) => locale.slice(0, locale.indexOf('-')) === language);
  return sameLanguage ?? fallback;
}

/**
 * "5 minutes", "1 Minute": whole minutes rounded up, so a code never outlives what we promise,
 * with the word in the form the locale's CLDR plural rules pick for that number.
 * @example formatMinutes(300, 'en-US') // '5 minutes'
 * @example formatMinutes(61, 'de-DE')  // '2 Minuten'
 * @example formatMinutes(60, 'fr-FR')  // '1 minute'
 */
export function formatMinutes(expiresInSeconds: number, locale: Locale): string {
  const minutes = Math.ceil(expiresInSeconds / 60);
  const { minute } = LOCALES[locale];
  // Every registered locale has a form for each category of its language (a test checks it), so
  // `other` is only a guard for a form that the test would already have reported missing.
  const form = minute[pluralRulesOf(locale).select(minutes)] ?? minute.other;
  return `${minutes} ${form}`;
}

/**
 * One `Intl.PluralRules` per locale for the container's life: making one costs about 85 µs (ICU
 * loads the locale's rules), choosing a form with it about 3 µs, and every email and SMS needs one
 * (docs/performance.md).
 */
const pluralRules = new Map<Locale, Intl.PluralRules>();
function pluralRulesOf(locale: Locale): Intl.PluralRules {
  let rules = pluralRules.get(locale);
  if (rules === undefined) {
    rules = new Intl.PluralRules(locale);
    pluralRules.set(locale, rules);
  }
  return rules;
}
