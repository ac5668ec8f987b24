/**
 * The locales we have texts and a voice for: one file per locale (`<tag>.ts`, the tag exactly as
 * the registry spells it), each listed once here. Adding a locale is adding its file and its line;
 * test/unit/locales/index.test.ts fails when a file is not registered or a text, a plural form or
 * the voice is missing.
 *
 * A leaf: nothing here imports configuration or domain code (configuration validates
 * `defaultLocale` against this list, and the domain renders with these texts).
 */
import { deDE } from './de-DE';
import { enUS } from './en-US';
import { esES } from './es-ES';
import { frFR } from './fr-FR';
import { ptBR } from './pt-BR';
import type { LocaleStrings } from './types';

export type { LocaleStrings, PluralForms } from './types';

/**
 * Every locale, by its BCP 47 language-REGION tag. Order matters once a language has two regions:
 * a request for a third region of that language gets the first one listed (see resolveLocale in
 * lib/domain/locale.ts). No entry is special otherwise: the default is configuration.
 */
export const LOCALES = {
  'en-US': enUS,
  'de-DE': deDE,
  'fr-FR': frFR,
  'es-ES': esES,
  'pt-BR': ptBR,
} as const satisfies Readonly<Record<string, LocaleStrings>>;

/** One of {@link SUPPORTED_LOCALES}, spelled exactly as there. */
export type Locale = keyof typeof LOCALES;

/** The registry's tags, in its order. */
export const SUPPORTED_LOCALES = Object.freeze(Object.keys(LOCALES) as Locale[]);
