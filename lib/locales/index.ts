/**
 * The locales we have texts and a voice for: one file per locale (`<tag>.ts`, the tag exactly as
 * the registry spells it), each listed once here. Adding a locale is adding its file and its line;
 * test/unit/locales/index.test.ts fails when a file is not registered or a text, a plural form or
 * the voice is missing.
 *
 * A leaf: nothing here imports configuration or domain code, only the list of tags
 * (lib/vocabulary.ts), which configuration validates `defaultLocale` against.
 */
import { daDK } from './da-DK';
import { deDE } from './de-DE';
import { enGB } from './en-GB';
import { enUS } from './en-US';
import { esES } from './es-ES';
import { esMX } from './es-MX';
import { esUS } from './es-US';
import { frCA } from './fr-CA';
import { frFR } from './fr-FR';
import { itIT } from './it-IT';
import { jaJP } from './ja-JP';
import { koKR } from './ko-KR';
import { nbNO } from './nb-NO';
import { nlNL } from './nl-NL';
import { plPL } from './pl-PL';
import { ptBR } from './pt-BR';
import { ptPT } from './pt-PT';
import { roRO } from './ro-RO';
import { ruRU } from './ru-RU';
import { svSE } from './sv-SE';
import { trTR } from './tr-TR';
import { zhCN } from './zh-CN';
import { SUPPORTED_LOCALES, type Locale } from '../vocabulary';
import type { LocaleStrings } from './types';

export type { LocaleStrings, PluralForms } from './types';

/**
 * Every locale's texts, by its tag. The type makes the registry cover exactly the tags of
 * lib/vocabulary.ts `SUPPORTED_LOCALES`, whose order is the one that matters.
 */
export const LOCALES: Readonly<Record<Locale, LocaleStrings>> = {
  'en-US': enUS,
  'de-DE': deDE,
  'fr-FR': frFR,
  'es-ES': esES,
  'pt-BR': ptBR,
  'en-GB': enGB,
  'fr-CA': frCA,
  'es-MX': esMX,
  'es-US': esUS,
  'pt-PT': ptPT,
  'it-IT': itIT,
  'nl-NL': nlNL,
  'pl-PL': plPL,
  'sv-SE': svSE,
  'da-DK': daDK,
  'nb-NO': nbNO,
  'ro-RO': roRO,
  'tr-TR': trTR,
  'ru-RU': ruRU,
  'ja-JP': jaJP,
  'ko-KR': koKR,
  'zh-CN': zhCN,
};

export { SUPPORTED_LOCALES, type Locale };
